// The launcher is typed by the kernel signature: a tensor of the wrong
// element type is a compile error at the call, not a runtime failure.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b32"], out, d);
}

fn run(dev: &Device, a: &DeviceTensor<f16>, out: &mut DeviceTensor<u32>) -> Result<(), Error> {
    narrow_pairs(dev, a, out)
}

fn main() {
    let _ = run;
}
