//! Tensor copies (`cp.async.bulk.tensor`, TMA) on both devices, against
//! host references: the launcher builds each tensor map from the tensor
//! argument and the box the kernel's slice declares; boxes partly or
//! wholly outside the tensor read zeros.
//!
//! The mistakes are compile errors (UI cases `tensor_*` in
//! `ui-tests/tests/compile-fail`) or launch errors (a tensor whose rows are
//! not 16-byte multiples).
#![cfg(feature = "runtime")]

mod support;

use support::xorshift_inputs as inputs;
use tile_kernel::prelude::*;

/// `tiles[ty, tx] = x[32 ty .. 32 ty + 32, 64 tx .. 64 tx + 64]`, zeros
/// where the box leaves `x`. One thread expects the box's 8192 bytes and
/// issues the copy; every thread waits for the phase and copies its part
/// of the stage out.
#[tile_kernel(grid = [GX, GY, 1], block = [128, 1, 1], arch = "sm_90")]
fn load_tiles(x: Tensor<f32, M, N>, tiles: Tensor<f32, GY, GX, 32, 64>) {
    let t = thread_id(0);
    let tx = cta_id(0);
    let ty = cta_id(1);
    let stage = alloc_shared::<f32>([32, 64]);
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..1]).reshape([1, 1]),
            1,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(
            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
            full.slice(s![0..1]),
            8192,
        );
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            stage,
            x.slice(s![32 * ty..32 * ty + 32, 64 * tx..64 * tx + 64]),
            full.slice(s![0..1]),
        );
    }
    apply(
        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
        full.slice(s![0..1]),
        0,
    );
    let flat = stage.reshape([2048]);
    let out = tiles
        .slice(s![ty..ty + 1, tx..tx + 1, .., ..])
        .reshape([2048]);
    for i in 0..4 {
        let e = 512 * i + 4 * t;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            flat.slice(s![e..e + 4]).reshape([1, 4]),
        );
        apply(
            ptx["st.global.v4.f32"],
            out.slice(s![e..e + 4]).reshape([1, 4]),
            v,
        );
    }
}

/// `load_tiles` through the last of 7 stages of 8 KiB: 56 KiB of static
/// buffers, more than a kernel may declare, live in dynamic shared memory
/// (the launcher provides them), and the stage the box lands in starts
/// 48 KiB in. A tensor copy faults on a shared address that is not
/// 128-byte aligned, so this also checks where the buffers are placed.
#[tile_kernel(grid = [GX, GY, 1], block = [128, 1, 1], arch = "sm_90")]
fn load_tiles_past_48_kib(x: Tensor<f32, M, N>, tiles: Tensor<f32, GY, GX, 32, 64>) {
    let t = thread_id(0);
    let tx = cta_id(0);
    let ty = cta_id(1);
    let stages = alloc_shared::<f32>([7, 32, 64]);
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..1]).reshape([1, 1]),
            1,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(
            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
            full.slice(s![0..1]),
            8192,
        );
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            stages.slice(s![6, .., ..]),
            x.slice(s![32 * ty..32 * ty + 32, 64 * tx..64 * tx + 64]),
            full.slice(s![0..1]),
        );
    }
    apply(
        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
        full.slice(s![0..1]),
        0,
    );
    let flat = stages.slice(s![6, .., ..]).reshape([2048]);
    let out = tiles
        .slice(s![ty..ty + 1, tx..tx + 1, .., ..])
        .reshape([2048]);
    for i in 0..4 {
        let e = 512 * i + 4 * t;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            flat.slice(s![e..e + 4]).reshape([1, 4]),
        );
        apply(
            ptx["st.global.v4.f32"],
            out.slice(s![e..e + 4]).reshape([1, 4]),
            v,
        );
    }
}

/// `out[b] = v[b * 64 - 32 .. b * 64 + 32]`: 1-dimensional boxes of 64
/// values starting half a box before each block's chunk (the first box
/// starts at -32: zeros there). `u16` elements: 128-byte rows.
#[tile_kernel(grid = [B, 1, 1], block = [32, 1, 1], arch = "sm_90")]
fn load_halo(v: Tensor<u16, N>, out: Tensor<u16, B, 64>) {
    let t = thread_id(0);
    let b = cta_id(0);
    let stage = alloc_shared::<u16>([64]);
    let full = alloc_shared::<Mbarrier>([1]);
    let r = alloc_local::<u16>([1, 2]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..1]),
            1,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(
            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
            full.slice(s![0..1]),
            128,
        );
        apply(
            ptx["cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            stage,
            v.slice(s![64 * b - 32..64 * b + 32]),
            full.slice(s![0..1]),
        );
    }
    apply(
        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
        full.slice(s![0..1]),
        0,
    );
    apply(
        ptx["ld.shared.v2.u16"],
        r,
        stage.slice(s![2 * t..2 * t + 2]).unsqueeze(0),
    );
    apply(
        ptx["st.global.v2.u16"],
        out.slice(s![b..b + 1, 2 * t..2 * t + 2]),
        r,
    );
}

/// `out[i] = x[i, 1, 2, 0..4, 0..8]` of a 5-dimensional tensor with a box
/// `[1, 1, 1, 4, 8]` of `f64` (64-byte rows) per block.
#[tile_kernel(grid = [A, 1, 1], block = [32, 1, 1], arch = "sm_90")]
fn load_5d(x: Tensor<f64, A, 2, 3, 4, 8>, out: Tensor<f64, A, 32>) {
    let t = thread_id(0);
    let i = cta_id(0);
    let stage = alloc_shared::<f64>([1, 1, 1, 4, 8]);
    let flat = stage.reshape([32]);
    let full = alloc_shared::<Mbarrier>([1]);
    let r = alloc_local::<f64>([1, 1]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..1]),
            1,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(
            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
            full.slice(s![0..1]),
            256,
        );
        apply(
            ptx["cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
            stage,
            x.slice(s![i..i + 1, 1..2, 2..3, 0..4, 0..8]),
            full.slice(s![0..1]),
        );
    }
    apply(
        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
        full.slice(s![0..1]),
        0,
    );
    apply(
        ptx["ld.shared.f64"],
        r,
        flat.slice(s![t..t + 1]).unsqueeze(0),
    );
    apply(ptx["st.global.f64"], out.slice(s![i..i + 1, t..t + 1]), r);
}

/// `load_tiles` for one tile, the copy under an L2 policy that keeps the
/// box's lines (`createpolicy` .. `L2::evict_last`, the `.L2::cache_hint`
/// form): the policy moves no value.
#[tile_kernel(grid = 1, block = [128, 1, 1], arch = "sm_90")]
fn load_tile_evict_last(x: Tensor<f32, M, N>, tile: Tensor<f32, 2048>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([32, 64]);
    let flat = stage.reshape([2048]);
    let full = alloc_shared::<Mbarrier>([1]);
    let v = alloc_local::<f32>([1, 4]);
    let policy = alloc_local::<u64>([1]);
    let fraction = alloc_local::<f32>([1]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..1]),
            1,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["mov.f32"], fraction, 1.0);
        apply(
            ptx["createpolicy.fractional.L2::evict_last.b64"],
            policy,
            fraction,
        );
        apply(
            ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
            full.slice(s![0..1]),
            8192,
        );
        apply(
            ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"],
            stage,
            x.slice(s![0..32, 0..64]),
            full.slice(s![0..1]),
            policy,
        );
    }
    apply(
        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
        full.slice(s![0..1]),
        0,
    );
    for i in 0..4 {
        let e = 512 * i + 4 * t;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            flat.slice(s![e..e + 4]).unsqueeze(0),
        );
        apply(
            ptx["st.global.v4.f32"],
            tile.slice(s![e..e + 4]).unsqueeze(0),
            v,
        );
    }
}

/// `y = 2 x` for rows of any length `N` (a multiple of 4: the tensor map
/// needs 16-byte rows) through a 3-stage ring of tensor copies: chunk `k`
/// is the box `[1, 256]` at column `256 k`, the last one partly outside
/// the row (zeros there). The refill of chunk `k + 2` runs only where that
/// chunk exists (`if k + 2 < chunks`), so the `full` ring completes a
/// phase in every iteration but the last two: the checker counts its
/// tickets as if it did, and proves that no wait is for a ticket past the
/// last chunk.
#[tile_kernel(grid = [M, 1, 1], block = [64, 1, 1], arch = "sm_90")]
fn double_rows_tail_ring(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let chunks = ceil_div(N, 256);
    let ring = alloc_shared::<f32>([3, 256]);
    let full = alloc_shared::<Mbarrier>([3]);
    let empty = alloc_shared::<Mbarrier>([3]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..3]).reshape([3, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..3]).reshape([3, 1]),
            64,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        for s in 0..2 {
            if s < chunks {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![s..s + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![s..s + 1, ..]),
                    x.slice(s![row..row + 1, 256 * s..256 * s + 256]),
                    full.slice(s![s..s + 1]),
                );
            }
        }
    }
    for k in 0..chunks {
        let stage = k % 3;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (k / 3) % 2,
        );
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]),
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        if k + 2 < chunks {
            if t == 0 {
                let refill = (k + 2) % 3;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((k + 2) / 3 + 1) % 2,
                );
                apply(ptx["fence.proxy.async.shared::cta"]);
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, ..]),
                    x.slice(s![row..row + 1, 256 * (k + 2)..256 * (k + 2) + 256]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
        let w = v.reshape([4, 1]);
        apply(ptx["add.f32"], w, w, w);
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, 256 * k + 4 * t..256 * k + 4 * t + 4]),
            v,
        );
    }
}

/// `y = 2 x` as [`double_rows_tail_ring`], warp-specialised: thread 64
/// (the third warp) is the producer, which fills the ring and refills a
/// stage once the consumers (the first two warps) arrived on its empty
/// barrier; they wait for its full barrier, read the chunk and arrive.
/// Nothing but the two rings orders the roles: the checker proves it from
/// the threads each statement runs on (what the consumers' waits acquire,
/// what their arrivals release, and that the producer's wait acquires it
/// before the refill).
#[tile_kernel(grid = [M, 1, 1], block = [96, 1, 1], arch = "sm_90")]
fn double_rows_producer_warp(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let chunks = ceil_div(N, 256);
    let ring = alloc_shared::<f32>([3, 256]);
    let full = alloc_shared::<Mbarrier>([3]);
    let empty = alloc_shared::<Mbarrier>([3]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..3]).reshape([3, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..3]).reshape([3, 1]),
            64,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 64 {
        for s in 0..2 {
            if s < chunks {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![s..s + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![s..s + 1, ..]),
                    x.slice(s![row..row + 1, 256 * s..256 * s + 256]),
                    full.slice(s![s..s + 1]),
                );
            }
        }
    }
    for k in 0..chunks {
        let stage = k % 3;
        if t < 64 {
            apply(
                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                full.slice(s![stage..stage + 1]),
                (k / 3) % 2,
            );
            apply(
                ptx["ld.shared.v4.f32"],
                v,
                ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]),
            );
            apply(
                ptx["mbarrier.arrive.shared::cta.b64"],
                empty.slice(s![stage..stage + 1]),
            );
            let w = v.reshape([4, 1]);
            apply(ptx["add.f32"], w, w, w);
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![row..row + 1, 256 * k + 4 * t..256 * k + 4 * t + 4]),
                v,
            );
        }
        if k + 2 < chunks {
            if t == 64 {
                let refill = (k + 2) % 3;
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((k + 2) / 3 + 1) % 2,
                );
                apply(ptx["fence.proxy.async.shared::cta"]);
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, ..]),
                    x.slice(s![row..row + 1, 256 * (k + 2)..256 * (k + 2) + 256]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
    }
}

/// [`double_rows_producer_warp`] with the producer's wait run by its whole
/// warp: the lanes synchronize (`bar.warp.sync`) before lane 0 refills.
#[tile_kernel(grid = [M, 1, 1], block = [96, 1, 1], arch = "sm_90")]
fn double_rows_producer_warp_synced(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let chunks = ceil_div(N, 256);
    let ring = alloc_shared::<f32>([3, 256]);
    let full = alloc_shared::<Mbarrier>([3]);
    let empty = alloc_shared::<Mbarrier>([3]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..3]).reshape([3, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..3]).reshape([3, 1]),
            64,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 64 {
        for s in 0..2 {
            if s < chunks {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![s..s + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![s..s + 1, ..]),
                    x.slice(s![row..row + 1, 256 * s..256 * s + 256]),
                    full.slice(s![s..s + 1]),
                );
            }
        }
    }
    for k in 0..chunks {
        let stage = k % 3;
        if t < 64 {
            apply(
                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                full.slice(s![stage..stage + 1]),
                (k / 3) % 2,
            );
            apply(
                ptx["ld.shared.v4.f32"],
                v,
                ring.slice(s![stage..stage + 1, 4 * t..4 * t + 4]),
            );
            apply(
                ptx["mbarrier.arrive.shared::cta.b64"],
                empty.slice(s![stage..stage + 1]),
            );
            let w = v.reshape([4, 1]);
            apply(ptx["add.f32"], w, w, w);
            apply(
                ptx["st.global.v4.f32"],
                y.slice(s![row..row + 1, 256 * k + 4 * t..256 * k + 4 * t + 4]),
                v,
            );
        }
        if k + 2 < chunks {
            let refill = (k + 2) % 3;
            // The whole producer warp waits (a wait in a branch one lane
            // takes makes ptxas serialize a consumer's `wgmma`s, C7518),
            // and its lanes synchronize, so that lane 0's refill below,
            // which the consumers wait for before they arrive again,
            // follows every lane's wait.
            if warp_id() == 2 {
                apply(
                    ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                    empty.slice(s![refill..refill + 1]),
                    ((k + 2) / 3 + 1) % 2,
                );
                apply(ptx["bar.warp.sync"], scope = "warp");
            }
            if t == 64 {
                apply(ptx["fence.proxy.async.shared::cta"]);
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    1024,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, ..]),
                    x.slice(s![row..row + 1, 256 * (k + 2)..256 * (k + 2) + 256]),
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
    }
}

#[test]
fn the_map_is_a_hidden_parameter() {
    let ptx = load_tiles::PTX;
    if std::env::var_os("SHOW_PTX").is_some() {
        println!("{ptx}");
    }
    assert!(
        ptx.contains(".param .align 64 .b8 load_tiles_map_0_x[128]"),
        "{ptx}"
    );
    assert!(ptx.contains("mov.u64 %tm0, load_tiles_map_0_x;"), "{ptx}");
    assert!(ptx.contains("cvta.param.u64 %tm0, %tm0;"), "{ptx}");
    let copies = support::lines_starting(
        ptx,
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%sh0",
    );
    assert_eq!(copies.len(), 1, "{ptx}");
    assert!(copies[0].contains("[%tm0, {"), "{copies:?}");
    assert_eq!(
        load_tiles::SPEC.tensor_maps,
        &[tile_kernel::__private::spec::TensorMapSpec {
            param: 0,
            box_dims: &[32, 64],
            swizzle: 0,
        }]
    );
    assert!(ptx.contains(".shared .align 128 .b8"), "{ptx}");
}

/// A swizzled buffer's copies read maps with its swizzle (one map per
/// direction here: `x`'s and `y`'s), and the buffers start on their atoms.
#[test]
fn swizzled_maps_carry_the_buffers_swizzle() {
    use tile_kernel::__private::spec::TensorMapSpec;
    assert_eq!(
        swizzle_128_round_trip::SPEC.tensor_maps,
        &[
            TensorMapSpec {
                param: 0,
                box_dims: &[64, 64],
                swizzle: 128,
            },
            TensorMapSpec {
                param: 2,
                box_dims: &[64, 64],
                swizzle: 128,
            },
        ]
    );
    assert_eq!(swizzle_32_round_trip::SPEC.tensor_maps[0].swizzle, 32);
    assert_eq!(swizzle_64_round_trip::SPEC.tensor_maps[1].swizzle, 64);
    let ptx = swizzle_128_round_trip::PTX;
    assert!(ptx.contains(".shared .align 1024 .b8"), "{ptx}");
}

/// 56 KiB of static buffers: one `.extern` array of dynamic shared
/// memory, 128-byte aligned, holds them at constant offsets, and the spec
/// asks the launcher for their bytes.
#[test]
fn static_buffers_over_48_kib_live_in_dynamic_shared_memory() {
    use tile_kernel::__private::spec::LaunchOp;
    let ptx = load_tiles_past_48_kib::PTX;
    assert!(
        ptx.contains(
            ".extern .shared .align 128 .b8 smem_dynamic[]; // the static buffers (57352 bytes), sized at launch"
        ),
        "{ptx}"
    );
    assert!(!ptx.contains("\t.shared .align"), "{ptx}");
    // The stages at 0, the mbarrier at 57344 (a multiple of 128).
    assert!(
        ptx.contains("mov.u64 %sh0, smem_dynamic; // stages\n"),
        "{ptx}"
    );
    assert!(
        ptx.contains("mov.u64 %sh1, smem_dynamic; // full\n\tadd.s64 %sh1, %sh1, 57344;"),
        "{ptx}"
    );
    assert_eq!(
        load_tiles_past_48_kib::SPEC.shared_mem_bytes.0,
        [LaunchOp::Const(57352)]
    );
}

/// A spec that leaves out the program's tensor map is refused before the
/// interpreter runs it.
#[test]
fn a_spec_without_the_programs_map_is_refused() {
    use tile_kernel::__private::spec::KernelSpec;
    static WITHOUT_MAP: tile_kernel::__private::Kernel = {
        let spec = KernelSpec {
            tensor_maps: &[],
            ..load_tiles::SPEC
        };
        // SAFETY: never launched on a GPU: the CPU device checks the
        // spec against the program first, which is what this tests.
        unsafe { tile_kernel::__private::Kernel::new(spec) }
    };
    let dev = Device::cpu();
    let x = dev.upload(&[0.0f32; 64], [1, 64]).unwrap();
    let mut tiles = dev.upload(&[0.0f32; 2048], [1, 1, 32, 64]).unwrap();
    let launched = (|| {
        WITHOUT_MAP
            .launch(&dev)?
            .tensor(&x)?
            .tensor_mut(&mut tiles)?
            .run()
    })();
    let err = launched.expect_err("the spec lacks the map");
    assert_eq!(
        err.to_string(),
        "kernel `load_tiles` cannot run on the CPU interpreter: its IR does not describe the kernel of its spec: the IR reads other tensor maps than the spec lists"
    );
}

/// Swizzled tensor maps, both directions: `tiles[ty, tx]` and `y` get the
/// box `[64, W]` of `x` at `(64 ty, W tx)` (zeros outside `x` in `tiles`;
/// `y` only inside it), with `W` `u16`s the swizzle span. The box lands
/// in stage 1 of a `swizzle_S` buffer through a swizzled map and is read
/// back logically (so the map's swizzle must be the buffer's layout), then
/// written logically into a second swizzled buffer that a swizzled tensor
/// store copies out (so must the store's).
macro_rules! swizzled_round_trip {
    ($name:ident, $layout:literal, $w:literal) => {
        #[tile_kernel(grid = [GX, GY, 1], block = [128, 1, 1], arch = "sm_90")]
        fn $name(x: Tensor<u16, M, N>, tiles: Tensor<u16, GY, GX, 64, $w>, y: Tensor<u16, M, N>) {
            let t = thread_id(0);
            let tx = cta_id(0);
            let ty = cta_id(1);
            let stages = alloc_shared::<u16>([2, 64, $w], layout = $layout);
            let back = alloc_shared::<u16>([64, $w], layout = $layout);
            let full = alloc_shared::<Mbarrier>([1]);
            let v = alloc_local::<u16>([1, 4]);
            if t == 0 {
                apply(
                    ptx["mbarrier.init.shared::cta.b64"],
                    full.slice(s![0..1]).reshape([1, 1]),
                    1,
                );
                apply(ptx["fence.mbarrier_init.release.cluster"]);
            }
            apply(ptx["bar.sync"], 0, scope = "cta");
            if t == 0 {
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![0..1]),
                    128 * $w,
                );
                apply(
                    ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                    stages.slice(s![1, .., ..]),
                    x.slice(s![64 * ty..64 * ty + 64, $w * tx..$w * tx + $w]),
                    full.slice(s![0..1]),
                );
            }
            apply(
                ptx["mbarrier.try_wait.parity.shared::cta.b64"],
                full.slice(s![0..1]),
                0,
            );
            let flat = stages.slice(s![1, .., ..]).reshape([64 * $w]);
            let copy = back.reshape([64 * $w]);
            let out = tiles
                .slice(s![ty..ty + 1, tx..tx + 1, .., ..])
                .reshape([64 * $w]);
            for i in 0..$w / 8 {
                let e = 512 * i + 4 * t;
                apply(
                    ptx["ld.shared.v4.u16"],
                    v,
                    flat.slice(s![e..e + 4]).reshape([1, 4]),
                );
                apply(
                    ptx["st.global.v4.u16"],
                    out.slice(s![e..e + 4]).reshape([1, 4]),
                    v,
                );
                apply(
                    ptx["st.shared.v4.u16"],
                    copy.slice(s![e..e + 4]).reshape([1, 4]),
                    v,
                );
            }
            apply(ptx["fence.proxy.async.shared::cta"]);
            apply(ptx["bar.sync"], 0, scope = "cta");
            if t == 0 {
                apply(
                    ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                    y.slice(s![64 * ty..64 * ty + 64, $w * tx..$w * tx + $w]),
                    back,
                );
                apply(ptx["cp.async.bulk.commit_group"]);
                apply(ptx["cp.async.bulk.wait_group.read"], 0);
            }
        }
    };
}

swizzled_round_trip!(swizzle_32_round_trip, "swizzle_32", 16);
swizzled_round_trip!(swizzle_64_round_trip, "swizzle_64", 32);
swizzled_round_trip!(swizzle_128_round_trip, "swizzle_128", 64);

#[test]
fn tensor_copy_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("load_tiles_past_48_kib", load_tiles_past_48_kib::PTX),
        ("load_tiles", load_tiles::PTX),
        ("load_halo", load_halo::PTX),
        ("load_5d", load_5d::PTX),
        ("load_tile_evict_last", load_tile_evict_last::PTX),
        ("double_rows_tail_ring", double_rows_tail_ring::PTX),
        ("swizzle_32_round_trip", swizzle_32_round_trip::PTX),
        ("swizzle_64_round_trip", swizzle_64_round_trip::PTX),
        ("swizzle_128_round_trip", swizzle_128_round_trip::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        boxes_read_zeros_outside_the_tensor,
        one_and_five_dimensional_boxes,
        a_cache_policy_moves_no_value,
        a_ring_with_a_guarded_tail,
        a_ring_with_a_producer_warp,
        a_ring_with_a_synced_producer_warp,
        rows_of_other_than_16_bytes_are_refused,
        swizzled_maps_are_the_buffers_layouts
    );

    fn swizzled_maps_are_the_buffers_layouts(dev: &Device) -> tile_kernel::Result<()> {
        type RoundTrip = fn(
            &Device,
            &DeviceTensor<u16>,
            &mut DeviceTensor<u16>,
            &mut DeviceTensor<u16>,
        ) -> tile_kernel::Result<()>;
        let kernels: [(RoundTrip, usize); 3] = [
            (swizzle_32_round_trip, 16),
            (swizzle_64_round_trip, 32),
            (swizzle_128_round_trip, 64),
        ];
        for (kernel, w) in kernels {
            // Exact boxes, and tails on both axes (boxes partly outside).
            for (m, n, gy, gx) in [(64, w, 1, 1), (128, 4 * w, 2, 4), (70, 3 * w - 8, 2, 3)] {
                let host: Vec<u16> = (0..m * n)
                    .map(|i| (i as u16).wrapping_mul(40503) ^ 0x5a5a)
                    .collect();
                let x = dev.upload(&host, [m, n])?;
                let mut tiles = dev.upload(&vec![0xffffu16; gy * gx * 64 * w], [gy, gx, 64, w])?;
                let mut y = dev.upload(&vec![0xffffu16; m * n], [m, n])?;
                kernel(dev, &x, &mut tiles, &mut y)?;
                let (got_tiles, got_y) = (tiles.download()?, y.download()?);
                for ty in 0..gy {
                    for tx in 0..gx {
                        for r in 0..64 {
                            for c in 0..w {
                                let (row, col) = (64 * ty + r, w * tx + c);
                                let inside = row < m && col < n;
                                let want = if inside { host[row * n + col] } else { 0 };
                                let at = ((ty * gx + tx) * 64 + r) * w + c;
                                assert_eq!(
                                    got_tiles[at],
                                    want,
                                    "span {}: {m} x {n}: tile [{ty}, {tx}] element [{r}, {c}]",
                                    2 * w
                                );
                            }
                        }
                    }
                }
                assert_eq!(got_y, host, "span {}: {m} x {n}: the tensor stores", 2 * w);
            }
        }
        Ok(())
    }

    fn a_ring_with_a_guarded_tail(dev: &Device) -> tile_kernel::Result<()> {
        // 1, 2, 3 and 5 chunks, full and partial last ones: the prologue's
        // second refill and the loop's last two are skipped.
        for (m, n) in [(2, 4), (3, 256), (2, 300), (1, 512), (2, 1000), (3, 1280)] {
            let host = inputs(m * n, 0x7a_0003 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            double_rows_tail_ring(dev, &x, &mut y)?;
            let got = y.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                assert_eq!(g.to_bits(), (h + h).to_bits(), "{m} x {n}: element {i}");
            }
        }
        Ok(())
    }

    fn a_ring_with_a_producer_warp(dev: &Device) -> tile_kernel::Result<()> {
        for (m, n) in [(2, 4), (3, 256), (2, 300), (1, 512), (2, 1000), (3, 1280)] {
            let host = inputs(m * n, 0x7a_0004 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            double_rows_producer_warp(dev, &x, &mut y)?;
            let got = y.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                assert_eq!(g.to_bits(), (h + h).to_bits(), "{m} x {n}: element {i}");
            }
        }
        Ok(())
    }

    /// The same ring with the producer's whole warp waiting and lane 0
    /// refilling.
    fn a_ring_with_a_synced_producer_warp(dev: &Device) -> tile_kernel::Result<()> {
        for (m, n) in [(2, 4), (3, 256), (2, 300), (1, 512), (2, 1000), (3, 1280)] {
            let host = inputs(m * n, 0x7a_0005 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            double_rows_producer_warp_synced(dev, &x, &mut y)?;
            let got = y.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                assert_eq!(g.to_bits(), (h + h).to_bits(), "{m} x {n}: element {i}");
            }
        }
        Ok(())
    }

    fn a_cache_policy_moves_no_value(dev: &Device) -> tile_kernel::Result<()> {
        let (m, n) = (40, 72);
        let host = inputs(m * n, 0x7a_0002);
        let x = dev.upload(&host, [m, n])?;
        let mut tile = dev.upload(&vec![f32::NAN; 2048], [2048])?;
        load_tile_evict_last(dev, &x, &mut tile)?;
        let got = tile.download()?;
        for (k, g) in got.iter().enumerate() {
            let want = host[(k / 64) * n + k % 64];
            assert_eq!(g.to_bits(), want.to_bits(), "element {k}");
        }
        Ok(())
    }

    fn one_and_five_dimensional_boxes(dev: &Device) -> tile_kernel::Result<()> {
        // 1D: 3 blocks over 150 values: the first box starts at -32, the
        // last runs past the end.
        let (n, blocks) = (150, 3);
        let host: Vec<u16> = (0..n as u16)
            .map(|i| i.wrapping_mul(40503) ^ 0x5a5a)
            .collect();
        let v = dev.upload(&host, [n])?;
        let mut out = dev.upload(&vec![0xffffu16; blocks * 64], [blocks, 64])?;
        load_halo(dev, &v, &mut out)?;
        let got = out.download()?;
        for b in 0..blocks {
            for k in 0..64 {
                let at = (64 * b + k) as i64 - 32;
                let want = if (0..n as i64).contains(&at) {
                    host[at as usize]
                } else {
                    0
                };
                assert_eq!(got[b * 64 + k], want, "halo block {b} element {k}");
            }
        }
        // 5D: 3 outer indices.
        let a = 3;
        let host: Vec<f64> = (0..a * 2 * 3 * 4 * 8)
            .map(|i| i as f64 * 0.5 - 7.0)
            .collect();
        let x = dev.upload(&host, [a, 2, 3, 4, 8])?;
        let mut out = dev.upload(&vec![f64::NAN; a * 32], [a, 32])?;
        load_5d(dev, &x, &mut out)?;
        let got = out.download()?;
        for i in 0..a {
            for k in 0..32 {
                let want = host[(((i * 2 + 1) * 3 + 2) * 4 + k / 8) * 8 + k % 8];
                assert_eq!(
                    got[i * 32 + k].to_bits(),
                    want.to_bits(),
                    "5d [{i}] element {k}"
                );
            }
        }
        Ok(())
    }

    fn boxes_read_zeros_outside_the_tensor(dev: &Device) -> tile_kernel::Result<()> {
        // Exact tiles; tails on both axes; a row of boxes wholly below
        // the tensor (ty = 3 starts at row 96 of 70).
        for (m, n, gy, gx) in [
            (32, 64, 1, 1),
            (70, 200, 3, 4),
            (70, 200, 4, 4),
            (5, 4, 1, 2),
        ] {
            let host = inputs(m * n, 0x7a_0001 + (m * n) as u64);
            let x = dev.upload(&host, [m, n])?;
            let count = gy * gx * 32 * 64;
            for kernel in [load_tiles, load_tiles_past_48_kib] {
                let mut tiles = dev.upload(&vec![f32::NAN; count], [gy, gx, 32, 64])?;
                kernel(dev, &x, &mut tiles)?;
                let got = tiles.download()?;
                for ty in 0..gy {
                    for tx in 0..gx {
                        for r in 0..32 {
                            for c in 0..64 {
                                let (row, col) = (32 * ty + r, 64 * tx + c);
                                let want = if row < m && col < n {
                                    host[row * n + col]
                                } else {
                                    0.0
                                };
                                let at = ((ty * gx + tx) * 32 + r) * 64 + c;
                                assert_eq!(
                                    got[at].to_bits(),
                                    want.to_bits(),
                                    "{m} x {n}: tile [{ty}, {tx}] element [{r}, {c}]"
                                );
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn rows_of_other_than_16_bytes_are_refused(dev: &Device) -> tile_kernel::Result<()> {
        let x = dev.upload(&[1.0f32; 6], [2, 3])?;
        let mut tiles = dev.upload(&vec![0.0f32; 32 * 64], [1, 1, 32, 64])?;
        let err = load_tiles(dev, &x, &mut tiles).expect_err("12-byte rows");
        assert_eq!(
            err.to_string(),
            "kernel `load_tiles`: tensor `x` steps 12 bytes along its axis 0, but a tensor copy's map needs a multiple of 16 below 2^40 (make its inner extents fill 16-byte rows)"
        );
        Ok(())
    }
}
