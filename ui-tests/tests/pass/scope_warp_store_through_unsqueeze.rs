// A warp-scope store through `unsqueeze(-1)` of a tensor row: lane `l`
// writes element `[w, l]` only. The race rule separates the lanes on the
// flat byte offset, which stays exact through the unit axis.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 3, block = 128)]
fn k(x: Tensor<u32, 12, 32, 1>, out: Tensor<u32, 12, 32>) {
    let w = cta_id(0) * 4 + warp_id();
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], v, x.slice(s![w, .., ..]), scope = "warp");
    apply(
        ptx["st.global.u32"],
        out.slice(s![w, ..]).unsqueeze(-1),
        v,
        scope = "warp",
    );
}

fn main() {
    let ptx = k::PTX;
    println!("{ptx}");
    assert_eq!(ptx.matches("\tld.global.u32 ").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("\tst.global.u32 ").count(), 1, "{ptx}");
}
