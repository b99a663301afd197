// Scalar functions (TK0239): a `fn` item captures nothing, as in Rust.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>, scale: f32) {
    fn scaled(v: f32) -> f32 {
        v * scale
    }
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    ewise(scaled, r, r);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
