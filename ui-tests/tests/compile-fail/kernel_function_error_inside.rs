// Kernel functions: a shared function is checked where a kernel inlines
// it; its error points inside the function, with a note naming the call.
use tile_kernel::prelude::*;

#[tile_kernel::function]
fn halve(t: Tile) {
    apply(ptx["mul.rn.f32"], t, t, 2);
}

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    halve(r);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
