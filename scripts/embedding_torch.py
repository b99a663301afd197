# PyTorch's embedding lookup and a device copy of the same bytes, timed with
# CUDA events: the reference for examples/embedding.rs (same sizes).
import torch
import torch.nn.functional as F

tokens, columns, vocab = 16384, 1024, 32000
table = torch.randn(vocab, columns, device="cuda")
ids = torch.randint(0, vocab, (tokens,), device="cuda")
out = torch.empty(tokens, columns, device="cuda")
src = torch.randn(tokens, columns, device="cuda")


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


nbytes = 2 * tokens * columns * 4
ms = timed(lambda: F.embedding(ids, table))
print(f"F.embedding {tokens} x {columns} f32: {ms:.4f} ms, {nbytes / ms / 1e6:.1f} GB/s (read + write)")
ms = timed(lambda: out.copy_(src))
print(f"copy of the same bytes: {ms:.4f} ms, {nbytes / ms / 1e6:.1f} GB/s (read + write)")
