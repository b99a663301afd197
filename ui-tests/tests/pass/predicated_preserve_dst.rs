// `pred = p` guards every instruction of an apply; `preserve_dst = true`
// keeps the destination's old value where `p` is false (it was loaded before).
// `y` is loaded under the same `p` that guards its only read.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn maybe_add(a: Tensor<f32, 4, 1>, b: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, p: bool) {
    let x = alloc_local::<f32>([4, 1]);
    let y = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], x, a);
    apply(ptx["ld.global.f32"], y, b, pred = p);
    apply(ptx["add.f32"], x, x, y, pred = p, preserve_dst = true);
    apply(ptx["st.global.f32"], out, x);
}

fn main() {
    let ptx = maybe_add::PTX;
    println!("{ptx}");
    assert!(ptx.contains(".param .u8 maybe_add_param_p"), "{ptx}");
    assert!(ptx.contains("setp.ne.b16 %p3_p, %s3_p, 0;"), "{ptx}");
    assert_eq!(ptx.matches("@%p3_p add.f32 ").count(), 4, "{ptx}");
    assert!(ptx.contains("@%p3_p add.f32 %t0_x_3, %t0_x_3, %t1_y_3;"), "{ptx}");
    assert_eq!(ptx.matches("@%p3_p ld.global.f32 ").count(), 4, "{ptx}");
    // Unguarded statements stay unguarded.
    assert_eq!(ptx.matches("\tld.global.f32 ").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("\tst.global.f32 ").count(), 4, "{ptx}");
}
