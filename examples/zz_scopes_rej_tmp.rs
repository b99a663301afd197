use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 32)]
fn r1() {
    let v = alloc_local::<f32>([16, 4], scope = "warp");
}
#[tile_kernel(grid = 1, block = 32)]
fn r2() {
    let v = alloc_local::<f32>([32], scope = "warp");
}
#[tile_kernel(grid = 1, block = 32)]
fn r3(x: Tensor<f32, 128>) {
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    apply(
        ptx["ld.global.v4.f32"],
        v,
        x.reshape([16, 8]),
        scope = "warp",
    );
}
#[tile_kernel(grid = 1, block = 32)]
fn r4(x: Tensor<f32, 128>) {
    let v = alloc_local::<f32>([4]);
    apply(
        ptx["ld.global.v4.f32"],
        v,
        x.reshape([32, 4]),
        scope = "warp",
    );
}
#[tile_kernel(grid = 1, block = 32)]
fn r5(x: Tensor<f32, 4>) {
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    apply(ptx["ld.global.v4.f32"], v, x);
}
#[tile_kernel(grid = 1, block = 32)]
fn r6(y: Tensor<f32, 32>) {
    let v = alloc_local::<f32>([32, 1], scope = "warp");
    apply(ptx["mov.f32"], v, 1.0, scope = "warp");
    apply(
        ptx["st.global.f32"],
        y.slice(s![lane_id()..lane_id() + 1]),
        v.slice(s![0, ..]),
    );
}
#[tile_kernel(grid = 1, block = 32)]
fn r7() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    apply(ptx["shfl.sync.idx.b32"], v, v, 0, 0x1f);
}
#[tile_kernel(grid = 1, block = 32)]
fn r8() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    apply(
        ptx["shfl.sync.idx.b32"],
        v,
        v,
        0,
        0x1f,
        0xffffffff,
        scope = "warp",
    );
}
#[tile_kernel(grid = 1, block = 32)]
fn r9() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    if lane_id() < 16 {
        apply(ptx["redux.sync.add.u32"], v, v, scope = "warp");
    }
}
#[tile_kernel(grid = 1, block = 256)]
fn r10() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    if thread_id(0) < 64 {
        apply(ptx["redux.sync.add.u32"], v, v, scope = "warp");
    }
}
#[tile_kernel(grid = 1, block = 32)]
fn r11() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let p = alloc_local::<bool>([1]);
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    apply(ptx["setp.lt.u32"], p, v.slice(s![lane_id(), ..]), 2);
    apply(ptx["redux.sync.add.u32"], v, v, scope = "warp", pred = p[0]);
}
#[tile_kernel(grid = 1, block = 48)]
fn r12() {
    let v = alloc_local::<f32>([32, 4], scope = "warp");
}
#[tile_kernel(grid = 1, block = 192)]
fn r13() {
    let v = alloc_local::<f32>([128, 4], scope = "warpgroup");
}
#[tile_kernel(grid = 1, block = 32)]
fn r14(x: Tensor<f32, 128>) {
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    apply(
        ptx["ld.global.v4.f32"],
        v,
        x.reshape([32, 4]),
        scope = "warp",
    );
    let w = v.reshape([128]);
}
#[tile_kernel(grid = 1, block = 32)]
fn r15(x: Tensor<f32, 128>) {
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    apply(
        ptx["ld.global.v4.f32"],
        v.unsqueeze(0),
        x.reshape([32, 4]),
        scope = "warp",
    );
}
#[tile_kernel(grid = 2, block = 64)]
fn r16(out: Tensor<u32, 4>) {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    let w = cta_id(0) * 2 + warp_id();
    apply(
        ptx["st.global.u32"],
        out.slice(s![w..w + 1]),
        v.slice(s![lane_id(), ..]),
        pred = lane_id() == 5,
    );
}
#[tile_kernel(grid = 1, block = 256)]
fn r17() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    if thread_id(0) / 32 < 2 {
        apply(ptx["redux.sync.add.u32"], v, v, scope = "warp");
    }
}
#[tile_kernel(grid = 1, block = 256)]
fn r18() {
    let v = alloc_local::<u32>([256, 1], scope = "cta");
    apply(ptx["mov.b32"], v, 1, scope = "cta");
    apply(ptx["redux.sync.add.u32"], v, v, scope = "cta");
}
#[tile_kernel(grid = 1, block = [16, 8, 1])]
fn r19() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    if thread_id(1) < 2 {
        apply(ptx["redux.sync.add.u32"], v, v, scope = "warp");
    }
}
#[tile_kernel(grid = 1, block = 32)]
fn r20() {
    let v = alloc_local::<f32>([32, 4], scope = "block");
}
#[tile_kernel(grid = 1, block = 32)]
fn r21(x: Tensor<f32, 128>) {
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    apply(
        ptx["ld.global.v4.f32"],
        v,
        x.reshape([32, 4]),
        scope = "warp",
    );
    apply(
        ptx["redux.sync.add.u32"],
        v.view::<u32>().slice(s![.., 0..1]),
        v.view::<u32>().slice(s![.., 1..2]),
    );
}
#[tile_kernel(grid = 1, block = 256)]
fn r22() {
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], v, 1, scope = "warp");
    apply(
        ptx["redux.sync.add.u32"],
        v,
        v,
        scope = "warp",
        pred = lane_id() < 16,
    );
}
fn main() {}
