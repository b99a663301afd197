// Protocols on mbarriers the phase proof accepts: one thread completing a
// phase of a two-object ring per iteration while every thread waits, with
// a CTA barrier after each wait (so the producer cannot overtake), and a
// ring of `cp.async` copies completed by every thread's `.noinc` arrival,
// read across threads after the wait and refilled after an "empty" wait;
// the same ring 8 stages deep but filled only one chunk ahead, so a
// stage's reads are released 7 iterations before its refill acquires them
// (the walk follows them that long because the ring has 8 objects).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn one_producer(y: Tensor<u32, 128>, n: u32) {
    let t = thread_id(0);
    let turn = alloc_shared::<Mbarrier>([2]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], turn.slice(s![0..2]).reshape([2, 1]), 1);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for j in 0..n {
        let b = j % 2;
        if t == 0 {
            apply(ptx["mbarrier.arrive.shared::cta.b64"], turn.slice(s![b..b + 1]));
        }
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], turn.slice(s![b..b + 1]), (j / 2) & 1);
        apply(ptx["bar.sync"], 0, scope = "cta");
    }
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]), 1);
}

#[tile_kernel(grid = [M, 1, 1], block = [32, 1, 1], arch = "sm_90")]
fn full_and_empty(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([2, 128]);
    let full = alloc_shared::<Mbarrier>([2]);
    let empty = alloc_shared::<Mbarrier>([2]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..2]).reshape([2, 1]), 32);
        apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..2]).reshape([2, 1]), 32);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["cp.async.cg.shared.global"], ring.slice(s![0..1, 4 * t..4 * t + 4]), x.slice(s![row..row + 1, 4 * t..4 * t + 4]), 16);
    apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![0..1]));
    for j in 0..N / 128 {
        let stage = j % 2;
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (j / 2) % 2);
        apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, 124 - 4 * t..128 - 4 * t]));
        apply(ptx["mbarrier.arrive.shared::cta.b64"], empty.slice(s![stage..stage + 1]));
        // Chunk j - 1's stage: `empty`'s ticket j - 1, written `1 - ..`.
        let refill = (j + 1) % 2;
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty.slice(s![refill..refill + 1]), 1 - ((j + 1) / 2) % 2);
        let next = (j + 1) * 128 + 4 * t;
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![row..row + 1, next..next + 4]), 16);
        apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![refill..refill + 1]));
        let c = j * 128 + 4 * t;
        apply(ptx["st.global.v4.f32"], y.slice(s![row..row + 1, c..c + 4]), v);
    }
    apply(ptx["cp.async.wait_all"]);
}

#[tile_kernel(grid = [M, 1, 1], block = [32, 1, 1], arch = "sm_90")]
fn deep_ring_one_ahead(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([8, 128]);
    let full = alloc_shared::<Mbarrier>([8]);
    let empty = alloc_shared::<Mbarrier>([8]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..8]).reshape([8, 1]), 32);
        apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..8]).reshape([8, 1]), 32);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["cp.async.cg.shared.global"], ring.slice(s![0..1, 4 * t..4 * t + 4]), x.slice(s![row..row + 1, 4 * t..4 * t + 4]), 16);
    apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![0..1]));
    for j in 0..N / 128 {
        let stage = j % 8;
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (j / 8) % 2);
        apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, 124 - 4 * t..128 - 4 * t]));
        apply(ptx["mbarrier.arrive.shared::cta.b64"], empty.slice(s![stage..stage + 1]));
        // Chunk j + 1's stage was read by chunk j - 7: `empty`'s ticket
        // j - 7, written `1 - ..`.
        let refill = (j + 1) % 8;
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty.slice(s![refill..refill + 1]), 1 - ((j + 1) / 8) % 2);
        let next = (j + 1) * 128 + 4 * t;
        apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![row..row + 1, next..next + 4]), 16);
        apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![refill..refill + 1]));
        let c = j * 128 + 4 * t;
        apply(ptx["st.global.v4.f32"], y.slice(s![row..row + 1, c..c + 4]), v);
    }
    apply(ptx["cp.async.wait_all"]);
}

fn main() {
    for ptx in [one_producer::PTX, full_and_empty::PTX, deep_ring_one_ahead::PTX] {
        assert!(ptx.contains("mbarrier.try_wait.parity.shared::cta.b64 %q"), "{ptx}");
        assert!(ptx.contains("_retry;"), "{ptx}");
    }
}
