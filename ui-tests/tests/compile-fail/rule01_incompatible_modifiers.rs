// Rule 1 (TK0207): every modifier exists, but no form of `mul` takes them
// together (`.wide` has no 64-bit source type).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<i64, 4, 1>) {
    let r = alloc_local::<i64>([4, 1]);
    apply(ptx["ld.global.s64"], r, a);
    apply(ptx["mul.wide.s64"], r, r, r);
}

fn main() {}
