//! Asynchronous stores to global memory (sm_90): bulk copies
//! (`cp.async.bulk.global.shared::cta.bulk_group`) and tensor copies
//! (`cp.async.bulk.tensor.*.global.shared::cta.tile.bulk_group`, TMA)
//! with their bulk groups (`cp.async.bulk.commit_group`,
//! `cp.async.bulk.wait_group{.read}`), on both devices against host
//! references: exact bits, tails clipped by the hardware, rings whose
//! stages are rewritten once the store that read them was waited for.
//!
//! The mistakes are compile errors (UI cases `async_store_*` in
//! `ui-tests/tests/compile-fail`).
#![cfg(feature = "runtime")]

mod support;

use support::xorshift_inputs as inputs;
use tile_kernel::prelude::*;

/// `b = a^T` through 32 x 32 tiles: every thread reads four values of its
/// tile (zeros outside `a`) and writes them transposed into the stage;
/// after a proxy fence and a barrier one thread stores the stage as a box
/// of `b`, which the hardware clips to `b`'s bounds, and waits until the
/// store has read the stage.
#[tile_kernel(grid = [ceil_div(W, 32), ceil_div(H, 32), 1], block = [32, 8, 1], arch = "sm_90")]
fn transpose_tma(a: Tensor<f32, H, W>, b: Tensor<f32, W, H>) {
    let tx = thread_id(0);
    let ty = thread_id(1);
    let stage = alloc_shared::<f32>([32, 32]);
    let v = alloc_local::<f32>([4, 1]);
    for k in 0..4 {
        let row = cta_id(1) * 32 + ty + 8 * k;
        let col = cta_id(0) * 32 + tx;
        let vk = v.slice(s![k, 0..1]);
        if row < H && col < W {
            apply(ptx["ld.global.f32"], vk, a.slice(s![row, col..col + 1]));
        } else {
            apply(ptx["mov.b32"], vk, 0);
        }
        apply(
            ptx["st.shared.f32"],
            stage.slice(s![tx, ty + 8 * k..ty + 8 * k + 1]),
            vk,
        );
    }
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    if tx == 0 && ty == 0 {
        let c = cta_id(0) * 32;
        let r = cta_id(1) * 32;
        apply(
            ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
            b.slice(s![c..c + 32, r..r + 32]),
            stage,
        );
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

/// `y = 2 x`, rows of `1024 C` values: each CTA scales its row in chunks
/// of 1024 through a 2-stage ring that one thread bulk-stores to `y`.
/// Before a stage is rewritten, the store that read it two chunks ago
/// must be done reading (`wait_group.read 1` leaves only the last one
/// pending), and a barrier publishes that to the other threads.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1], arch = "sm_90")]
fn double_rows_bulk(x: Tensor<f32, M, { 1024 * C }>, y: Tensor<f32, M, { 1024 * C }>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([2, 1024]);
    let v = alloc_local::<f32>([1, 4]);
    for k in 0..C {
        let s = k % 2;
        if t == 0 {
            apply(ptx["cp.async.bulk.wait_group.read"], 1);
        }
        apply(ptx["bar.sync"], 0, scope = "cta");
        let e = 1024 * k + 4 * t;
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![row..row + 1, e..e + 4]),
        );
        let w = v.reshape([4, 1]);
        apply(ptx["add.f32"], w, w, w);
        apply(
            ptx["st.shared.v4.f32"],
            ring.slice(s![s..s + 1, 4 * t..4 * t + 4]),
            v,
        );
        apply(ptx["fence.proxy.async.shared::cta"]);
        apply(ptx["bar.sync"], 0, scope = "cta");
        if t == 0 {
            apply(
                ptx["cp.async.bulk.global.shared::cta.bulk_group"],
                y.slice(s![row..row + 1, 1024 * k..1024 * k + 1024]),
                ring.slice(s![s..s + 1, ..]),
                4096,
            );
            apply(ptx["cp.async.bulk.commit_group"]);
        }
    }
    if t == 0 {
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

/// `out[0..16, 0..16] = 2 x[0..16, 0..16]` by one CTA, stored as one box
/// under an L2 policy that evicts its lines first (the
/// `.L2::cache_hint` form): the policy moves no value. The tensor's other
/// elements keep their values.
#[tile_kernel(grid = 1, block = [64, 1, 1], arch = "sm_90")]
fn store_tile_evict_first(x: Tensor<f32, 256>, out: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let stage = alloc_shared::<f32>([16, 16]);
    let flat = stage.reshape([256]);
    let v = alloc_local::<f32>([1, 4]);
    let policy = alloc_local::<u64>([1]);
    let fraction = alloc_local::<f32>([1]);
    apply(
        ptx["ld.global.v4.f32"],
        v,
        x.slice(s![4 * t..4 * t + 4]).unsqueeze(0),
    );
    let w = v.reshape([4, 1]);
    apply(ptx["add.f32"], w, w, w);
    apply(
        ptx["st.shared.v4.f32"],
        flat.slice(s![4 * t..4 * t + 4]).unsqueeze(0),
        v,
    );
    apply(ptx["fence.proxy.async.shared::cta"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        apply(ptx["mov.f32"], fraction, 1.0);
        apply(
            ptx["createpolicy.fractional.L2::evict_first.b64"],
            policy,
            fraction,
        );
        apply(
            ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint"],
            out.slice(s![0..16, 0..16]),
            stage,
            policy,
        );
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

/// `y = x` for bf16 `[M, 256 T]`, the shape of the persistent GEMMs'
/// epilogue (`examples/gemm_sm90.rs`): a CTA's 128 rows go out a tile of
/// 256 columns after another (a runtime loop), each tile in 4 passes of 64
/// columns through two `swizzle_128` staging buffers, stored by thread 288
/// (an idle warp's lane, not thread 0) through the tensor map of `y`,
/// which clips rows past `M`. Before pass 0 of a tile the last tile's
/// stores are complete (`wait_group`), so buffer 1 is free for pass 1
/// too; before passes 2 and 3 the store two passes back has read its
/// buffer (`wait_group.read 1`).
#[tile_kernel(grid = [1, ceil_div(M, 128), 1], block = [384, 1, 1], arch = "sm_90")]
fn copy_tiles_in_passes(x: Tensor<bf16, M, { 256 * T }>, y: Tensor<bf16, M, { 256 * T }>) {
    let t = thread_id(0);
    let wg = warp_id() / 4;
    let m0 = cta_id(1) * 128;
    let so = alloc_shared::<bf16>([2, 128, 64], layout = "swizzle_128");
    let pair = alloc_local::<u32>([1, 1]);
    for tile in 0..T {
        for p in 0..4 {
            if p == 0 && t == 288 {
                apply(ptx["cp.async.bulk.wait_group"], 0);
            }
            if p >= 2 && t == 288 {
                apply(ptx["cp.async.bulk.wait_group.read"], 1);
            }
            if p != 1 {
                apply(ptx["bar.sync"], 0, scope = "cta");
            }
            if wg < 2 {
                for j in 0..16 {
                    let row = 64 * wg + 16 * (warp_id() % 4) + lane_id() / 4 + 8 * (j % 2);
                    let col = 8 * (j / 2) + 2 * (lane_id() % 4);
                    let from = 256 * tile + 64 * p + col;
                    if m0 + row < M {
                        apply(
                            ptx["ld.global.b32"],
                            pair,
                            x.slice(s![m0 + row, from..from + 2])
                                .view::<u32>()
                                .unsqueeze(0),
                        );
                    } else {
                        apply(ptx["mov.b32"], pair, 0);
                    }
                    apply(
                        ptx["st.shared.b32"],
                        so.slice(s![p % 2, row, col..col + 2])
                            .view::<u32>()
                            .unsqueeze(0),
                        pair,
                    );
                }
            }
            apply(ptx["fence.proxy.async.shared::cta"]);
            apply(ptx["bar.sync"], 0, scope = "cta");
            if t == 288 {
                let n0 = 256 * tile + 64 * p;
                apply(
                    ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                    y.slice(s![m0..m0 + 128, n0..n0 + 64]),
                    so.slice(s![p % 2, .., ..]),
                );
                apply(ptx["cp.async.bulk.commit_group"]);
            }
        }
    }
    if t == 288 {
        apply(ptx["cp.async.bulk.wait_group"], 0);
    }
}

/// `y = R x` in f32 `[M, 64]` as a running sum written out after every
/// round (a runtime loop of `R`), in 2 passes of 32 columns through two
/// `swizzle_128` staging buffers, stored by thread 288 through the tensor
/// map of `y`. Every round stores the same bytes: the async proxy keeps
/// no order between a thread's stores, so before a round's first pass
/// the last round's stores are complete (`wait_group`, not `.read`),
/// which also frees both buffers.
#[tile_kernel(grid = [1, ceil_div(M, 128), 1], block = [384, 1, 1], arch = "sm_90")]
fn running_sum_in_passes(x: Tensor<f32, M, 64>, y: Tensor<f32, M, 64>, rounds: Tensor<u32, R>) {
    let t = thread_id(0);
    let m0 = cta_id(1) * 128;
    let row = 32 * (warp_id() % 4) + lane_id();
    let half = 16 * (warp_id() / 4);
    let so = alloc_shared::<f32>([2, 128, 32], layout = "swizzle_128");
    let acc = alloc_local::<f32>([2, 16]);
    let v = alloc_local::<f32>([1, 4]);
    apply(ptx["mov.b32"], acc.reshape([32, 1]), 0);
    for round in 0..R {
        for p in 0..2 {
            if p == 0 && t == 288 {
                apply(ptx["cp.async.bulk.wait_group"], 0);
            }
            if p == 0 {
                apply(ptx["bar.sync"], 0, scope = "cta");
            }
            if warp_id() < 8 {
                for q in 0..4 {
                    let col = 32 * p + half + 4 * q;
                    if m0 + row < M {
                        apply(
                            ptx["ld.global.v4.f32"],
                            v,
                            x.slice(s![m0 + row, col..col + 4]).unsqueeze(0),
                        );
                    } else {
                        apply(ptx["mov.b32"], v.reshape([4, 1]), 0);
                    }
                    let a = acc.slice(s![p, 4 * q..4 * q + 4]).unsqueeze(0);
                    ewise(|s: f32, e: f32| s + e, a, a, v);
                    apply(
                        ptx["st.shared.v4.f32"],
                        so.slice(s![p, row, half + 4 * q..half + 4 * q + 4])
                            .unsqueeze(0),
                        a,
                    );
                }
            }
            apply(ptx["fence.proxy.async.shared::cta"]);
            apply(ptx["bar.sync"], 0, scope = "cta");
            if t == 288 {
                apply(
                    ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                    y.slice(s![m0..m0 + 128, 32 * p..32 * p + 32]),
                    so.slice(s![p, .., ..]),
                );
                apply(ptx["cp.async.bulk.commit_group"]);
            }
        }
    }
    if t == 288 {
        apply(ptx["cp.async.bulk.wait_group"], 0);
    }
}

#[test]
fn the_store_forms_take_a_map_and_a_bulk_group() {
    let ptx = transpose_tma::PTX;
    let stores = support::lines_starting(
        ptx,
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group",
    );
    assert_eq!(stores.len(), 1, "{ptx}");
    assert!(
        stores[0]
            .starts_with("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%tm0, {"),
        "{}",
        stores[0]
    );
    assert_eq!(
        support::lines_starting(ptx, "cp.async.bulk.commit_group ;").len(),
        1,
        "{ptx}"
    );
    assert_eq!(
        support::lines_starting(ptx, "cp.async.bulk.wait_group.read 0;").len(),
        1
    );
    assert_eq!(
        support::lines_starting(ptx, "fence.proxy.async.shared::cta ;").len(),
        1
    );
    assert!(
        ptx.contains(".param .align 64 .b8 transpose_tma_map_0_b[128]"),
        "{ptx}"
    );
    let spec = &transpose_tma::SPEC;
    assert_eq!(spec.tensor_maps.len(), 1);
    assert_eq!(spec.tensor_maps[0].param, 1);
    assert_eq!(spec.tensor_maps[0].box_dims, &[32, 32]);

    let ptx = double_rows_bulk::PTX;
    let stores = support::lines_starting(ptx, "cp.async.bulk.global.shared::cta.bulk_group");
    assert_eq!(stores.len(), 1, "{ptx}");
    // The size, a register (PTX takes no immediate there), holds 4096.
    assert!(stores[0].ends_with(", %k32_0;"), "{}", stores[0]);
    assert_eq!(
        support::lines_starting(ptx, "mov.b32 %k32_0, 0x00001000;").len(),
        1
    );
    assert_eq!(
        support::lines_starting(ptx, "cp.async.bulk.wait_group.read 1;").len(),
        1
    );
}

#[test]
fn async_store_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("transpose_tma", transpose_tma::PTX),
        ("double_rows_bulk", double_rows_bulk::PTX),
        ("store_tile_evict_first", store_tile_evict_first::PTX),
        ("copy_tiles_in_passes", copy_tiles_in_passes::PTX),
        ("running_sum_in_passes", running_sum_in_passes::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        tensor_stores_are_clipped_to_the_tensor,
        bulk_stores_drain_a_ring,
        a_cache_policy_moves_no_value,
        tiles_go_out_in_passes,
        a_running_sum_goes_out_every_round
    );

    fn a_running_sum_goes_out_every_round(dev: &Device) -> tile_kernel::Result<()> {
        for (m, r) in [(130, 3), (64, 1)] {
            let host = inputs(m * 64, 0x57_0005 + (m * r) as u64);
            let x = dev.upload(&host, [m, 64])?;
            let rounds = dev.zeros::<u32>([r])?;
            let mut y = dev.upload(&vec![f32::NAN; m * 64], [m, 64])?;
            running_sum_in_passes(dev, &x, &mut y, &rounds)?;
            let got = y.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                let want = (0..r).fold(0f32, |s, _| s + h);
                assert_eq!(
                    g.to_bits(),
                    want.to_bits(),
                    "{m} x 64, {r} rounds: element {i}"
                );
            }
        }
        Ok(())
    }

    fn tiles_go_out_in_passes(dev: &Device) -> tile_kernel::Result<()> {
        // Rows past M in the second row block; one tile and three.
        for (m, tiles) in [(130, 3), (64, 1)] {
            let n = 256 * tiles;
            let host: Vec<bf16> = inputs(m * n, 0x57_0004 + n as u64)
                .into_iter()
                .map(bf16::from_f32)
                .collect();
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![bf16::NAN; m * n], [m, n])?;
            copy_tiles_in_passes(dev, &x, &mut y)?;
            let got = y.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                assert_eq!(g.to_bits(), h.to_bits(), "{m} x {n}: element {i}");
            }
        }
        Ok(())
    }

    fn a_cache_policy_moves_no_value(dev: &Device) -> tile_kernel::Result<()> {
        let (m, n) = (20, 24);
        let host = inputs(256, 0x57_0003);
        let x = dev.upload(&host, [256])?;
        let mut out = dev.upload(&vec![-1.5f32; m * n], [m, n])?;
        store_tile_evict_first(dev, &x, &mut out)?;
        let got = out.download()?;
        for r in 0..m {
            for c in 0..n {
                let want = if r < 16 && c < 16 {
                    host[r * 16 + c] * 2.0
                } else {
                    -1.5
                };
                assert_eq!(got[r * n + c].to_bits(), want.to_bits(), "out[{r}, {c}]");
            }
        }
        Ok(())
    }

    fn tensor_stores_are_clipped_to_the_tensor(dev: &Device) -> tile_kernel::Result<()> {
        // Exact tiles; tails on both axes; one tile.
        for (h, w) in [(64, 96), (72, 45), (8, 3), (36, 1)] {
            let host = inputs(h * w, 0x57_0001 + (h * w) as u64);
            let a = dev.upload(&host, [h, w])?;
            let mut b = dev.upload(&vec![f32::NAN; w * h], [w, h])?;
            transpose_tma(dev, &a, &mut b)?;
            let got = b.download()?;
            for r in 0..w {
                for c in 0..h {
                    let want = host[c * w + r];
                    assert_eq!(
                        got[r * h + c].to_bits(),
                        want.to_bits(),
                        "{h} x {w}: b[{r}, {c}]"
                    );
                }
            }
        }
        Ok(())
    }

    fn bulk_stores_drain_a_ring(dev: &Device) -> tile_kernel::Result<()> {
        for (m, c) in [(3, 1), (2, 5)] {
            let n = 1024 * c;
            let host = inputs(m * n, 0x57_0002 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            double_rows_bulk(dev, &x, &mut y)?;
            let got = y.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                assert_eq!(g.to_bits(), (h + h).to_bits(), "{m} x {n}: element {i}");
            }
        }
        Ok(())
    }
}
