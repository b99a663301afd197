// Every thread stores to the same slot: the threads of this one statement
// race with each other, which no barrier can order (TK0406, whose help
// names the separating index instead of `bar.sync`).
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 64)]
fn k(x: Tensor<f32, 64>, y: Tensor<f32, 64>) {
    let t = thread_id(0);
    let flag = alloc_shared::<f32>([1]);
    let v = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], v, x.slice(s![t..t + 1]));
    apply(ptx["st.shared.f32"], flag, v);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.f32"], v, flag);
    apply(ptx["st.global.f32"], y.slice(s![t..t + 1]), v);
}

fn main() {}
