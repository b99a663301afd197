import torch, time
m = n = k = 4096
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    c = torch.matmul(a, b.t())
torch.cuda.synchronize()
runs = 20
start = time.perf_counter()
for _ in range(runs):
    c = torch.matmul(a, b.t())
torch.cuda.synchronize()
s = (time.perf_counter() - start) / runs
print(f"torch.matmul (cuBLAS) bf16 {m} x {n} x {k} (A B^T, bf16 out): {s*1e3:.3f} ms, {2*m*n*k/s/1e12:.1f} TFLOP/s")
c = torch.matmul(a.float(), b.float().t())
torch.cuda.synchronize()
