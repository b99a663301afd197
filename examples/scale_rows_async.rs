//! A streaming kernel pipelined through a 4-stage `cp.async` ring: each
//! row of an f32 `[M, N]` tensor is scaled by its own factor
//! (`y[r, c] = x[r, c] * scale[r]`). A CTA of 256 threads walks its row in
//! chunks of 1024 values; every thread copies its 16 bytes of a chunk
//! into the ring three chunks ahead (`cp.async.cg`, 16 bytes), waits until
//! only the two newest groups are in flight (`cp.async.wait_group 2`),
//! reads its own bytes back and refills the stage it just emptied. Each
//! thread reads only what it copied, so no barrier is needed: the checker
//! proves it (a read before the wait, a refill of a stage in flight, or a
//! read of another thread's bytes without a barrier are compile errors).
//! Checked bit for bit against the host; on a GPU, timed against a device
//! copy of the same bytes.
//!
//! `cargo run --release --example scale_rows_async [M N]` (N a multiple of
//! 4; default 4096 x 16384 on a GPU, a few small shapes on the CPU
//! interpreter).

#[path = "common/rows.rs"]
mod rows;

use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1])]
fn scale_rows_ring(x: Tensor<f32, M, N>, scale: Tensor<f32, M>, y: Tensor<f32, M, N>) {
    let tx = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let v = alloc_local::<f32>([1, 4]);
    let f = alloc_local::<f32>([1, 1]);
    apply(
        ptx["ld.global.f32"],
        f,
        scale.slice(s![row..row + 1]).unsqueeze(0),
    );
    // The prologue: chunks 0, 1 and 2 into stages 0, 1 and 2, a group each.
    for s in 0..3 {
        let c = s * 1024 + 4 * tx;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * tx..4 * tx + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(ptx["cp.async.commit_group"]);
    }
    for j in 0..ceil_div(N, 1024) {
        // Chunk j's group is the third newest: retire it.
        apply(ptx["cp.async.wait_group"], 2);
        let c = j * 1024 + 4 * tx;
        let inside = c + 4 <= N;
        let stage = j % 4;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, 4 * tx..4 * tx + 4]),
            pred = inside,
        );
        // Chunk j + 3 into the stage chunk j - 1 left (out of the row: no copy).
        let refill = (j + 3) % 4;
        let next = (j + 3) * 1024 + 4 * tx;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * tx..4 * tx + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(ptx["cp.async.commit_group"]);
        ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([1, 4]));
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
            pred = inside,
        );
    }
    apply(ptx["cp.async.wait_all"]);
}

/// Deterministic values in (-8, 8).
fn inputs(m: usize, n: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..m * n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 20) as f32 - 8.0
        })
        .collect()
}

fn check(dev: &Device, m: usize, n: usize) -> Result<(), Error> {
    let host = inputs(m, n);
    let factors: Vec<f32> = (0..m).map(|r| 0.5 + r as f32 * 0.375).collect();
    let x = dev.upload(&host, [m, n])?;
    let scale = dev.upload(&factors, [m])?;
    let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
    scale_rows_ring(dev, &x, &scale, &mut y)?;
    let got = y.download()?;
    for (i, (g, v)) in got.iter().zip(&host).enumerate() {
        let want = v * factors[i / n];
        assert_eq!(g.to_bits(), want.to_bits(), "y[{}, {}]", i / n, i % n);
    }
    if !dev.is_cpu() {
        let runs: u32 = 20;
        let ms = dev.time(|| {
            for _ in 0..runs {
                scale_rows_ring(dev, &x, &scale, &mut y)?;
            }
            Ok(())
        })? / f64::from(runs);
        let mut copy = dev.zeros::<f32>([m, n])?;
        let copy_ms = dev.time(|| {
            for _ in 0..runs {
                dev.stream()?
                    .memcpy_dtod(x.cuda_slice()?, copy.cuda_slice_mut()?)
                    .map_err(|source| Error::Driver {
                        during: "copying",
                        source,
                    })?;
            }
            Ok(())
        })? / f64::from(runs);
        let gbs = |ms: f64| (2 * m * n * 4) as f64 / ms / 1e6;
        println!(
            "scale_rows_ring {m} x {n} f32: {ms:.4} ms, {:.1} GB/s; copy {copy_ms:.4} ms, {:.1} GB/s; {:.3}x the copy",
            gbs(ms),
            gbs(copy_ms),
            copy_ms / ms
        );
    }
    println!("OK: scale_rows_ring {m} x {n} matches the host bit for bit");
    Ok(())
}

fn main() -> Result<(), Error> {
    rows::main(
        "SCALE_ROWS_ASYNC_PTX",
        &[("scale_rows_ring", scale_rows_ring::PTX)],
        &[(3, 1024), (2, 5000), (1, 8), (4, 12288)],
        &[(4096, 16384), (16384, 4096)],
        check,
    )
}
