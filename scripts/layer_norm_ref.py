# The reference for examples/layer_norm.rs: the forward kernel of Triton's
# layer-norm tutorial (triton-lang.org, "Layer Normalization", reproduced
# here as the tutorial writes it, with its launch), F.layer_norm and a copy
# of the same bytes, at the example's sizes, timed with CUDA events around
# 20 launches like the example.
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps, y, mean, rstd):
    M, N = x.shape
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    return lambda: _layer_norm_fwd_fused[(M, )](x, y, weight, bias, mean, rstd, x.stride(0), N, eps,
                                               BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_ctas=1)


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
    x = torch.randn(m, n, device="cuda")
    w = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    run = layer_norm(x, w, b, 1e-5, y, mean, rstd)
    run()
    torch.testing.assert_close(y, F.layer_norm(x, (n, ), w, b, 1e-5))
    nbytes = 2 * m * n * 4
    for name, f in [("triton tutorial layer_norm", run), ("F.layer_norm", lambda: F.layer_norm(x, (n, ), w, b, 1e-5)),
                    ("copy of the same bytes", lambda: y.copy_(x))]:
        ms = timed(f)
        print(f"{name} {m} x {n} f32: {ms:.4f} ms, {nbytes / ms / 1e6:.1f} GB/s (x read + y written)")
