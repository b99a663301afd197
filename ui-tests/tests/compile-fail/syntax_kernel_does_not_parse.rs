// Syntax: a statement that is not Rust yet (the user is typing `let v =`):
// rustc's parser reports it too, and the macro adds one coded error after
// the `=`. The launcher and the kernel's module are still emitted with the
// signature the parameters declare, so the call in `run` resolves and
// `out` stays `&mut` (the store is written out).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["st.global.f32"], out, r);
    let v =
}

fn run(dev: &Device, a: &DeviceTensor<f32>, out: &mut DeviceTensor<f32>) -> Result<(), Error> {
    let _ = k::PTX;
    k(dev, a, out)
}

fn main() {
    let _ = run;
}
