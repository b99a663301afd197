// Races (TK0404): `cta_id(0) + t * j` is the CTA modulo `t` for every
// thread that runs the store (each has `cta_id(0) < t`), but `t` is a loop
// variable: two CTAs in different iterations share no modulus (CTA 0 at
// t = 2, j = 1 and CTA 2 at t = 3, j = 0 both store element 2).
use tile_kernel::prelude::*;

#[tile_kernel(grid = [64, 1, 1], block = [1, 1, 1])]
fn k(x: Tensor<u32, N>, y: Tensor<u32, N>, n: u32) {
    let v = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![0..1]));
    for t in 0..min(n, 64) {
        for j in 0..min(n, 64) {
            let i = cta_id(0) + t * j;
            if cta_id(0) < t {
                apply(ptx["st.global.u32"], y.slice(s![i..i + 1]), v, pred = i < N);
            }
        }
    }
}

fn main() {}
