// Unrolled offsets of a grid-stride loop keep threads apart only in steps
// of the threads of a row: with offsets `128 * k` in a block of 256,
// thread t at k = 1 and thread t + 128 at k = 0 both update element
// t + 128 of the row (TK0404). Offsets `256 * k` would be fine.
use tile_kernel::prelude::*;

#[tile_kernel(grid = R, block = 256)]
fn k(x: Tensor<f32, R, N>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let v = alloc_local::<f32>([1]);
    for j in (t..N).step_by(1024) {
        for k in 0..4 {
            let i = j + 128 * k;
            if i < N {
                apply(ptx["ld.global.f32"], v, x.slice(s![r, i..i + 1]));
                apply(ptx["add.rn.f32"], v, v, 1.0);
                apply(ptx["st.global.f32"], x.slice(s![r, i..i + 1]), v);
            }
        }
    }
}

fn main() {}
