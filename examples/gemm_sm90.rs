//! `C = A B^T` on Hopper's tensor cores: bf16 inputs, f32 accumulation,
//! tensor copies (TMA) through swizzled tensor maps feeding an mbarrier
//! ring of shared stages, and `wgmma.mma_async` reading the stages through
//! matrix descriptors. `A` is `[M, K]`, `B` is `[N, K]` (a linear layer's
//! weight: both K-major), `C` is `[M, N]` f32; any `M` and `N`, `K` a
//! multiple of 8 (a tensor map's rows are 16-byte multiples). The tensor
//! maps zero-fill every box element outside `A` or `B`, so tails need no
//! guard but the stores of `C`.
//!
//! Every step is proven by the compiler: each stage is read by a `wgmma`
//! only after the wait on its full barrier's phase, refilled only after
//! every thread arrived on its empty barrier (after its `wgmma`s retired),
//! the `expect_tx` bytes are the boxes' bytes, the accumulators are not
//! touched while a `wgmma` owns them. The launcher is a safe fn.
//!
//! Run: `cargo run --release --example gemm_sm90 [M N K]` (default: small
//! awkward shapes on the CPU interpreter or the GPU, then 4096^3 timed on a
//! GPU). `GEMM_SM90_PTX=1` prints the PTX instead.

#[path = "common/gemm.rs"]
mod gemm;

use gemm::Gemm;
use tile_kernel::prelude::*;

/// `$name`: a `128 x $bn` tile of `C` per CTA, two warpgroups of 128
/// threads, warpgroup `w` computing rows `64 w .. 64 w + 64` with
/// `wgmma.m64n$bn k16` (`$op`); K in steps of 64 (one 128-byte swizzled
/// row of bf16) through a ring of `$stages` stages. Thread 0 keeps
/// `$stages - 1` steps in flight: it waits for a stage's empty barrier (all
/// 256 threads arrived after their `wgmma`s of that stage retired), then
/// expects the two boxes' bytes on its full barrier and issues the copies.
macro_rules! gemm_kernel {
    ($name:ident, $op:literal, bn = $bn:literal, stages = $stages:literal) => {
        #[tile_kernel(grid = [ceil_div(N, $bn), ceil_div(M, 128), 1], block = [256, 1, 1], arch = "sm_90a")]
        fn $name(
            a: Tensor<bf16, M, { 8 * K8 }>,
            b: Tensor<bf16, N, { 8 * K8 }>,
            c: Tensor<f32, M, N>,
        ) {
            let t = thread_id(0);
            let wg = warp_id() / 4;
            let m0 = cta_id(1) * 128;
            let n0 = cta_id(0) * $bn;
            let steps = ceil_div(K8, 8);
            let sa = alloc_shared::<bf16>([$stages, 128, 64], layout = "swizzle_128");
            let sb = alloc_shared::<bf16>([$stages, $bn, 64], layout = "swizzle_128");
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
            if t == 0 {
                for s in 0..$stages - 1 {
                    if s < steps {
                        apply(
                            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                            full.slice(s![s..s + 1]),
                            128 * (128 + $bn),
                        );
                        apply(
                            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                            sa.slice(s![s, .., ..]),
                            a.slice(s![m0..m0 + 128, 64 * s..64 * s + 64]),
                            full.slice(s![s..s + 1]),
                        );
                        apply(
                            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                            sb.slice(s![s, .., ..]),
                            b.slice(s![n0..n0 + $bn, 64 * s..64 * s + 64]),
                            full.slice(s![s..s + 1]),
                        );
                    }
                }
            }
            for k in 0..steps {
                let stage = k % $stages;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    full.slice(s![stage..stage + 1]),
                    (k / $stages) % 2,
                );
                apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
                for kk in 0..4 {
                    apply(
                        ptx[$op],
                        acc,
                        sa.slice(s![stage, 64 * wg..64 * wg + 64, 16 * kk..16 * kk + 16]),
                        sb.slice(s![stage, .., 16 * kk..16 * kk + 16]),
                        1,
                        1,
                        1,
                        0,
                        0,
                        scope = "warpgroup",
                    );
                }
                apply(ptx["wgmma.commit_group.sync.aligned"], scope = "warpgroup");
                apply(ptx["wgmma.wait_group.sync.aligned"], 0, scope = "warpgroup");
                apply(
                    ptx["mbarrier.arrive.shared::cta.b64"],
                    empty.slice(s![stage..stage + 1]),
                );
                if k + $stages - 1 < steps {
                    if t == 0 {
                        let next = k + $stages - 1;
                        let refill = next % $stages;
                        apply(
                            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                            empty.slice(s![refill..refill + 1]),
                            (next / $stages + 1) % 2,
                        );
                        apply(
                            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                            full.slice(s![refill..refill + 1]),
                            128 * (128 + $bn),
                        );
                        apply(
                            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                            sa.slice(s![refill, .., ..]),
                            a.slice(s![m0..m0 + 128, 64 * next..64 * next + 64]),
                            full.slice(s![refill..refill + 1]),
                        );
                        apply(
                            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                            sb.slice(s![refill, .., ..]),
                            b.slice(s![n0..n0 + $bn, 64 * next..64 * next + 64]),
                            full.slice(s![refill..refill + 1]),
                        );
                    }
                }
            }
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
        }
    };
}

gemm_kernel!(
    gemm_wgmma_128x128,
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
    bn = 128,
    stages = 4
);

const KERNELS: [Gemm; 1] = [(
    "gemm_wgmma_128x128 (128 x 128 tiles, 4 stages, TMA + wgmma)",
    |d, a, b, c| gemm_wgmma_128x128(d, a, b, c),
)];

fn main() -> Result<(), Error> {
    // `GEMM_SM90_PTX=1` prints the kernels' PTX (for `ptxas -v`).
    if std::env::var_os("GEMM_SM90_PTX").is_some() {
        print!("{}", gemm_wgmma_128x128::PTX);
        return Ok(());
    }
    gemm::run(&KERNELS)
}
