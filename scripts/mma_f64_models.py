"""Which arithmetic the H200's mma.m8n8k4.f64 does: counts, over the
instances scripts/mma_f64_probe.cu dumped, the elements of D each candidate
model reproduces bit for bit (exact rational arithmetic, one rounding to
nearest-even per modelled step).

    python3 scripts/mma_f64_models.py mma_f64.bin
"""
import math
import struct
import sys
from fractions import Fraction as F


def rn(x):
    """A rational rounded to the nearest f64 (ties to even), overflow to inf."""
    if x == 0:
        return 0.0
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def fma(a, b, c):
    """IEEE 754 fused multiply-add: a * b exact, one rounding."""
    if all(map(math.isfinite, (a, b, c))):
        return rn(F(a) * F(b) + F(c))
    if math.isfinite(a) and math.isfinite(b):
        return c  # an infinite or NaN c with a finite product
    return a * b + c


def models(a, b, c):
    chain = c
    for k in range(4):
        chain = fma(a[k], b[k], chain)
    reverse = c
    for k in reversed(range(4)):
        reverse = fma(a[k], b[k], reverse)
    finite = all(map(math.isfinite, a + b + [c]))
    once = rn(sum(F(x) * F(y) for x, y in zip(a, b)) + F(c)) if finite else math.nan
    return {
        "fma k = 0..3 from C": chain,
        "fma k = 3..0 from C": reverse,
        "exact sum of products and C, one rounding": once,
    }


def main(path):
    data = open(path, "rb").read()
    record = (32 + 32 + 64 + 64) * 8
    counts = {}
    total = 0
    for t in range(len(data) // record):
        v = struct.unpack("<192d", data[t * record:(t + 1) * record])
        A, B, C, D = v[:32], v[32:64], v[64:128], v[128:]
        for i in range(8):
            for j in range(8):
                a = [A[i * 4 + k] for k in range(4)]
                b = [B[k * 8 + j] for k in range(4)]
                d = struct.pack("<d", D[i * 8 + j])
                total += 1
                for name, m in models(a, b, C[i * 8 + j]).items():
                    counts[name] = counts.get(name, 0) + (struct.pack("<d", m) == d)
    for name, n in counts.items():
        print(f"{name}: {n} / {total}")


if __name__ == "__main__":
    main(sys.argv[1])
