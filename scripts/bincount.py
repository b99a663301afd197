import torch
n = 1 << 28
x = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
for _ in range(3):
    torch.bincount(x, minlength=256)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(20):
    torch.bincount(x, minlength=256)
e.record(); e.synchronize()
ms = s.elapsed_time(e) / 20
print(f"torch.bincount of 2^28 u8: {ms:.4f} ms per call, {n / ms / 1e6:.1f} GB/s")
y = torch.empty_like(x)
s.record()
for _ in range(20):
    y.copy_(x)
e.record(); e.synchronize()
ms = s.elapsed_time(e) / 20
print(f"copy of 2^28 bytes: {ms:.4f} ms, {2 * n / ms / 1e6:.1f} GB/s (read + write)")
