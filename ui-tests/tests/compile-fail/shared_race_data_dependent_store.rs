// Shared races (TK0406): a plain store at a bin read from a register may
// meet another thread's; the histogram needs `red.shared.add`.
use tile_kernel::prelude::*;

#[tile_kernel(grid = ceil_div(N, 256), block = 256)]
fn bins(x: Tensor<u8, N>, y: Tensor<u32, 256>) {
    let t = thread_id(0);
    let i = cta_id(0) * 256 + t;
    let s = alloc_shared::<u32>([256]);
    let b = alloc_local::<u8>([1]);
    let one = alloc_local::<u32>([1]);
    let count = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], one, 1);
    apply(ptx["st.shared.u32"], s.slice(s![t..t + 1]), one);
    apply(ptx["bar.sync"], 0, scope = "cta");
    if i < N {
        apply(ptx["ld.global.u8"], b, x.slice(s![i..i + 1]));
        let v = b[0];
        apply(ptx["st.shared.u32"], s.slice(s![v..v + 1]), one);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.u32"], count, s.slice(s![t..t + 1]));
    apply(ptx["red.global.add.u32"], y.slice(s![t..t + 1]), count);
}

fn main() {}
