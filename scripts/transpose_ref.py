# The reference for examples/transpose.rs: PyTorch's transpose of an f32
# [16384, 16384] tensor (x.t().contiguous(), into a preallocated tensor with
# copy_) and a copy of the same bytes, timed with CUDA events around 20 launches.
import torch


def timed(f, runs=20):
    f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(runs):
        f()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / runs


n = 16384
x = torch.randn(n, n, device="cuda")
y = torch.empty_like(x)
nbytes = 2 * n * n * 4
for name, f in [("torch y.copy_(x.t())", lambda: y.copy_(x.t())), ("copy of the same bytes", lambda: y.copy_(x))]:
    ms = timed(f)
    print(f"{name} {n} x {n} f32: {ms:.4f} ms, {nbytes / ms / 1e6:.1f} GB/s (read + write)")
