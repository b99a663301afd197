// Rings of asynchronous copies the async-ownership proof accepts: two
// stages with `wait_group 0`, three stages read across threads behind a
// barrier, a ring walked with `step_by(2)` two chunks an iteration, and a
// ring restarted for every row of a grid-stride loop (nested loops).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1])]
fn two_stages(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let ring = alloc_shared::<f32>([2, 512]);
    let v = alloc_local::<f32>([1, 4]);
    apply(ptx["cp.async.cg.shared.global"], ring.slice(s![0..1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, 4 * t..4 * t + 4]), 16);
    apply(ptx["cp.async.commit_group"]);
    for j in 0..ceil_div(N, 512) {
        let next = (j + 1) * 512 + 4 * t;
        let refill = (j + 1) % 2;
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, next..next + 4]), 16);
        apply(ptx["cp.async.commit_group"]);
        apply(ptx["cp.async.wait_group"], 1);
        let stage = j % 2;
        let c = j * 512 + 4 * t;
        apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]), pred = c + 4 <= N);
        apply(ptx["st.global.v4.f32"], y.slice(s![r..r + 1, c..c + 4]), v, pred = c + 4 <= N);
    }
    apply(ptx["cp.async.wait_all"]);
}

#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1])]
fn three_stages_shared(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let ring = alloc_shared::<f32>([3, 512]);
    let v = alloc_local::<f32>([1, 4]);
    for s in 0..2 {
        let c = s * 512 + 4 * t;
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![s..s + 1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, c..c + 4]), 16);
        apply(ptx["cp.async.commit_group"]);
    }
    for j in 0..N / 512 {
        apply(ptx["cp.async.wait_group"], 1);
        apply(ptx["bar.sync"], 0, scope = "cta");
        let stage = j % 3;
        let back = 508 - 4 * t;
        apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, back..back + 4]));
        let refill = (j + 2) % 3;
        let next = (j + 2) * 512 + 4 * t;
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, next..next + 4]), 16);
        apply(ptx["cp.async.commit_group"]);
        let c = j * 512 + 4 * t;
        apply(ptx["st.global.v4.f32"], y.slice(s![r..r + 1, c..c + 4]), v);
    }
    apply(ptx["cp.async.wait_all"]);
}

#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1])]
fn two_chunks_an_iteration(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let ring = alloc_shared::<f32>([4, 512]);
    let v = alloc_local::<f32>([1, 4]);
    for s in 0..2 {
        let c = s * 512 + 4 * t;
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![s..s + 1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, c..c + 4]), 16);
        apply(ptx["cp.async.commit_group"]);
    }
    for j in (0..ceil_div(N, 512)).step_by(2) {
        for k in 0..2 {
            let c = (j + k) * 512 + 4 * t;
            let next = (j + k + 2) * 512 + 4 * t;
            let stage = (j + k) % 4;
            let refill = (j + k + 2) % 4;
            apply(ptx["cp.async.wait_group"], 1);
            apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]), pred = c + 4 <= N);
            apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, next..next + 4]), 16);
            apply(ptx["cp.async.commit_group"]);
            apply(ptx["st.global.v4.f32"], y.slice(s![r..r + 1, c..c + 4]), v, pred = c + 4 <= N);
        }
    }
    apply(ptx["cp.async.wait_all"]);
}

#[tile_kernel(grid = [64, 1, 1], block = [128, 1, 1])]
fn ring_per_row(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let ring = alloc_shared::<f32>([2, 512]);
    let v = alloc_local::<f32>([1, 4]);
    for r in (cta_id(0)..M).step_by(64) {
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![0..1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, 4 * t..4 * t + 4]), 16);
        apply(ptx["cp.async.commit_group"]);
        for j in 0..ceil_div(N, 512) {
            let next = (j + 1) * 512 + 4 * t;
            let refill = (j + 1) % 2;
            apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![r..r + 1, next..next + 4]), 16);
            apply(ptx["cp.async.commit_group"]);
            apply(ptx["cp.async.wait_group"], 1);
            let stage = j % 2;
            let c = j * 512 + 4 * t;
            apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]), pred = c + 4 <= N);
            apply(ptx["st.global.v4.f32"], y.slice(s![r..r + 1, c..c + 4]), v, pred = c + 4 <= N);
        }
        apply(ptx["cp.async.wait_all"]);
    }
}

fn main() {}
