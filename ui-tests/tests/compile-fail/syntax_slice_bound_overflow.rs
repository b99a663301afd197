use tile_kernel::prelude::*;

// An inclusive bound of i64::MAX overflows: an error, never a macro panic.
#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>, out: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld.global.f32"], r, a.slice(s![0..=9223372036854775807, ..]));
    apply(ptx["st.global.f32"], out, r);
}

fn main() {}
