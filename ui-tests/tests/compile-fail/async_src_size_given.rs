// A `src-size` written by hand: nothing proves its bytes lie inside `x`,
// so the compiler computes it instead (TK0240).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, N>, n: u32) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([128]);
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![4 * t..4 * t + 4]),
        16,
        n,
    );
    apply(ptx["cp.async.wait_all"]);
}

fn main() {}
