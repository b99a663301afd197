// A barrier under a `pred` may not run (here when `p` is true), so it does
// not separate the reads of each thread's own slot from the atomic adds to
// the mirrored slot (TK0406), as a barrier in one arm of an `if` does not.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, 32>, p: bool) {
    let t = thread_id(0);
    let r = alloc_local::<f32>([1]);
    let sh = alloc_shared::<f32>([32]);
    apply(ptx["st.shared.f32"], sh.slice(s![t..t + 1]), 0.0);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.f32"], r, sh.slice(s![t..t + 1]));
    apply(ptx["bar.sync"], 0, scope = "cta", pred = !p);
    apply(ptx["atom.shared.add.f32"], r, sh.slice(s![31 - t..32 - t]), 1.0);
    apply(ptx["st.global.f32"], x.slice(s![t..t + 1]), r);
}

fn main() {}
