// Warpgroups with different roles rebalance the CTA's registers: the
// producer warpgroup gives registers back (`setmaxnreg.dec`), the
// consumers take them (`setmaxnreg.inc`). The kernel's entry count is
// fixed with `.maxnreg` (65536 / 384 threads, down to a multiple of 8:
// 168), so the pool is 384 x 168 registers: 128 x 40 + 256 x 232 fits.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [ceil_div(N, 384), 1, 1], block = 384, arch = "sm_90a")]
fn roles(x: Tensor<u32, N>, y: Tensor<u32, N>) {
    let wg = warp_id() / 4;
    if wg == 2 {
        apply(ptx["setmaxnreg.dec.sync.aligned.u32"], 40, scope = "warpgroup");
    } else {
        apply(ptx["setmaxnreg.inc.sync.aligned.u32"], 232, scope = "warpgroup");
        let i = cta_id(0) * 384 + thread_id(0);
        let v = alloc_local::<u32>([1, 1]);
        apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]).unsqueeze(0));
        apply(ptx["st.global.u32"], y.slice(s![i..i + 1]).unsqueeze(0), v);
    }
}

fn main() {
    let ptx = roles::PTX;
    assert!(ptx.contains(".maxnreg 168"), "{ptx}");
    assert!(ptx.contains("setmaxnreg.dec.sync.aligned.u32 40;"), "{ptx}");
    assert!(ptx.contains("setmaxnreg.inc.sync.aligned.u32 232;"), "{ptx}");
}
