// Syntax/types: `bool` tiles are predicate registers, but a tensor holds
// bytes in memory: there are no `bool` tensors, and a `bool` tile has no
// bits a view could reinterpret.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<bool, 4, 1>) {}

#[tile_kernel(grid = 1, block = 1)]
fn v(a: Tensor<u32, 1>, out: Tensor<u32, 1>) {
    let w = alloc_local::<u32>([1]);
    let p = alloc_local::<bool>([1]);
    apply(ptx["ld.global.u32"], w, a);
    apply(ptx["setp.ne.u32"], p, w, 0);
    apply(ptx["mov.b32"], w, p.view::<u32>());
    apply(ptx["st.global.u32"], out, w);
}

fn main() {}
