//! `C = A B^T` on Hopper's tensor cores: bf16 or fp8 e4m3 inputs, f32
//! accumulation, tensor copies (TMA) through swizzled tensor maps feeding
//! an mbarrier ring of shared stages, and `wgmma.mma_async` reading the
//! stages through matrix descriptors. `A` is `[M, K]`, `B` is `[N, K]` (a
//! linear layer's weight: both K-major); any `M` and `N`, `K` a multiple of
//! 8 for bf16 and 16 for fp8 (a tensor map's rows are 16-byte multiples).
//! The tensor maps zero-fill every box element outside `A` or `B`, so tails
//! need no guard but the stores of `C`. The kernels: `C` in f32 on 128 x
//! 128 and 128 x 256 tiles, `silu(A B^T + bias)` in bf16 (the epilogue
//! fused), and fp8 with the product of the tensors' scales, in bf16; the
//! warp-specialised 128 x 256 kernel (a producer warp), with `C` in f32 or
//! bf16; and persistent kernels, 4 tiles a CTA through one ring (with and
//! without a producer warp; only the latter runs on the CPU interpreter),
//! the fastest of them (`gemm_persistent_tma_*`: bf16, fp8 and the SiLU
//! epilogue) storing each tile through shared memory and tensor stores
//! (N a multiple of 8), which run on under the next tile's K loop.
//!
//! Every step is proven by the compiler: each stage is read by a `wgmma`
//! only after the wait on its full barrier's phase, refilled only after
//! every thread arrived on its empty barrier (after its `wgmma`s retired),
//! the `expect_tx` bytes are the boxes' bytes, the accumulators are not
//! touched while a `wgmma` owns them. The launcher is a safe fn.
//!
//! Run: `cargo run --release --example gemm_sm90 [M N K]` (default: small
//! awkward shapes on the CPU interpreter or the GPU, checked against f64,
//! then 4096^3 timed on a GPU; `scripts/gemm_sm90_torch.py` times the
//! PyTorch references). `GEMM_SM90_PTX=1` prints the PTX instead;
//! `GEMM_SM90_SWEEP_K=k,..` (with `GEMM_SM90_SWEEP_MN`) times the
//! persistent kernels over K (`scripts/gemm_sweep_torch.py MN k,..` the
//! references); `GEMM_SM90_PROFILE=name` runs one kernel for ncu.

#[path = "common/gemm.rs"]
mod gemm;

use gemm::Gemm;
use tile_kernel::prelude::*;

/// `$name`: a `128 x $bn` tile of `C` per CTA, two warpgroups of 128
/// threads, warpgroup `w` computing rows `64 w .. 64 w + 64` with
/// `wgmma.m64n$bn k16` (`$op`); K in steps of 64 (one 128-byte swizzled
/// row of bf16) through a ring of `$stages` stages.
///
/// Thread 0 fills every stage first, then refills stage `s` as soon as all
/// 256 threads arrived on its empty barrier: a warpgroup arrives after the
/// `wgmma.wait_group 1` that retires the stage's `wgmma`s, one step later,
/// so that step `k`'s multiplications are issued before the warpgroup
/// waits for step `k - 1`'s and the tensor cores never run dry. Each
/// refill expects the two boxes' bytes on the stage's full barrier, whose
/// phase the warpgroups wait for before multiplying.
///
/// The inputs are `$t` (bf16, or `u8` holding fp8 bits), `$e` elements to
/// 16 bytes (so `K = 16 / size * KC`), a step is 128 bytes of K (`8 $e`
/// elements) and a `wgmma` 32 bytes (`2 $e`). After the last step the
/// block `$epilogue` stores `acc` (thread `32 w + l` of warpgroup `wg`
/// holds its row `r`); `$params` are the kernel's parameters after `a` and
/// `b`; `$tail` the `wgmma`'s operands after `scale-d` (scales, and for
/// 16-bit inputs the transposes).
macro_rules! gemm_kernel {
    ($name:ident, $op:literal, $t:ty, e = $e:literal, bn = $bn:literal, stages = $stages:literal,
     [$($tail:literal),*], [$($params:tt)*], {$($epilogue:tt)*}) => {
        #[tile_kernel(grid = [ceil_div(N, $bn), ceil_div(M, 128), 1], block = [256, 1, 1], arch = "sm_90a")]
        fn $name(
            a: Tensor<$t, M, { $e * KC }>,
            b: Tensor<$t, N, { $e * KC }>,
            $($params)*
        ) {
            // One step: its 4 wgmmas of 32 bytes of K into `acc`, as one
            // group.
            fn multiply(acc: Tile<f32>, sa: Shared<$t>, sb: Shared<$t>) {
                apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
                for kk in 0..4 {
                    apply(
                        ptx[$op],
                        acc,
                        sa.slice(s![.., 2 * $e * kk..2 * $e * kk + 2 * $e]),
                        sb.slice(s![.., 2 * $e * kk..2 * $e * kk + 2 * $e]),
                        $($tail),*,
                        scope = "warpgroup",
                    );
                }
                apply(ptx["wgmma.commit_group.sync.aligned"], scope = "warpgroup");
            }
            // Step `step`'s boxes of A and B into stage `stage`, signalling
            // its full barrier.
            fn fill(
                a: Tensor<$t>,
                b: Tensor<$t>,
                sa: Shared<$t>,
                sb: Shared<$t>,
                full: Shared,
                m0: usize,
                n0: usize,
                step: usize,
            ) {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full,
                    128 * (128 + $bn),
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sa,
                    a.slice(s![m0..m0 + 128, 8 * $e * step..8 * $e * step + 8 * $e]),
                    full,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sb,
                    b.slice(s![n0..n0 + $bn, 8 * $e * step..8 * $e * step + 8 * $e]),
                    full,
                );
            }
            let t = thread_id(0);
            let wg = warp_id() / 4;
            let m0 = cta_id(1) * 128;
            let n0 = cta_id(0) * $bn;
            let steps = ceil_div(KC, 8);
            let sa = alloc_shared::<$t>([$stages, 128, 8 * $e], layout = "swizzle_128");
            let sb = alloc_shared::<$t>([$stages, $bn, 8 * $e], layout = "swizzle_128");
            let full = alloc_shared::<Mbarrier>([$stages]);
            let empty = alloc_shared::<Mbarrier>([$stages]);
            let acc = alloc_local::<f32>([128, $bn / 2], scope = "warpgroup");
            if t == 0 {
                apply(
                    ptx["mbarrier.init.shared::cta.b64"],
                    full.slice(s![0..$stages]).reshape([$stages, 1]),
                    1,
                );
                apply(
                    ptx["mbarrier.init.shared::cta.b64"],
                    empty.slice(s![0..$stages]).reshape([$stages, 1]),
                    256,
                );
                apply(ptx["fence.mbarrier_init.release.cluster"]);
            }
            // Thread 32 w + l of a warpgroup holds row 32 w + l of `acc`.
            let r = 32 * (warp_id() % 4) + lane_id();
            apply(ptx["mov.b32"], acc.slice(s![r, ..]).unsqueeze(-1), 0);
            apply(ptx["bar.sync"], 0, scope = "cta");
            // K is at least 8 where the launcher builds the maps, but the
            // checker does not know it: the steps run where there are some.
            if 0 < steps {
                if t == 0 {
                    fill(a, b, sa.slice(s![0, .., ..]), sb.slice(s![0, .., ..]), full.slice(s![0..1]), m0, n0, 0);
                    for s in 1..$stages {
                        if s < steps {
                            fill(a, b, sa.slice(s![s, .., ..]), sb.slice(s![s, .., ..]), full.slice(s![s..s + 1]), m0, n0, s);
                        }
                    }
                }
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    full.slice(s![0..1]),
                    0,
                );
                multiply(acc, sa.slice(s![0, 64 * wg..64 * wg + 64, ..]), sb.slice(s![0, .., ..]));
                for k in 1..steps {
                    let stage = k % $stages;
                    apply(
                        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                        full.slice(s![stage..stage + 1]),
                        (k / $stages) % 2,
                    );
                    multiply(acc, sa.slice(s![stage, 64 * wg..64 * wg + 64, ..]), sb.slice(s![stage, .., ..]));
                    // Step k - 1's group is done: its stage is free, for
                    // step `next`.
                    apply(ptx["wgmma.wait_group.sync.aligned"], 1, scope = "warpgroup");
                    let next = k + $stages - 1;
                    let done = next % $stages;
                    apply(
                        ptx["mbarrier.arrive.shared::cta.b64"],
                        empty.slice(s![done..done + 1]),
                    );
                    if next < steps {
                        if t == 0 {
                            apply(
                                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                                empty.slice(s![done..done + 1]),
                                (next / $stages + 1) % 2,
                            );
                            fill(a, b, sa.slice(s![done, .., ..]), sb.slice(s![done, .., ..]), full.slice(s![done..done + 1]), m0, n0, next);
                        }
                    }
                }
                apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
            }
            $($epilogue)*
        }
    };
}

/// `C = A B^T` in f32.
macro_rules! gemm_f32_out {
    ($name:ident, $op:literal, bn = $bn:literal) => {
        gemm_kernel!($name, $op, bf16, e = 8, bn = $bn, stages = 4, [1, 1, 1, 0, 0], [c: Tensor<f32, M, N>], {
            // D element i of thread 32 w + l of a warpgroup: row
            // 16 w + l / 4 + 8 (i % 4 / 2), column 8 (i / 4) + 2 (l % 4) + i % 2.
            for i in 0..$bn / 2 {
                let row = m0 + 64 * wg + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (i % 4 / 2);
                let col = n0 + 8 * (i / 4) + 2 * (lane_id() % 4) + i % 2;
                apply(
                    ptx["st.global.f32"],
                    c.slice(s![row, col..col + 1]),
                    acc.slice(s![r, i..i + 1]),
                    pred = row < M && col < N,
                );
            }
        });
    };
}

gemm_f32_out!(
    gemm_wgmma_128x128,
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
    bn = 128
);
gemm_f32_out!(
    gemm_wgmma_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bn = 256
);

// A linear layer with its activation fused: `C = silu(A B^T + bias)` in
// bf16, each group of 4 accumulators (rows g, g + 8 x columns c, c + 1)
// at a time: the bias of its columns, one `ewise`, four stores.
gemm_kernel!(
    gemm_wgmma_silu_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bf16,
    e = 8,
    bn = 256,
    stages = 4,
    [1, 1, 1, 0, 0],
    [bias: Tensor<f32, N>, c: Tensor<bf16, M, N>],
    {
        let bias_q = alloc_local::<f32>([1, 4]);
        let out_q = alloc_local::<bf16>([1, 4]);
        apply(ptx["mov.b32"], bias_q.unsqueeze(-1), 0);
        for j in 0..32 {
            for q in 0..4 {
                let col = n0 + 8 * j + 2 * (lane_id() % 4) + q % 2;
                apply(
                    ptx["ld.global.f32"],
                    bias_q.slice(s![.., q..q + 1]),
                    bias.slice(s![col..col + 1]).unsqueeze(0),
                    pred = col < N,
                );
            }
            ewise(
                |v: f32, b: f32| {
                    let x = v + b;
                    (x * rcp_approx(1.0 + ex2_approx(-x * f32::consts::LOG2_E))) as bf16
                },
                out_q,
                acc.slice(s![r, 4 * j..4 * j + 4]).unsqueeze(0),
                bias_q,
            );
            for q in 0..4 {
                let row = m0 + 64 * wg + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (q / 2);
                let col = n0 + 8 * j + 2 * (lane_id() % 4) + q % 2;
                apply(
                    ptx["st.global.b16"],
                    c.slice(s![row, col..col + 1]),
                    out_q.slice(s![0, q..q + 1]),
                    pred = row < M && col < N,
                );
            }
        }
    }
);

// fp8 e4m3 inputs (their bits in `u8` tensors), f32 accumulation, and the
// product of the two tensors' scales applied on the way out to bf16 (what
// `torch._scaled_mm` computes).
gemm_kernel!(
    gemm_fp8_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
    u8,
    e = 16,
    bn = 256,
    stages = 4,
    [1, 1, 1],
    [scale: f32, c: Tensor<bf16, M, N>],
    {
        let out_q = alloc_local::<bf16>([1, 4]);
        for j in 0..32 {
            ewise(
                |v: f32| (v * scale) as bf16,
                out_q,
                acc.slice(s![r, 4 * j..4 * j + 4]).unsqueeze(0),
            );
            for q in 0..4 {
                let row = m0 + 64 * wg + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (q / 2);
                let col = n0 + 8 * j + 2 * (lane_id() % 4) + q % 2;
                apply(
                    ptx["st.global.b16"],
                    c.slice(s![row, col..col + 1]),
                    out_q.slice(s![0, q..q + 1]),
                    pred = row < M && col < N,
                );
            }
        }
    }
);

/// `$name`: `C = A B^T` on 128 x 256 tiles, warp-specialised: a block of
/// 384 threads, warpgroups 0-1 the consumers (wait for a stage's full
/// barrier, `wgmma.m64n256k16`, arrive on its empty barrier after the
/// `wgmma.wait_group 1` of the next step), warp 8 the producer: the whole
/// warp waits for a stage's empty barrier (a wait in a branch one lane
/// takes makes ptxas serialize the consumers' `wgmma`s, C7518) and
/// synchronizes (`bar.warp.sync`, which orders the other lanes' waits
/// before lane 0's refill), lane 0 (thread 256) refills it. After the
/// last step the block `$epilogue` stores `acc` (thread `32 w + l` of
/// consumer warpgroup `cw` holds its row `r`); `$params` are the kernel's
/// parameters after `a` and `b`. The interpreter runs it too (it orders
/// each consumer's reads before the refill through its own arrival).
macro_rules! ws_kernel {
    ($name:ident, $op:literal, $t:ty, e = $e:literal, [$($tail:literal),*],
     [$($params:tt)*], {$($epilogue:tt)*}) => {
        #[tile_kernel(grid = [ceil_div(N, 256), ceil_div(M, 128), 1], block = [384, 1, 1], arch = "sm_90a")]
        fn $name(
            a: Tensor<$t, M, { $e * KC }>,
            b: Tensor<$t, N, { $e * KC }>,
            $($params)*
        ) {
            // One step: its 4 wgmmas of 32 bytes of K into `acc`, as one
            // group.
            fn multiply(acc: Tile<f32>, sa: Shared<$t>, sb: Shared<$t>) {
                apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
                for kk in 0..4 {
                    apply(
                        ptx[$op],
                        acc,
                        sa.slice(s![.., 2 * $e * kk..2 * $e * kk + 2 * $e]),
                        sb.slice(s![.., 2 * $e * kk..2 * $e * kk + 2 * $e]),
                        $($tail),*,
                        scope = "warpgroup",
                    );
                }
                apply(ptx["wgmma.commit_group.sync.aligned"], scope = "warpgroup");
            }
            // Step `step`'s boxes of A and B into stage `stage`, signalling
            // its full barrier.
            fn fill(
                a: Tensor<$t>,
                b: Tensor<$t>,
                sa: Shared<$t>,
                sb: Shared<$t>,
                full: Shared,
                m0: usize,
                n0: usize,
                step: usize,
            ) {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full,
                    128 * (128 + 256),
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sa,
                    a.slice(s![m0..m0 + 128, 8 * $e * step..8 * $e * step + 8 * $e]),
                    full,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sb,
                    b.slice(s![n0..n0 + 256, 8 * $e * step..8 * $e * step + 8 * $e]),
                    full,
                );
            }
            let t = thread_id(0);
            let wg = warp_id() / 4;
            let m0 = cta_id(1) * 128;
            let n0 = cta_id(0) * 256;
            let steps = ceil_div(KC, 8);
            let sa = alloc_shared::<$t>([4, 128, 8 * $e], layout = "swizzle_128");
            let sb = alloc_shared::<$t>([4, 256, 8 * $e], layout = "swizzle_128");
            let full = alloc_shared::<Mbarrier>([4]);
            let empty = alloc_shared::<Mbarrier>([4]);
            let acc = alloc_local::<f32>([128, 256 / 2], scope = "warpgroup");
            if t == 0 {
                apply(
                    ptx["mbarrier.init.shared::cta.b64"],
                    full.slice(s![0..4]).reshape([4, 1]),
                    1,
                );
                apply(
                    ptx["mbarrier.init.shared::cta.b64"],
                    empty.slice(s![0..4]).reshape([4, 1]),
                    8,
                );
                apply(ptx["fence.mbarrier_init.release.cluster"]);
            }
            // Thread 32 w + l of a warpgroup holds row 32 w + l of `acc`.
            let r = 32 * (warp_id() % 4) + lane_id();
            apply(ptx["mov.b32"], acc.slice(s![r, ..]).unsqueeze(-1), 0);
            apply(ptx["bar.sync"], 0, scope = "cta");
            // K is at least 8 where the launcher builds the maps, but the
            // checker does not know it: the steps run where there are some.
            let cw = wg;
            if 0 < steps {
                if t == 256 {
                    fill(
                        a,
                        b,
                        sa.slice(s![0, .., ..]),
                        sb.slice(s![0, .., ..]),
                        full.slice(s![0..1]),
                        m0,
                        n0,
                        0,
                    );
                    for s in 1..4 {
                        if s < steps {
                            fill(
                                a,
                                b,
                                sa.slice(s![s, .., ..]),
                                sb.slice(s![s, .., ..]),
                                full.slice(s![s..s + 1]),
                                m0,
                                n0,
                                s,
                            );
                        }
                    }
                }
                if wg < 2 {
                    apply(
                        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                        full.slice(s![0..1]),
                        0,
                    );
                    multiply(
                        acc,
                        sa.slice(s![0, 64 * cw..64 * cw + 64, ..]),
                        sb.slice(s![0, .., ..]),
                    );
                }
                for k in 1..steps {
                    let stage = k % 4;
                    let next = k + 4 - 1;
                    let done = next % 4;
                    if wg < 2 {
                        apply(
                            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                            full.slice(s![stage..stage + 1]),
                            (k / 4) % 2,
                        );
                        multiply(
                            acc,
                            sa.slice(s![stage, 64 * cw..64 * cw + 64, ..]),
                            sb.slice(s![stage, .., ..]),
                        );
                        apply(ptx["wgmma.wait_group.sync.aligned"], 1, scope = "warpgroup");
                        // One arrival per consumer warp (8 a phase): lane 0
                        // after `bar.warp.sync` orders its lanes' reads
                        // before the arrival.
                        apply(ptx["bar.warp.sync"], scope = "warp");
                        if lane_id() == 0 {
                            apply(
                                ptx["mbarrier.arrive.shared::cta.b64"],
                                empty.slice(s![done..done + 1]),
                            );
                        }
                    }
                    if next < steps {
                        if warp_id() == 8 {
                            apply(
                                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                                empty.slice(s![done..done + 1]),
                                (next / 4 + 1) % 2,
                            );
                            apply(ptx["bar.warp.sync"], scope = "warp");
                        }
                        if t == 256 {
                            fill(
                                a,
                                b,
                                sa.slice(s![done, .., ..]),
                                sb.slice(s![done, .., ..]),
                                full.slice(s![done..done + 1]),
                                m0,
                                n0,
                                next,
                            );
                        }
                    }
                }
                if wg < 2 {
                    apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
                }
            }
            $($epilogue)*
        }
    };
}

/// A consumer warpgroup's 64 x 256 part of a tile in bf16: rows `m0 ..`
/// (thread `32 w + l` holds row `r` of `acc`, the `wgmma.m64n256`
/// accumulator), columns `n0 ..`, each thread's columns `2j` and `2j + 1`
/// packed into one bf16x2 word and stored as 32 bits; what lies past
/// `rows` x `cols` is not stored (`cols` even: a launch requirement of the
/// kernels). Shared by the warp-specialised, cluster and persistent
/// kernels with bf16 output.
/// A persistent kernel's consumer warp, at step `g`: once the `wgmma`s of
/// step `g - 1` retired, the stage they read (`(g + 3) % 4`) goes back
/// to the producer, one arrival per consumer warp (8 a phase), lane 0's
/// after `bar.warp.sync` orders its lanes' reads.
#[tile_kernel::function]
fn release_stage(empty: Shared, g: usize) {
    apply(ptx["wgmma.wait_group.sync.aligned"], 1, scope = "warpgroup");
    let done = (g + 3) % 4;
    apply(ptx["bar.warp.sync"], scope = "warp");
    if lane_id() == 0 {
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![done..done + 1]),
        );
    }
}

#[tile_kernel::function]
fn store_bf16_pairs(
    acc: Tile<f32>,
    c: Tensor<bf16>,
    m0: usize,
    n0: usize,
    r: usize,
    rows: usize,
    cols: usize,
) {
    let pair = alloc_local::<u32>([1, 1]);
    for j in 0..64 {
        let i = 2 * j;
        let row = m0 + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (i % 4 / 2);
        let col = n0 + 8 * (i / 4) + 2 * (lane_id() % 4);
        apply(
            ptx["cvt.rn.bf16x2.f32"],
            pair,
            acc.slice(s![r, i + 1..i + 2]).unsqueeze(0),
            acc.slice(s![r, i..i + 1]).unsqueeze(0),
        );
        apply(
            ptx["st.global.b32"],
            c.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
            pair,
            pred = row < rows && col + 2 <= cols,
        );
    }
}

ws_kernel!(
    gemm_ws_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bf16,
    e = 8,
    [1, 1, 1, 0, 0],
    [c: Tensor<f32, M, N>],
    {
    if wg < 2 {
        for i in 0..128 {
            let row = m0 + 64 * cw + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (i % 4 / 2);
            let col = n0 + 8 * (i / 4) + 2 * (lane_id() % 4) + i % 2;
            apply(
                ptx["st.global.f32"],
                c.slice(s![row, col..col + 1]),
                acc.slice(s![r, i..i + 1]),
                pred = row < M && col < N,
            );
        }
    }
});

// The same with C in bf16 (what `torch.matmul` returns for bf16 inputs):
// columns `2j` and `2j + 1` of a thread's row packed into one bf16x2 word
// and stored as 32 bits (N even: a launch-time requirement).
ws_kernel!(
    gemm_ws_bf16_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bf16,
    e = 8,
    [1, 1, 1, 0, 0],
    [c: Tensor<bf16, M, N>],
    {
    if wg < 2 {
        store_bf16_pairs(acc, c, m0 + 64 * cw, n0, r, M, N);
    }
});

// fp8 e4m3 inputs (K steps of 128 bytes, `wgmma` k32), warp-specialised,
// `scale * A B^T` stored in bf16 as packed column pairs (N even): what
// `torch._scaled_mm` computes, on `gemm_fp8_128x256`'s tile.
ws_kernel!(
    gemm_ws_fp8_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
    u8,
    e = 16,
    [1, 1, 1],
    [scale: f32, c: Tensor<bf16, M, N>],
    {
        if wg < 2 {
            let scaled = alloc_local::<f32>([1, 2]);
            let pair = alloc_local::<u32>([1, 1]);
            for j in 0..64 {
                let i = 2 * j;
                let row = m0 + 64 * cw + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (i % 4 / 2);
                let col = n0 + 8 * (i / 4) + 2 * (lane_id() % 4);
                ewise(|v: f32| v * scale, scaled, acc.slice(s![r, i..i + 2]).unsqueeze(0));
                apply(
                    ptx["cvt.rn.bf16x2.f32"],
                    pair,
                    scaled.slice(s![0, 1..2]).unsqueeze(0),
                    scaled.slice(s![0, 0..1]).unsqueeze(0),
                );
                apply(
                    ptx["st.global.b32"],
                    c.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
                    pair,
                    pred = row < M && col + 2 <= N,
                );
            }
        }
    }
);

/// `$name`: `gemm_ws_128x256` in clusters of two CTAs along M that share
/// the B tile (C of element `$c`, stored by `$epilogue`): each CTA loads half of a stage's 256
/// rows of B and multicasts it to both (`.multicast::cluster`), so B is
/// read from L2 once per pair. Each CTA's `full` then expects its A box
/// and both halves of B; lane 0 of each consumer warp arrives on the
/// `empty` object of both CTAs after a `bar.warp.sync` (16 arrivals a
/// phase), so a producer refills a stage only after both CTAs' consumers
/// are done with it. The grid's
/// height is even (whole clusters): a pair's second tile past M is
/// computed from the map's zero fill and not stored. The interpreter runs
/// it too: each consumer's cluster-scoped arrival on the peer's `empty`
/// orders its reads before the peer producer's multicast refill, which
/// waits on `empty` with `.acquire.cluster` (docs/interpreter.md).
macro_rules! ws_cluster_kernel {
    ($name:ident, $c:ty, {$($epilogue:tt)*}) => {
#[tile_kernel(grid = [ceil_div(N, 256), 2 * ceil_div(M, 256), 1], block = [384, 1, 1], cluster = [1, 2, 1], arch = "sm_90a")]
fn $name(
    a: Tensor<bf16, M, { 8 * KC }>,
    b: Tensor<bf16, N, { 8 * KC }>,
    c: Tensor<$c, M, N>,
) {
    // One step: its 4 wgmmas of 32 bytes of K into `acc`, as one group.
    fn multiply(acc: Tile<f32>, sa: Shared<bf16>, sb: Shared<bf16>) {
        apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
        for kk in 0..4 {
            apply(
                ptx["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"],
                acc,
                sa.slice(s![.., 2 * 8 * kk..2 * 8 * kk + 2 * 8]),
                sb.slice(s![.., 2 * 8 * kk..2 * 8 * kk + 2 * 8]),
                1,
                1,
                1,
                0,
                0,
                scope = "warpgroup",
            );
        }
        apply(ptx["wgmma.commit_group.sync.aligned"], scope = "warpgroup");
    }
    // Step `step`'s A box and this CTA's half of the B box into stage
    // `stage` (the half multicast to both CTAs), signalling its full
    // barrier with the bytes of A and both halves of B.
    fn fill(
        a: Tensor<bf16>,
        b: Tensor<bf16>,
        sa: Shared<bf16>,
        sb_half: Shared<bf16>,
        full: Shared,
        m0: usize,
        n_half: usize,
        step: usize,
    ) {
        apply(
            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
            full,
            128 * (128 + 256),
        );
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            sa,
            a.slice(s![m0..m0 + 128, 8 * 8 * step..8 * 8 * step + 8 * 8]),
            full,
        );
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
            sb_half,
            b.slice(s![n_half..n_half + 128, 8 * 8 * step..8 * 8 * step + 8 * 8]),
            full,
            3,
        );
    }
    let t = thread_id(0);
    let wg = warp_id() / 4;
    let rank = cluster_ctarank();
    let m0 = cta_id(1) * 128;
    let n0 = cta_id(0) * 256;
    // This CTA's half of the B tile, and where it lands in every CTA.
    let n_half = n0 + 128 * rank;
    let half = 128 * rank;
    let steps = ceil_div(KC, 8);
    let sa = alloc_shared::<bf16>([4, 128, 8 * 8], layout = "swizzle_128");
    let sb = alloc_shared::<bf16>([4, 256, 8 * 8], layout = "swizzle_128");
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let acc = alloc_local::<f32>([128, 256 / 2], scope = "warpgroup");
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            16,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    // Thread 32 w + l of a warpgroup holds row 32 w + l of `acc`.
    let r = 32 * (warp_id() % 4) + lane_id();
    apply(ptx["mov.b32"], acc.slice(s![r, ..]).unsqueeze(-1), 0);
    // Both CTAs' barriers are initialized before either signals the other's.
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    let cw = wg;
    if 0 < steps {
        if t == 256 {
            fill(
                a,
                b,
                sa.slice(s![0, .., ..]),
                sb.slice(s![0, half..half + 128, ..]),
                full.slice(s![0..1]),
                m0,
                n_half,
                0,
            );
            for s in 1..4 {
                if s < steps {
                    fill(
                        a,
                        b,
                        sa.slice(s![s, .., ..]),
                        sb.slice(s![s, half..half + 128, ..]),
                        full.slice(s![s..s + 1]),
                        m0,
                        n_half,
                        s,
                    );
                }
            }
        }
        if wg < 2 {
            apply(
                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                full.slice(s![0..1]),
                0,
            );
            multiply(
                acc,
                sa.slice(s![0, 64 * cw..64 * cw + 64, ..]),
                sb.slice(s![0, .., ..]),
            );
        }
        for k in 1..steps {
            let stage = k % 4;
            let next = k + 4 - 1;
            let done = next % 4;
            if wg < 2 {
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    full.slice(s![stage..stage + 1]),
                    (k / 4) % 2,
                );
                multiply(
                    acc,
                    sa.slice(s![stage, 64 * cw..64 * cw + 64, ..]),
                    sb.slice(s![stage, .., ..]),
                );
                apply(ptx["wgmma.wait_group.sync.aligned"], 1, scope = "warpgroup");
                // Stage `done` is free in both CTAs once both CTAs'
                // consumers arrived on its `empty` in each: one lane per
                // warp, after `bar.warp.sync` orders its lanes' reads
                // before that lane's arrival (a cluster-scope release per
                // thread would cost every thread a cluster fence).
                apply(ptx["bar.warp.sync"], scope = "warp");
                if lane_id() == 0 {
                    apply(
                        ptx["mbarrier.arrive.release.cluster.shared::cta.b64"],
                        empty.slice(s![done..done + 1]),
                    );
                    apply(
                        ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"],
                        empty.in_cta(1 - rank).slice(s![done..done + 1]),
                    );
                }
            }
            if next < steps {
                if warp_id() == 8 {
                    apply(
                        ptx["mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"],
                        empty.slice(s![done..done + 1]),
                        (next / 4 + 1) % 2,
                    );
                    apply(ptx["bar.warp.sync"], scope = "warp");
                }
                if t == 256 {
                    fill(
                        a,
                        b,
                        sa.slice(s![done, .., ..]),
                        sb.slice(s![done, half..half + 128, ..]),
                        full.slice(s![done..done + 1]),
                        m0,
                        n_half,
                        next,
                    );
                }
            }
        }
        if wg < 2 {
            apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
        }
    }
    $($epilogue)*
    // No CTA exits while the other may still arrive on its `empty`.
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
}
    };
}

ws_cluster_kernel!(gemm_ws_cluster_128x256, f32, {
    if wg < 2 {
        for i in 0..128 {
            let row = m0 + 64 * cw + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (i % 4 / 2);
            let col = n0 + 8 * (i / 4) + 2 * (lane_id() % 4) + i % 2;
            apply(
                ptx["st.global.f32"],
                c.slice(s![row, col..col + 1]),
                acc.slice(s![r, i..i + 1]),
                pred = row < M && col < N,
            );
        }
    }
});

// The same with C in bf16, packed column pairs stored as 32 bits (N even).
ws_cluster_kernel!(gemm_ws_cluster_bf16_128x256, bf16, {
    if wg < 2 {
        store_bf16_pairs(acc, c, m0 + 64 * cw, n0, r, M, N);
    }
});

/// `$name`: the warp-specialised kernel made persistent along N: a CTA
/// computes 4 tiles of 128 x 256 at rows `128 cta_id(1)`, columns `256
/// (cta_id(0) + X i)` for `i` in 0..4 with `X = ceil_div(N, 1024)` the
/// grid's width, through one ring whose tickets run on across the tiles
/// (ticket `g` is step `g % steps` of tile `g / steps`): the producer
/// fills the next tile's first stages while the consumers store the tile
/// they finished, so the ring never drains and the tensor cores wait only
/// for the stores. The consumers store a tile at the first step of the
/// next one (after retiring every group), through the kernel function
/// `store` of `$store` (`C` of element `$c`); the last tile after the loop.
/// Tiles past N are computed from the tensor map's zero fill and not
/// stored. Along N rather than M because of L2: the CTAs running at once
/// then share few B tiles (at 8192^3, 8 B tiles and about 16 A tiles per
/// tile slot, where 4 tiles along M had 32 and 4: an L2 hit rate of 79%
/// against 50%, ncu).
macro_rules! persistent_kernel {
    ($name:ident, $c:ty, threads = $threads:literal, producer_warp = $pw:literal,
     [$($params:tt)*], [$($args:tt)*], {$($store:tt)*}) => {
        persistent_kernel!(
            $name,
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
            bf16,
            e = 8,
            [1, 1, 0, 0],
            $c,
            threads = $threads,
            producer_warp = $pw,
            [$($params)*],
            [$($args)*],
            {$($store)*}
        );
    };
    ($name:ident, $op:literal, $t:ty, e = $e:literal, [$($tail:literal),*], $c:ty,
     threads = $threads:literal, producer_warp = $pw:literal,
     [$($params:tt)*], [$($args:tt)*], {$($store:tt)*}) => {
        persistent_kernel!(
            @build $name, $op, $t, e = $e, [$($tail),*],
            threads = $threads, producer_warp = $pw,
            cols = [N], ndim = [N], c = [$c], params = [$($params)*],
            functions = {
                // A consumer warpgroup's 64 x 256 part of a tile: rows m0 .., columns
                // n0 .. (thread 32 w + l holds row r of `acc`).
                $($store)*
            },
            buffers = {},
            step = {
                if wg < 2 {
                    // Ticket g - 1 ended tile (g - 1) / steps: store it,
                    // and start the next with `scale-d` 0 (D = A B).
                    // Tile ends are found by comparisons: a division by
                    // `steps` (a 64-bit subroutine call) on every step
                    // starved the tensor cores.
                    if g == steps || g == 2 * steps || g == 3 * steps {
                        apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
                        store(acc, c, m0 + 64 * cw, (cta_id(0) + tiles_x * min((g - 1) / steps, 3)) * 256, r, M, N $($args)*);
                        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (g / 4) % 2);
                        multiply(acc, sa.slice(s![stage, 64 * cw..64 * cw + 64, ..]), sb.slice(s![stage, .., ..]), 0);
                    } else {
                        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (g / 4) % 2);
                        multiply(acc, sa.slice(s![stage, 64 * cw..64 * cw + 64, ..]), sb.slice(s![stage, .., ..]), 1);
                    }
                    release_stage(empty, g);
                }
            },
            last = {
                if wg < 2 {
                    apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
                    store(acc, c, m0 + 64 * cw, (cta_id(0) + tiles_x * 3) * 256, r, M, N $($args)*);
                }
            }
        );
    };
    // The kernel both epilogues share: `cols` is N as an expression,
    // `ndim` as a tensor extent, `c` C's element; `functions` the
    // epilogue's kernel functions, `buffers` its shared buffers, `step` a
    // ticket's consumer part (its tile-end epilogue included), `last` the
    // last tile's epilogue.
    (@build $name:ident, $op:literal, $t:ty, e = $e:literal, [$($tail:literal),*],
     threads = $threads:literal, producer_warp = $pw:literal,
     cols = [$($cols:tt)*], ndim = [$($ndim:tt)*], c = [$($c:tt)*], params = [$($params:tt)*],
     functions = {$($functions:tt)*}, buffers = {$($buffers:tt)*},
     step = {$($step:tt)*}, last = {$($last:tt)*}) => {
        #[tile_kernel(grid = [ceil_div($($cols)*, 1024), ceil_div(M, 128), 1], block = [$threads, 1, 1], arch = "sm_90a")]
        fn $name(
            a: Tensor<$t, M, { $e * KC }>,
            b: Tensor<$t, $($ndim)*, { $e * KC }>,
            c: Tensor<$($c)*, M, $($ndim)*>,
            $($params)*
        ) {
            // One step, its first wgmma with `scale-d` `add` (0 at a
            // tile's first step: D = A B, so the accumulator needs no
            // zeroing between tiles, an instruction defining it inside the
            // pipeline that would make ptxas serialize every wgmma, C7515).
            fn multiply(acc: Tile<f32>, sa: Shared<$t>, sb: Shared<$t>, add: usize) {
                apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
                apply(
                    ptx[$op],
                    acc,
                    sa.slice(s![.., 0..2 * $e]),
                    sb.slice(s![.., 0..2 * $e]),
                    add,
                    $($tail),*,
                    scope = "warpgroup",
                );
                for kk in 1..4 {
                    apply(
                        ptx[$op],
                        acc,
                        sa.slice(s![.., 2 * $e * kk..2 * $e * kk + 2 * $e]),
                        sb.slice(s![.., 2 * $e * kk..2 * $e * kk + 2 * $e]),
                        1,
                        $($tail),*,
                        scope = "warpgroup",
                    );
                }
                apply(ptx["wgmma.commit_group.sync.aligned"], scope = "warpgroup");
            }
            // Step `step`'s boxes of A and B into stage `stage`, signalling
            // its full barrier.
            fn fill(
                a: Tensor<$t>,
                b: Tensor<$t>,
                sa: Shared<$t>,
                sb: Shared<$t>,
                full: Shared,
                m0: usize,
                n0: usize,
                step: usize,
            ) {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full,
                    128 * (128 + 256),
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sa,
                    a.slice(s![m0..m0 + 128, 8 * $e * step..8 * $e * step + 8 * $e]),
                    full,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sb,
                    b.slice(s![n0..n0 + 256, 8 * $e * step..8 * $e * step + 8 * $e]),
                    full,
                );
            }
            // Ticket `g`'s fill: step `g - tile steps` of tile `tile`
            // (`g < 4 steps`), the tile counted as the clamped differences
            // `min(max(g + 1 - j steps, 0), 1)` of the 3 tile ends below
            // `g`. Neither a division by `steps` (a 64-bit subroutine call
            // on the producer's path, 8% slower on the H100) nor one fill
            // per tile in `if` arms (as fast, but the checker walks each
            // arm: 1.8x the expansion time).
            fn fill_ticket(
                a: Tensor<$t>,
                b: Tensor<$t>,
                sa: Shared<$t>,
                sb: Shared<$t>,
                full: Shared,
                m0: usize,
                tiles_x: usize,
                col0: usize,
                steps: usize,
                g: usize,
            ) {
                let tile = min(max(g + 1 - steps, 0), 1)
                    + min(max(g + 1 - 2 * steps, 0), 1)
                    + min(max(g + 1 - 3 * steps, 0), 1);
                fill(a, b, sa, sb, full, m0, col0 + 256 * tiles_x * tile, g - steps * tile);
            }
            $($functions)*
            let t = thread_id(0);
            let wg = warp_id() / 4;
            let m0 = cta_id(1) * 128;
            let steps = ceil_div(KC, 8);
            let sa = alloc_shared::<$t>([4, 128, 8 * $e], layout = "swizzle_128");
            let sb = alloc_shared::<$t>([4, 256, 8 * $e], layout = "swizzle_128");
            let full = alloc_shared::<Mbarrier>([4]);
            let empty = alloc_shared::<Mbarrier>([4]);
            $($buffers)*
            let acc = alloc_local::<f32>([128, 256 / 2], scope = "warpgroup");
            if t == 0 {
                apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..4]).reshape([4, 1]), 1);
                apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..4]).reshape([4, 1]), 8);
                apply(ptx["fence.mbarrier_init.release.cluster"]);
            }
            let r = 32 * (warp_id() % 4) + lane_id();
            apply(ptx["bar.sync"], 0, scope = "cta");
            let cw = wg;
            let tiles_x = ceil_div($($cols)*, 1024);
            if 0 < steps {
                // The CTA's 4 tiles, columns `256 (cta_id(0) + tiles_x i)`, one
                // after the other through one ring: ticket g is step `g % steps`
                // of tile `g / steps`; the producer runs 3 tickets ahead.
                let tickets = 4 * steps;
                if t == 32 * $pw {
                    for s in 0..4 {
                        if s < tickets {
                            fill_ticket(a, b, sa.slice(s![s, .., ..]), sb.slice(s![s, .., ..]), full.slice(s![s..s + 1]), m0, tiles_x, cta_id(0) * 256, steps, s);
                        }
                    }
                }
                if wg < 2 {
                    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![0..1]), 0);
                    multiply(acc, sa.slice(s![0, 64 * cw..64 * cw + 64, ..]), sb.slice(s![0, .., ..]), 0);
                }
                for g in 1..tickets {
                    let stage = g % 4;
                    $($step)*
                    let next = g + 3;
                    let refill = next % 4;
                    if next < tickets {
                        if warp_id() == $pw {
                            apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty.slice(s![refill..refill + 1]), (next / 4 + 1) % 2);
                            apply(ptx["bar.warp.sync"], scope = "warp");
                        }
                        if t == 32 * $pw {
                            fill_ticket(a, b, sa.slice(s![refill, .., ..]), sb.slice(s![refill, .., ..]), full.slice(s![refill..refill + 1]), m0, tiles_x, cta_id(0) * 256, steps, next);
                        }
                    }
                }
                $($last)*
            }
        }
    };
}

/// `$name`: `C = A B^T` in f32, persistent (`persistent_kernel!` with
/// `$threads` threads, the producer warp `$pw`).
macro_rules! persistent_f32_kernel {
    ($name:ident, threads = $threads:literal, producer_warp = $pw:literal) => {
        persistent_kernel!(
            $name,
            f32,
            threads = $threads,
            producer_warp = $pw,
            [],
            [],
            {
                // A consumer warpgroup's 64 x 256 part of a tile: rows m0 .., columns
                // n0 .. (thread 32 w + l holds row r of `acc`).
                fn store(
                    acc: Tile<f32>,
                    c: Tensor<f32>,
                    m0: usize,
                    n0: usize,
                    r: usize,
                    rows: usize,
                    cols: usize,
                ) {
                    for j in 0..128 {
                        let row = m0 + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (j % 4 / 2);
                        let col = n0 + 8 * (j / 4) + 2 * (lane_id() % 4) + j % 2;
                        apply(
                            ptx["st.global.f32"],
                            c.slice(s![row, col..col + 1]),
                            acc.slice(s![r, j..j + 1]),
                            pred = row < rows && col < cols,
                        );
                    }
                }
            }
        );
    };
}

persistent_f32_kernel!(gemm_persistent_128x256, threads = 384, producer_warp = 8);

// The same with C in bf16, pairs of columns packed into 32-bit stores as
// in `gemm_ws_bf16_128x256` (N even).
persistent_kernel!(
    gemm_persistent_bf16_128x256,
    bf16,
    threads = 384,
    producer_warp = 8,
    [],
    [],
    {
        fn store(
            acc: Tile<f32>,
            c: Tensor<bf16>,
            m0: usize,
            n0: usize,
            r: usize,
            rows: usize,
            cols: usize,
        ) {
            store_bf16_pairs(acc, c, m0, n0, r, rows, cols);
        }
    }
);

// The same schedule with no producer warp: 256 threads, all of them
// consumers, warp 0 waiting for a stage's empty phase and thread 0
// refilling it (a warp that both consumes and produces): the example checks
// it on the CPU beside the producer-warp form.
persistent_f32_kernel!(
    gemm_persistent_plain_128x256,
    threads = 256,
    producer_warp = 0
);

// fp8 e4m3 inputs on the persistent schedule (K steps of 128 bytes,
// `wgmma` k32): `scale * A B^T` in bf16 as packed column pairs (N even),
// what `torch._scaled_mm` computes; a tile's stores overlap the producer's
// loads of the next tile.
persistent_kernel!(
    gemm_persistent_fp8_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
    u8,
    e = 16,
    [1, 1],
    bf16,
    threads = 384,
    producer_warp = 8,
    [scale: f32,],
    [, factor],
    {
        fn store(
            acc: Tile<f32>,
            c: Tensor<bf16>,
            m0: usize,
            n0: usize,
            r: usize,
            rows: usize,
            cols: usize,
            factor: Tile<f32>,
        ) {
            let scaled = alloc_local::<f32>([1, 2]);
            let pair = alloc_local::<u32>([1, 1]);
            for j in 0..64 {
                let i = 2 * j;
                let row = m0 + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (i % 4 / 2);
                let col = n0 + 8 * (i / 4) + 2 * (lane_id() % 4);
                ewise(|v: f32, f: f32| v * f, scaled, acc.slice(s![r, i..i + 2]).unsqueeze(0), factor);
                apply(
                    ptx["cvt.rn.bf16x2.f32"],
                    pair,
                    scaled.slice(s![0, 1..2]).unsqueeze(0),
                    scaled.slice(s![0, 0..1]).unsqueeze(0),
                );
                apply(
                    ptx["st.global.b32"],
                    c.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
                    pair,
                    pred = row < rows && col + 2 <= cols,
                );
            }
        }
        // The scale as a register tile (a kernel function takes tiles,
        // tensors and indices).
        let factor = alloc_local::<f32>([1, 2]);
        apply(ptx["mov.f32"], factor.unsqueeze(-1), scale);
    }
);

/// `$name`: the persistent kernel of `persistent_kernel!` with its
/// epilogue through shared memory and tensor stores: at a tile's end the
/// consumers write the tile (bf16, `$stage`) into one of two 128 x 64
/// `swizzle_128` staging buffers, 64 columns a pass, and thread 288 stores
/// each pass through the tensor map of C (which clips rows past M and
/// columns past N), so the last passes' stores run on under the next
/// tile's K loop instead of 64 scattered 4-byte stores a thread. C's rows
/// are 16-byte multiples (the map's stride): N a multiple of 8.
macro_rules! persistent_tma_kernel {
    ($name:ident, $op:literal, $t:ty, e = $e:literal, [$($tail:literal),*],
     [$($params:tt)*], [$($fparams:tt)*], [$($args:tt)*], [$($inner:tt)*], {$($stage:tt)*}) => {
        persistent_kernel!(
            @build $name, $op, $t, e = $e, [$($tail),*],
            threads = 384, producer_warp = 8,
            cols = [8 * NC], ndim = [{ 8 * NC }], c = [bf16], params = [$($params)*],
            functions = {
                // `stage_pass`: pass `p` of a consumer warpgroup's 64 x 256 part
                // of a tile (its columns 64 p .., `col0` .. of C) into its 64
                // rows of a staging buffer (thread 32 w + l holds row r of
                // `acc`).
                $($stage)*
                // The tile at rows m0, columns n0 through the staging buffers
                // `so`: 4 passes of 64 columns, two buffers in turn. Thread 288
                // (an idle warp's) stores each pass through the tensor map of C
                // once every thread wrote it, and before a buffer is written
                // again waits until the store two passes back has read it; the
                // last two passes' stores run on under the next tile's loop.
                fn drain(acc: Tile<f32>, so: Shared<bf16>, c: Tensor<bf16>, m0: usize, n0: usize, r: usize, wg: usize $($fparams)*) {
                    for p in 0..4 {
                        // Pass 0: the last tile's stores are complete (their
                        // bytes may be this tile's, as far as anything proves),
                        // so buffer 1 is free too; passes 2 and 3: the store of
                        // pass p - 2 has read its buffer.
                        if p == 0 && thread_id(0) == 288 {
                            apply(ptx["cp.async.bulk.wait_group"], 0);
                        }
                        if p >= 2 && thread_id(0) == 288 {
                            apply(ptx["cp.async.bulk.wait_group.read"], 1);
                        }
                        if p != 1 {
                            apply(ptx["bar.sync"], 0, scope = "cta");
                        }
                        if wg < 2 {
                            stage_pass(acc, so.slice(s![p % 2, 64 * wg..64 * wg + 64, ..]), p, r, n0 + 64 * p $($inner)*);
                        }
                        apply(ptx["fence.proxy.async.shared::cta"]);
                        apply(ptx["bar.sync"], 0, scope = "cta");
                        if thread_id(0) == 288 {
                            apply(
                                ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                                c.slice(s![m0..m0 + 128, n0 + 64 * p..n0 + 64 * p + 64]),
                                so.slice(s![p % 2, .., ..]),
                            );
                            apply(ptx["cp.async.bulk.commit_group"]);
                        }
                    }
            }
            },
            buffers = {
                let so = alloc_shared::<bf16>([2, 128, 64], layout = "swizzle_128");
            },
            step = {
                // Ticket g - 1 ended tile (g - 1) / steps: drain it (every
                // thread: the passes' barriers), and start the next with
                // `scale-d` 0 (D = A B). Tile ends are found by
                // comparisons: a division by `steps` (a 64-bit subroutine
                // call) on every step starved the tensor cores.
                if g == steps || g == 2 * steps || g == 3 * steps {
                    // Every warpgroup (the producer's has nothing in
                    // flight): a wait under `wg < 2` would not dominate
                    // the reads of `acc` under another `wg < 2` for
                    // ptxas, which then serializes every wgmma (C7514).
                    apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
                    drain(acc, so, c, m0, (cta_id(0) + tiles_x * min((g - 1) / steps, 3)) * 256, r, wg $($args)*);
                    if wg < 2 {
                        apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (g / 4) % 2);
                        multiply(acc, sa.slice(s![stage, 64 * cw..64 * cw + 64, ..]), sb.slice(s![stage, .., ..]), 0);
                    }
                } else if wg < 2 {
                    apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (g / 4) % 2);
                    multiply(acc, sa.slice(s![stage, 64 * cw..64 * cw + 64, ..]), sb.slice(s![stage, .., ..]), 1);
                }
                if wg < 2 {
                    release_stage(empty, g);
                }
            },
            last = {
                apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
                drain(acc, so, c, m0, (cta_id(0) + tiles_x * 3) * 256, r, wg $($args)*);
                if t == 288 {
                    apply(ptx["cp.async.bulk.wait_group"], 0);
                }
            }
        );
    };
}

persistent_tma_kernel!(
    gemm_persistent_tma_bf16_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bf16,
    e = 8,
    [1, 1, 0, 0],
    [],
    [],
    [],
    [],
    {
        fn stage_pass(acc: Tile<f32>, so: Shared<bf16>, p: usize, r: usize, col0: usize) {
            let pair = alloc_local::<u32>([1, 1]);
            for j in 0..16 {
                let i = 32 * p + 2 * j;
                let row = 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (j % 2);
                let col = 8 * (j / 2) + 2 * (lane_id() % 4);
                apply(
                    ptx["cvt.rn.bf16x2.f32"],
                    pair,
                    acc.slice(s![r, i + 1..i + 2]).unsqueeze(0),
                    acc.slice(s![r, i..i + 1]).unsqueeze(0),
                );
                apply(
                    ptx["st.shared.b32"],
                    so.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
                    pair,
                );
            }
        }
    }
);
persistent_tma_kernel!(
    gemm_persistent_tma_fp8_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
    u8,
    e = 16,
    [1, 1],
    [scale: f32,],
    [, factor: Tile<f32>],
    [, factor],
    [, factor],
    {
        fn stage_pass(
            acc: Tile<f32>,
            so: Shared<bf16>,
            p: usize,
            r: usize,
            col0: usize,
            factor: Tile<f32>,
        ) {
            let scaled = alloc_local::<f32>([1, 2]);
            let pair = alloc_local::<u32>([1, 1]);
            for j in 0..16 {
                let i = 32 * p + 2 * j;
                let row = 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (j % 2);
                let col = 8 * (j / 2) + 2 * (lane_id() % 4);
                ewise(|v: f32, f: f32| v * f, scaled, acc.slice(s![r, i..i + 2]).unsqueeze(0), factor);
                apply(
                    ptx["cvt.rn.bf16x2.f32"],
                    pair,
                    scaled.slice(s![0, 1..2]).unsqueeze(0),
                    scaled.slice(s![0, 0..1]).unsqueeze(0),
                );
                apply(
                    ptx["st.shared.b32"],
                    so.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
                    pair,
                );
            }
        }
        // The scale as a register tile (a kernel function takes tiles,
        // tensors and indices).
        let factor = alloc_local::<f32>([1, 2]);
        apply(ptx["mov.f32"], factor.unsqueeze(-1), scale);
    }
);

persistent_tma_kernel!(
    gemm_persistent_tma_silu_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bf16,
    e = 8,
    [1, 1, 0, 0],
    [bias: Tensor<f32, { 8 * NC }>,],
    [, bias: Tensor<f32>, cols: usize],
    [, bias, 8 * NC],
    [, bias, cols],
    {
        // `silu(acc + bias)`: per group of 8 columns the thread's bias
        // pair once (zero past N, where the tensor store clips), then its
        // two rows.
        fn stage_pass(
            acc: Tile<f32>,
            so: Shared<bf16>,
            p: usize,
            r: usize,
            col0: usize,
            bias: Tensor<f32>,
            cols: usize,
        ) {
            let bias_pair = alloc_local::<f32>([1, 2]);
            let out = alloc_local::<bf16>([1, 2]);
            for group in 0..8 {
                let col = 8 * group + 2 * (lane_id() % 4);
                if col0 + col + 2 <= cols {
                    apply(
                        ptx["ld.global.v2.f32"],
                        bias_pair,
                        bias.slice(s![col0 + col..col0 + col + 2]).unsqueeze(0),
                    );
                } else {
                    apply(ptx["mov.b32"], bias_pair.unsqueeze(-1), 0);
                }
                for half in 0..2 {
                    let i = 32 * p + 4 * group + 2 * half;
                    let row = 16 * (warp_id() % 4) + lane_id() / 4 + 8 * half;
                    ewise(
                        |v: f32, b: f32| {
                            let x = v + b;
                            (x * rcp_approx(1.0 + ex2_approx(-x * f32::consts::LOG2_E))) as bf16
                        },
                        out,
                        acc.slice(s![r, i..i + 2]).unsqueeze(0),
                        bias_pair,
                    );
                    apply(
                        ptx["st.shared.b32"],
                        so.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
                        out.view::<u32>(),
                    );
                }
            }
        }
    }
);

/// `$name`: `silu(A B^T + bias)` in bf16, persistent (`persistent_kernel!`
/// with `$threads` threads, the producer warp `$pw`): the fused epilogue of
/// `gemm_wgmma_silu_128x256`, each consumer warpgroup's part of a tile
/// stored with its column pairs packed into 32-bit stores (N even).
macro_rules! persistent_silu_kernel {
    ($name:ident, threads = $threads:literal, producer_warp = $pw:literal) => {
        persistent_kernel!(
            $name,
            bf16,
            threads = $threads,
            producer_warp = $pw,
            [bias: Tensor<f32, N>,],
            [, bias],
            {
                fn store(
                    acc: Tile<f32>,
                    c: Tensor<bf16>,
                    m0: usize,
                    n0: usize,
                    r: usize,
                    rows: usize,
                    cols: usize,
                    bias: Tensor<f32>,
                ) {
                    let bias_pair = alloc_local::<f32>([1, 2]);
                    let out = alloc_local::<bf16>([1, 2]);
                    apply(ptx["mov.b32"], bias_pair.unsqueeze(-1), 0);
                    // Per group of 8 columns, the thread's bias pair once,
                    // then its two rows.
                    for group in 0..32 {
                        let col = n0 + 8 * group + 2 * (lane_id() % 4);
                        apply(
                            ptx["ld.global.v2.f32"],
                            bias_pair,
                            bias.slice(s![col..col + 2]).unsqueeze(0),
                            pred = col + 2 <= cols,
                        );
                        for half in 0..2 {
                            let i = 4 * group + 2 * half;
                            let row = m0 + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * half;
                            ewise(
                                |v: f32, b: f32| {
                                    let x = v + b;
                                    (x * rcp_approx(1.0 + ex2_approx(-x * f32::consts::LOG2_E))) as bf16
                                },
                                out,
                                acc.slice(s![r, i..i + 2]).unsqueeze(0),
                                bias_pair,
                            );
                            apply(
                                ptx["st.global.b32"],
                                c.slice(s![row, col..col + 2]).view::<u32>().unsqueeze(0),
                                out.view::<u32>(),
                                pred = row < rows && col + 2 <= cols,
                            );
                        }
                    }
                }
            }
        );
    };
}

persistent_silu_kernel!(
    gemm_persistent_silu_128x256,
    threads = 384,
    producer_warp = 8
);
// Without a producer warp: the CPU interpreter runs it.
persistent_silu_kernel!(
    gemm_persistent_silu_plain_128x256,
    threads = 256,
    producer_warp = 0
);

const KERNELS: [Gemm; 3] = [
    (
        "gemm_wgmma_128x128 (128 x 128 tiles, 4 stages, TMA + wgmma)",
        |d, a, b, c| gemm_wgmma_128x128(d, a, b, c),
    ),
    (
        "gemm_wgmma_128x256 (128 x 256 tiles, 4 stages, TMA + wgmma)",
        |d, a, b, c| gemm_wgmma_128x256(d, a, b, c),
    ),
    PERSISTENT_PLAIN,
];

const PERSISTENT_PLAIN: Gemm = (
    "gemm_persistent_plain_128x256 (4 tiles a CTA through one ring, no producer warp)",
    |d, a, b, c| gemm_persistent_plain_128x256(d, a, b, c),
);

fn silu(x: f64) -> f64 {
    x / (1.0 + (-x).exp())
}

/// `gemm_wgmma_silu_128x256` against `silu(A B^T + bias)` in f64: within
/// the K-scaled bound of the product, then bf16's rounding (2^-8 relative)
/// and the approximate exp2 and reciprocal (2^-20 relative).
/// A kernel `C = silu(A B^T + bias)` in bf16, and its name.
type SiluGemm = (
    &'static str,
    fn(
        &Device,
        &DeviceTensor<bf16>,
        &DeviceTensor<bf16>,
        &DeviceTensor<f32>,
        &mut DeviceTensor<bf16>,
    ) -> Result<(), Error>,
);

const SILU: SiluGemm = ("gemm_wgmma_silu_128x256", |d, a, b, bias, c| {
    gemm_wgmma_silu_128x256(d, a, b, bias, c)
});
const PERSISTENT_SILU: SiluGemm = ("gemm_persistent_silu_128x256", |d, a, b, bias, c| {
    gemm_persistent_silu_128x256(d, a, b, c, bias)
});
const PERSISTENT_TMA_SILU: SiluGemm = ("gemm_persistent_tma_silu_128x256", |d, a, b, bias, c| {
    gemm_persistent_tma_silu_128x256(d, a, b, c, bias)
});
const PERSISTENT_SILU_PLAIN: SiluGemm =
    ("gemm_persistent_silu_plain_128x256", |d, a, b, bias, c| {
        gemm_persistent_silu_plain_128x256(d, a, b, c, bias)
    });

fn check_silu(
    dev: &Device,
    (name, gemm): SiluGemm,
    m: usize,
    n: usize,
    k: usize,
) -> Result<(), Error> {
    let ha = gemm::inputs(m * k, 0x5111 + (m * n * k) as u64);
    let hb = gemm::inputs(n * k, 0x5222 + (m * n * k) as u64);
    let hbias: Vec<f32> = gemm::inputs(n, 0x5333 + n as u64)
        .iter()
        .map(|v| v.to_f32())
        .collect();
    let a = dev.upload(&ha, [m, k])?;
    let b = dev.upload(&hb, [n, k])?;
    let bias = dev.upload(&hbias, [n])?;
    let mut c = dev.upload(&vec![bf16::NAN; m * n], [m, n])?;
    gemm(dev, &a, &b, &bias, &mut c)?;
    let got = c.download()?;
    let product_bound = (k as f64) * 2f64.powi(-20);
    for i in 0..m {
        for j in 0..n {
            let x: f64 = (0..k)
                .map(|kk| f64::from(ha[i * k + kk].to_f32()) * f64::from(hb[j * k + kk].to_f32()))
                .sum::<f64>()
                + f64::from(hbias[j]);
            let want = silu(x);
            let g = f64::from(got[i * n + j].to_f32());
            let bound = product_bound * 1.1 + want.abs() * (2f64.powi(-8) + 2f64.powi(-18)) + 1e-30;
            assert!(
                (g - want).abs() <= bound,
                "{name} {m} x {n} x {k}: C[{i}, {j}] = {g} but the reference is {want}"
            );
        }
    }
    println!("OK: {name} {m} x {n} x {k} (silu(A B^T + bias) in bf16)");
    Ok(())
}

/// A kernel `C = A B^T` with C in bf16, and its name.
type GemmBf16 = (
    &'static str,
    fn(
        &Device,
        &DeviceTensor<bf16>,
        &DeviceTensor<bf16>,
        &mut DeviceTensor<bf16>,
    ) -> Result<(), Error>,
);

const WS_BF16: GemmBf16 = ("gemm_ws_bf16_128x256", |d, a, b, c| {
    gemm_ws_bf16_128x256(d, a, b, c)
});
const PERSISTENT_BF16: GemmBf16 = ("gemm_persistent_bf16_128x256", |d, a, b, c| {
    gemm_persistent_bf16_128x256(d, a, b, c)
});
const WS_CLUSTER_BF16: GemmBf16 = ("gemm_ws_cluster_bf16_128x256", |d, a, b, c| {
    gemm_ws_cluster_bf16_128x256(d, a, b, c)
});
const PERSISTENT_TMA_BF16: GemmBf16 = ("gemm_persistent_tma_bf16_128x256", |d, a, b, c| {
    gemm_persistent_tma_bf16_128x256(d, a, b, c)
});

/// A bf16-output kernel against `A B^T` in f64: within the K-scaled bound
/// of the product (as `gemm::check`), then bf16's rounding (2^-9
/// relative, round to nearest).
fn check_bf16_out(
    dev: &Device,
    (name, gemm): GemmBf16,
    m: usize,
    n: usize,
    k: usize,
) -> Result<(), Error> {
    let ha = gemm::inputs(m * k, 0x6e21 + (m * n * k) as u64);
    let hb = gemm::inputs(n * k, 0x7e21 + (m * n * k) as u64);
    let a = dev.upload(&ha, [m, k])?;
    let b = dev.upload(&hb, [n, k])?;
    let mut c = dev.upload(&vec![bf16::NAN; m * n], [m, n])?;
    gemm(dev, &a, &b, &mut c)?;
    let got = c.download()?;
    let product_bound = (k as f64) * 2f64.powi(-20);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|kk| f64::from(ha[i * k + kk].to_f32()) * f64::from(hb[j * k + kk].to_f32()))
                .sum();
            let g = f64::from(got[i * n + j].to_f32());
            // Round to nearest bf16 (8 significant bits): within half an
            // ulp, at most 2^-8 of the value.
            let bound = product_bound * (1.0 + 2f64.powi(-8)) + want.abs() * 2f64.powi(-8);
            assert!(
                (g - want).abs() <= bound,
                "{name} {m} x {n} x {k}: C[{i}, {j}] = {g} but the reference is {want}"
            );
        }
    }
    println!("OK: {name} {m} x {n} x {k} (A B^T, bf16 out)");
    Ok(())
}

/// `n` random e4m3 values (bits), finite, magnitudes 2^-6 to 448.
fn fp8_inputs(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bits = (state >> 32) as u8;
            // 0x7f / 0xff are NaN in e4m3: use the largest finite value.
            if bits & 0x7f == 0x7f { bits - 1 } else { bits }
        })
        .collect()
}

/// `gemm_fp8_128x256` against `scale * A B^T` in f64: the tensor cores
/// keep about 14 bits of an fp8 sum (docs/tensor-cores.md), so each
/// 32-wide step may lose 2^-13 of its magnitude sum; then bf16 rounding.
/// A kernel `C = scale A B^T` from e4m3 inputs with C in bf16, and its name.
type Fp8Gemm = (
    &'static str,
    fn(
        &Device,
        &DeviceTensor<u8>,
        &DeviceTensor<u8>,
        f32,
        &mut DeviceTensor<bf16>,
    ) -> Result<(), Error>,
);

const FP8: Fp8Gemm = ("gemm_fp8_128x256", |d, a, b, scale, c| {
    gemm_fp8_128x256(d, a, b, scale, c)
});
const PERSISTENT_FP8: Fp8Gemm = ("gemm_persistent_fp8_128x256", |d, a, b, scale, c| {
    gemm_persistent_fp8_128x256(d, a, b, c, scale)
});
const PERSISTENT_TMA_FP8: Fp8Gemm = ("gemm_persistent_tma_fp8_128x256", |d, a, b, scale, c| {
    gemm_persistent_tma_fp8_128x256(d, a, b, c, scale)
});
const WS_FP8: Fp8Gemm = ("gemm_ws_fp8_128x256", |d, a, b, scale, c| {
    gemm_ws_fp8_128x256(d, a, b, scale, c)
});

fn check_fp8(
    dev: &Device,
    (name, gemm): Fp8Gemm,
    m: usize,
    n: usize,
    k: usize,
) -> Result<(), Error> {
    let ha = fp8_inputs(m * k, 0x8111 + (m * n * k) as u64);
    let hb = fp8_inputs(n * k, 0x8222 + (m * n * k) as u64);
    let scale = 0.001953125f32;
    let a = dev.upload(&ha, [m, k])?;
    let b = dev.upload(&hb, [n, k])?;
    let mut c = dev.upload(&vec![bf16::NAN; m * n], [m, n])?;
    gemm(dev, &a, &b, scale, &mut c)?;
    let got = c.download()?;
    let value = |bits: u8| f64::from(float8::F8E4M3::from_bits(bits).to_f32());
    for i in 0..m {
        for j in 0..n {
            let terms = (0..k).map(|kk| value(ha[i * k + kk]) * value(hb[j * k + kk]));
            let (sum, magnitude) = terms.fold((0.0, 0.0), |(s, m), t| (s + t, m + t.abs()));
            let want = sum * f64::from(scale);
            let g = f64::from(got[i * n + j].to_f32());
            // Each k32 wgmma keeps about 14 bits of its sum (terms
            // truncated to a multiple of 2^(E - 13), E the largest
            // exponent among them and the accumulator:
            // docs/interpreter.md), so the error grows with the number of
            // wgmmas chained into one element; then bf16's rounding.
            let chained = k.div_ceil(32) as f64;
            let bound = magnitude * f64::from(scale) * 2f64.powi(-11) * chained
                + want.abs() * 2f64.powi(-8);
            assert!(
                (g - want).abs() <= bound,
                "{name} {m} x {n} x {k}: C[{i}, {j}] = {g} but the reference is {want}"
            );
        }
    }
    println!("OK: {name} {m} x {n} x {k} (scale A B^T from e4m3, bf16 out)");
    Ok(())
}

/// The mean time of `runs` launches of `launch` after 3 warm-ups.
fn time(dev: &Device, mut launch: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    for _ in 0..3 {
        launch()?;
    }
    dev.synchronize()?;
    let runs = 20;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        launch()?;
    }
    dev.synchronize()?;
    Ok(start.elapsed().as_secs_f64() / f64::from(runs))
}

fn main() -> Result<(), Error> {
    // `GEMM_SM90_PTX=1` prints the kernels' PTX (for `ptxas -v`).
    if std::env::var_os("GEMM_SM90_PTX").is_some() {
        for ptx in [
            gemm_wgmma_128x128::PTX,
            gemm_wgmma_128x256::PTX,
            gemm_wgmma_silu_128x256::PTX,
            gemm_fp8_128x256::PTX,
            gemm_ws_128x256::PTX,
            gemm_ws_bf16_128x256::PTX,
            gemm_ws_fp8_128x256::PTX,
            gemm_ws_cluster_128x256::PTX,
            gemm_ws_cluster_bf16_128x256::PTX,
            gemm_persistent_128x256::PTX,
            gemm_persistent_bf16_128x256::PTX,
            gemm_persistent_plain_128x256::PTX,
            gemm_persistent_silu_128x256::PTX,
            gemm_persistent_silu_plain_128x256::PTX,
            gemm_persistent_fp8_128x256::PTX,
            gemm_persistent_tma_bf16_128x256::PTX,
            gemm_persistent_tma_fp8_128x256::PTX,
            gemm_persistent_tma_silu_128x256::PTX,
        ] {
            print!("{ptx}");
        }
        return Ok(());
    }
    let dev = Device::new(0)?;
    // `GEMM_SM90_PROFILE=name` launches only that bf16-output kernel, 3
    // times at 4096^3 (or `GEMM_SM90_PROFILE_SIZE`^3, K from
    // `GEMM_SM90_PROFILE_K`) with no checks (for ncu or nsys), and prints
    // the mean time of the launches.
    if let Ok(name) = std::env::var("GEMM_SM90_PROFILE") {
        let Some(kernel) = [
            WS_BF16,
            WS_CLUSTER_BF16,
            PERSISTENT_BF16,
            PERSISTENT_TMA_BF16,
        ]
        .into_iter()
        .find(|kernel| kernel.0 == name) else {
            panic!("GEMM_SM90_PROFILE={name}: not a bf16-output kernel of this example");
        };
        let s = std::env::var("GEMM_SM90_PROFILE_SIZE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(4096);
        // `GEMM_SM90_PROFILE_K`: K other than `s`.
        let k = std::env::var("GEMM_SM90_PROFILE_K")
            .ok()
            .and_then(|k| k.parse().ok())
            .unwrap_or(s);
        let a = dev.upload(&gemm::inputs(s * k, 1), [s, k])?;
        let b = dev.upload(&gemm::inputs(s * k, 2), [s, k])?;
        let mut c = dev.zeros::<bf16>([s, s])?;
        // `GEMM_SM90_PROFILE_REPS`: launches other than 3 (a sustained
        // run, to watch clocks and power).
        let reps = std::env::var("GEMM_SM90_PROFILE_REPS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(3);
        let start = std::time::Instant::now();
        for _ in 0..reps {
            (kernel.1)(&dev, &a, &b, &mut c)?;
        }
        dev.synchronize()?;
        let seconds = start.elapsed().as_secs_f64() / reps as f64;
        println!(
            "{name} {s} x {s} x {k}: {reps} launches, {:.3} ms, {:.1} TFLOP/s",
            seconds * 1e3,
            2.0 * (s * s * k) as f64 / seconds / 1e12
        );
        return Ok(());
    }
    // `GEMM_SM90_SWEEP_K=k,..` times the persistent bf16 and fp8 kernels
    // (per-thread stores, then tensor stores)
    // at M x N x k for each k, M = N = 4096 (no checks): how a tile's fixed costs
    // (its epilogue) weigh against its K loop.
    if let Ok(ks) = std::env::var("GEMM_SM90_SWEEP_K") {
        // `GEMM_SM90_SWEEP_MN`: M = N other than 4096.
        let mn = std::env::var("GEMM_SM90_SWEEP_MN")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(4096);
        let (m, n) = (mn, mn);
        for k in ks.split(',').filter_map(|k| k.trim().parse::<usize>().ok()) {
            let a = dev.upload(&gemm::inputs(m * k, 1), [m, k])?;
            let b = dev.upload(&gemm::inputs(n * k, 2), [n, k])?;
            let a8 = dev.upload(&fp8_inputs(m * k, 3), [m, k])?;
            let b8 = dev.upload(&fp8_inputs(n * k, 4), [n, k])?;
            let mut c = dev.zeros::<bf16>([m, n])?;
            let flop = 2.0 * (m * n * k) as f64;
            let bf = time(&dev, || (PERSISTENT_BF16.1)(&dev, &a, &b, &mut c))?;
            let f8 = time(&dev, || (PERSISTENT_FP8.1)(&dev, &a8, &b8, 0.5, &mut c))?;
            let bf_tma = time(&dev, || (PERSISTENT_TMA_BF16.1)(&dev, &a, &b, &mut c))?;
            let f8_tma = time(&dev, || (PERSISTENT_TMA_FP8.1)(&dev, &a8, &b8, 0.5, &mut c))?;
            println!(
                "sweep {m} x {n} x {k}: {} {:.1} TFLOP/s, {} {:.1} TFLOP/s, {} {:.1} TFLOP/s, {} {:.1} TFLOP/s",
                PERSISTENT_BF16.0,
                flop / bf / 1e12,
                PERSISTENT_FP8.0,
                flop / f8 / 1e12,
                PERSISTENT_TMA_BF16.0,
                flop / bf_tma / 1e12,
                PERSISTENT_TMA_FP8.0,
                flop / f8_tma / 1e12
            );
        }
        return Ok(());
    }
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let shapes: Vec<(usize, usize, usize)> = match args[..] {
        [m, n, k] => vec![(m, n, k)],
        _ => gemm::SHAPES.to_vec(),
    };
    for &(m, n, k) in &shapes {
        check_silu(&dev, SILU, m, n, k)?;
        // fp8 rows are 16-byte multiples: K a multiple of 16.
        check_fp8(&dev, FP8, m, n, k.div_ceil(16) * 16)?;
    }
    gemm::run(&KERNELS)?;
    // Several tiles a CTA (N = 2100: a grid of width 3, CTA 0 tiles 0, 3,
    // 6 and 9 (past N), CTA 2 tiles 2, 5, 8 (part past N) and 11), several
    // steps a tile, on either device.
    gemm::check(&dev, PERSISTENT_PLAIN, 40, 2100, 72)?;
    // The persistent SiLU epilogue (bias pairs, packed bf16 stores) on
    // either device, through its form without a producer warp.
    check_silu(&dev, PERSISTENT_SILU_PLAIN, 130, 200, 96)?;
    check_silu(&dev, PERSISTENT_SILU_PLAIN, 40, 2100, 72)?;
    // An odd N would misalign the bf16 pairs' 32-bit stores: the launcher
    // refuses it on either device.
    let a = dev.upload(&gemm::inputs(8, 9), [1, 8])?;
    let b = dev.upload(&gemm::inputs(24, 10), [3, 8])?;
    let mut c = dev.zeros::<bf16>([1, 3])?;
    match gemm_ws_bf16_128x256(&dev, &a, &b, &mut c) {
        Err(Error::SymbolRequirement { symbol: "N", .. }) => {
            println!("OK: gemm_ws_bf16_128x256 refuses N = 3 (its 32-bit stores need N even)")
        }
        other => panic!("gemm_ws_bf16_128x256 with N = 3: {other:?}"),
    }
    let ws: gemm::Gemm = (
        "gemm_ws_128x256 (warp-specialised: producer warp, 128 x 256 tiles)",
        |d, a, b, c| gemm_ws_128x256(d, a, b, c),
    );
    let persistent: gemm::Gemm = (
        "gemm_persistent_128x256 (warp-specialised, 4 tiles a CTA through one ring)",
        |d, a, b, c| gemm_persistent_128x256(d, a, b, c),
    );
    let ws_cluster: gemm::Gemm = (
        "gemm_ws_cluster_128x256 (warp-specialised, pairs of CTAs multicasting B)",
        |d, a, b, c| gemm_ws_cluster_128x256(d, a, b, c),
    );
    // The warp-specialised kernels on either device: the interpreter orders
    // each consumer's reads before the producer's refill through that
    // consumer's own arrival, and the producer warp's lanes through their
    // `bar.warp.sync` (docs/interpreter.md).
    // K = 392 is 7 steps of 64: the producers refill stages (4 of them),
    // so the consumers' releases are what orders each refill; the
    // persistent kernels' tickets run on across tiles at any K.
    gemm::check(&dev, ws, 130, 200, 392)?;
    gemm::check(&dev, persistent, 40, 2100, 72)?;
    check_bf16_out(&dev, WS_BF16, 130, 200, 392)?;
    check_bf16_out(&dev, WS_CLUSTER_BF16, 130, 200, 392)?;
    check_silu(&dev, PERSISTENT_SILU, 130, 200, 96)?;
    gemm::check(&dev, ws_cluster, 130, 200, 392)?;
    // fp8 rows are 16-byte multiples (K a multiple of 16), bf16 pairs
    // 32-bit words (N even); K = 784 is 7 steps of 128 bytes.
    check_fp8(&dev, WS_FP8, 130, 200, 784)?;
    check_fp8(&dev, PERSISTENT_FP8, 40, 2100, 272)?;
    // The tensor-store epilogue: C's rows are 16-byte multiples (N a
    // multiple of 8); CTA 2's tiles are columns 512 .., 1280 .., 2048 ..
    // (past N from 2104) and 2816 .. (wholly past N).
    check_bf16_out(&dev, PERSISTENT_TMA_BF16, 130, 200, 392)?;
    check_bf16_out(&dev, PERSISTENT_TMA_BF16, 40, 2104, 72)?;
    check_fp8(&dev, PERSISTENT_TMA_FP8, 40, 2104, 272)?;
    check_silu(&dev, PERSISTENT_TMA_SILU, 130, 200, 96)?;
    check_silu(&dev, PERSISTENT_TMA_SILU, 40, 2104, 72)?;
    if !dev.is_cpu() {
        for &(m, n, k) in &shapes {
            gemm::check(&dev, ws, m, n, k)?;
            gemm::check(&dev, ws_cluster, m, n, k)?;
            gemm::check(&dev, persistent, m, n, k)?;
            // bf16 pairs are stored as 32-bit words: N even.
            check_bf16_out(&dev, WS_BF16, m, n.div_ceil(2) * 2, k)?;
            check_bf16_out(&dev, WS_CLUSTER_BF16, m, n.div_ceil(2) * 2, k)?;
            check_fp8(&dev, WS_FP8, m, n.div_ceil(2) * 2, k.div_ceil(16) * 16)?;
            check_fp8(
                &dev,
                PERSISTENT_FP8,
                m,
                n.div_ceil(2) * 2,
                k.div_ceil(16) * 16,
            )?;
            check_bf16_out(&dev, PERSISTENT_BF16, m, n.div_ceil(2) * 2, k)?;
            check_bf16_out(&dev, PERSISTENT_TMA_BF16, m, n.div_ceil(8) * 8, k)?;
            check_fp8(
                &dev,
                PERSISTENT_TMA_FP8,
                m,
                n.div_ceil(8) * 8,
                k.div_ceil(16) * 16,
            )?;
        }
        // Tiles past N (a CTA's fourth tile at N = 1100), and M, N, K
        // that are not multiples of anything.
        gemm::check(&dev, persistent, 520, 1100, 200)?;
        for &(m, n, k) in &shapes {
            check_silu(&dev, PERSISTENT_SILU, m, n.div_ceil(2) * 2, k)?;
            check_silu(&dev, PERSISTENT_TMA_SILU, m, n.div_ceil(8) * 8, k)?;
        }
        check_bf16_out(&dev, PERSISTENT_BF16, 520, 1100, 200)?;
        check_bf16_out(&dev, PERSISTENT_TMA_BF16, 520, 1104, 200)?;
    }
    if dev.is_cpu() || args.len() == 3 {
        return Ok(());
    }
    gemm::time_kernels(&[ws, ws_cluster, persistent])?;
    let (m, n, k) = (4096, 4096, 4096);
    check_silu(&dev, SILU, 512, 384, 1024)?;
    check_fp8(&dev, FP8, 512, 384, 1024)?;
    check_fp8(&dev, WS_FP8, 512, 384, 1024)?;
    check_fp8(&dev, PERSISTENT_FP8, 512, 384, 1024)?;
    check_fp8(&dev, PERSISTENT_TMA_FP8, 512, 384, 1024)?;
    let a = dev.upload(&gemm::inputs(m * k, 1), [m, k])?;
    let b = dev.upload(&gemm::inputs(n * k, 2), [n, k])?;
    let bias = dev.upload(&vec![0.25f32; n], [n])?;
    let mut c = dev.zeros::<bf16>([m, n])?;
    for kernel in [
        WS_BF16,
        WS_CLUSTER_BF16,
        PERSISTENT_BF16,
        PERSISTENT_TMA_BF16,
    ] {
        check_bf16_out(&dev, kernel, 512, 384, 1024)?;
        let seconds = time(&dev, || (kernel.1)(&dev, &a, &b, &mut c))?;
        println!(
            "{} (bf16 out) {m} x {n} x {k}: {:.3} ms, {:.1} TFLOP/s",
            kernel.0,
            seconds * 1e3,
            2.0 * (m * n * k) as f64 / seconds / 1e12
        );
    }
    check_silu(&dev, PERSISTENT_SILU, 512, 384, 1024)?;
    check_silu(&dev, PERSISTENT_TMA_SILU, 512, 384, 1024)?;
    for (name, gemm) in [SILU, PERSISTENT_SILU, PERSISTENT_TMA_SILU] {
        let seconds = time(&dev, || gemm(&dev, &a, &b, &bias, &mut c))?;
        println!(
            "{name} (silu(A B^T + bias), bf16 out) {m} x {n} x {k}: {:.3} ms, {:.1} TFLOP/s",
            seconds * 1e3,
            2.0 * (m * n * k) as f64 / seconds / 1e12
        );
    }
    {
        // The bf16-output kernels at 8192^3 too (the other size of the
        // comparison with cuBLAS).
        let s = 8192;
        let a = dev.upload(&gemm::inputs(s * s, 5), [s, s])?;
        let b = dev.upload(&gemm::inputs(s * s, 6), [s, s])?;
        let mut c = dev.zeros::<bf16>([s, s])?;
        for kernel in [
            WS_BF16,
            WS_CLUSTER_BF16,
            PERSISTENT_BF16,
            PERSISTENT_TMA_BF16,
        ] {
            let seconds = time(&dev, || (kernel.1)(&dev, &a, &b, &mut c))?;
            println!(
                "{} (bf16 out) {s} x {s} x {s}: {:.3} ms, {:.1} TFLOP/s",
                kernel.0,
                seconds * 1e3,
                2.0 * (s * s * s) as f64 / seconds / 1e12
            );
        }
    }
    let a8 = dev.upload(&fp8_inputs(m * k, 3), [m, k])?;
    let b8 = dev.upload(&fp8_inputs(n * k, 4), [n, k])?;
    for (name, gemm) in [FP8, WS_FP8, PERSISTENT_FP8, PERSISTENT_TMA_FP8] {
        let seconds = time(&dev, || gemm(&dev, &a8, &b8, 0.5, &mut c))?;
        println!(
            "{name} (e4m3 in, scaled bf16 out) {m} x {n} x {k}: {:.3} ms, {:.1} TFLOP/s",
            seconds * 1e3,
            2.0 * (m * n * k) as f64 / seconds / 1e12
        );
    }
    Ok(())
}
