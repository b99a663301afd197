// Shared memory (TK0612): 58113 f32 are 232452 bytes, more than the 227 KiB
// of shared memory a CTA may have.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<f32, 32>, out: Tensor<f32, 32>) {
    let t = thread_id(0);
    let buf = alloc_shared::<f32>([58113]);
    let r = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, a.slice(s![t..t + 1]));
    apply(ptx["st.shared.f32"], buf.slice(s![t..t + 1]), r);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.f32"], r, buf.slice(s![31 - t..32 - t]));
    apply(ptx["st.global.f32"], out.slice(s![t..t + 1]), r);
}

fn main() {}
