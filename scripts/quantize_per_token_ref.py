# The reference for examples/quantize_per_token.rs: vLLM's dynamic per-token
# fp8 quantization in PyTorch (scale = max(absmax / 448, 1 / (448 * 512)) per
# row, q = e4m3(x / scale) saturated), eager and under torch.compile, and a
# copy of the input's bytes, at the example's sizes, timed with CUDA events
# around 20 launches.
import torch


def quantize(x):
    xf = x.float()
    scale = torch.clamp(xf.abs().amax(dim=-1, keepdim=True) / 448.0, min=1.0 / (448.0 * 512.0))
    q = (xf / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q, scale


compiled = torch.compile(quantize)


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
    y = torch.empty_like(x)
    q, s = compiled(x)
    q0, s0 = quantize(x)
    # torch.compile may compute x / scale differently (a reciprocal): count what differs.
    print(f"compiled vs eager {m} x {n}: {(s != s0).sum().item()} scales and "
          f"{(q.view(torch.uint8) != q0.view(torch.uint8)).sum().item()} bytes differ")
    nbytes = m * n * 3 + m * 4
    for name, f in [("torch.compile quantize", lambda: compiled(x)), ("eager quantize", lambda: quantize(x))]:
        ms = timed(f)
        print(f"{name} {m} x {n} bf16 -> e4m3: {ms:.4f} ms, {nbytes / ms / 1e6:.1f} GB/s (x read + q and scales written)")
    ms = timed(lambda: y.copy_(x))
    print(f"copy of x {m} x {n} bf16: {ms:.4f} ms, {2 * m * n * 2 / ms / 1e6:.1f} GB/s (read + write)")
