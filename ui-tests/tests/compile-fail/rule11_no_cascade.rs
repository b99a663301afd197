// Rule 11: a kernel with an error still gets its launcher and `PTX` const, so
// correct callers produce no follow-up errors: only the kernel's own error.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>, scale: f32) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.f16x2.f32"], d, r);
    apply(ptx["st.global.b32"], out, d);
}

fn run(dev: &Device, a: &DeviceTensor<f32>, out: &mut DeviceTensor<u32>) -> Result<(), Error> {
    narrow_pairs(dev, a, out, 0.5)?;
    let ptx: &'static str = narrow_pairs::PTX;
    let entry: &'static str = narrow_pairs::ENTRY;
    assert!(ptx.is_empty() && entry == "narrow_pairs");
    // The exact launcher type: `out` is stored into, so it is `&mut`.
    let _: fn(&Device, &DeviceTensor<f32>, &mut DeviceTensor<u32>, f32) -> Result<(), Error> =
        narrow_pairs;
    Ok(())
}

fn main() {
    let _ = run;
}
