// Dumps random mma.m8n8k4.f64 instances and the H200's results for
// scripts/mma_f64_models.py: per trial A[8][4], B[4][8], C[8][8], D[8][8] as
// f64 bits, into $OUT/mma_f64.bin (docs/interpreter.md, "Tensor cores").
//
//   nvcc -O3 -arch=sm_90 -o mma_f64_probe scripts/mma_f64_probe.cu && OUT=. ./mma_f64_probe
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
#include <cuda_runtime.h>
__global__ void k(const double* A, const double* B, const double* C, double* D) {
  int t = blockIdx.x, l = threadIdx.x;
  const double* a = A + t * 32; const double* b = B + t * 32; const double* c = C + t * 64; double* d = D + t * 64;
  double av = a[(l / 4) * 4 + l % 4];          // A row-major 8x4: lane l = row l/4, col l%4
  double bv = b[(l % 4) * 8 + l / 4];          // B 4x8: lane l = row l%4, col l/4
  double c0 = c[(l / 4) * 8 + 2 * (l % 4)], c1 = c[(l / 4) * 8 + 2 * (l % 4) + 1];
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1) : "d"(av), "d"(bv), "d"(c0), "d"(c1));
  d[(l / 4) * 8 + 2 * (l % 4)] = d0; d[(l / 4) * 8 + 2 * (l % 4) + 1] = d1;
}
int main() {
  const int T = 4096;
  std::mt19937_64 rng(12345);
  std::vector<double> A(T * 32), B(T * 32), C(T * 64), D(T * 64);
  auto gen = [&](int spread) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-spread, spread);
    return std::ldexp(u(rng), e(rng));
  };
  for (int t = 0; t < T; ++t) {
    int spread = (t % 4) * 20;  // 0, 20, 40, 60
    // t % 16 == 13: products near the subnormal range; 14: near overflow.
    int shift = t % 16 == 13 ? -530 : t % 16 == 14 ? 510 : 0;
    for (int i = 0; i < 32; ++i) { A[t * 32 + i] = std::ldexp(gen(spread), shift); B[t * 32 + i] = std::ldexp(gen(spread), shift); }
    for (int i = 0; i < 64; ++i) C[t * 64 + i] = (t % 8 == 7) ? 0.0 : std::ldexp(gen(spread), 2 * shift);
  }
  double *dA, *dB, *dC, *dD;
  cudaMalloc(&dA, A.size() * 8); cudaMalloc(&dB, B.size() * 8); cudaMalloc(&dC, C.size() * 8); cudaMalloc(&dD, D.size() * 8);
  cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), C.size() * 8, cudaMemcpyHostToDevice);
  k<<<T, 32>>>(dA, dB, dC, dD);
  cudaMemcpy(D.data(), dD, D.size() * 8, cudaMemcpyDeviceToHost);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  const char* out = getenv("OUT");
  char path[512]; snprintf(path, sizeof path, "%s/mma_f64.bin", out ? out : ".");
  FILE* f = fopen(path, "wb");
  for (int t = 0; t < T; ++t) {
    fwrite(&A[t * 32], 8, 32, f); fwrite(&B[t * 32], 8, 32, f); fwrite(&C[t * 64], 8, 64, f); fwrite(&D[t * 64], 8, 64, f);
  }
  fclose(f);
  return 0;
}
