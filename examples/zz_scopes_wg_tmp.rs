use tile_kernel::prelude::*;
#[tile_kernel(grid = 1, block = 256)]
fn w1(y: Tensor<f32, 256>) {
    let w = alloc_local::<f32>([4, 32, 1], scope = "warpgroup");
    apply(ptx["mov.f32"], w, 1.0, scope = "warpgroup");
    apply(
        ptx["st.global.f32"],
        y.slice(s![thread_id(0)..thread_id(0) + 1]),
        w.slice(s![warp_id(), lane_id(), ..]),
    );
}
#[tile_kernel(grid = 1, block = 256)]
fn w2(y: Tensor<f32, 256>) {
    let w = alloc_local::<f32>([4, 32, 1], scope = "warpgroup");
    apply(ptx["mov.f32"], w, 1.0, scope = "warpgroup");
    apply(
        ptx["st.global.f32"],
        y.slice(s![thread_id(0)..thread_id(0) + 1]),
        w.slice(s![warp_id() % 4, lane_id(), ..]),
    );
}
#[tile_kernel(grid = 1, block = 256)]
fn w3(y: Tensor<f32, 512>) {
    let w = alloc_local::<f32>([128, 2], scope = "warpgroup");
    apply(ptx["mov.f32"], w.unsqueeze(-1), 1.0, scope = "warpgroup");
    let base = (warp_id() / 4) * 256;
    apply(
        ptx["st.global.v2.f32"],
        y.slice(s![base..base + 256]).reshape([128, 2]),
        w,
        scope = "warpgroup",
    );
}
#[tile_kernel(grid = 1, block = 256)]
fn w4(y: Tensor<f32, 256>) {
    let w = alloc_local::<f32>([128, 1], scope = "warpgroup");
    apply(ptx["mov.f32"], w, 1.0, scope = "warpgroup");
    apply(
        ptx["st.global.f32"],
        y.slice(s![thread_id(0)..thread_id(0) + 1]),
        w.slice(s![(warp_id() % 4) * 32 + lane_id(), ..]),
    );
}
fn main() {}
