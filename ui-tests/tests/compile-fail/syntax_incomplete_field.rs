// Syntax: an operand being typed (`d.`), here in the store itself: one
// coded error at the `.` where parsing stopped, and every other statement
// is still checked (the misspelled opcode above it).
// rustc's parser reports it too. `out` stays `&mut`: it sits in the
// store's destination slot, although the statement does not parse, so
// the launcher's signature does not change while the user types.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["cvt.rzi.u32.f33"], d, r);
    apply(ptx["st.global.b32"], out, d.);
}

fn run(dev: &Device, a: &DeviceTensor<f32>, out: &mut DeviceTensor<u32>) -> Result<(), Error> {
    k(dev, a, out)
}

fn main() {
    let _ = run;
}
