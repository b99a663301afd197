#!/usr/bin/env python3
"""PyTorch's rows for the conversion benchmark, in the format of
`cargo run --release --example bench`: median of 30 timed runs (CUDA events,
after 5 warm-ups), effective bandwidth (bytes read + written) and the ratio
to a device-to-device copy measured in the same run.

Usage: python3 scripts/bench_torch.py [log2 N]   (default 28)
"""
import statistics
import sys

import torch

WARMUP, TIMED = 5, 30


def time_ms(fn):
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(TIMED):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def row(name, elements, nbytes, ms, copy_gbs):
    gbs = nbytes / (ms * 1e-3) / 1e9
    ratio = "1.000" if copy_gbs is None else f"{gbs / copy_gbs:.3f}"
    print(f"| {name:<22} | {elements:>11} | {nbytes:>12} | {ms:>9.4f} | {gbs:>8.1f} | {ratio:>8} |")
    return gbs


def main():
    log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 28
    n = 1 << log2
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(dev)}, N = 2^{log2}, PyTorch {torch.__version__}, "
          f"median of {TIMED} runs after {WARMUP} warm-ups")
    print("| kernel                 |    elements |  bytes moved |   time ms |     GB/s | vs copy |")
    print("|------------------------|-------------|--------------|-----------|----------|---------|")
    x = torch.full((n,), 1.5, dtype=torch.float32, device=dev)
    dst = torch.empty_like(x)
    copy = row("torch copy_ f32", n, 8 * n, time_ms(lambda: dst.copy_(x)), None)
    del dst
    y16 = torch.empty(n, dtype=torch.float16, device=dev)
    row("torch f32 -> f16", n, 6 * n, time_ms(lambda: y16.copy_(x)), copy)
    yb = torch.empty(n, dtype=torch.bfloat16, device=dev)
    row("torch f32 -> bf16", n, 6 * n, time_ms(lambda: yb.copy_(x)), copy)
    del yb
    y8 = torch.empty(n, dtype=torch.float8_e4m3fn, device=dev)
    row("torch f32 -> e4m3", n, 5 * n, time_ms(lambda: y8.copy_(x)), copy)
    del y8
    y32 = torch.empty(n, dtype=torch.float32, device=dev)
    row("torch f16 -> f32", n, 6 * n, time_ms(lambda: y32.copy_(y16)), copy)
    # The allocating forms users write most often.
    row("torch x.half()", n, 6 * n, time_ms(lambda: x.half()), copy)
    row("torch x.float() (f16)", n, 6 * n, time_ms(lambda: y16.float()), copy)
    del y16, y32
    # fp8 quantization with per-block scales, as examples/quantize_e4m3.rs
    # defines it: scale = max(absmax, 1e-12) / 448, q = e4m3(x / scale).
    for block in (32, 128):
        blocks = n // block
        nbytes = 5 * n + 4 * blocks

        def quantize(x=x, block=block):
            xb = x.view(-1, block)
            scale = xb.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 448.0
            return (xb / scale).to(torch.float8_e4m3fn), scale

        row(f"torch quantize /{block}", n, nbytes, time_ms(quantize), copy)
        try:
            compiled = torch.compile(quantize)
            row(f"torch.compile quant /{block}", n, nbytes, time_ms(compiled), copy)
        except Exception as e:  # no compiler backend on this machine
            print(f"torch.compile quantize /{block}: unavailable ({type(e).__name__}: {str(e)[:80]})")


if __name__ == "__main__":
    main()
