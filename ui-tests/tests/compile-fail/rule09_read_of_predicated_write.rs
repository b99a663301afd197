use tile_kernel::prelude::*;

// `r` is loaded only where `p` holds (no `preserve_dst`), then stored
// unconditionally: where `p` is false the store would write undefined
// registers.
#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a, pred = p);
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
