// The ceiling of any kernel built on `mma.sync` on this GPU: each warp runs
// `iters` rounds of 16 independent `mma.sync.m16n8k16` bf16 -> f32 (no
// memory traffic). docs/performance.md compares the sm_80-style GEMM with it.
//
//   nvcc -O3 -arch=sm_90 -o mma_peak scripts/mma_peak.cu && ./mma_peak
#include <cstdio>
#include <cuda_runtime.h>

__global__ void peak(float* out, int iters) {
  float acc[16][4] = {};
  unsigned a[4] = {threadIdx.x, 1u, 2u, 3u}, b[2] = {5u, threadIdx.x};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
          "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
          : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
  float s = 0;
  for (int j = 0; j < 16; ++j) s += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
  if (s == 12345.0f) out[0] = s;  // keeps the work alive
}

int main() {
  float* out;
  cudaMalloc(&out, 4);
  const int iters = 4096;
  for (int warps = 4; warps <= 16; warps *= 2) {
    const int threads = warps * 32, blocks = 132 * (warps >= 8 ? 2 : 4);
    peak<<<blocks, threads>>>(out, 16);
    cudaEvent_t start, end;
    cudaEventCreate(&start);
    cudaEventCreate(&end);
    cudaEventRecord(start);
    peak<<<blocks, threads>>>(out, iters);
    cudaEventRecord(end);
    cudaEventSynchronize(end);
    float ms;
    cudaEventElapsedTime(&ms, start, end);
    const double flops = 2.0 * 16 * 8 * 16 * 16.0 * iters * warps * blocks;
    printf("warps/block %d blocks %d: %.3f ms, %.1f TFLOP/s\n", warps, blocks, ms,
           flops / ms / 1e9);
  }
  return 0;
}
