// Names (TK0116): a runtime value has no views: it is not a tile or tensor.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(out: Tensor<u32, 32, 1>) {
    let i = thread_id(0);
    apply(ptx["st.global.b32"], out.slice(s![i..i + 1, ..]), i[0]);
}

fn main() {}
