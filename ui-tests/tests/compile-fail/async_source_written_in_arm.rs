// As async_source_written, with the store under an `if` on the thread's
// index: the async walk passes over an `if` whose arms change nothing it
// follows, and a store to a tensor an async copy reads is not such an arm
// (TK0413).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 128>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([128]);
    let zero = alloc_local::<f32>([1, 4]);
    apply(ptx["mov.b32"], zero.unsqueeze(-1), 0);
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![4 * t..4 * t + 4]),
        16,
    );
    if t < 16 {
        apply(ptx["st.global.v4.f32"], x.slice(s![4 * t..4 * t + 4]).reshape([1, 4]), zero);
    }
    apply(ptx["cp.async.wait_all"]);
}

fn main() {}
