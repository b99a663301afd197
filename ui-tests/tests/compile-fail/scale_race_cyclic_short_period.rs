use tile_kernel::prelude::*;

// A cyclic distribution needs a period of at least the block: with
// `j * 128 + thread_id(0)` in a block of 256, thread 0 at j = 1 and thread
// 128 at j = 0 both store element 128.
#[tile_kernel(grid = 1, block = 256)]
fn cyclic(x: Tensor<f32, 512>, y: Tensor<f32, 512>) {
    let v = alloc_local::<f32>([1]);
    for j in 0..2 {
        let i = j * 128 + thread_id(0);
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
    }
}

fn main() {}
