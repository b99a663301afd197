// `mov.b32` pack/unpack in both spellings: the group form (a [.., 2] u16
// tile is the `{a, b}` operand) and the split form (two [.., 1] operands).
// The first lane is the low half.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn swap_halves(a: Tensor<u32, 2, 1>, out: Tensor<u32, 2, 1>, out2: Tensor<u32, 2, 1>) {
    let w = alloc_local::<u32>([2, 1]);
    let h = alloc_local::<u16>([2, 2]);
    let lo = alloc_local::<u16>([2, 1]);
    let hi = alloc_local::<u16>([2, 1]);
    let v = alloc_local::<u32>([2, 1]);
    apply(ptx["ld.global.b32"], w, a);
    // Group unpack, then group pack: a round trip.
    apply(ptx["mov.b32"], h, w);
    apply(ptx["mov.b32"], v, h);
    apply(ptx["st.global.b32"], out, v);
    // Split unpack, then split pack swapping the halves.
    apply(ptx["mov.b32"], lo, hi, w);
    apply(ptx["mov.b32"], v, hi, lo);
    apply(ptx["st.global.b32"], out2, v);
}

fn main() {
    let ptx = swap_halves::PTX;
    println!("{ptx}");
    // Group unpack of row 1 writes both halves of h's row 1.
    assert!(ptx.contains("mov.b32 {%t1_h_2, %t1_h_3}, %t0_w_1;"), "{ptx}");
    // Group pack of row 0.
    assert!(ptx.contains("mov.b32 %t4_v_0, {%t1_h_0, %t1_h_1};"), "{ptx}");
    // Split pack: {low, high} = {hi, lo}.
    assert!(ptx.contains("mov.b32 %t4_v_0, {%t3_hi_0, %t2_lo_0};"), "{ptx}");
    // Split unpack.
    assert!(ptx.contains("mov.b32 {%t2_lo_1, %t3_hi_1}, %t0_w_1;"), "{ptx}");
    assert!(!ptx.contains("cvt."), "views and packs never convert: {ptx}");
}
