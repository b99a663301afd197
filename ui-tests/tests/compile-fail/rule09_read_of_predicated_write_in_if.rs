use tile_kernel::prelude::*;

// `r` is loaded only where `p` holds, then stored inside `if q`: an `if`
// whose arms write no register still checks their reads, and where `q`
// holds but `p` does not the store would write undefined registers.
#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>, p: bool, q: bool) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a, pred = p);
    if q {
        apply(ptx["st.global.f32"], out, r);
    }
}

fn main() {}
