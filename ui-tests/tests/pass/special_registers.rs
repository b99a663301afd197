// Special registers are read with `mov` and `sreg("%name")`: the lane, the
// SM, and a 64-bit cycle counter.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn where_am_i(out: Tensor<u32, 32, 2>, cycles: Tensor<u64, 32>) {
    let t = thread_id(0);
    let r = alloc_local::<u32>([2]);
    let c = alloc_local::<u64>([1]);
    apply(ptx["mov.u32"], r.slice(s![0..1]), sreg("%laneid"));
    apply(ptx["mov.u32"], r.slice(s![1..2]), sreg("%smid"));
    apply(ptx["mov.u64"], c, sreg("%clock64"));
    apply(ptx["st.global.v2.u32"], out.slice(s![t, ..]), r);
    apply(ptx["st.global.u64"], cycles.slice(s![t..t + 1]), c);
}

fn main() {
    let ptx = where_am_i::PTX;
    println!("{ptx}");
    assert!(ptx.contains("mov.u32 %t0_r_0, %laneid;"), "{ptx}");
    assert!(ptx.contains("mov.u32 %t0_r_1, %smid;"), "{ptx}");
    assert!(ptx.contains("mov.u64 %t1_c_0, %clock64;"), "{ptx}");
}
