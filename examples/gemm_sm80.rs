//! `C = A B^T` on the tensor cores, the sm_80 way: bf16 inputs, f32
//! accumulation, a `cp.async` ring feeding shared memory, `ldmatrix`
//! fragments and `mma.sync.m16n8k16`. `A` is `[M, K]`, `B` is `[N, K]`
//! (a linear layer's weight: both K-major), `C` is `[M, N]` f32; any `M`
//! and `N`, `K` a multiple of 8 (16-byte rows for `cp.async`).
//!
//! Every step is proven by the compiler: the copies' bounds (rows past `M`
//! or `N` and columns past `K` are zero-filled by `src-size`), their
//! ownership (no stage is read before its wait and barrier, nor refilled
//! while a warp may still read it), the shared-memory races, the
//! convergence of the warp collectives and the guarded stores. The
//! launcher is a safe fn.
//!
//! Run: `cargo run --release --example gemm_sm80 [M N K]` (default: small
//! awkward shapes on the CPU interpreter or the GPU, then 4096^3 timed on a
//! GPU). Checked against an f64 host reference with a K-scaled tolerance.
//! `GEMM_SM80_PTX=1` prints the PTX instead.

use std::time::Instant;
use tile_kernel::prelude::*;

/// `$name`: a `$bm x $bn` tile of `C` per CTA, `$wm x $wn` warps
/// (`block = [32, $wn, $wm]`: warp `(ty, tz)` owns rows `$mi * 16 * tz`
/// and columns `$nj * 8 * ty` of the tile, as `$mi x $nj` `m16n8`
/// accumulators), `$threads` threads each copying `$copies` chunks of A
/// and `$copies_b` of B per step; K in steps of `8 * $kc` through a ring
/// of `$stages` stages.
///
/// A stage holds each operand's rows x `8 * $kc` k as chunks of 16 bytes
/// (8 k of one row): A's as `[$kc, $bm, 8]` (k-chunk, row), B's as
/// `[$bn / 8, $kc, 8, 8]` (row group of 8, k-chunk, row in the group), so a
/// thread's `cp.async` writes one chunk, an `ldmatrix` row is one chunk
/// and the 8 rows of an `ldmatrix` matrix are 128 contiguous bytes (no
/// bank conflicts, no swizzle). Steps `k + 1 .. k + stages - 1` are in
/// flight while step `k` is multiplied; step `k + stages - 1` is issued
/// halfway through step `k`'s multiplications, so that the copies' address
/// arithmetic overlaps the tensor cores.
macro_rules! gemm_kernel {
    ($name:ident, bm = $bm:literal, bn = $bn:literal, wm = $wm:literal, wn = $wn:literal,
     mi = $mi:literal, nj = $nj:literal, kc = $kc:literal, threads = $threads:literal,
     copies = $copies:literal, copies_b = $copies_b:literal, stages = $stages:literal) => {
        #[tile_kernel(grid = [ceil_div(N, $bn), ceil_div(M, $bm), 1], block = [32, $wn, $wm], arch = "sm_80")]
        fn $name(
            a: Tensor<bf16, M, { 8 * K8 }>,
            b: Tensor<bf16, N, { 8 * K8 }>,
            c: Tensor<f32, M, N>,
        ) {
            let t = thread_id(0) + 32 * thread_id(1) + 32 * $wn * thread_id(2);
            let m0 = cta_id(1) * $bm;
            let n0 = cta_id(0) * $bn;
            let wn = thread_id(1);
            let wm = thread_id(2);
            // Stages of 16-byte rows per operand (see the read views below).
            let sa = alloc_shared::<bf16>([$stages, $bm * $kc, 8]);
            let sb = alloc_shared::<bf16>([$stages, $bn * $kc, 8]);
            // Lane parts: acc[mi, nj, 4] for the m16n8 tiles of the warp;
            // af[mi, 4] the A fragments of a k16 step; bq[p, 4] the B fragments of
            // n-tiles 2p and 2p + 1 (registers b0, b1, then b0', b1').
            let acc = alloc_local::<f32>([32, $mi, $nj, 4], scope = "warp");
            let af = alloc_local::<u32>([32, $mi, 4], scope = "warp");
            let bq = alloc_local::<u32>([32, $nj / 2, 4], scope = "warp");
            apply(ptx["mov.b32"], acc.reshape([32, $mi * $nj * 4, 1]), 0, scope = "warp");
            let steps = ceil_div(8 * K8, 8 * $kc);
            // Thread t copies chunks t + threads j of each operand's stage: the
            // stage's 16-byte rows in order, so its writes are disjoint by t.
            // A's chunk q is row q % bm, k-chunk q / bm; B's is row
            // 8 (q / (8 kc)) + q % 8, k-chunk q / 8 % kc.
            // The prologue: steps 0 .. stages - 1 into their stages, a group each.
            for st in 0..$stages - 1 {
                for j in 0..$copies {
                    let q = t + $threads * j;
                    let ka = st * (8 * $kc) + 8 * (q / $bm);
                    apply(
                        ptx["cp.async.cg.shared.global"],
                        sa.slice(s![st, q, ..]).view::<u32>(),
                        a.slice(s![m0 + q % $bm, ka..ka + 8]).view::<u32>(),
                        16,
                        zero_fill = true,
                    );
                }
                for j in 0..$copies_b {
                    let q = t + $threads * j;
                    let kb = st * (8 * $kc) + 8 * (q / 8 % $kc);
                    let rb = 8 * (q / (8 * $kc)) + q % 8;
                    apply(
                        ptx["cp.async.cg.shared.global"],
                        sb.slice(s![st, q, ..]).view::<u32>(),
                        b.slice(s![n0 + rb, kb..kb + 8]).view::<u32>(),
                        16,
                        zero_fill = true,
                    );
                }
                apply(ptx["cp.async.commit_group"]);
            }
            for k in 0..steps {
                let s = k % $stages;
                // Step k's copies (all but the stages - 2 newest groups) are
                // done, for this thread; the barrier makes every thread's
                // visible, and ends every warp's reads of step k - 1.
                apply(ptx["cp.async.wait_group"], $stages - 2);
                apply(ptx["bar.sync"], 0, scope = "cta");
                for half in 0..2 {
                    if half == 1 {
                        // Step k + stages - 1 into the stage step k - 1 used
                        // (past the last step: columns past K, zero-filled,
                        // never read).
                        let next = (k + $stages - 1) % $stages;
                        for j in 0..$copies {
                            let q = t + $threads * j;
                            let ka = (k + $stages - 1) * (8 * $kc) + 8 * (q / $bm);
                            apply(
                                ptx["cp.async.cg.shared.global"],
                                sa.slice(s![next, q, ..]).view::<u32>(),
                                a.slice(s![m0 + q % $bm, ka..ka + 8]).view::<u32>(),
                                16,
                                zero_fill = true,
                            );
                        }
                        for j in 0..$copies_b {
                            let q = t + $threads * j;
                            let kb = (k + $stages - 1) * (8 * $kc) + 8 * (q / 8 % $kc);
                            let rb = 8 * (q / (8 * $kc)) + q % 8;
                            apply(
                                ptx["cp.async.cg.shared.global"],
                                sb.slice(s![next, q, ..]).view::<u32>(),
                                b.slice(s![n0 + rb, kb..kb + 8]).view::<u32>(),
                                16,
                                zero_fill = true,
                            );
                        }
                        apply(ptx["cp.async.commit_group"]);
                    }
                    for kh in 0..$kc / 4 {
                        let kk = half * ($kc / 4) + kh;
                        // A: lane l gives row l % 16 of k-chunk 2 kk + l / 16: the
                        // four matrices are a0..a3 of the m16n8k16 A fragment.
                        for mi in 0..$mi {
                            let r = wm * ($mi * 16) + mi * 16;
                            apply(
                                ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                                af.slice(s![.., mi, ..]),
                                sa.slice(s![s, .., ..]).reshape([$kc, $bm, 8]).slice(s![
                                    2 * kk..2 * kk + 2,
                                    r..r + 16,
                                    ..
                                ]),
                                scope = "warp",
                            );
                        }
                        // B (rows are n, in groups of 8): lane l gives row l % 8 of
                        // k-chunk 2 kk + l / 8 % 2 of n-group nj wn + 2 p + l / 16:
                        // the matrices are b0, b1 of n-tile 2p, then of n-tile 2p + 1.
                        for p in 0..$nj / 2 {
                            let ng = wn * $nj + p * 2;
                            apply(
                                ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                                bq.slice(s![.., p, ..]),
                                sb.slice(s![s, .., ..])
                                    .reshape([$bn / 8, $kc, 8, 8])
                                    .slice(s![ng..ng + 2, 2 * kk..2 * kk + 2, .., ..])
                                    .reshape([2, 16, 8]),
                                scope = "warp",
                            );
                        }
                        for mi in 0..$mi {
                            for nj in 0..$nj {
                                let p = nj / 2;
                                let h = 2 * (nj % 2);
                                let d = acc.slice(s![.., mi, nj, ..]);
                                apply(
                                    ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"],
                                    d,
                                    af.slice(s![.., mi, ..]),
                                    bq.slice(s![.., p, h..h + 2]),
                                    d,
                                    scope = "warp",
                                );
                            }
                        }
                    }
                }
            }
            apply(ptx["cp.async.wait_all"]);
            // C: element i of tile (mi, nj) is row g + 8 (i / 2), column 2 tq + i % 2.
            let g = lane_id() / 4;
            let tq = lane_id() % 4;
            for mi in 0..$mi {
                for nj in 0..$nj {
                    for i in 0..4 {
                        let row = m0 + wm * ($mi * 16) + mi * 16 + g + 8 * (i / 2);
                        let col = n0 + wn * ($nj * 8) + nj * 8 + 2 * tq + i % 2;
                        apply(
                            ptx["st.global.f32"],
                            c.slice(s![row, col..col + 1]),
                            acc.slice(s![lane_id(), mi, nj, i..i + 1]),
                            pred = row < M && col < N,
                        );
                    }
                }
            }
        }
    };
}

gemm_kernel!(
    gemm_bf16_nt,
    bm = 64,
    bn = 64,
    wm = 2,
    wn = 2,
    mi = 2,
    nj = 4,
    kc = 4,
    threads = 128,
    copies = 2,
    copies_b = 2,
    stages = 2
);
gemm_kernel!(
    gemm_bf16_nt_128x3,
    bm = 128,
    bn = 128,
    wm = 2,
    wn = 4,
    mi = 4,
    nj = 4,
    kc = 4,
    threads = 256,
    copies = 2,
    copies_b = 2,
    stages = 3
);
gemm_kernel!(
    gemm_bf16_nt_128x256x3,
    bm = 128,
    bn = 256,
    wm = 2,
    wn = 4,
    mi = 4,
    nj = 8,
    kc = 4,
    threads = 256,
    copies = 2,
    copies_b = 4,
    stages = 3
);
gemm_kernel!(
    gemm_bf16_nt_128x256x4,
    bm = 128,
    bn = 256,
    wm = 2,
    wn = 4,
    mi = 4,
    nj = 8,
    kc = 4,
    threads = 256,
    copies = 2,
    copies_b = 4,
    stages = 4
);

fn inputs(n: usize, seed: u64) -> Vec<bf16> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bf16::from_f32(((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        })
        .collect()
}

/// A kernel of this example and its name.
type Gemm = (
    &'static str,
    fn(
        &Device,
        &DeviceTensor<bf16>,
        &DeviceTensor<bf16>,
        &mut DeviceTensor<f32>,
    ) -> Result<(), Error>,
);

const KERNELS: [Gemm; 4] = [
    ("gemm_bf16_nt (64 x 64 tiles, 2 stages)", |d, a, b, c| {
        gemm_bf16_nt(d, a, b, c)
    }),
    (
        "gemm_bf16_nt_128x3 (128 x 128 tiles, 3 stages)",
        |d, a, b, c| gemm_bf16_nt_128x3(d, a, b, c),
    ),
    (
        "gemm_bf16_nt_128x256x3 (128 x 256 tiles, 3 stages)",
        |d, a, b, c| gemm_bf16_nt_128x256x3(d, a, b, c),
    ),
    (
        "gemm_bf16_nt_128x256x4 (128 x 256 tiles, 4 stages)",
        |d, a, b, c| gemm_bf16_nt_128x256x4(d, a, b, c),
    ),
];

/// Runs `m x n x k` and checks every element against an f64 reference
/// with a K-scaled tolerance, |C - ref| <= 2^-20 * k (the inputs are in
/// [-1, 1); each of the K / 16 fused steps of the tensor cores truncates
/// its terms 25 bits below the largest and rounds toward zero).
fn check(dev: &Device, (name, gemm): Gemm, m: usize, n: usize, k: usize) -> Result<(), Error> {
    let ha = inputs(m * k, 0x6e11 + (m * n * k) as u64);
    let hb = inputs(n * k, 0x7e11 + (m * n * k) as u64);
    let a = dev.upload(&ha, [m, k])?;
    let b = dev.upload(&hb, [n, k])?;
    let mut c = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
    gemm(dev, &a, &b, &mut c)?;
    let got = c.download()?;
    let bound = (k as f64) * 2f64.powi(-20);
    let mut worst = 0f64;
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|kk| f64::from(ha[i * k + kk].to_f32()) * f64::from(hb[j * k + kk].to_f32()))
                .sum();
            let err = (f64::from(got[i * n + j]) - want).abs();
            worst = worst.max(err);
            assert!(
                err <= bound,
                "{name} {m} x {n} x {k}: C[{i}, {j}] = {} but the reference is {want}",
                got[i * n + j]
            );
        }
    }
    println!(
        "OK: {name} {m} x {n} x {k} within {bound:.1e} of the f64 reference (worst {worst:.2e})"
    );
    Ok(())
}

fn main() -> Result<(), Error> {
    // `GEMM_SM80_PTX=1` prints the kernels' PTX (for `ptxas -v`).
    if std::env::var_os("GEMM_SM80_PTX").is_some() {
        for ptx in [
            gemm_bf16_nt::PTX,
            gemm_bf16_nt_128x3::PTX,
            gemm_bf16_nt_128x256x3::PTX,
            gemm_bf16_nt_128x256x4::PTX,
        ] {
            print!("{ptx}");
        }
        return Ok(());
    }
    let dev = Device::new(0)?;
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let shapes: Vec<(usize, usize, usize)> = match args[..] {
        [m, n, k] => vec![(m, n, k)],
        _ => vec![
            (64, 64, 32),
            (1, 1, 8),
            (70, 33, 40),
            (130, 200, 96),
            (17, 129, 264),
            (257, 131, 72),
        ],
    };
    for gemm in KERNELS {
        for &(m, n, k) in &shapes {
            check(&dev, gemm, m, n, k)?;
        }
    }
    if dev.is_cpu() || args.len() == 3 {
        return Ok(());
    }
    let (m, n, k) = (4096, 4096, 4096);
    let a = dev.upload(&inputs(m * k, 1), [m, k])?;
    let b = dev.upload(&inputs(n * k, 2), [n, k])?;
    let mut c = dev.zeros::<f32>([m, n])?;
    for (name, gemm) in KERNELS {
        check(&dev, (name, gemm), 512, 384, 1024)?;
        for _ in 0..3 {
            gemm(&dev, &a, &b, &mut c)?;
        }
        dev.synchronize()?;
        let runs = 20;
        let start = Instant::now();
        for _ in 0..runs {
            gemm(&dev, &a, &b, &mut c)?;
        }
        dev.synchronize()?;
        let seconds = start.elapsed().as_secs_f64() / f64::from(runs);
        println!(
            "{name} {m} x {n} x {k}: {:.3} ms, {:.1} TFLOP/s",
            seconds * 1e3,
            2.0 * (m * n * k) as f64 / seconds / 1e12
        );
    }
    Ok(())
}
