use tile_kernel::prelude::*;

// One mistake, one error: a tile whose allocation failed adds no "cannot
// find" errors where it is used.
#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1.5]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
