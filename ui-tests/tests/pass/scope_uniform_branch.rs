// A collective under an `if` whose condition is the same for the 32 lanes
// of a warp (`cta_id`, `warp_id()`, symbols) compiles: the whole warp takes
// the branch or skips it together.
use tile_kernel::prelude::*;

#[tile_kernel(grid = ceil_div(B, 8), block = 256)]
fn warp_max(x: Tensor<u32, B, 32>, out: Tensor<u32, B>) {
    let b = cta_id(0) * 8 + warp_id();
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    if b < B {
        apply(ptx["ld.global.u32"], v, x.slice(s![b, ..]).reshape([32, 1]), scope = "warp");
        apply(ptx["redux.sync.max.u32"], v, v, scope = "warp");
        apply(
            ptx["st.global.u32"],
            out.slice(s![b..b + 1]),
            v.slice(s![lane_id(), ..]),
            pred = lane_id() == 0,
        );
    }
}

fn main() {
    let ptx = warp_max::PTX;
    println!("{ptx}");
    // warp_id() = tid.x >> 5, lane_id() = tid.x & 31.
    assert!(ptx.contains("shr.u32 %w2, %w1, 5;"), "{ptx}");
    assert!(ptx.contains("and.b32 %w4, %w3, 31;"), "{ptx}");
    // The whole warp branches over the body or runs it, collective included.
    let branch = ptx.find("@!%q0 bra $L0_end;").expect("the branch");
    let redux = ptx
        .find("redux.sync.max.u32 %t0_v_0, %t0_v_0, %k32_0;")
        .expect("the collective");
    let end = ptx.find("$L0_end:").expect("the label");
    assert!(branch < redux && redux < end, "{ptx}");
    assert!(ptx.contains("mov.b32 %k32_0, 0xFFFFFFFF;"), "{ptx}");
    // Lane 0 stores the warp's maximum.
    assert!(ptx.contains("setp.eq.s64 %q1, %i3, 0;"), "{ptx}");
    assert!(ptx.contains("@%q1 st.global.u32 [%ad1], %t0_v_0;"), "{ptx}");
}
