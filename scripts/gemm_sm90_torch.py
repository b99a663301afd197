# References for examples/gemm_sm90.rs, 4096^3 (and bf16 at 8192^3), timed like the example
# (3 warm-ups, the mean of 20 launches): cuBLAS bf16 (torch.matmul),
# cuBLAS + the epilogue as separate ops (F.silu(torch.addmm(bias, ..))),
# cuBLASLt fp8 e4m3 with scales (torch._scaled_mm, bf16 out).
import time
import torch
import torch.nn.functional as F

m = n = k = 4096


def timed(name, fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    runs = 20
    start = time.perf_counter()
    for _ in range(runs):
        fn()
    torch.cuda.synchronize()
    s = (time.perf_counter() - start) / runs
    print(f"{name} {m} x {n} x {k}: {s*1e3:.3f} ms, {2*m*n*k/s/1e12:.1f} TFLOP/s")


a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
timed("torch.matmul (cuBLAS) bf16 (A B^T, bf16 out)", lambda: torch.matmul(a, b.t()))
timed("F.silu(torch.addmm(bias, A, B^T)) bf16", lambda: F.silu(torch.addmm(bias, a, b.t())))
a8 = (torch.randn(m, k, device="cuda") * 8).to(torch.float8_e4m3fn)
b8 = (torch.randn(n, k, device="cuda") * 8).to(torch.float8_e4m3fn)
one = torch.tensor(1.0, device="cuda")
timed(
    "torch._scaled_mm (cuBLASLt) e4m3 (scaled, bf16 out)",
    lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
)

# bf16 at 8192^3 (the example's bf16-output kernels are timed there too).
m = n = k = 8192
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
timed("torch.matmul (cuBLAS) bf16 (A B^T, bf16 out)", lambda: torch.matmul(a, b.t()))
