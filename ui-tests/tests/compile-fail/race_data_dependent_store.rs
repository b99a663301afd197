// Races (TK0404): a plain store at an address read from a register may
// meet another thread's store; only atomics may share elements.
use tile_kernel::prelude::*;

#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn scatter(ids: Tensor<u8, N>, x: Tensor<u32, N>, y: Tensor<u32, 256>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let id = alloc_local::<u8>([1]);
    let v = alloc_local::<u32>([1]);
    if i < N {
        apply(ptx["ld.global.u8"], id, ids.slice(s![i..i + 1]));
        apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]));
        let at = id[0];
        apply(ptx["st.global.u32"], y.slice(s![at..at + 1]), v);
    }
}

fn main() {}
