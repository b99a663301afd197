// The kernel ends with the copy still in flight: its bytes could land in
// the shared memory of the next CTA on the SM (TK0412).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 128>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([128]);
    apply(
        ptx["cp.async.ca.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![4 * t..4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.commit_group"]);
}

fn main() {}
