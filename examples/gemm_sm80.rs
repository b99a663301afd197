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

#[path = "common/gemm.rs"]
mod gemm;

use gemm::Gemm;
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

/// A warp's 64 x 64 f32 accumulators (`[32, 4, 8, 4]`: `m16n8` tiles
/// `(mi, nj)` of the `mma.sync` layout) into `C` at rows `r0 ..`, columns
/// `c0 ..`: element `i` of tile `(mi, nj)` is row `g + 8 (i / 2)`, column
/// `2 tq + i % 2` (`g = lane / 4`, `tq = lane % 4`); what lies past `rows`
/// x `cols` is not stored. Shared by the kernels with fragments a k16
/// ahead.
#[tile_kernel::function]
fn store_warp_tile_64x64(
    acc: Tile<f32>,
    c: Tensor<f32>,
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
) {
    let g = lane_id() / 4;
    let tq = lane_id() % 4;
    for mi in 0..4 {
        for nj in 0..8 {
            for i in 0..4 {
                let row = r0 + mi * 16 + g + 8 * (i / 2);
                let col = c0 + nj * 8 + 2 * tq + i % 2;
                apply(
                    ptx["st.global.f32"],
                    c.slice(s![row, col..col + 1]),
                    acc.slice(s![lane_id(), mi, nj, i..i + 1]),
                    pred = row < rows && col < cols,
                );
            }
        }
    }
}

/// `gemm_bf16_nt_128x256_db`: the 128 x 256 tile of 8 warps (64 x 64 a
/// warp) through a 4-stage ring, with every fragment loaded one k16 ahead
/// of the `mma.sync`s that use it (two fragment buffers): a step loads its
/// second k16's fragments while its first k16 multiplies, then passes the
/// step's one barrier (which frees the stage every warp has now read and
/// publishes the next step's copies), loads the next step's first
/// fragments, refills the freed stage and multiplies its second k16, so
/// the tensor cores are fed across the barrier.
///
/// On Hopper the copies are what bounds an sm_80-style GEMM: with
/// `cp.async.cg` every 16-byte copy went to L2 as its own one-sector
/// request (L2 tag lookups 92% busy, ncu, whatever the lanes' pattern),
/// so the copies here are `cp.async.ca`, which L1 merges into line
/// requests (2 sectors each; L2 30% busy, L1 88%). Four lanes copy a row
/// of A's stage (its 64 bytes), as they do B's.
#[tile_kernel(grid = [ceil_div(N, 256), ceil_div(M, 128), 1], block = [32, 4, 2], arch = "sm_80")]
fn gemm_bf16_nt_128x256_db(
    a: Tensor<bf16, M, { 8 * K8 }>,
    b: Tensor<bf16, N, { 8 * K8 }>,
    c: Tensor<f32, M, N>,
) {
    // Step `st`'s copies into stage `s`: thread t copies stage rows t and
    // t + 256 of A (row `t % 128`, k-chunks `t / 128`, `t / 128 + 2`) and
    // t + 256 j of B (rows `8 (t / 32) + t % 8 + 64 j`, k-chunk `t / 8 % 4`).
    fn fill(
        a: Tensor<bf16>,
        b: Tensor<bf16>,
        sa: Shared<bf16>,
        sb: Shared<bf16>,
        t: usize,
        m0: usize,
        n0: usize,
        st: usize,
    ) {
        // Four lanes a row (its 64 bytes: whole sectors a request).
        let row = thread_id(0) / 4 + 8 * thread_id(1) + 32 * thread_id(2);
        let chunk = thread_id(0) % 4;
        let ra = m0 + row;
        let ka = 32 * st + 8 * chunk;
        for j in 0..2 {
            apply(
                ptx["cp.async.ca.shared.global"],
                sa.slice(s![128 * chunk + row + 64 * j, ..]).view::<u32>(),
                a.slice(s![ra + 64 * j, ka..ka + 8]).view::<u32>(),
                16,
                zero_fill = true,
            );
        }
        let rb = n0 + 8 * (t / 32) + t % 8;
        let kb = 32 * st + 8 * (t / 8 % 4);
        for j in 0..4 {
            apply(
                ptx["cp.async.ca.shared.global"],
                sb.slice(s![t + 256 * j, ..]).view::<u32>(),
                b.slice(s![rb + 64 * j, kb..kb + 8]).view::<u32>(),
                16,
                zero_fill = true,
            );
        }
        apply(ptx["cp.async.commit_group"]);
    }
    // The fragments of k16 `kk` (0 or 1) of stage `sa`/`sb` into buffer
    // `fa`/`fb`: A's lane l gives row l % 16 of k-chunk 2 kk + l / 16; B's
    // row l % 8 of k-chunk 2 kk + l / 8 % 2 of n-group 2 p + l / 16.
    fn fragments(
        fa: Tile<u32>,
        fb: Tile<u32>,
        sa: Shared<bf16>,
        sb: Shared<bf16>,
        wm: usize,
        wn: usize,
        kk: usize,
    ) {
        for mi in 0..4 {
            let r = wm * 64 + mi * 16;
            apply(
                ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                fa.slice(s![.., mi, ..]),
                sa.reshape([4, 128, 8])
                    .slice(s![2 * kk..2 * kk + 2, r..r + 16, ..]),
                scope = "warp",
            );
        }
        for p in 0..4 {
            let ng = wn * 8 + p * 2;
            apply(
                ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                fb.slice(s![.., p, ..]),
                sb.reshape([32, 4, 8, 8])
                    .slice(s![ng..ng + 2, 2 * kk..2 * kk + 2, .., ..])
                    .reshape([2, 16, 8]),
                scope = "warp",
            );
        }
    }
    fn multiply(acc: Tile<f32>, fa: Tile<u32>, fb: Tile<u32>) {
        for mi in 0..4 {
            for nj in 0..8 {
                let d = acc.slice(s![.., mi, nj, ..]);
                let h = 2 * (nj % 2);
                apply(
                    ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"],
                    d,
                    fa.slice(s![.., mi, ..]),
                    fb.slice(s![.., nj / 2, h..h + 2]),
                    d,
                    scope = "warp",
                );
            }
        }
    }
    let t = thread_id(0) + 32 * thread_id(1) + 128 * thread_id(2);
    let m0 = cta_id(1) * 128;
    let n0 = cta_id(0) * 256;
    let wn = thread_id(1);
    let wm = thread_id(2);
    let sa = alloc_shared::<bf16>([4, 512, 8]);
    let sb = alloc_shared::<bf16>([4, 1024, 8]);
    let acc = alloc_local::<f32>([32, 4, 8, 4], scope = "warp");
    let fa = alloc_local::<u32>([32, 2, 4, 4], scope = "warp");
    let fb = alloc_local::<u32>([32, 2, 4, 4], scope = "warp");
    apply(ptx["mov.b32"], acc.reshape([32, 128, 1]), 0, scope = "warp");
    let steps = ceil_div(8 * K8, 32);
    for st in 0..3 {
        fill(
            a,
            b,
            sa.slice(s![st, .., ..]),
            sb.slice(s![st, .., ..]),
            t,
            m0,
            n0,
            st,
        );
    }
    apply(ptx["cp.async.wait_group"], 2);
    apply(ptx["bar.sync"], 0, scope = "cta");
    fragments(
        fa.slice(s![.., 0, .., ..]),
        fb.slice(s![.., 0, .., ..]),
        sa.slice(s![0, .., ..]),
        sb.slice(s![0, .., ..]),
        wm,
        wn,
        0,
    );
    for k in 0..steps {
        let s0 = k % 4;
        let s1 = (k + 1) % 4;
        fragments(
            fa.slice(s![.., 1, .., ..]),
            fb.slice(s![.., 1, .., ..]),
            sa.slice(s![s0, .., ..]),
            sb.slice(s![s0, .., ..]),
            wm,
            wn,
            1,
        );
        multiply(
            acc,
            fa.slice(s![.., 0, .., ..]),
            fb.slice(s![.., 0, .., ..]),
        );
        // Step k + 1's copies are done (for this thread; the barrier makes
        // every thread's visible), and every warp has read stage k.
        apply(ptx["cp.async.wait_group"], 1);
        apply(ptx["bar.sync"], 0, scope = "cta");
        fragments(
            fa.slice(s![.., 0, .., ..]),
            fb.slice(s![.., 0, .., ..]),
            sa.slice(s![s1, .., ..]),
            sb.slice(s![s1, .., ..]),
            wm,
            wn,
            0,
        );
        // Step k + 3 into the stage step k - 1 used (past the last step:
        // columns past K, zero-filled).
        let refill = (k + 3) % 4;
        fill(
            a,
            b,
            sa.slice(s![refill, .., ..]),
            sb.slice(s![refill, .., ..]),
            t,
            m0,
            n0,
            k + 3,
        );
        multiply(
            acc,
            fa.slice(s![.., 1, .., ..]),
            fb.slice(s![.., 1, .., ..]),
        );
    }
    apply(ptx["cp.async.wait_all"]);
    store_warp_tile_64x64(acc, c, m0 + wm * 64, n0 + wn * 64, M, N);
}

/// `$name`: CUTLASS's sm_80 layout. K steps of 64 through a ring of
/// `$stages` `swizzle_128` stages (a row of a stage is the
/// 128 bytes of one row's step); eight lanes copy a row, so each copy
/// instruction reads whole 128-byte lines (4 rows a warp) and writes
/// whole bank rows (the swizzle spreads a lane's 16 bytes over the banks);
/// `ldmatrix` reads 8 rows of one 16-byte chunk, which the swizzle keeps
/// apart too. A fragment's lanes walk its rows within a chunk, so its view
/// is the stage's rows and chunks `.permute`d. Fragments are loaded one
/// k16 ahead (two buffers), the step's one barrier sits before its last
/// k16, and the stage just read is refilled right after it.
macro_rules! k64_kernel {
    ($name:ident, stages = $stages:literal) => {
        #[tile_kernel(grid = [ceil_div(N, 256), ceil_div(M, 128), 1], block = [32, 4, 2], arch = "sm_80")]
        fn $name(
            a: Tensor<bf16, M, { 8 * K8 }>,
            b: Tensor<bf16, N, { 8 * K8 }>,
            c: Tensor<f32, M, N>,
        ) {
            // Step `st` into stage `sa`/`sb`: the thread's row `row + 32 j` (of A's
            // 128, B's 256), chunk `chunk` (of a row's 8).
            fn fill(
                a: Tensor<bf16>,
                b: Tensor<bf16>,
                sa: Shared<bf16>,
                sb: Shared<bf16>,
                row: usize,
                chunk: usize,
                m0: usize,
                n0: usize,
                st: usize,
            ) {
                let k = 64 * st + 8 * chunk;
                for j in 0..4 {
                    apply(
                        ptx["cp.async.cg.shared.global"],
                        sa.slice(s![row + 32 * j, 8 * chunk..8 * chunk + 8])
                            .view::<u32>(),
                        a.slice(s![m0 + row + 32 * j, k..k + 8]).view::<u32>(),
                        16,
                        zero_fill = true,
                    );
                }
                for j in 0..8 {
                    apply(
                        ptx["cp.async.cg.shared.global"],
                        sb.slice(s![row + 32 * j, 8 * chunk..8 * chunk + 8])
                            .view::<u32>(),
                        b.slice(s![n0 + row + 32 * j, k..k + 8]).view::<u32>(),
                        16,
                        zero_fill = true,
                    );
                }
                apply(ptx["cp.async.commit_group"]);
            }
            // k16 `kk` (0..4) of a stage into fragment buffers `fa`/`fb`: lane l
            // gives row l % 16 of chunk 2 kk + l / 16, so A's registers are a0..a3
            // and B's the b0 of n-tiles 2p, 2p + 1, then their b1.
            fn fragments(
                fa: Tile<u32>,
                fb: Tile<u32>,
                sa: Shared<bf16>,
                sb: Shared<bf16>,
                wm: usize,
                wn: usize,
                kk: usize,
            ) {
                for mi in 0..4 {
                    let r = wm * 64 + mi * 16;
                    apply(
                        ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                        fa.slice(s![.., mi, ..]),
                        sa.slice(s![r..r + 16, 16 * kk..16 * kk + 16])
                            .reshape([16, 2, 8])
                            .permute([1, 0, 2]),
                        scope = "warp",
                    );
                }
                for p in 0..4 {
                    let n = wn * 64 + p * 16;
                    apply(
                        ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
                        fb.slice(s![.., p, ..]),
                        sb.slice(s![n..n + 16, 16 * kk..16 * kk + 16])
                            .reshape([2, 8, 2, 8])
                            .permute([0, 2, 1, 3]),
                        scope = "warp",
                    );
                }
            }
            fn multiply(acc: Tile<f32>, fa: Tile<u32>, fb: Tile<u32>) {
                for mi in 0..4 {
                    for nj in 0..8 {
                        let d = acc.slice(s![.., mi, nj, ..]);
                        let h = 2 * (nj % 2);
                        apply(
                            ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"],
                            d,
                            fa.slice(s![.., mi, ..]),
                            fb.slice(s![.., nj / 2, h..h + 2]),
                            d,
                            scope = "warp",
                        );
                    }
                }
            }
            let m0 = cta_id(1) * 128;
            let n0 = cta_id(0) * 256;
            let wn = thread_id(1);
            let wm = thread_id(2);
            let row = thread_id(0) / 8 + 4 * thread_id(1) + 16 * thread_id(2);
            let chunk = thread_id(0) % 8;
            let sa = alloc_shared::<bf16>([$stages, 128, 64], layout = "swizzle_128");
            let sb = alloc_shared::<bf16>([$stages, 256, 64], layout = "swizzle_128");
            let acc = alloc_local::<f32>([32, 4, 8, 4], scope = "warp");
            let fa = alloc_local::<u32>([32, 2, 4, 4], scope = "warp");
            let fb = alloc_local::<u32>([32, 2, 4, 4], scope = "warp");
            apply(ptx["mov.b32"], acc.reshape([32, 128, 1]), 0, scope = "warp");
            let steps = ceil_div(8 * K8, 64);
            for st in 0..$stages {
                fill(
                    a,
                    b,
                    sa.slice(s![st, .., ..]),
                    sb.slice(s![st, .., ..]),
                    row,
                    chunk,
                    m0,
                    n0,
                    st,
                );
            }
            apply(ptx["cp.async.wait_group"], $stages - 1);
            apply(ptx["bar.sync"], 0, scope = "cta");
            fragments(
                fa.slice(s![.., 0, .., ..]),
                fb.slice(s![.., 0, .., ..]),
                sa.slice(s![0, .., ..]),
                sb.slice(s![0, .., ..]),
                wm,
                wn,
                0,
            );
            for k in 0..steps {
                let s0 = k % $stages;
                let s1 = (k + 1) % $stages;
                for kk in 0..3 {
                    let next = (kk + 1) % 2;
                    fragments(
                        fa.slice(s![.., next, .., ..]),
                        fb.slice(s![.., next, .., ..]),
                        sa.slice(s![s0, .., ..]),
                        sb.slice(s![s0, .., ..]),
                        wm,
                        wn,
                        kk + 1,
                    );
                    multiply(
                        acc,
                        fa.slice(s![.., kk % 2, .., ..]),
                        fb.slice(s![.., kk % 2, .., ..]),
                    );
                }
                // Step k + 1's copies are done (for this thread; the barrier makes
                // every thread's visible), and every warp has read stage k.
                apply(ptx["cp.async.wait_group"], $stages - 2);
                apply(ptx["bar.sync"], 0, scope = "cta");
                // Step k + stages into the stage step k used (past the last step:
                // columns past K, zero-filled).
                fill(
                    a,
                    b,
                    sa.slice(s![s0, .., ..]),
                    sb.slice(s![s0, .., ..]),
                    row,
                    chunk,
                    m0,
                    n0,
                    k + $stages,
                );
                fragments(
                    fa.slice(s![.., 0, .., ..]),
                    fb.slice(s![.., 0, .., ..]),
                    sa.slice(s![s1, .., ..]),
                    sb.slice(s![s1, .., ..]),
                    wm,
                    wn,
                    0,
                );
                multiply(
                    acc,
                    fa.slice(s![.., 1, .., ..]),
                    fb.slice(s![.., 1, .., ..]),
                );
            }
            apply(ptx["cp.async.wait_all"]);
            store_warp_tile_64x64(acc, c, m0 + wm * 64, n0 + wn * 64, M, N);
        }
    };
}

k64_kernel!(gemm_bf16_nt_128x256_k64, stages = 3);
k64_kernel!(gemm_bf16_nt_128x256_k64x4, stages = 4);

const KERNELS: [Gemm; 7] = [
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
    (
        "gemm_bf16_nt_128x256_db (128 x 256 tiles, 4 stages, fragments a k16 ahead)",
        |d, a, b, c| gemm_bf16_nt_128x256_db(d, a, b, c),
    ),
    (
        "gemm_bf16_nt_128x256_k64 (128 x 256 tiles, K steps of 64, swizzled stages)",
        |d, a, b, c| gemm_bf16_nt_128x256_k64(d, a, b, c),
    ),
    (
        "gemm_bf16_nt_128x256_k64x4 (128 x 256 tiles, K steps of 64, 4 swizzled stages)",
        |d, a, b, c| gemm_bf16_nt_128x256_k64x4(d, a, b, c),
    ),
];

fn main() -> Result<(), Error> {
    // `GEMM_SM80_PTX=1` prints the kernels' PTX (for `ptxas -v`).
    if std::env::var_os("GEMM_SM80_PTX").is_some() {
        for ptx in [
            gemm_bf16_nt::PTX,
            gemm_bf16_nt_128x3::PTX,
            gemm_bf16_nt_128x256x3::PTX,
            gemm_bf16_nt_128x256x4::PTX,
            gemm_bf16_nt_128x256_db::PTX,
            gemm_bf16_nt_128x256_k64::PTX,
            gemm_bf16_nt_128x256_k64x4::PTX,
        ] {
            print!("{ptx}");
        }
        return Ok(());
    }
    gemm::run(&KERNELS)
}
