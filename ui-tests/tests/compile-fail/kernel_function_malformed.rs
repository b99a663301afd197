// Kernel functions (TK0029): parameters are `Tile`, `Tensor`, `Shared` or
// `usize`; a function of `f32` values is a scalar function with `-> f32`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    fn double(t: f32) {
        apply(ptx["add.rn.f32"], t, t, t);
    }
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    double(r);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
