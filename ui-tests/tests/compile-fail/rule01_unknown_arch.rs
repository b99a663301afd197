// Rule 1 / §5: `arch` must name a target the compiler knows.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, arch = "sm_91")]
fn k(a: Tensor<f32, 4, 2>) {
    let r = alloc_local::<f32>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
}

fn main() {}
