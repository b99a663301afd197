// Integer arithmetic with a scalar parameter and integer literals, which
// broadcast across repeats as single-register sources.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn affine(a: Tensor<u32, 4, 1>, n: u32, out: Tensor<u32, 4, 1>) {
    let x = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.u32"], x, a);
    apply(ptx["mul.lo.u32"], x, x, 3);
    apply(ptx["add.u32"], x, x, n);
    apply(ptx["sub.s32"], x, x, -1);
    apply(ptx["st.global.u32"], out, x);
}

fn main() {
    let ptx = affine::PTX;
    println!("{ptx}");
    assert!(ptx.contains(".param .b32 affine_param_n"), "{ptx}");
    assert!(ptx.contains("ld.param.b32 %s1_n, [affine_param_n];"), "{ptx}");
    assert_eq!(ptx.matches("mul.lo.u32 ").count(), 4);
    assert!(ptx.contains("mov.b32 %k32_0, 0x00000003;"), "{ptx}");
    assert!(ptx.contains("mul.lo.u32 %t0_x_2, %t0_x_2, %k32_0;"), "{ptx}");
    assert!(ptx.contains("add.u32 %t0_x_3, %t0_x_3, %s1_n;"), "{ptx}");
    assert!(ptx.contains("mov.b32 %k32_1, 0xFFFFFFFF;"), "{ptx}");
    assert!(ptx.contains("sub.s32 %t0_x_0, %t0_x_0, %k32_1;"), "{ptx}");
}
