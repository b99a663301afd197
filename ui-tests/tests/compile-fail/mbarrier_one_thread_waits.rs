// Only thread 0 waits for the phase the copies complete; every thread
// then reads another thread's copied bytes (TK0410).
use tile_kernel::prelude::*;
#[tile_kernel(grid = 1, block = 128, arch = "sm_90")]
fn k(x: Tensor<u32, 128>, y: Tensor<u32, 128>) {
    let t = thread_id(0);
    let done = alloc_shared::<Mbarrier>([1]);
    let buf = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1, 1]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], done.slice(s![0..1]), 128);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["cp.async.ca.shared.global"], buf.slice(s![t..t + 1]), x.slice(s![t..t + 1]), 4);
    apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], done.slice(s![0..1]));
    if t == 0 {
        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], done.slice(s![0..1]), 0);
    }
    let u = 127 - t;
    apply(ptx["ld.shared.u32"], v, buf.slice(s![u..u + 1]).reshape([1, 1]));
    apply(ptx["st.global.u32"], y.slice(s![t..t + 1]).reshape([1, 1]), v);
    apply(ptx["cp.async.wait_all"]);
}
fn main() {}
