// A tensor copy into a swizzled buffer moves box rows of exactly the
// swizzle span (TK0249): the map swizzles each box row as the buffer
// swizzles its rows only when the two are one row.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = [128, 1, 1], arch = "sm_90")]
fn k(x: Tensor<u16, M, N>, out: Tensor<u16, 4096>) {
    let t = thread_id(0);
    let stage = alloc_shared::<u16>([64, 64], layout = "swizzle_128");
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<u16>([1, 4]);
    if t == 0 {
        apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..1]), 1);
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], full.slice(s![0..1]), 8192);
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            stage,
            x.slice(s![0..128, 0..32]),
            full.slice(s![0..1]),
        );
    }
    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 0);
    let flat = stage.reshape([4096]);
    for i in 0..8 {
        let e = 512 * i + 4 * t;
        apply(ptx["ld.shared.v4.u16"], v, flat.slice(s![e..e + 4]).unsqueeze(0));
        apply(ptx["st.global.v4.u16"], out.slice(s![e..e + 4]).unsqueeze(0), v);
    }
}

fn main() {}
