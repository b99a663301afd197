// One `apply` of two 16-byte copies: `zero_fill` computes one `src-size`
// per `apply` (TK0242). One `apply` per vector works.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, N>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([256]);
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![8 * t..8 * t + 8]).reshape([2, 4]),
        x.slice(s![8 * t..8 * t + 8]).reshape([2, 4]),
        16,
        zero_fill = true,
    );
    apply(ptx["cp.async.wait_all"]);
}

fn main() {}
