// `for` with constant bounds is unrolled (`k` is a constant, so `v[k]` names
// one register); `if` on a bool parameter is a runtime branch. (These were
// "not part of the tile language yet" before SPEC §6.)
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, p: bool) {
    let v = alloc_local::<f32>([4, 1]);
    for k in 0..4 {
        apply(ptx["ld.global.f32"], v[k], a[k]);
    }
    if p {
        apply(ptx["add.f32"], v, v, v);
    } else {
        apply(ptx["mul.f32"], v, v, v);
    }
    apply(ptx["st.global.f32"], out, v);
}

fn main() {
    let ptx = k::PTX;
    println!("{ptx}");
    // Unrolled: one load per k, at k * 4 bytes, into register k.
    assert_eq!(ptx.matches("\tld.global.f32 ").count(), 4, "{ptx}");
    assert!(ptx.contains("ld.global.f32 %t0_v_3, [%a0_a+12];"), "{ptx}");
    // Both arms, one branch.
    assert_eq!(ptx.matches("\tadd.f32 ").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("\tmul.f32 ").count(), 4, "{ptx}");
    assert!(ptx.contains("$L0_else:"), "{ptx}");
    assert_eq!(ptx.matches("\tst.global.f32 ").count(), 4, "{ptx}");
}
