// `zero_fill` belongs to `cp.async`, whose `src-size` form zero-fills; a
// load has no such form (TK0241).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<f32, N>, y: Tensor<f32, 32>) {
    let t = thread_id(0);
    let v = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], v, x.slice(s![t..t + 1]), zero_fill = true);
    apply(ptx["st.global.f32"], y.slice(s![t..t + 1]), v);
}

fn main() {}
