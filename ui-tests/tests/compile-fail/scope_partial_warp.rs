// Scopes (TK0611): a block of 48 threads is one and a half warps; warp tiles need whole warps.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 48)]
fn k(a: Tensor<u32, 48, 1>, out: Tensor<u32, 48, 1>) {
    let t = thread_id(0);
    let m = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], m.slice(s![lane_id(), ..]), a.slice(s![t, ..]));
    apply(ptx["st.global.u32"], out.slice(s![t, ..]), m.slice(s![lane_id(), ..]));
}

fn main() {}
