// The wait on `full` names the other parity: chunk `j` is phase `j / 4`
// of its object, so the wait would block until the next phase (TK0417).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1], arch = "sm_90")]
fn k(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..4]).reshape([4, 1]), 256);
        apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..4]).reshape([4, 1]), 256);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for s in 0..3 {
        let c = s * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![s..s + 1]));
    }
    for j in 0..N / 1024 {
        let stage = j % 4;
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (j / 4 + 1) % 2);
        let back = 1020 - 4 * t;
        apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, back..back + 4]));
        apply(ptx["mbarrier.arrive.shared::cta.b64"], empty.slice(s![stage..stage + 1]));
        let refill = (j + 3) % 4;
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty.slice(s![refill..refill + 1]), ((j + 3) / 4 + 1) % 2);
        let next = (j + 3) * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![refill..refill + 1]));
        let c = j * 1024 + 4 * t;
        apply(ptx["st.global.v4.f32"], y.slice(s![row..row + 1, c..c + 4]), v);
    }
    apply(ptx["cp.async.wait_all"]);
}

fn main() {}
