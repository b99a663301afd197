// The generated code uses only absolute paths: it compiles without the
// prelude and next to user items named like std's and like primitives.
#![no_implicit_prelude]
#![allow(non_camel_case_types, dead_code)]

use ::tile_kernel::prelude::*;

struct Result;
struct Option;
struct Ok;
struct Vec;
struct Sized;
struct u32;
struct f32;
struct bool;
enum Error {}

#[tile_kernel(grid = 1, block = 1)]
fn narrow(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>, scale: f32, on: bool) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["mul.f32"], r.reshape([8, 1]), r.reshape([8, 1]), scale);
    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]), pred = on);
    apply(ptx["st.global.b32"], out, d, pred = on);
}

fn main() {
    let _ = narrow::PTX;
    let _ = narrow::SPEC;
}
