// Warp collectives in `apply`s with `scope = "warp"`: the operands are warp
// tiles (lane `l` owns row `l`), the member mask is left out and the
// compiler passes the whole warp, 0xffffffff.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn collectives(a: Tensor<u32, 32, 1>, out: Tensor<u32, 32, 4>) {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let r = alloc_local::<u32>([32, 4], scope = "warp");
    let p = alloc_local::<bool>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], v, a, scope = "warp");
    // The warp's largest value, in every lane.
    apply(ptx["redux.sync.max.u32"], r.slice(s![.., 0..1]), v, scope = "warp");
    // The value of the neighbouring lane (lane ^ 1).
    apply(ptx["shfl.sync.bfly.b32"], r.slice(s![.., 1..2]), v, 1, 0x1f, scope = "warp");
    // One bit per lane: whether its value is below 16.
    apply(ptx["setp.lt.u32"], p, v, 16, scope = "warp");
    apply(ptx["vote.sync.ballot.b32"], r.slice(s![.., 2..3]), p, scope = "warp");
    apply(ptx["activemask.b32"], r.slice(s![.., 3..4]), scope = "warp");
    apply(ptx["st.global.v4.u32"], out, r, scope = "warp");
}

fn main() {
    let ptx = collectives::PTX;
    println!("{ptx}");
    // Each lane holds its own row of the warp tiles.
    assert!(ptx.contains(".reg .b32 %t1_r_<4>; // r: u32 [4]"), "{ptx}");
    assert!(ptx.contains("and.b32 %w1, %w0, 31;"), "{ptx}");
    // The member mask is the whole warp, passed in a register.
    assert!(ptx.contains("mov.b32 %k32_0, 0xFFFFFFFF;"), "{ptx}");
    assert!(ptx.contains("redux.sync.max.u32 %t1_r_0, %t0_v_0, %k32_0;"), "{ptx}");
    assert!(ptx.contains("mov.b32 %k32_1, 0x00000001;"), "{ptx}");
    assert!(ptx.contains("mov.b32 %k32_2, 0x0000001F;"), "{ptx}");
    assert!(
        ptx.contains("shfl.sync.bfly.b32 %t1_r_1, %t0_v_0, %k32_1, %k32_2, %k32_0;"),
        "{ptx}"
    );
    assert!(ptx.contains("setp.lt.u32 %t2_p_0, %t0_v_0, %k32_3;"), "{ptx}");
    assert!(ptx.contains("vote.sync.ballot.b32 %t1_r_2, %t2_p_0, %k32_0;"), "{ptx}");
    assert!(ptx.contains("activemask.b32 %t1_r_3;"), "{ptx}");
    // One instruction per lane each; no member mask was written twice.
    assert_eq!(ptx.matches("0xFFFFFFFF").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("\tredux.sync.").count(), 1, "{ptx}");
    // Lane l stores its row: out[l, 0..4] at l * 16 bytes.
    assert!(ptx.contains("mul.lo.s64 %v1, %i0, 16;"), "{ptx}");
    assert!(
        ptx.contains("st.global.v4.u32 [%ad1], {%t1_r_0, %t1_r_1, %t1_r_2, %t1_r_3};"),
        "{ptx}"
    );
}
