// `cp.async` copies from global memory into shared memory: a shared buffer
// as its source is in the wrong state space (TK0407).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 128>) {
    let t = thread_id(0);
    let a = alloc_shared::<f32>([128]);
    let b = alloc_shared::<f32>([128]);
    apply(
        ptx["cp.async.cg.shared.global"],
        a.slice(s![4 * t..4 * t + 4]),
        b.slice(s![4 * t..4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.wait_all"]);
}

fn main() {}
