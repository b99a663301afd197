// A kernel has one shared buffer sized at launch (TK0614): its dynamic
// shared memory starts with it.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn k(a: Tensor<f32, N>, b: Tensor<u32, M>) {
    let first = thread_id(0) == 0;
    let values = alloc_shared::<f32>([N]);
    let indices = alloc_shared::<u32>([M]);
    let r = alloc_local::<f32>([1]);
    let i = alloc_local::<u32>([1]);
    apply(ptx["ld.global.f32"], r, a.slice(s![0..1]), pred = first && N > 0);
    apply(ptx["st.shared.f32"], values.slice(s![0..1]), r, pred = first && N > 0);
    apply(ptx["ld.global.u32"], i, b.slice(s![0..1]), pred = first && M > 0);
    apply(ptx["st.shared.u32"], indices.slice(s![0..1]), i, pred = first && M > 0);
}

fn main() {}
