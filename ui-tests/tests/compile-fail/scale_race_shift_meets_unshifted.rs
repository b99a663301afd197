// A constant shift keeps threads apart only if every access shifts alike:
// thread i stores `z[i + 3]`, which thread i + 3 loads as its `z[i]`
// (TK0404).
use tile_kernel::prelude::*;

#[tile_kernel(grid = ceil_div(N, 256), block = 256)]
fn k(z: Tensor<f32, N>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if i + 3 < N {
        apply(ptx["ld.global.f32"], v, z.slice(s![i..i + 1]));
        apply(ptx["st.global.f32"], z.slice(s![i + 3..i + 4]), v);
    }
}

fn main() {}
