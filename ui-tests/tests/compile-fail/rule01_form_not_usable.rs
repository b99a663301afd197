// TK0224: `fence.proxy.tensormap::generic.release.gpu` is a certified PTX
// form, but kernels never write a tensor map it would release.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 1, 1>, out: Tensor<f32, 1, 1>) {
    let r = alloc_local::<f32>([1, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["fence.proxy.tensormap::generic.release.gpu"]);
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
