// Rule 1 / §5: an opcode newer than the kernel's `arch` names the minimum.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, arch = "sm_80")]
fn k(a: Tensor<f32, 4, 2>, out: Tensor<u16, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let q = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.satfinite.e4m3x2.f32"], q, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b16"], out, q);
}

fn main() {}
