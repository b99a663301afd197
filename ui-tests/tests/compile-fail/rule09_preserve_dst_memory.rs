// Rule 9 (TK0305): `preserve_dst` keeps a register destination; a store has none.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["st.global.f32"], out, r, pred = p, preserve_dst = true);
}

fn main() {}
