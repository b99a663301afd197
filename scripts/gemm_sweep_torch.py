# References for `GEMM_SM90_SWEEP_K` of examples/gemm_sm90.rs: cuBLAS bf16
# (torch.matmul) and cuBLASLt fp8 e4m3 (torch._scaled_mm, bf16 out) at
# MN x MN x k, timed like the example (3 warm-ups, the mean of 20 launches).
# Usage: python3 gemm_sweep_torch.py [MN [k,k,..]]
import sys
import time

import torch


def timed(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    runs = 20
    start = time.perf_counter()
    for _ in range(runs):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / runs


m = n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
ks = [int(k) for k in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1024, 2048, 4096, 8192, 16384]
one = torch.tensor(1.0, device="cuda")
for k in ks:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    a8 = (torch.randn(m, k, device="cuda") * 8).to(torch.float8_e4m3fn)
    b8 = (torch.randn(n, k, device="cuda") * 8).to(torch.float8_e4m3fn)
    bf16 = timed(lambda: torch.matmul(a, b.t()))
    fp8 = timed(lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    flop = 2 * m * n * k
    print(
        f"torch {m} x {n} x {k}: cuBLAS bf16 {flop / bf16 / 1e12:.1f} TFLOP/s, "
        f"_scaled_mm e4m3 {flop / fp8 / 1e12:.1f} TFLOP/s"
    )
