// Threads read each other's bytes of stage 0 and then refill it with no
// barrier in between: a thread's copy may overwrite what a slower thread
// has yet to read (TK0414). A CTA barrier before the refill orders it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 256>, y: Tensor<f32, 128>) {
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
    apply(ptx["bar.sync"], 0, scope = "cta");
    let other = 124 - 4 * t;
    apply(ptx["ld.shared.v4.f32"], v, stage.slice(s![other..other + 4]).reshape([1, 4]));
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![128 + 4 * t..128 + 4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.wait_all"]);
    apply(ptx["st.global.v4.f32"], y.slice(s![4 * t..4 * t + 4]).reshape([1, 4]), v);
}

fn main() {}
