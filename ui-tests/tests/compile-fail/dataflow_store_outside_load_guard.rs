use tile_kernel::prelude::*;

// The load of `x` is guarded by the compiler (`i + 1 <= N`), the store into
// `y` by its own bound (`i + 1 <= M`): where `i` is in `y` but past `x`,
// the store would write a value the load never produced.
#[tile_kernel(grid = ceil_div(M, 128), block = 128)]
fn k(x: Tensor<f32, N>, y: Tensor<f32, M>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let r = alloc_local::<f32>([1]);
    let h = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], r, x.slice(s![i..i + 1]));
    apply(ptx["add.f32"], h, r, 1.0);
    apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), h);
}

fn main() {}
