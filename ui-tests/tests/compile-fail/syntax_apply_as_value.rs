// Syntax: `let x = thread_id(0) +` typed above an `apply`: Rust reads the
// two lines as one `let` whose value holds the `apply`. One error, at the
// `apply`. What the swallowed `apply` writes counts as written, so the
// store after it reads `d` without a follow-up error.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    let x = thread_id(0) +
    apply(ptx["cvt.rzi.u32.f32"], d, r);
    apply(ptx["st.global.b32"], out, d);
}

fn run(dev: &Device, a: &DeviceTensor<f32>, out: &mut DeviceTensor<u32>) -> Result<(), Error> {
    k(dev, a, out)
}

fn main() {
    let _ = run;
}
