// A kernel function names a size symbol of the kernel it is called from
// (TK0115): it sees only its parameters, so the help says to pass it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, N>) {
    fn store(x: Tensor<f32>, v: Tile<f32>) {
        let i = thread_id(0);
        apply(ptx["st.global.f32"], x.slice(s![i..i + 1]), v, pred = i < N);
    }
    let v = alloc_local::<f32>([1]);
    apply(ptx["mov.b32"], v, 0);
    store(x, v);
}

fn main() {}
