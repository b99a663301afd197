// Kernel functions (TK0130): calls are inlined, so they cannot recurse.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    fn twice(t: Tile) {
        apply(ptx["add.rn.f32"], t, t, t);
        twice(t);
    }
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    twice(r);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
