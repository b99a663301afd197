// Threads below 16 store element `t`, the others element `t - 16`: threads
// `t` and `t + 16` store the same element (TK0404). Each store runs under
// its own arm's condition; the facts both hold are the launch's alone, so
// no proof under facts they share tells the threads apart.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(out: Tensor<u32, 32>) {
    let t = thread_id(0);
    let v = alloc_local::<u32>([1]);
    apply(ptx["mov.b32"], v, 7);
    if t < 16 {
        apply(ptx["st.global.b32"], out.slice(s![t..t + 1]), v);
    } else {
        apply(ptx["st.global.b32"], out.slice(s![t - 16..t - 15]), v);
    }
}

fn main() {}
