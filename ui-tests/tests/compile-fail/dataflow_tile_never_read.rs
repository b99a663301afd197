// Data flow (TK0308): `d` receives the converted pairs, but no statement
// reads it: the store into `out` was forgotten, so the kernel computes
// values it never keeps.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
}

fn main() {}
