// Scalar functions (TK0615): inlined calls multiply; this expands past
// the limit.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, 4>) {
    fn f0(v: f32) -> f32 { v * v + v }
    fn f1(v: f32) -> f32 { f0(v) * f0(v) + f0(v) * f0(v) }
    fn f2(v: f32) -> f32 { f1(v) * f1(v) + f1(v) * f1(v) }
    fn f3(v: f32) -> f32 { f2(v) * f2(v) + f2(v) * f2(v) }
    fn f4(v: f32) -> f32 { f3(v) * f3(v) + f3(v) * f3(v) }
    fn f5(v: f32) -> f32 { f4(v) * f4(v) + f4(v) * f4(v) }
    fn f6(v: f32) -> f32 { f5(v) * f5(v) + f5(v) * f5(v) }
    let r = alloc_local::<f32>([4]);
    apply(ptx["ld.global.v4.f32"], r.reshape([1, 4]), x.reshape([1, 4]));
    ewise(f6, r, r);
    apply(ptx["st.global.v4.f32"], x.reshape([1, 4]), r.reshape([1, 4]));
}

fn main() {}
