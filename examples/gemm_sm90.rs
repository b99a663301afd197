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
/// row of bf16) through a ring of `$stages` stages.
///
/// Thread 0 fills every stage first, then refills stage `s` as soon as all
/// 256 threads arrived on its empty barrier: a warpgroup arrives after the
/// `wgmma.wait_group 1` that retires the stage's `wgmma`s, one step later,
/// so that step `k`'s multiplications are issued before the warpgroup
/// waits for step `k - 1`'s and the tensor cores never run dry. Each
/// refill expects the two boxes' bytes on the stage's full barrier, whose
/// phase the warpgroups wait for before multiplying.
macro_rules! gemm_kernel {
    ($name:ident, $op:literal, bn = $bn:literal, stages = $stages:literal) => {
        #[tile_kernel(grid = [ceil_div(N, $bn), ceil_div(M, 128), 1], block = [256, 1, 1], arch = "sm_90a")]
        fn $name(
            a: Tensor<bf16, M, { 8 * K8 }>,
            b: Tensor<bf16, N, { 8 * K8 }>,
            c: Tensor<f32, M, N>,
        ) {
            // One step: its 4 wgmmas of K = 16 into `acc`, as one group.
            fn multiply(acc: Tile<f32>, sa: Shared<bf16>, sb: Shared<bf16>) {
                apply(ptx["wgmma.fence.sync.aligned"], scope = "warpgroup");
                for kk in 0..4 {
                    apply(
                        ptx[$op],
                        acc,
                        sa.slice(s![.., 16 * kk..16 * kk + 16]),
                        sb.slice(s![.., 16 * kk..16 * kk + 16]),
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
            // Step `step`'s boxes of A and B into stage `stage`, signalling
            // its full barrier.
            fn fill(
                a: Tensor<bf16>,
                b: Tensor<bf16>,
                sa: Shared<bf16>,
                sb: Shared<bf16>,
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
                    a.slice(s![m0..m0 + 128, 64 * step..64 * step + 64]),
                    full,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    sb,
                    b.slice(s![n0..n0 + $bn, 64 * step..64 * step + 64]),
                    full,
                );
            }
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

gemm_kernel!(
    gemm_wgmma_128x256,
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
    bn = 256,
    stages = 4
);

const KERNELS: [Gemm; 2] = [
    (
        "gemm_wgmma_128x128 (128 x 128 tiles, 4 stages, TMA + wgmma)",
        |d, a, b, c| gemm_wgmma_128x128(d, a, b, c),
    ),
    (
        "gemm_wgmma_128x256 (128 x 256 tiles, 4 stages, TMA + wgmma)",
        |d, a, b, c| gemm_wgmma_128x256(d, a, b, c),
    ),
];

fn main() -> Result<(), Error> {
    // `GEMM_SM90_PTX=1` prints the kernels' PTX (for `ptxas -v`).
    if std::env::var_os("GEMM_SM90_PTX").is_some() {
        print!("{}{}", gemm_wgmma_128x128::PTX, gemm_wgmma_128x256::PTX);
        return Ok(());
    }
    gemm::run(&KERNELS)
}
