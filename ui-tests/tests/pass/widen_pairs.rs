// The inverse of the seed (SPEC §2): two scalar `cvt.f32.f16` per packed
// word, through a u16 view plus `.unsqueeze(-1)`, stored with a reshape.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn widen_pairs(packed: Tensor<u32, 4, 1>, out: Tensor<f32, 4, 2>) {
    let d = alloc_local::<u32>([4, 1]);
    let f = alloc_local::<f32>([4, 2, 1]);
    apply(ptx["ld.global.b32"], d, packed);
    apply(ptx["cvt.f32.f16"], f, d.view::<u16>().unsqueeze(-1));
    apply(ptx["st.global.v2.f32"], out, f.reshape([4, 2]));
}

fn main() {
    let ptx = widen_pairs::PTX;
    println!("{ptx}");
    assert_eq!(ptx.matches("ld.global.b32 ").count(), 4);
    assert_eq!(ptx.matches("cvt.f32.f16 ").count(), 8);
    assert_eq!(ptx.matches("st.global.v2.f32 ").count(), 4);
    // Views are realised by mov unpacks of the same bits, never conversions.
    assert_eq!(ptx.matches("\tcvt.").count(), 8, "{ptx}");
    // Element 0 of the u16 view is the low half of word 0; element 1 the high half.
    assert!(ptx.contains("mov.b32 {%x16_0, %x16_1}, %t0_d_0;"), "{ptx}");
    assert!(ptx.contains("cvt.f32.f16 %t1_f_0, %x16_0;"), "{ptx}");
    assert!(ptx.contains("cvt.f32.f16 %t1_f_1, %x16_1;"), "{ptx}");
    assert!(ptx.contains("st.global.v2.f32 [%a1_out+8], {%t1_f_2, %t1_f_3};"), "{ptx}");
}
