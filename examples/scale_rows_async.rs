//! A streaming kernel pipelined through a `cp.async` ring: each row of an
//! f32 `[M, N]` tensor is scaled by its own factor (`y[r, c] = x[r, c] *
//! scale[r]`). A CTA of 256 threads walks its row in chunks of 1024 values;
//! every thread copies its 16 bytes of a chunk into the ring `S - 1` chunks
//! ahead (`cp.async.cg`), waits until only the `S - 2` newest groups are in
//! flight (`cp.async.wait_group`), reads its own bytes back and refills the
//! stage it just emptied. Two rings: 4 and 8 stages (`S`). Each thread reads
//! only what it copied, so no barrier is needed: the checker proves it (a
//! read before the wait, a refill of a stage in flight, or a read of
//! another thread's bytes without a barrier are compile errors). A third
//! kernel runs the 4-stage ring through mbarriers, each thread reading
//! another thread's bytes with no CTA barrier in the loop; a fourth fills
//! the ring with bulk copies (`cp.async.bulk`) one thread issues, each
//! completing on its stage's mbarrier by its byte count, and a fifth with
//! tensor copies (TMA). A sixth takes rows of any length: its tensor-copy
//! ring runs a runtime number of chunks, refilling under a tail guard; a
//! seventh stores its output through tensor stores too.
//! Checked bit for bit against the host; on a GPU, timed against a device
//! copy of the same bytes.
//!
//! `cargo run --release --example scale_rows_async [M N]` (N a multiple of
//! 4; by default 65536 x 4096 and 16384 x 16384 on a GPU, 1 GiB a tensor,
//! and a few small shapes on the CPU interpreter).

#[path = "common/rows.rs"]
mod rows;

use tile_kernel::prelude::*;

/// `$name`: a ring of `$stages` stages of `$v` x 1024 values (`$ahead =
/// $stages - 1` chunks copied ahead; the wait leaves the `$ahead - 1`
/// newest groups in flight). Thread `tx` moves the 16 bytes at `4 * tx +
/// 1024 * i` of each chunk, for `i < $v`.
macro_rules! ring_kernel {
    ($name:ident, vectors = $v:tt, stages = $stages:tt, ahead = $ahead:tt, in_flight = $in_flight:tt) => {
        #[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1])]
        fn $name(x: Tensor<f32, M, N>, scale: Tensor<f32, M>, y: Tensor<f32, M, N>) {
            let tx = thread_id(0);
            let row = cta_id(0);
            let ring = alloc_shared::<f32>([$stages, $v * 1024]);
            let v = alloc_local::<f32>([$v, 4]);
            let f = alloc_local::<f32>([1, 1]);
            apply(
                ptx["ld.global.f32"],
                f,
                scale.slice(s![row..row + 1]).unsqueeze(0),
            );
            // The prologue: chunks 0 .. ahead into their stages, a group each.
            for s in 0..$ahead {
                for i in 0..$v {
                    let at = 4 * tx + 1024 * i;
                    let c = s * ($v * 1024) + at;
                    apply(
                        ptx["cp.async.cg.shared.global"],
                        ring.slice(s![s..s + 1, at..at + 4]),
                        x.slice(s![row..row + 1, c..c + 4]),
                        16,
                    );
                }
                apply(ptx["cp.async.commit_group"]);
            }
            for j in 0..ceil_div(N, $v * 1024) {
                // Chunk j's group is older than the newest `in_flight`: retire it.
                apply(ptx["cp.async.wait_group"], $in_flight);
                let stage = j % $stages;
                let refill = (j + $ahead) % $stages;
                for i in 0..$v {
                    let at = 4 * tx + 1024 * i;
                    let c = j * ($v * 1024) + at;
                    apply(
                        ptx["ld.shared.v4.f32"],
                        v.slice(s![i..i + 1, ..]),
                        ring.slice(s![stage..stage + 1, at..at + 4]),
                        pred = c + 4 <= N,
                    );
                }
                // Chunk j + ahead into the stage chunk j - 1 left (out of
                // the row: no copy).
                for i in 0..$v {
                    let at = 4 * tx + 1024 * i;
                    let next = (j + $ahead) * ($v * 1024) + at;
                    apply(
                        ptx["cp.async.cg.shared.global"],
                        ring.slice(s![refill..refill + 1, at..at + 4]),
                        x.slice(s![row..row + 1, next..next + 4]),
                        16,
                    );
                }
                apply(ptx["cp.async.commit_group"]);
                ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([$v, 4]));
                for i in 0..$v {
                    let c = j * ($v * 1024) + 4 * tx + 1024 * i;
                    apply(
                        ptx["st.global.v4.f32"],
                        y.slice(s![row..row + 1, c..c + 4]),
                        v.slice(s![i..i + 1, ..]),
                        pred = c + 4 <= N,
                    );
                }
            }
            apply(ptx["cp.async.wait_all"]);
        }
    };
}

ring_kernel!(
    scale_rows_ring4,
    vectors = 1,
    stages = 4,
    ahead = 3,
    in_flight = 2
);
ring_kernel!(
    scale_rows_ring8,
    vectors = 1,
    stages = 8,
    ahead = 7,
    in_flight = 6
);
ring_kernel!(
    scale_rows_ring4x2,
    vectors = 2,
    stages = 4,
    ahead = 3,
    in_flight = 2
);
ring_kernel!(
    scale_rows_ring2x4,
    vectors = 4,
    stages = 2,
    ahead = 1,
    in_flight = 0
);

/// The 4-stage ring through mbarriers, each thread reading the 16 bytes
/// thread `255 - tx` copied (so each chunk of 1024 values comes out scaled
/// and reversed by groups of 4: `y[r, 1024 j + 4 t + i] = x[r, 1024 j +
/// 1020 - 4 t + i] * scale[r]` where both are in the row): every
/// thread's `cp.async.mbarrier.arrive.noinc` completes a stage's phase on
/// `full`, a wait on it publishes the stage to the whole CTA, and every
/// thread's arrive on `empty` after its read lets the refill of that stage
/// start with no CTA barrier in the loop.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1])]
fn scale_rows_mbarrier4(x: Tensor<f32, M, N>, scale: Tensor<f32, M>, y: Tensor<f32, M, N>) {
    let tx = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    let f = alloc_local::<f32>([1, 1]);
    apply(
        ptx["ld.global.f32"],
        f,
        scale.slice(s![row..row + 1]).unsqueeze(0),
    );
    if tx == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            256,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            256,
        );
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for s in 0..3 {
        let c = s * 1024 + 4 * tx;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * tx..4 * tx + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![s..s + 1]),
        );
    }
    for j in 0..ceil_div(N, 1024) {
        let stage = j % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (j / 4) % 2,
        );
        // Thread 255 - tx's bytes (stored at this thread's place: each
        // chunk comes out reversed by 16-byte groups).
        let back = 1020 - 4 * tx;
        let c = j * 1024 + 4 * tx;
        let from = j * 1024 + back;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, back..back + 4]),
            pred = from + 4 <= N,
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        // The stage chunk j - 1 left, once every thread has read it.
        let refill = (j + 3) % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            empty.slice(s![refill..refill + 1]),
            ((j + 3) / 4 + 1) % 2,
        );
        let next = (j + 3) * 1024 + 4 * tx;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * tx..4 * tx + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![refill..refill + 1]),
        );
        if from + 4 <= N {
            ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([1, 4]));
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![row..row + 1, c..c + 4]),
                v,
                pred = c + 4 <= N,
            );
        }
    }
    apply(ptx["cp.async.wait_all"]);
}

/// Bulk copies through mbarriers: each CTA scales 4096 values of its row
/// (8 chunks of 512) through a ring of 4 stages. One thread expects each
/// stage's 2048 bytes (`mbarrier.arrive.expect_tx`) and issues its bulk
/// copy (`cp.async.bulk`, completing on the stage's `full` barrier); every
/// thread waits for the stage's phase, reads its 16 bytes and arrives on
/// the stage's `empty` barrier, which the producer waits for before
/// refilling the stage 3 chunks ahead. Rows of a multiple of 4096 values:
/// a bulk copy cannot be guarded, so every copy is proven in bounds.
#[tile_kernel(grid = [M, C, 1], block = [128, 1, 1], arch = "sm_90")]
fn scale_rows_bulk4(
    x: Tensor<f32, M, { 4096 * C }>,
    scale: Tensor<f32, M>,
    y: Tensor<f32, M, { 4096 * C }>,
) {
    let tx = thread_id(0);
    let row = cta_id(0);
    let base = cta_id(1) * 4096;
    let ring = alloc_shared::<f32>([4, 512]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    let f = alloc_local::<f32>([1, 1]);
    apply(
        ptx["ld.global.f32"],
        f,
        scale.slice(s![row..row + 1]).unsqueeze(0),
    );
    if tx == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            128,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if tx == 0 {
        for s in 0..3 {
            let c = base + s * 512;
            apply(
                ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                full.slice(s![s..s + 1]),
                2048,
            );
            apply(
                ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
                ring.slice(s![s..s + 1, ..]),
                x.slice(s![row..row + 1, c..c + 512]),
                2048,
                full.slice(s![s..s + 1]),
            );
        }
    }
    for j in 0..8 {
        let stage = j % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (j / 4) % 2,
        );
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, 4 * tx..4 * tx + 4]),
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        if j + 3 < 8 {
            if tx == 0 {
                // The stage chunk `j - 1` left, once every thread read it.
                let refill = (j + 3) % 4;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((j + 3) / 4 + 1) % 2,
                );
                // Their reads were generic-proxy accesses; the copy is the
                // async proxy's.
                apply(ptx["fence.proxy.async.shared::cta"]);
                let c = base + (j + 3) * 512;
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    2048,
                );
                apply(
                    ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, ..]),
                    x.slice(s![row..row + 1, c..c + 512]),
                    2048,
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
        ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([1, 4]));
        let c = base + j * 512 + 4 * tx;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
}

/// `scale_rows_bulk4` through tensor copies (TMA): `x` is seen as
/// `[M, 16 C, 256]` (the same bytes as `[M, 4096 C]`), so one box of
/// `[1, 2, 256]` moves a 2048-byte stage (a box extent is at most 256).
/// The launcher builds the tensor map from `x` and the box; the ring is
/// the same as the bulk copies' (full and empty barriers, a proxy fence
/// before each refill).
#[tile_kernel(grid = [M, C, 1], block = [128, 1, 1], arch = "sm_90")]
fn scale_rows_tma4(
    x: Tensor<f32, M, { 16 * C }, 256>,
    scale: Tensor<f32, M>,
    y: Tensor<f32, M, { 4096 * C }>,
) {
    let tx = thread_id(0);
    let row = cta_id(0);
    let base = cta_id(1) * 16;
    let ring = alloc_shared::<f32>([4, 2, 256]);
    let flat = ring.reshape([4, 512]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    let f = alloc_local::<f32>([1, 1]);
    apply(
        ptx["ld.global.f32"],
        f,
        scale.slice(s![row..row + 1]).unsqueeze(0),
    );
    if tx == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            128,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if tx == 0 {
        for s in 0..3 {
            let c = base + s * 2;
            apply(
                ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                full.slice(s![s..s + 1]),
                2048,
            );
            apply(
                ptx["cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                ring.slice(s![s..s + 1, .., ..]),
                x.slice(s![row..row + 1, c..c + 2, ..]),
                full.slice(s![s..s + 1]),
            );
        }
    }
    for j in 0..8 {
        let stage = j % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (j / 4) % 2,
        );
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            flat.slice(s![stage..stage + 1, 4 * tx..4 * tx + 4]),
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        if j + 3 < 8 {
            if tx == 0 {
                let refill = (j + 3) % 4;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((j + 3) / 4 + 1) % 2,
                );
                apply(ptx["fence.proxy.async.shared::cta"]);
                let c = base + (j + 3) * 2;
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    2048,
                );
                apply(
                    ptx["cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, .., ..]),
                    x.slice(s![row..row + 1, c..c + 2, ..]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
        ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([1, 4]));
        let c = cta_id(1) * 4096 + j * 512 + 4 * tx;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
}

/// `scale_rows` for rows of any length `N` (a multiple of 4: a tensor map
/// needs 16-byte rows), two rows a CTA, through a 4-stage ring of tensor
/// copies of `[2, 256]` boxes that runs as many chunks as the row has: the
/// last box is partly outside `x` (zeros there) and the stores past the
/// row are guarded. One thread refills a stage 3 chunks ahead only while
/// such a chunk exists (`if k + 3 < chunks`): the checker counts the
/// skipped refills' phases as virtual and proves no wait is for one.
#[tile_kernel(grid = [ceil_div(M, 2), 1, 1], block = [64, 2, 1], arch = "sm_90")]
fn scale_rows_tma_tail(x: Tensor<f32, M, N>, scale: Tensor<f32, M>, y: Tensor<f32, M, N>) {
    let tx = thread_id(0);
    let ty = thread_id(1);
    let rows = cta_id(0) * 2;
    let row = rows + ty;
    let col = tx * 4;
    let chunks = ceil_div(N, 256);
    let ring = alloc_shared::<f32>([4, 2, 256]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    let f = alloc_local::<f32>([1, 1]);
    if row < M {
        apply(
            ptx["ld.global.f32"],
            f,
            scale.slice(s![row..row + 1]).unsqueeze(0),
        );
    } else {
        apply(ptx["mov.b32"], f, 0);
    }
    if tx == 0 && ty == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            128,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if tx == 0 && ty == 0 {
        for s in 0..3 {
            if s < chunks {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![s..s + 1]),
                    2048,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![s..s + 1, .., ..]),
                    x.slice(s![rows..rows + 2, 256 * s..256 * s + 256]),
                    full.slice(s![s..s + 1]),
                );
            }
        }
    }
    for k in 0..chunks {
        let stage = k % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (k / 4) % 2,
        );
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, ty, col..col + 4]),
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        if k + 3 < chunks {
            if tx == 0 && ty == 0 {
                let refill = (k + 3) % 4;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((k + 3) / 4 + 1) % 2,
                );
                apply(ptx["fence.proxy.async.shared::cta"]);
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    2048,
                );
                let c = 256 * (k + 3);
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, .., ..]),
                    x.slice(s![rows..rows + 2, c..c + 256]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
        ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([1, 4]));
        let c = 256 * k + col;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
}

/// `scale_rows_tma_tail` with tensor stores: each scaled chunk goes to a
/// 2-stage output ring that one thread stores to `y` as a `[2, 256]` box
/// (clipped to `y` by the hardware), after a proxy fence and a barrier;
/// before a stage is rewritten, the store that read it two chunks ago must
/// be done reading it (`cp.async.bulk.wait_group.read 1`, then a barrier).
#[tile_kernel(grid = [ceil_div(M, 2), 1, 1], block = [64, 2, 1], arch = "sm_90")]
fn scale_rows_tma_io(x: Tensor<f32, M, N>, scale: Tensor<f32, M>, y: Tensor<f32, M, N>) {
    let tx = thread_id(0);
    let ty = thread_id(1);
    let rows = cta_id(0) * 2;
    let row = rows + ty;
    let col = tx * 4;
    let chunks = ceil_div(N, 256);
    let ring = alloc_shared::<f32>([4, 2, 256]);
    let out = alloc_shared::<f32>([2, 2, 256]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    let f = alloc_local::<f32>([1, 1]);
    if row < M {
        apply(
            ptx["ld.global.f32"],
            f,
            scale.slice(s![row..row + 1]).unsqueeze(0),
        );
    } else {
        apply(ptx["mov.b32"], f, 0);
    }
    if tx == 0 && ty == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            128,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if tx == 0 && ty == 0 {
        for s in 0..3 {
            if s < chunks {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![s..s + 1]),
                    2048,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![s..s + 1, .., ..]),
                    x.slice(s![rows..rows + 2, 256 * s..256 * s + 256]),
                    full.slice(s![s..s + 1]),
                );
            }
        }
    }
    for k in 0..chunks {
        let stage = k % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (k / 4) % 2,
        );
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, ty, col..col + 4]),
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        if k + 3 < chunks {
            if tx == 0 && ty == 0 {
                let refill = (k + 3) % 4;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((k + 3) / 4 + 1) % 2,
                );
                apply(ptx["fence.proxy.async.shared::cta"]);
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    2048,
                );
                let c = 256 * (k + 3);
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, .., ..]),
                    x.slice(s![rows..rows + 2, c..c + 256]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
        ewise(|a: f32, s: f32| a * s, v, v, f.broadcast([1, 4]));
        let o = k % 2;
        if tx == 0 && ty == 0 {
            apply(ptx["cp.async.bulk.wait_group.read"], 1);
        }
        apply(ptx["bar.sync"], 0, scope = "cta");
        apply(
            ptx["st.shared.v4.f32"],
            out.slice(s![o..o + 1, ty, col..col + 4]),
            v,
        );
        apply(ptx["fence.proxy.async.shared::cta"]);
        apply(ptx["bar.sync"], 0, scope = "cta");
        if tx == 0 && ty == 0 {
            let c = 256 * k;
            apply(
                ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                y.slice(s![rows..rows + 2, c..c + 256]),
                out.slice(s![o..o + 1, .., ..]),
            );
            apply(ptx["cp.async.bulk.commit_group"]);
        }
    }
    if tx == 0 && ty == 0 {
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

/// `scale_rows_tma4` on the `[M, N]` tensors of the other kernels: `x` as
/// `[M, N / 256, 256]` (a view, no copy).
fn scale_rows_tma4_rows(
    dev: &Device,
    x: &DeviceTensor<f32>,
    scale: &DeviceTensor<f32>,
    y: &mut DeviceTensor<f32>,
) -> Result<(), Error> {
    let [m, n] = [x.shape()[0], x.shape()[1]];
    scale_rows_tma4(dev, &x.view().reshape([m, n / 256, 256])?, scale, y)
}

type Kernel = fn(
    &Device,
    &DeviceTensor<f32>,
    &DeviceTensor<f32>,
    &mut DeviceTensor<f32>,
) -> Result<(), Error>;

/// The column of `x` that column `c` of `y` holds in a row of `n`
/// (`None`: the kernel leaves it as it was).
type Source = fn(usize, usize) -> Option<usize>;

/// Element-wise: every column its own.
fn same_column(_: usize, c: usize) -> Option<usize> {
    Some(c)
}

/// Chunks of 1024 reversed by groups of 4 where both groups are in the row.
fn reversed_groups(n: usize, c: usize) -> Option<usize> {
    let (base, within) = (c / 1024 * 1024, c % 1024);
    let from = base + 1020 - within / 4 * 4;
    (from + 4 <= n && base + within / 4 * 4 + 4 <= n).then_some(from + within % 4)
}

/// Each kernel, what it computes and the multiple of 4 its rows need.
const KERNELS: [(&str, Kernel, Source, usize); 7] = [
    ("scale_rows_ring4", scale_rows_ring4, same_column, 4),
    ("scale_rows_ring8", scale_rows_ring8, same_column, 4),
    (
        "scale_rows_mbarrier4",
        scale_rows_mbarrier4,
        reversed_groups,
        4,
    ),
    ("scale_rows_bulk4", scale_rows_bulk4, same_column, 4096),
    ("scale_rows_tma4", scale_rows_tma4_rows, same_column, 4096),
    ("scale_rows_tma_tail", scale_rows_tma_tail, same_column, 4),
    ("scale_rows_tma_io", scale_rows_tma_io, same_column, 4),
];

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
    let runs: u32 = 20;
    let copy_ms = if dev.is_cpu() {
        0.0
    } else {
        let mut copy = dev.zeros::<f32>([m, n])?;
        dev.time(|| {
            for _ in 0..runs {
                dev.stream()?
                    .memcpy_dtod(x.cuda_slice()?, copy.cuda_slice_mut()?)
                    .map_err(|source| Error::Driver {
                        during: "copying",
                        source,
                    })?;
            }
            Ok(())
        })? / f64::from(runs)
    };
    for (name, kernel, source, multiple) in KERNELS {
        if !n.is_multiple_of(multiple) {
            println!("skipped: {name} takes rows of a multiple of {multiple} values, not {n}");
            continue;
        }
        let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
        kernel(dev, &x, &scale, &mut y)?;
        let got = y.download()?;
        for (i, g) in got.iter().enumerate() {
            let (r, c) = (i / n, i % n);
            let want = source(n, c).map_or(f32::NAN, |from| host[r * n + from] * factors[r]);
            assert_eq!(
                g.to_bits(),
                want.to_bits(),
                "{name}: y[{}, {}]",
                i / n,
                i % n
            );
        }
        if !dev.is_cpu() {
            let ms = dev.time(|| {
                for _ in 0..runs {
                    kernel(dev, &x, &scale, &mut y)?;
                }
                Ok(())
            })? / f64::from(runs);
            let gbs = |ms: f64| (2 * m * n * 4) as f64 / ms / 1e6;
            println!(
                "{name} {m} x {n} f32: {ms:.4} ms, {:.1} GB/s; copy {copy_ms:.4} ms, {:.1} GB/s; {:.3}x the copy",
                gbs(ms),
                gbs(copy_ms),
                copy_ms / ms
            );
        }
        println!("OK: {name} {m} x {n} matches the host bit for bit");
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    rows::main(
        "SCALE_ROWS_ASYNC_PTX",
        &[
            ("scale_rows_ring4", scale_rows_ring4::PTX),
            ("scale_rows_ring8", scale_rows_ring8::PTX),
            ("scale_rows_mbarrier4", scale_rows_mbarrier4::PTX),
            ("scale_rows_bulk4", scale_rows_bulk4::PTX),
            ("scale_rows_tma4", scale_rows_tma4::PTX),
            ("scale_rows_tma_tail", scale_rows_tma_tail::PTX),
            ("scale_rows_tma_io", scale_rows_tma_io::PTX),
        ],
        &[(3, 1024), (2, 5000), (1, 8), (4, 12288)],
        &[(65536, 4096), (16384, 16384)],
        check,
    )
}
