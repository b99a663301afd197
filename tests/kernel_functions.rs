//! Kernel functions: fragments of statements written once and inlined at
//! each call, in the kernel's body (`fn name(t: Tile) { .. }`) or shared
//! between kernels with `#[tile_kernel::function]` (scalar functions too).
//! Checked where inlined; CPU and GPU twins against the host.

#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

/// The sum of a warp tile's 32 lane values, in every lane (butterflies).
#[tile_kernel::function]
fn warp_sum(s: Tile<f32>, other: Tile<f32>) {
    for step in 0..5 {
        let offset = 16 >> step;
        apply(
            ptx["shfl.sync.bfly.b32"],
            other.view::<u32>(),
            s.view::<u32>(),
            offset,
            0x1f,
            scope = "warp",
        );
        apply(ptx["add.rn.f32"], s, s, other, scope = "warp");
    }
}

/// A scalar function shared by kernels.
#[tile_kernel::function]
fn squared_plus(x: f32, c: f32) -> f32 {
    x * x + c
}

/// Per row of 128: the sum of `x * x + 1` (one warp a row, 4 values a lane).
#[tile_kernel(grid = ceil_div(R, 4), block = 128)]
fn row_sums(x: Tensor<f32, R, 128>, out: Tensor<f32, R>) {
    // A kernel function of this kernel only: lane 0 stores the row's value.
    fn store_lane0(v: Tile<f32>, dst: Tensor<f32>) {
        apply(
            ptx["st.global.f32"],
            dst,
            v.slice(s![lane_id(), ..]),
            pred = lane_id() == 0,
        );
    }
    let row = cta_id(0) * 4 + warp_id();
    let v = alloc_local::<f32>([32, 4], scope = "warp");
    let s = alloc_local::<f32>([32, 1], scope = "warp");
    let t = alloc_local::<f32>([32, 1], scope = "warp");
    if row < R {
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![row, ..]).reshape([32, 4]),
            scope = "warp",
        );
        ewise(|a: f32| squared_plus(a, 1.0), v, v, scope = "warp");
        apply(
            ptx["add.rn.f32"],
            s,
            v.slice(s![.., 0..1]),
            v.slice(s![.., 1..2]),
            scope = "warp",
        );
        apply(
            ptx["add.rn.f32"],
            t,
            v.slice(s![.., 2..3]),
            v.slice(s![.., 3..4]),
            scope = "warp",
        );
        apply(ptx["add.rn.f32"], s, s, t, scope = "warp");
        warp_sum(s, t);
        store_lane0(s, out.slice(s![row..row + 1]));
    }
}

/// Per row of 32: the sum and the sum of squares (the shared scalar
/// function by name in `ewise`, a literal input), both through `warp_sum`.
#[tile_kernel(grid = ceil_div(R, 4), block = 128)]
fn row_sum_and_square(x: Tensor<f32, R, 32>, out: Tensor<f32, R, 2>) {
    let row = cta_id(0) * 4 + warp_id();
    let s = alloc_local::<f32>([32, 1], scope = "warp");
    let q = alloc_local::<f32>([32, 1], scope = "warp");
    let t = alloc_local::<f32>([32, 1], scope = "warp");
    let o = alloc_local::<f32>([32, 2], scope = "warp");
    if row < R {
        apply(
            ptx["ld.global.f32"],
            s.slice(s![lane_id(), ..]),
            x.slice(s![row, lane_id()..lane_id() + 1]),
        );
        ewise(squared_plus, q, s, 0.0, scope = "warp");
        warp_sum(s, t);
        warp_sum(q, t);
        apply(ptx["mov.f32"], o.slice(s![.., 0..1]), s, scope = "warp");
        apply(ptx["mov.f32"], o.slice(s![.., 1..2]), q, scope = "warp");
        apply(
            ptx["st.global.v2.f32"],
            out.slice(s![row, ..]).reshape([1, 2]),
            o.slice(s![lane_id(), ..]).reshape([1, 2]),
            pred = lane_id() == 0,
        );
    }
}

#[test]
fn a_kernel_function_is_inlined_at_each_call() {
    // Two calls of `warp_sum`: ten shuffles.
    let shuffles = support::lines_starting(row_sum_and_square::PTX, "shfl.sync.bfly.b32");
    assert_eq!(shuffles.len(), 10, "{}", row_sum_and_square::PTX);
    let shuffles = support::lines_starting(row_sums::PTX, "shfl.sync.bfly.b32");
    assert_eq!(shuffles.len(), 5, "{}", row_sums::PTX);
}

#[test]
fn kernel_function_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("row_sums", row_sums::PTX),
        ("row_sum_and_square", row_sum_and_square::PTX),
    ]);
}

/// The warp's butterfly order: lane l adds lane l ^ m's value.
fn butterfly(lanes: &mut [f32]) {
    for m in [16, 8, 4, 2, 1] {
        let before = lanes.to_vec();
        for l in 0..32 {
            lanes[l] = before[l] + before[l ^ m];
        }
    }
}

fn values(n: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % 20_001) as f32 - 10_000.0) / 997.0
        })
        .collect()
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(row_sums_match_the_host, sums_and_squares_match_the_host);

    fn row_sums_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let rows = 37;
        let x = values(rows * 128);
        let dx = dev.upload(&x, [rows, 128])?;
        let mut out = dev.zeros::<f32>([rows])?;
        row_sums(dev, &dx, &mut out)?;
        let out = out.download()?;
        for r in 0..rows {
            let mut lanes: Vec<f32> = (0..32)
                .map(|l| {
                    let e = |k: usize| {
                        let v = x[r * 128 + 4 * l + k];
                        v * v + 1.0
                    };
                    (e(0) + e(1)) + (e(2) + e(3))
                })
                .collect();
            butterfly(&mut lanes);
            assert_eq!(out[r].to_bits(), lanes[0].to_bits(), "row {r}");
        }
        Ok(())
    }

    fn sums_and_squares_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let rows = 21;
        let x = values(rows * 32);
        let dx = dev.upload(&x, [rows, 32])?;
        let mut out = dev.zeros::<f32>([rows, 2])?;
        row_sum_and_square(dev, &dx, &mut out)?;
        let out = out.download()?;
        for r in 0..rows {
            let mut sums = x[r * 32..r * 32 + 32].to_vec();
            let mut squares: Vec<f32> = sums.iter().map(|v| v * v + 0.0).collect();
            butterfly(&mut sums);
            butterfly(&mut squares);
            assert_eq!(out[2 * r].to_bits(), sums[0].to_bits(), "row {r} sum");
            assert_eq!(
                out[2 * r + 1].to_bits(),
                squares[0].to_bits(),
                "row {r} squares"
            );
        }
        Ok(())
    }
}
