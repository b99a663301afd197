//! Bulk reductions into global memory (sm_90):
//! `cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type` adds (or
//! takes the min, max, and, ..) a run of shared memory into a tensor, each
//! element an atomic update, completing in the thread's bulk group like a
//! bulk store. Every CTA of these kernels reduces its row of `x` into the
//! same `y`: the updates of different CTAs meet on every element, which
//! the race rule accepts because each is atomic (a plain store would be
//! TK0404). Checked on both devices against a host fold, exact bits (the
//! inputs keep every order of the float adds exact).
//!
//! The mistakes are compile errors (UI cases `bulk_reduce_*` in
//! `ui-tests/tests/compile-fail`).
#![cfg(feature = "runtime")]

mod support;

use half::bf16;
use tile_kernel::prelude::*;

/// A kernel that reduces each of the `M` rows of `x` (1024 bytes, `N`
/// elements of `$t`) into `y` with `$op`: the CTA of row `r` stages it in
/// shared memory (16 bytes per thread), then one thread issues the
/// reduction and waits until it has read the stage.
macro_rules! reduce_rows_kernel {
    ($name:ident, $t:ty, $n:literal, $op:literal) => {
        #[tile_kernel(grid = [M, 1, 1], block = [64, 1, 1], arch = "sm_90")]
        fn $name(x: Tensor<$t, M, $n>, y: Tensor<$t, $n>) {
            let t = thread_id(0);
            let r = cta_id(0);
            let stage = alloc_shared::<$t>([$n]);
            let v = alloc_local::<u32>([1, 4]);
            apply(
                ptx["ld.global.v4.u32"],
                v,
                x.slice(s![r..r + 1, ..])
                    .view::<u32>()
                    .slice(s![.., 4 * t..4 * t + 4]),
            );
            apply(
                ptx["st.shared.v4.u32"],
                stage.view::<u32>().slice(s![4 * t..4 * t + 4]).unsqueeze(0),
                v,
            );
            apply(ptx["fence.proxy.async.shared::cta"]);
            apply(ptx["bar.sync"], 0, scope = "cta");
            if t == 0 {
                apply(ptx[$op], y, stage, 1024);
                apply(ptx["cp.async.bulk.commit_group"]);
                apply(ptx["cp.async.bulk.wait_group.read"], 0);
            }
        }
    };
}

reduce_rows_kernel!(
    add_f32,
    f32,
    256,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32"
);
reduce_rows_kernel!(
    add_f64,
    f64,
    128,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64"
);
reduce_rows_kernel!(
    add_u32,
    u32,
    256,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32"
);
reduce_rows_kernel!(
    min_s32,
    i32,
    256,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32"
);
reduce_rows_kernel!(
    max_s64,
    i64,
    128,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64"
);
reduce_rows_kernel!(
    and_b32,
    u32,
    256,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32"
);
reduce_rows_kernel!(
    inc_u32,
    u32,
    256,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32"
);
reduce_rows_kernel!(
    add_bf16,
    bf16,
    512,
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16"
);

/// [`add_f32`] under an L2 policy that evicts the lines first (the
/// `.L2::cache_hint` form, with a policy from `createpolicy`): the policy
/// moves no value.
#[tile_kernel(grid = [M, 1, 1], block = [64, 1, 1], arch = "sm_90")]
fn add_f32_evict_first(x: Tensor<f32, M, 256>, y: Tensor<f32, 256>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let stage = alloc_shared::<f32>([256]);
    let v = alloc_local::<f32>([1, 4]);
    let policy = alloc_local::<u64>([1]);
    let fraction = alloc_local::<f32>([1]);
    apply(
        ptx["ld.global.v4.f32"],
        v,
        x.slice(s![r..r + 1, 4 * t..4 * t + 4]),
    );
    apply(
        ptx["st.shared.v4.f32"],
        stage.slice(s![4 * t..4 * t + 4]).unsqueeze(0),
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
            ptx["cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.f32"],
            y,
            stage,
            1024,
            policy,
        );
        apply(ptx["cp.async.bulk.commit_group"]);
        apply(ptx["cp.async.bulk.wait_group.read"], 0);
    }
}

#[test]
fn a_bulk_reduction_is_one_instruction_in_a_bulk_group() {
    let ptx = add_f32::PTX;
    let reductions = support::lines_starting(
        ptx,
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32",
    );
    assert_eq!(reductions.len(), 1, "{ptx}");
    assert!(reductions[0].ends_with(", %k32_0;"), "{}", reductions[0]);
    assert_eq!(
        support::lines_starting(ptx, "mov.b32 %k32_0, 0x00000400;").len(),
        1,
        "{ptx}"
    );
    assert_eq!(
        support::lines_starting(ptx, "cp.async.bulk.wait_group.read 0;").len(),
        1
    );
}

#[test]
fn bulk_reduction_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("add_f32", add_f32::PTX),
        ("add_f64", add_f64::PTX),
        ("add_u32", add_u32::PTX),
        ("min_s32", min_s32::PTX),
        ("max_s64", max_s64::PTX),
        ("and_b32", and_b32::PTX),
        ("inc_u32", inc_u32::PTX),
        ("add_bf16", add_bf16::PTX),
        ("add_f32_evict_first", add_f32_evict_first::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        rows_add_into_one_tensor,
        integer_reductions_fold_every_row,
        halves_add_without_flushing
    );

    /// A small-integer-valued input (exact in every order of f32, f64 and
    /// bf16 adds of a few rows).
    fn small(i: usize, seed: usize) -> i64 {
        ((i * 7919 + seed * 104_729) % 61) as i64 - 30
    }

    fn rows_add_into_one_tensor(dev: &Device) -> tile_kernel::Result<()> {
        for m in [1, 3, 8] {
            let host: Vec<f32> = (0..m * 256).map(|i| small(i, m) as f32 * 0.25).collect();
            let start: Vec<f32> = (0..256).map(|i| small(i, 99) as f32).collect();
            let x = dev.upload(&host, [m, 256])?;
            let mut y = dev.upload(&start, [256])?;
            add_f32(dev, &x, &mut y)?;
            let mut z = dev.upload(&start, [256])?;
            add_f32_evict_first(dev, &x, &mut z)?;
            let (got, got_hinted) = (y.download()?, z.download()?);
            for c in 0..256 {
                let want = (0..m).fold(start[c], |acc, r| acc + host[r * 256 + c]);
                assert_eq!(got[c].to_bits(), want.to_bits(), "{m} rows: y[{c}]");
                assert_eq!(
                    got_hinted[c].to_bits(),
                    want.to_bits(),
                    "{m} rows: hinted y[{c}]"
                );
            }
            let host: Vec<f64> = (0..m * 128).map(|i| small(i, m) as f64 * 0.5).collect();
            let start: Vec<f64> = (0..128).map(|i| small(i, 98) as f64).collect();
            let x = dev.upload(&host, [m, 128])?;
            let mut y = dev.upload(&start, [128])?;
            add_f64(dev, &x, &mut y)?;
            let got = y.download()?;
            for c in 0..128 {
                let want = (0..m).fold(start[c], |acc, r| acc + host[r * 128 + c]);
                assert_eq!(got[c].to_bits(), want.to_bits(), "{m} rows: f64 y[{c}]");
            }
        }
        Ok(())
    }

    fn integer_reductions_fold_every_row(dev: &Device) -> tile_kernel::Result<()> {
        let m = 5;
        let words = |seed: u64| -> Vec<u32> {
            let mut s = seed;
            (0..m * 256)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s as u32
                })
                .collect()
        };
        let host = words(0xb0_0001);
        let start: Vec<u32> = words(0xb0_0002)[..256].to_vec();
        let x = dev.upload(&host, [m, 256])?;
        let fold = |f: &dyn Fn(u32, u32) -> u32| -> Vec<u32> {
            (0..256)
                .map(|c| (0..m).fold(start[c], |acc, r| f(acc, host[r * 256 + c])))
                .collect()
        };
        let mut y = dev.upload(&start, [256])?;
        add_u32(dev, &x, &mut y)?;
        assert_eq!(y.download()?, fold(&|a, b| a.wrapping_add(b)), "add.u32");
        let mut y = dev.upload(&start, [256])?;
        and_b32(dev, &x, &mut y)?;
        assert_eq!(y.download()?, fold(&|a, b| a & b), "and.b32");
        // inc: old >= b ? 0 : old + 1, with bounds that wrap some elements.
        let bounds: Vec<u32> = host.iter().map(|w| w % 8).collect();
        let start_inc: Vec<u32> = (0..256).map(|i| (i % 11) as u32).collect();
        let xb = dev.upload(&bounds, [m, 256])?;
        let mut y = dev.upload(&start_inc, [256])?;
        inc_u32(dev, &xb, &mut y)?;
        // Each row's increments commute only up to order: `inc` is not
        // commutative, so the CTAs' order decides; with one row per CTA
        // and m rows the result is one of the orders' folds.
        let got = y.download()?;
        for c in 0..256 {
            let step = |acc: u32, b: u32| if acc >= b { 0 } else { acc + 1 };
            let orders = permutations(m);
            assert!(
                orders.iter().any(|order| {
                    order
                        .iter()
                        .fold(start_inc[c], |acc, &r| step(acc, bounds[r * 256 + c]))
                        == got[c]
                }),
                "inc.u32 y[{c}] = {} is no order's fold",
                got[c]
            );
        }
        let signed: Vec<i32> = host.iter().map(|w| *w as i32).collect();
        let start_signed: Vec<i32> = start.iter().map(|w| *w as i32).collect();
        let xs = dev.upload(&signed, [m, 256])?;
        let mut y = dev.upload(&start_signed, [256])?;
        min_s32(dev, &xs, &mut y)?;
        let want: Vec<i32> = (0..256)
            .map(|c| (0..m).fold(start_signed[c], |acc, r| acc.min(signed[r * 256 + c])))
            .collect();
        assert_eq!(y.download()?, want, "min.s32");
        let wide: Vec<i64> = host
            .chunks(2)
            .map(|p| (u64::from(p[0]) | u64::from(p[1]) << 32) as i64)
            .collect();
        let start_wide: Vec<i64> = (0..128).map(|i| small(i, 97) << 40).collect();
        let xw = dev.upload(&wide, [m, 128])?;
        let mut y = dev.upload(&start_wide, [128])?;
        max_s64(dev, &xw, &mut y)?;
        let want: Vec<i64> = (0..128)
            .map(|c| (0..m).fold(start_wide[c], |acc, r| acc.max(wide[r * 128 + c])))
            .collect();
        assert_eq!(y.download()?, want, "max.s64");
        Ok(())
    }

    fn halves_add_without_flushing(dev: &Device) -> tile_kernel::Result<()> {
        let m = 4;
        let host: Vec<bf16> = (0..m * 512)
            .map(|i| bf16::from_f32(small(i, 3) as f32))
            .collect();
        let start: Vec<bf16> = (0..512)
            .map(|i| bf16::from_f32(small(i, 4) as f32))
            .collect();
        let x = dev.upload(&host, [m, 512])?;
        let mut y = dev.upload(&start, [512])?;
        add_bf16(dev, &x, &mut y)?;
        let got = y.download()?;
        for c in 0..512 {
            let want = (0..m).fold(start[c].to_f32(), |acc, r| acc + host[r * 512 + c].to_f32());
            assert_eq!(got[c].to_bits(), bf16::from_f32(want).to_bits(), "y[{c}]");
        }
        Ok(())
    }

    /// Every order of `0..n`.
    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for rest in permutations(n - 1) {
            for at in 0..=rest.len() {
                let mut order = rest.clone();
                order.insert(at, n - 1);
                out.push(order);
            }
        }
        out
    }
}
