use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["cvt.rzi.u32.f32"], d, r);
    // Rust reads this line and the store as one `let`.
    let x = thread_id(0) +
    apply(ptx["st.global.b32"], out, d); // error: TK0010
}
