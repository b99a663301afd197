use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    // `else` typed before its block (rust-analyzer ends the `if` there).
    if thread_id(0) < 2 { apply(ptx["cvt.rzi.u32.f32"], d, r); } else // error: TK0026
    apply(ptx["st.global.b32"], out, d);
}
