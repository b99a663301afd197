// Reading a tile no statement wrote, in every iteration of an unrolled
// loop: one mistake, one error (TK0302, at its first element), not one per
// iteration.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(out: Tensor<f32, 32, 8>) {
    let v = alloc_local::<f32>([1, 8]);
    for i in 0..8 {
        apply(
            ptx["st.global.f32"],
            out.slice(s![thread_id(0)..thread_id(0) + 1, i..i + 1]),
            v.slice(s![.., i..i + 1]),
        );
    }
}

fn main() {}
