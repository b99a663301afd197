use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    // rust-analyzer hands the macro `fn k(..) __ra_fixup` for this body.
    let x = ; // error: syntax (the editor's own)
    apply(ptx["cvt.rzi.u32.f32"], d, r);
    apply(ptx["st.global.b32"], out, d);
}
