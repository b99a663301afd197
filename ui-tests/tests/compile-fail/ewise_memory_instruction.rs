// Scalar functions (TK0237): `ptx[".."]` names register-to-register
// instructions only; a collective communicates between threads.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(x: Tensor<u32, 32>) {
    let r = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], r, x.slice(s![thread_id(0)..thread_id(0) + 1]));
    ewise(|v: u32| ptx["shfl.sync.bfly.b32"](v, 1, 31, 0xffffffff), r, r);
    apply(ptx["st.global.u32"], x.slice(s![thread_id(0)..thread_id(0) + 1]), r);
}

fn main() {}
