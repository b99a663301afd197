use tile_kernel::prelude::*;

// The sum runs over pairs; the second element of a pair is loaded under
// the compiler's guard (`j + 2 <= N`). On an odd `N` the last iteration
// leaves `v` undefined, and `acc` with it, so storing the sum after the
// loop would store an undefined value.
#[tile_kernel(grid = 1, block = 1)]
fn k(x: Tensor<f32, N>, out: Tensor<f32, 1>) {
    let acc = alloc_local::<f32>([1]);
    let v = alloc_local::<f32>([1]);
    apply(ptx["mov.f32"], acc, 0.0);
    for j in (0..N).step_by(2) {
        apply(ptx["ld.global.f32"], v, x.slice(s![j + 1..j + 2]));
        apply(ptx["add.f32"], acc, acc, v);
    }
    apply(ptx["st.global.f32"], out, acc);
}

fn main() {}
