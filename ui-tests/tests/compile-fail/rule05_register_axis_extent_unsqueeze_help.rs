// Rule 5: the classic mistake, a scalar cvt on a u16 view without the
// singleton register axis, gets a `.unsqueeze(-1)` help.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(packed: Tensor<u32, 4, 1>, out: Tensor<f32, 4, 2>) {
    let d = alloc_local::<u32>([4, 1]);
    let f = alloc_local::<f32>([4, 2, 1]);
    apply(ptx["ld.global.b32"], d, packed);
    apply(ptx["cvt.f32.f16"], f, d.view::<u16>());
    apply(ptx["st.global.v2.f32"], out, f.reshape([4, 2]));
}

fn main() {}
