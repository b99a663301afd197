// Rule 1 (TK0206): the packed `cvt` needs a rounding modifier.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 2>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
}

fn main() {}
