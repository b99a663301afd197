// `.in_cta` (TK0132): another CTA's copy of a shared buffer exists only in
// a kernel that declares a cluster.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = 128, arch = "sm_90")]
fn k(y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let sh = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["st.shared::cluster.u32"], sh.in_cta(1).slice(s![t..t + 1]), v);
    apply(ptx["st.global.u32"], y.slice(s![cta_id(0), t..t + 1]), v);
}

fn main() {}
