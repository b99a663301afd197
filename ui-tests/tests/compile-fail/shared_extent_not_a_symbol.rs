// A shared extent is fixed at launch (TK0613): a constant, or a form of a
// size symbol that a tensor dim names. `n` is a scalar parameter, which the
// launcher does not size shared memory from.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<f32, N>, n: u32) {
    let t = thread_id(0);
    let buf = alloc_shared::<f32>([n]);
    let r = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, a.slice(s![t..t + 1]), pred = t < N);
    apply(ptx["st.shared.f32"], buf.slice(s![t..t + 1]), r, pred = t < n);
}

fn main() {}
