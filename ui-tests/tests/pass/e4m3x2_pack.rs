// Packing pairs of f32 into fp8 e4m3 pairs on sm_89, which needs PTX ISA 8.1.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1, arch = "sm_89")]
fn quantize_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u16, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let q = alloc_local::<u16>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.satfinite.e4m3x2.f32"], q, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b16"], out, q);
}

fn main() {
    let ptx = quantize_pairs::PTX;
    println!("{ptx}");
    assert!(ptx.contains(".version 8.1\n"), "{ptx}");
    assert!(ptx.contains(".target sm_89\n"), "{ptx}");
    assert_eq!(ptx.matches("cvt.rn.satfinite.e4m3x2.f32 ").count(), 4);
    assert!(ptx.contains("cvt.rn.satfinite.e4m3x2.f32 %t1_q_0, %t0_r_1, %t0_r_0;"), "{ptx}");
    assert!(ptx.contains(".reg .b16 %t1_q_<4>;"), "{ptx}");
    assert_eq!(ptx.matches("st.global.b16 ").count(), 4);
}
