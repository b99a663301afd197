// A warpgroup tile's group axis is indexed by the thread's rank in its
// warpgroup, spelled `(warp_id() % 4) * 32 + lane_id()` (TK0230): the
// checker does not prove other spellings equal (here `thread_id(0) % 128`,
// the same value in a block of [256, 1, 1]).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 256)]
fn k(a: Tensor<u32, 256>, out: Tensor<u32, 256>) {
    let t = thread_id(0);
    let m = alloc_local::<u32>([128, 1], scope = "warpgroup");
    let own = m.slice(s![t % 128, ..]);
    apply(ptx["ld.global.u32"], own, a.slice(s![t..t + 1]));
    apply(ptx["st.global.u32"], out.slice(s![t..t + 1]), own);
}

fn main() {}
