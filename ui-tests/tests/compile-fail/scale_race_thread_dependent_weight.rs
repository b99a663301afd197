use tile_kernel::prelude::*;

// `(j + 1) * 256 * cta_id(0) + thread_id(0)` looks like a thread rank, but
// its weight changes with the loop variable: (cta 1, j = 1) and (cta 2,
// j = 0) both reach element 512. Rank weights must be uniform.
#[tile_kernel(grid = 4, block = 256)]
fn weighted(x: Tensor<f32, N>, y: Tensor<f32, N>, m: u32) {
    let v = alloc_local::<f32>([1]);
    for j in 0..m {
        let i = (j + 1) * 256 * cta_id(0) + thread_id(0);
        if i < N {
            apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
            apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
        }
    }
}

fn main() {}
