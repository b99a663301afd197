// Packing pairs of f32 into bf16x2 (sm_80+), with `.relu`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn bf16_pairs(a: Tensor<f32, 2, 2>, out: Tensor<u32, 2, 1>) {
    let r = alloc_local::<f32>([2, 2]);
    let d = alloc_local::<u32>([2, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.relu.bf16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b32"], out, d);
}

fn main() {
    let ptx = bf16_pairs::PTX;
    println!("{ptx}");
    assert_eq!(ptx.matches("cvt.rn.relu.bf16x2.f32 ").count(), 2);
    assert!(ptx.contains("cvt.rn.relu.bf16x2.f32 %t1_d_1, %t0_r_3, %t0_r_2;"), "{ptx}");
    assert!(ptx.contains(".reg .b32 %t1_d_<2>;"), "{ptx}");
}
