// Attribute (TK0005): `block` takes constants; the warp scope below adds no
// follow-up error about a block the macro could not read.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32 * 4)]
fn k(x: Tensor<u32, 32>) {
    let r = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], r.slice(s![lane_id(), ..]), x.slice(s![lane_id()..lane_id() + 1]));
    apply(ptx["redux.sync.add.u32"], r, r, scope = "warp");
    apply(ptx["st.global.u32"], x.slice(s![lane_id()..lane_id() + 1]), r.slice(s![lane_id(), ..]), pred = lane_id() == 0);
}

fn main() {}
