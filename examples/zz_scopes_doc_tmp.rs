use tile_kernel::prelude::*;

// K1: the model
#[tile_kernel(grid = ceil_div(N, 1024), block = 256)]
fn double_128(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let base = (cta_id(0) * 8 + warp_id()) * 128;
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    if base + 128 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![base..base + 128]).reshape([32, 4]),
            scope = "warp",
        );
        apply(
            ptx["add.f32"],
            v.unsqueeze(-1),
            v.unsqueeze(-1),
            v.unsqueeze(-1),
            scope = "warp",
        );
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![base..base + 128]).reshape([32, 4]),
            v,
            scope = "warp",
        );
    }
}

// K3: collectives, grid-stride loop over rows with uniform bounds
#[tile_kernel(grid = 132, block = 256)]
fn row_sums(x: Tensor<f32, R, 32>, sums: Tensor<f32, R>) {
    let s = alloc_local::<f32>([32, 1], scope = "warp");
    let t = alloc_local::<f32>([32, 1], scope = "warp");
    for r in (cta_id(0) * 8 + warp_id()..R).step_by(132 * 8) {
        apply(
            ptx["ld.global.f32"],
            s,
            x.slice(s![r, ..]).reshape([32, 1]),
            scope = "warp",
        );
        apply(ptx["shfl.sync.bfly.b32"], t, s, 16, 0x1f, scope = "warp");
        apply(ptx["add.f32"], s, s, t, scope = "warp");
        apply(ptx["shfl.sync.bfly.b32"], t, s, 8, 0x1f, scope = "warp");
        apply(ptx["add.f32"], s, s, t, scope = "warp");
        apply(ptx["shfl.sync.bfly.b32"], t, s, 4, 0x1f, scope = "warp");
        apply(ptx["add.f32"], s, s, t, scope = "warp");
        apply(ptx["shfl.sync.bfly.b32"], t, s, 2, 0x1f, scope = "warp");
        apply(ptx["add.f32"], s, s, t, scope = "warp");
        apply(ptx["shfl.sync.bfly.b32"], t, s, 1, 0x1f, scope = "warp");
        apply(ptx["add.f32"], s, s, t, scope = "warp");
        apply(
            ptx["st.global.f32"],
            sums.slice(s![r..r + 1]),
            s.slice(s![lane_id(), ..]),
            pred = lane_id() == 0,
        );
    }
}

fn main() -> Result<(), Error> {
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    if std::env::var_os("SHOW").is_some() {
        println!("{}\n{}", double_128::PTX, row_sums::PTX);
    }
    let b = 13usize; // 13 blocks of 128, plus a tail of 5
    let x: Vec<f32> = (0..b * 128 + 5).map(|i| i as f32 * 0.25 - 7.0).collect();
    let xs = dev.upload(&x, [b * 128 + 5])?;
    let mut y = dev.zeros::<f32>([b * 128 + 5])?;
    double_128(&dev, &xs, &mut y)?;
    let got = y.download()?;
    for i in 0..b * 128 + 5 {
        let want = if i < b * 128 { x[i] + x[i] } else { 0.0 };
        assert_eq!(got[i].to_bits(), want.to_bits(), "double {i}");
    }
    println!("double_rows ok");

    let r = 1500usize;
    let x: Vec<f32> = (0..r * 32)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.5)
        .collect();
    let xs = dev.upload(&x, [r, 32])?;
    let mut sums = dev.zeros::<f32>([r])?;
    row_sums(&dev, &xs, &mut sums)?;
    let got = sums.download()?;
    for row in 0..r {
        // butterfly order: exact for these half-integers (sums < 2^24)
        let want: f32 = x[row * 32..row * 32 + 32].iter().sum();
        assert_eq!(got[row], want, "row {row}");
    }
    println!("row_sums ok");
    Ok(())
}
