// The seed kernel (SPEC §2): 4 loads, 4 packed cvts, 4 stores; the packed
// cvt's first source (column 1) goes to the high half.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b32"], out, d);
}

fn main() {
    let ptx = narrow_pairs::PTX;
    println!("{ptx}");
    assert_eq!(narrow_pairs::ENTRY, "narrow_pairs");
    assert!(ptx.contains(".target sm_90"), "default arch is sm_90");
    assert!(ptx.contains(".visible .entry narrow_pairs("));
    assert_eq!(ptx.matches("ld.global.v2.f32 ").count(), 4);
    assert_eq!(ptx.matches("cvt.rn.f16x2.f32 ").count(), 4);
    assert_eq!(ptx.matches("st.global.b32 ").count(), 4);
    // Row 2: d[2] = f16x2(r[2, 1] -> high, r[2, 0] -> low).
    assert!(ptx.contains("cvt.rn.f16x2.f32 %t1_d_2, %t0_r_5, %t0_r_4;"), "{ptx}");
    assert!(ptx.contains("ld.global.v2.f32 {%t0_r_6, %t0_r_7}, [%a0_a+24];"), "{ptx}");
    assert!(ptx.contains("st.global.b32 [%a1_out+12], %t1_d_3;"), "{ptx}");
}
