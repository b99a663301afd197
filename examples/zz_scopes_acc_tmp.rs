use tile_kernel::prelude::*;

// 1. if lane_id() == 0 instead of pred
#[tile_kernel(grid = ceil_div(R, 8), block = 256)]
fn a1(x: Tensor<u32, R, 32>, out: Tensor<u32, R>) {
    let r = cta_id(0) * 8 + warp_id();
    let s = alloc_local::<u32>([32, 1], scope = "warp");
    if r < R {
        apply(
            ptx["ld.global.u32"],
            s,
            x.slice(s![r, ..]).reshape([32, 1]),
            scope = "warp",
        );
        apply(ptx["redux.sync.add.u32"], s, s, scope = "warp");
        if lane_id() == 0 {
            apply(
                ptx["st.global.u32"],
                out.slice(s![r..r + 1]),
                s.slice(s![lane_id(), ..]),
            );
        }
    }
}

// 3. warpgroup tiles, block 256
#[tile_kernel(grid = ceil_div(N, 512), block = 128)]
fn a3(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let base = cta_id(0) * 512;
    let v = alloc_local::<f32>([128, 4], scope = "warpgroup");
    let w = alloc_local::<f32>([4, 32, 4], scope = "warpgroup");
    if base + 512 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![base..base + 512]).reshape([128, 4]),
            scope = "warpgroup",
        );
        apply(
            ptx["mov.b32"],
            w.reshape([4, 32, 4, 1]),
            v.reshape([128, 4, 1]),
            scope = "warpgroup",
        );
        apply(
            ptx["add.f32"],
            v.slice(s![warp_id() * 32 + lane_id(), 0..1]),
            w.slice(s![warp_id(), lane_id(), 0..1]),
            1.0,
        );
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![base..base + 512]).reshape([4, 32, 4]),
            v,
            scope = "warpgroup",
        );
    }
}

// 4. cta tiles
#[tile_kernel(grid = ceil_div(N, 1024), block = 256)]
fn a4(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let base = cta_id(0) * 1024;
    let v = alloc_local::<f32>([256, 4], scope = "cta");
    let w = alloc_local::<f32>([8, 32, 4], scope = "cta");
    if base + 1024 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![base..base + 1024]).reshape([256, 4]),
            scope = "cta",
        );
        apply(
            ptx["mov.b32"],
            w.reshape([8, 32, 4, 1]),
            v.reshape([256, 4, 1]),
            scope = "cta",
        );
        apply(
            ptx["add.f32"],
            v.slice(s![thread_id(0), 0..1]),
            w.slice(s![warp_id(), lane_id(), 0..1]),
            1.0,
        );
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![base..base + 1024]).reshape([256, 4]),
            v,
            scope = "cta",
        );
    }
}

// 5. thread_id(1) uniform with block [32, 4]
#[tile_kernel(grid = 1, block = [32, 4, 1])]
fn a5(out: Tensor<u32, 4>) {
    let s = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], s, 1, scope = "warp");
    if thread_id(1) < 2 {
        apply(ptx["redux.sync.add.u32"], s, s, scope = "warp");
    }
    apply(
        ptx["st.global.u32"],
        out.slice(s![warp_id()..warp_id() + 1]),
        s.slice(s![lane_id(), ..]),
        pred = lane_id() == 0,
    );
}

// 6. warp_id() < 2 accepted; uniform scalar param; for loop runtime bound from param
#[tile_kernel(grid = 1, block = 256)]
fn a6(out: Tensor<u32, 8>, n: u32, flag: bool) {
    let s = alloc_local::<u32>([32, 1], scope = "warp");
    apply(ptx["mov.b32"], s, 1, scope = "warp");
    if warp_id() < 2 && flag {
        for i in 0..n {
            apply(
                ptx["redux.sync.add.u32"],
                s,
                s,
                scope = "warp",
                pred = i < 3,
            );
        }
    }
    apply(
        ptx["st.global.u32"],
        out.slice(s![warp_id()..warp_id() + 1]),
        s.slice(s![lane_id(), ..]),
        pred = lane_id() == 0,
    );
}

// 9. all forms
#[tile_kernel(grid = 1, block = 32)]
fn a9(out: Tensor<u32, 256>) {
    let a = alloc_local::<u32>([32, 1], scope = "warp");
    let d = alloc_local::<u32>([32, 8], scope = "warp");
    let p = alloc_local::<bool>([32, 2], scope = "warp");
    apply(ptx["mov.u32"], a, sreg("%laneid"), scope = "warp");
    apply(
        ptx["setp.lt.u32"],
        p.slice(s![.., 0..1]),
        a,
        7,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        d.slice(s![.., 0..1]),
        a,
        0,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["vote.sync.any.pred"],
        p.slice(s![.., 1..2]),
        p.slice(s![.., 0..1]),
        scope = "warp",
    );
    apply(
        ptx["vote.sync.ballot.b32"],
        d.slice(s![.., 1..2]),
        p.slice(s![.., 0..1]),
        scope = "warp",
    );
    apply(
        ptx["match.any.sync.b32"],
        d.slice(s![.., 2..3]),
        a,
        scope = "warp",
    );
    apply(
        ptx["elect.sync"],
        d.slice(s![.., 3..4]),
        p.slice(s![.., 1..2]),
        scope = "warp",
    );
    apply(
        ptx["redux.sync.or.b32"],
        d.slice(s![.., 4..5]),
        a,
        scope = "warp",
    );
    apply(ptx["activemask.b32"], d.slice(s![.., 5..6]), scope = "warp");
    apply(ptx["bar.warp.sync"], scope = "warp");
    apply(
        ptx["redux.sync.min.s32"],
        d.slice(s![.., 6..7]),
        a,
        scope = "warp",
    );
    apply(
        ptx["selp.u32"],
        d.slice(s![.., 7..8]),
        1,
        0,
        p.slice(s![.., 1..2]),
        scope = "warp",
    );
    apply(
        ptx["st.global.v4.b32"],
        out.reshape([32, 2, 4]),
        d.reshape([32, 2, 4]),
        scope = "warp",
    );
}

// 10. views
#[tile_kernel(grid = 1, block = 32)]
fn a10(x: Tensor<u32, 128>, out: Tensor<u16, 256>) {
    let v = alloc_local::<u32>([32, 4], scope = "warp");
    apply(
        ptx["ld.global.v4.u32"],
        v,
        x.reshape([32, 4]),
        scope = "warp",
    );
    let h = v.view::<u16>();
    apply(
        ptx["st.global.v4.b16"],
        out.reshape([32, 2, 4]),
        h.reshape([32, 2, 4]),
        scope = "warp",
    );
}

fn main() -> Result<(), Error> {
    let dev = Device::new(0)?;
    let mut out = dev.zeros::<u32>([256])?;
    a9(&dev, &mut out)?;
    let o = out.download()?;
    for l in 0..32 {
        println!("{l}: {:?}", &o[l * 8..l * 8 + 8]);
    }
    let mut o4 = dev.zeros::<u32>([4])?;
    a5(&dev, &mut o4)?;
    println!("a5 {:?}", o4.download()?);
    let mut o8 = dev.zeros::<u32>([8])?;
    a6(&dev, &mut o8, 5, true)?;
    println!("a6 {:?}", o8.download()?);
    let x: Vec<f32> = (0..2048 + 3).map(|i| i as f32).collect();
    let xs = dev.upload(&x, [x.len()])?;
    let mut y = dev.zeros::<f32>([x.len()])?;
    a3(&dev, &xs, &mut y)?;
    let g = y.download()?;
    for i in 0..2048 {
        let want = if i % 4 == 0 { x[i] + 1.0 } else { x[i] };
        assert_eq!(g[i], want, "a3 {i}");
    }
    let mut y = dev.zeros::<f32>([x.len()])?;
    a4(&dev, &xs, &mut y)?;
    let g = y.download()?;
    for i in 0..2048 {
        let want = if i % 4 == 0 { x[i] + 1.0 } else { x[i] };
        assert_eq!(g[i], want, "a4 {i}");
    }
    println!("a3 a4 ok");
    Ok(())
}
