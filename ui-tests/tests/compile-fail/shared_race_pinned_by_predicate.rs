// Shared memory (TK0406): under `p`, thread t stores the four elements
// thread t + 1 then reads; the predicates keep only threads 0 and 1 in
// bounds, and neither store nor load is ordered by a barrier.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<f32, 32>, out: Tensor<f32, 128>, p: bool) {
    let t = thread_id(0);
    let sh = alloc_shared::<f32>([8]);
    let r = alloc_local::<f32>([1]);
    let v = alloc_local::<f32>([4]);
    apply(ptx["ld.global.f32"], r, a.slice(s![t..t + 1]));
    apply(ptx["st.shared.f32"], sh.slice(s![t..t + 1]), r, pred = t < 8);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.v4.f32"], v, sh.slice(s![t * 4..t * 4 + 4]), pred = t * 4 + 4 <= 8);
    if p {
        apply(ptx["st.shared.v4.f32"], sh.slice(s![(t + 1) * 4..(t + 1) * 4 + 4]), v, pred = (t + 1) * 4 + 4 <= 8);
    }
    apply(ptx["ld.shared.v4.f32"], v, sh.slice(s![t * 4..t * 4 + 4]), pred = t * 4 + 4 <= 8, preserve_dst = true);
    apply(ptx["st.global.v4.f32"], out.slice(s![t * 4..t * 4 + 4]), v, pred = t * 4 + 4 <= 8);
}

fn main() {}
