//! mbarrier objects on both devices (scratch).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], arch = "sm_90")]
fn barrier_only(x: Tensor<f32, M, 128>, y: Tensor<f32, M, 128>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let full = alloc_shared::<Mbarrier>([2]);
    let v = alloc_local::<f32>([1, 1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..2]).reshape([2, 1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["mbarrier.arrive.shared::cta.b64"], full.slice(s![0..1]));
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 0);
    apply(ptx["ld.global.f32"], v, x.slice(s![row..row + 1, t..t + 1]));
    apply(ptx["st.global.f32"], y.slice(s![row..row + 1, t..t + 1]), v);
}

#[test]
fn dump() {
    println!("{}", barrier_only::PTX);
    support::assert_no_spills(&[("barrier_only", barrier_only::PTX)]);
}
