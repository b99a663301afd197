// Syntax (TK0012): a loop runs over a range, not over an array.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    for i in [0, 1, 2, 3] {
        apply(ptx["st.global.f32"], out.slice(s![i..i + 1, ..]), r.slice(s![i..i + 1, ..]));
    }
}

fn main() {}
