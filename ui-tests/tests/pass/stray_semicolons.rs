// A stray `;` is an empty statement, as in Rust: after a statement
// (`apply(..);;`), after a loop or an `if` (`for .. { .. };`), or alone at
// the start of a block. rust-analyzer also inserts one after a loop whose
// range the user is still typing. The kernel with them compiles to the same
// PTX as the kernel without them.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn plain(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>, p: bool) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    for i in 0..4 {
        apply(
            ptx["cvt.rn.f16x2.f32"],
            d.slice(s![i..i + 1, ..]),
            r.slice(s![i..i + 1, 1..2]),
            r.slice(s![i..i + 1, 0..1]),
        );
    }
    if p {
        apply(ptx["st.global.b32"], out, d);
    }
}

#[tile_kernel(grid = 1, block = 1)]
fn stray(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>, p: bool) {
    ;
    let r = alloc_local::<f32>([4, 2]);;
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);;
    for i in 0..4 {
        ;
        apply(
            ptx["cvt.rn.f16x2.f32"],
            d.slice(s![i..i + 1, ..]),
            r.slice(s![i..i + 1, 1..2]),
            r.slice(s![i..i + 1, 0..1]),
        );;
    };
    if p {
        apply(ptx["st.global.b32"], out, d);
    };
}

fn main() {
    assert_eq!(stray::PTX, plain::PTX.replace("plain", "stray"));
    assert_eq!(plain::PTX.matches("cvt.rn.f16x2.f32 ").count(), 4);
}
