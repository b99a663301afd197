// Arch-specific Blackwell forms (sm_100a): f32 pairs to fp4 (e2m1x2, one
// byte per pair) and an MX scale pair (ue8m0x2). The PTX declares the `a`
// target, so it loads only on that architecture.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, arch = "sm_100a")]
fn quantize_fp4(a: Tensor<f32, 4, 2>, out: Tensor<u8, 4, 1>, scales: Tensor<u16, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let q = alloc_local::<u8>([4, 1]);
    let e = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.satfinite.e2m1x2.f32"], q, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["cvt.rp.satfinite.ue8m0x2.f32"], e, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b8"], out, q);
    apply(ptx["st.global.b16"], scales, e);
}

fn main() {
    let ptx = quantize_fp4::PTX;
    println!("{ptx}");
    assert!(ptx.contains(".version 8.6\n"), "{ptx}");
    assert!(ptx.contains(".target sm_100a\n"), "{ptx}");
    assert!(ptx.contains("cvt.rn.satfinite.e2m1x2.f32 %t1_q_0, %t0_r_1, %t0_r_0;"), "{ptx}");
    assert!(ptx.contains("cvt.rp.satfinite.ue8m0x2.f32 %t2_e_0, %t0_r_1, %t0_r_0;"), "{ptx}");
    assert_eq!(ptx.matches("cvt.rn.satfinite.e2m1x2.f32 ").count(), 4);
}
