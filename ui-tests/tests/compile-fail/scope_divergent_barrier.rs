// Scopes: a CTA barrier under a condition that differs between warps; the
// other warps would never arrive.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 64)]
fn k(a: Tensor<f32, 64, 1>, out: Tensor<f32, 64, 1>) {
    let buf = alloc_shared::<f32>([64]);
    let r = alloc_local::<f32>([1, 1]);
    let t = thread_id(0);
    apply(ptx["ld.global.f32"], r, a.slice(s![t..t + 1, ..]));
    apply(ptx["st.shared.f32"], buf.slice(s![t..t + 1]), r.reshape([1]));
    if warp_id() == 0 {
        apply(ptx["bar.sync"], 0, scope = "cta");
    }
    apply(ptx["ld.shared.f32"], r.reshape([1]), buf.slice(s![t..t + 1]));
    apply(ptx["st.global.f32"], out.slice(s![t..t + 1, ..]), r);
}

fn main() {}
