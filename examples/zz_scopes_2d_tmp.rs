use tile_kernel::prelude::*;
#[tile_kernel(grid = ceil_div(B, 8), block = 256)]
fn t1(x: Tensor<f32, B, 32, 4>, y: Tensor<f32, B, 32, 4>) {
    let b = cta_id(0) * 8 + warp_id();
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    if b < B {
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![b, .., ..]),
            scope = "warp",
        );
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![b, .., ..]),
            v,
            scope = "warp",
        );
    }
}
#[tile_kernel(grid = ceil_div(B, 8), block = 256)]
fn t2(y: Tensor<f32, B, 128>) {
    let b = cta_id(0) * 8 + warp_id();
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    apply(ptx["mov.f32"], v.unsqueeze(-1), 1.0, scope = "warp");
    if b < B {
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![b, ..]).reshape([32, 4]),
            v,
            scope = "warp",
        );
    }
}
fn main() {}
