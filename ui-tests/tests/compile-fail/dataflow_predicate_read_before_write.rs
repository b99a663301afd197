// Data flow (TK0302): `pred = done[0]` reads a predicate register that no
// statement wrote yet; its value would be whatever the register held.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1>, out: Tensor<f32, 1>) {
    let v = alloc_local::<f32>([1]);
    let done = alloc_local::<bool>([1]);
    apply(ptx["ld.global.f32"], v, a);
    apply(ptx["st.global.f32"], out, v, pred = done[0]);
    apply(ptx["setp.gt.f32"], done, v, 0.0);
}

fn main() {}
