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
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        tensor_stores_are_clipped_to_the_tensor,
        bulk_stores_drain_a_ring,
        a_cache_policy_moves_no_value
    );

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
