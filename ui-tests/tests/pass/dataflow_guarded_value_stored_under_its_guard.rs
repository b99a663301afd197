// A value loaded in one arm of `if p` is defined where `p` holds, and so is
// what is computed from it outside the `if`: a later store under `if p`, or
// under `pred = p`, observes only defined values.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, twice: Tensor<f32, 4, 1>, p: bool) {
    let v = alloc_local::<f32>([4, 1]);
    let w = alloc_local::<f32>([4, 1]);
    if p {
        apply(ptx["ld.global.f32"], v, a);
    }
    // Unguarded: where `p` is false it computes on undefined registers,
    // which nothing observes.
    apply(ptx["add.f32"], w, v, v);
    if p {
        apply(ptx["st.global.f32"], out, v);
    }
    apply(ptx["st.global.f32"], twice, w, pred = p);
}

fn main() {
    let ptx = k::PTX;
    println!("{ptx}");
    assert_eq!(ptx.matches("\tadd.f32 ").count(), 4, "{ptx}");
    // The two branches, then the predicated stores of `w`.
    assert_eq!(ptx.matches("\tld.global.f32 ").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("\tst.global.f32 ").count(), 4, "{ptx}");
    assert_eq!(ptx.matches(" st.global.f32 ").count(), 4, "{ptx}");
}
