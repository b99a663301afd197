// The second copy targets the stage the first is still filling: its group
// is not even committed, so both copies own the same bytes (TK0410).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 256>, y: Tensor<f32, 128>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([128]);
    let v = alloc_local::<f32>([4]);
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![4 * t..4 * t + 4]),
        16,
    );
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![128 + 4 * t..128 + 4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.wait_all"]);
    apply(ptx["ld.shared.v4.f32"], v.reshape([1, 4]), stage.slice(s![4 * t..4 * t + 4]).reshape([1, 4]));
    apply(ptx["st.global.v4.f32"], y.slice(s![4 * t..4 * t + 4]).reshape([1, 4]), v.reshape([1, 4]));
}

fn main() {}
