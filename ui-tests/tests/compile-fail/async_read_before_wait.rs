// A ring of 4 stages where the wait leaves three groups in flight: chunk
// `j` is still the third newest group when the thread reads it, so its
// bytes may not have landed (TK0410). `wait_group(2)` retires it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1])]
fn k(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let tx = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let v = alloc_local::<f32>([1, 4]);
    for s in 0..3 {
        let c = s * 1024 + 4 * tx;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * tx..4 * tx + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(ptx["cp.async.commit_group"]);
    }
    for j in 0..ceil_div(N, 1024) {
        apply(ptx["cp.async.wait_group"], 3);
        let c = j * 1024 + 4 * tx;
        let stage = j % 4;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, 4 * tx..4 * tx + 4]),
            pred = c + 4 <= N,
        );
        let refill = (j + 3) % 4;
        let next = (j + 3) * 1024 + 4 * tx;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * tx..4 * tx + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(ptx["cp.async.commit_group"]);
        apply(ptx["st.global.v4.f32"], y.slice(s![row..row + 1, c..c + 4]), v, pred = c + 4 <= N);
    }
    apply(ptx["cp.async.wait_all"]);
}

fn main() {}
