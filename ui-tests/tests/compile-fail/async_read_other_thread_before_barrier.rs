// Each thread waits for its own copy, then reads its neighbour's bytes: a
// wait makes a copy visible to the thread that issued it only, so the
// neighbour's bytes need a CTA barrier after the waits (TK0411).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 128>, y: Tensor<f32, 128>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([128]);
    let v = alloc_local::<f32>([1, 4]);
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![4 * t..4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.wait_all"]);
    let other = 124 - 4 * t;
    apply(ptx["ld.shared.v4.f32"], v, stage.slice(s![other..other + 4]).reshape([1, 4]));
    apply(ptx["st.global.v4.f32"], y.slice(s![4 * t..4 * t + 4]).reshape([1, 4]), v);
}

fn main() {}
