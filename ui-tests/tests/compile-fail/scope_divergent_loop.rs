// Scopes (TK0516): a runtime loop whose bound depends on `thread_id(0)` runs a different number of `redux.sync`s in each lane.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<u32, 32, 1>, out: Tensor<u32, 32, 1>) {
    let m = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["ld.global.u32"], m, a, scope = "warp");
    for _i in 0..thread_id(0) {
        apply(ptx["redux.sync.max.u32"], m, m, scope = "warp");
    }
    apply(ptx["st.global.u32"], out, m, scope = "warp");
}

fn main() {}
