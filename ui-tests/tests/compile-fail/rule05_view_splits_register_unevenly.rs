// Rule 5: a sub-register view must split a register into 2 or 4 parts; bytes
// of a u64 register would need shifts.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<u64, 1, 1>, out: Tensor<f32, 1, 8>) {
    let q = alloc_local::<u64>([1, 1]);
    let f = alloc_local::<f32>([1, 8, 1]);
    apply(ptx["ld.global.u64"], q, a);
    apply(ptx["cvt.rn.f32.u8"], f, q.view::<u8>().unsqueeze(-1));
    apply(ptx["st.global.v4.f32"], out.slice(s![.., 0..4]), f.slice(s![.., 0..4, 0]).reshape([1, 4]));
}

fn main() {}
