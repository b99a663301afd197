# cuBLAS (torch.matmul) bf16 at 8192^3, sustained: `reps` launches (default 2000) after 3 warm-ups,
# the mean time; with `GEMM_SM90_PROFILE_REPS` of examples/gemm_sm90.rs, for kernels at the board's power cap.
import sys, time, torch
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
m = n = k = 8192
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    torch.matmul(a, b.t())
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(reps):
    torch.matmul(a, b.t())
torch.cuda.synchronize()
s = (time.perf_counter() - start) / reps
print(f"torch.matmul 8192^3: {reps} launches, {s*1e3:.3f} ms, {2*m*n*k/s/1e12:.1f} TFLOP/s")
