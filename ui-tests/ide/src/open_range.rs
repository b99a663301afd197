use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    // rust-analyzer reads `0.. {}` as the range and adds a `;` after it.
    for j in 0.. { // error: TK0012
    }
    apply(ptx["cvt.rzi.u32.f32"], d, r);
    apply(ptx["st.global.b32"], out, d);
}
