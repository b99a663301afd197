# The reference for examples/rms_norm.rs: LLaMA's RMSNorm computed in f32 and
# rounded once to bf16, eager and under torch.compile, and a copy of the same
# bytes, at the example's sizes, timed with CUDA events around 20 launches.
import torch


def rms_norm(x, w, eps: float = 1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(torch.bfloat16)


compiled = torch.compile(rms_norm)


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


for m, n in [(16384, 4096), (8192, 8192)]:
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    w = (torch.rand(n, device="cuda") + 0.5).to(torch.bfloat16)
    y = torch.empty_like(x)
    torch.testing.assert_close(compiled(x, w), rms_norm(x, w))
    nbytes = 2 * m * n * 2
    for name, f in [("torch.compile rms_norm", lambda: compiled(x, w)), ("eager rms_norm", lambda: rms_norm(x, w)),
                    ("copy of the same bytes", lambda: y.copy_(x))]:
        ms = timed(f)
        print(f"{name} {m} x {n} bf16: {ms:.4f} ms, {nbytes / ms / 1e6:.1f} GB/s (x read + y written)")
