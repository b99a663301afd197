//! mbarrier objects on both devices, against host references: rings of
//! `cp.async` copies whose phases complete on mbarriers, read across
//! threads after a parity wait.
//!
//! - `reverse_through_full_barriers`: 4 stages, each completed by every
//!   thread's `cp.async.mbarrier.arrive.noinc`, read reversed across the
//!   CTA after a wait on its phase; a CTA barrier before each refill;
//! - `reverse_through_full_and_empty`: the same ring with no CTA barrier
//!   in the loop: every thread arrives on the stage's "empty" barrier
//!   after reading it, and waits for the previous chunk's "empty" phase
//!   before refilling that stage.
//!
//! - `spellings`: the other usable spellings (`.shared`, `.release.cta`,
//!   `.relaxed`, `.acquire.cta`, the time hint, `mbarrier.inval` and a
//!   second init), each assembled and run.
//!
//! The protocol mistakes are compile errors: UI cases `mbarrier_*` in
//! `ui-tests/tests/compile-fail`; the interpreter's faults for programs
//! that lost a wait or an init are in `interp/tests/mbarriers.rs`.
#![cfg(feature = "runtime")]

mod support;

use support::xorshift_inputs as inputs;
use tile_kernel::prelude::*;

/// `y[1024 j + 4 t + i] = x[1024 j + 1020 - 4 t + i]` per row, through a
/// ring of 4 stages whose phases complete on `full`.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1], arch = "sm_90")]
fn reverse_through_full_barriers(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let full = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            256,
        );
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for s in 0..3 {
        let c = s * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![s..s + 1]),
        );
    }
    for j in 0..N / 1024 {
        let stage = j % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (j / 4) % 2,
        );
        let back = 1020 - 4 * t;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, back..back + 4]),
        );
        apply(ptx["bar.sync"], 0, scope = "cta");
        let refill = (j + 3) % 4;
        let next = (j + 3) * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![refill..refill + 1]),
        );
        let c = j * 1024 + 4 * t;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
    apply(ptx["cp.async.wait_all"]);
}

/// The same reversal with no CTA barrier in the loop: `empty` tells the
/// refilling threads that every thread has read the stage.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1], arch = "sm_90")]
fn reverse_through_full_and_empty(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
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
        let c = s * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![s..s + 1]),
        );
    }
    for j in 0..N / 1024 {
        let stage = j % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (j / 4) % 2,
        );
        let back = 1020 - 4 * t;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, back..back + 4]),
        );
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        // The stage chunk `j - 1` left: every thread has read it once
        // `empty`'s ticket `j - 1` completed (at `j = 0`, ticket -1: the
        // phase before the first, complete from the start).
        let refill = (j + 3) % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            empty.slice(s![refill..refill + 1]),
            ((j + 3) / 4 + 1) % 2,
        );
        let next = (j + 3) * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![refill..refill + 1]),
        );
        let c = j * 1024 + 4 * t;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
    apply(ptx["cp.async.wait_all"]);
}

/// `reverse_through_full_and_empty` arriving on `empty` one step late (as
/// a pipelined GEMM does after `wgmma.wait_group 1`) and refilling the
/// stage freed two steps back, whose readers' arrivals completed a step
/// earlier. Chunk 0 is read before the loop and released inside it; the
/// refill of its stage meets that read two iterations later: the walk
/// re-expresses its release ticket in each iteration's terms.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1], arch = "sm_90")]
fn reverse_refilling_two_steps_back(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 1024]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
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
        let c = s * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![s..s + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, c..c + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![s..s + 1]),
        );
    }
    let back = 1020 - 4 * t;
    apply(
        ptx["mbarrier.try_wait.parity.shared::cta.b64"],
        full.slice(s![0..1]),
        0,
    );
    apply(
        ptx["ld.shared.v4.f32"],
        v,
        ring.slice(s![0..1, back..back + 4]),
    );
    apply(
        ptx["st.global.v4.f32"],
        y.slice(s![row..row + 1, 4 * t..4 * t + 4]),
        v,
    );
    for j in 1..N / 1024 {
        let stage = j % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (j / 4) % 2,
        );
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, back..back + 4]),
        );
        // Chunk `j - 1` is done with its stage.
        let done = (j + 3) % 4;
        apply(
            ptx["mbarrier.arrive.shared::cta.b64"],
            empty.slice(s![done..done + 1]),
        );
        // Chunk `j + 2` into the stage chunk `j - 2` left (at `j = 1` the
        // stage no chunk used yet: ticket -1, complete from the start).
        let refill = (j + 2) % 4;
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            empty.slice(s![refill..refill + 1]),
            ((j + 2) / 4 + 1) % 2,
        );
        let next = (j + 2) * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(
            ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
            full.slice(s![refill..refill + 1]),
        );
        let c = j * 1024 + 4 * t;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
    apply(ptx["cp.async.wait_all"]);
}

/// `y[row, t] = x[row, 127 - t] + 1` through a copy completed on an
/// mbarrier phase, with the other usable spellings around it.
#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], arch = "sm_90")]
fn spellings(x: Tensor<u32, M, 128>, y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let bars = alloc_shared::<Mbarrier>([2]);
    let landed = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1, 1]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared.b64"],
            bars.slice(s![0..2]).reshape([2, 1]),
            128,
        );
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(
        ptx["cp.async.ca.shared.global"],
        landed.slice(s![t..t + 1]),
        x.slice(s![row..row + 1, t..t + 1]).reshape([1]),
        4,
    );
    apply(
        ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"],
        bars.slice(s![0..1]),
    );
    apply(
        ptx["mbarrier.try_wait.parity.acquire.cta.shared::cta.b64"],
        bars.slice(s![0..1]),
        0,
        1000,
    );
    let u = 127 - t;
    apply(
        ptx["ld.shared.u32"],
        v,
        landed.slice(s![u..u + 1]).reshape([1, 1]),
    );
    ewise(|a: u32| a + 1, v, v);
    // The next ticket, object 1: a releasing arrive, a wait that does not
    // acquire.
    apply(
        ptx["mbarrier.arrive.release.cta.shared::cta.b64"],
        bars.slice(s![1..2]),
    );
    apply(
        ptx["mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64"],
        bars.slice(s![1..2]),
        0,
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    // Invalidated and initialized again: a fresh phase 0.
    if t == 0 {
        apply(
            ptx["mbarrier.inval.shared::cta.b64"],
            bars.slice(s![0..2]).reshape([2, 1]),
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            bars.slice(s![0..2]).reshape([2, 1]),
            128,
        );
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(
        ptx["mbarrier.arrive.relaxed.cta.shared.b64"],
        bars.slice(s![0..1]),
    );
    apply(
        ptx["mbarrier.try_wait.parity.shared.b64"],
        bars.slice(s![0..1]),
        0,
    );
    apply(ptx["st.global.u32"], y.slice(s![row..row + 1, t..t + 1]), v);
}

#[test]
fn the_waits_are_retry_loops() {
    let ptx = reverse_through_full_and_empty::PTX;
    let waits = support::lines_starting(ptx, "mbarrier.try_wait.parity.shared::cta.b64 %q");
    assert_eq!(waits.len(), 2, "{ptx}");
    // Each wait is followed by its branch back.
    for line in ptx
        .lines()
        .filter(|l| l.trim_start().starts_with("mbarrier.try_wait"))
    {
        let done = line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .trim_end_matches(',');
        let after: Vec<&str> = ptx
            .lines()
            .skip_while(|l| *l != line)
            .skip(1)
            .take(1)
            .collect();
        assert!(
            after[0]
                .trim_start()
                .starts_with(&format!("@!{done} bra $L")),
            "{line} / {after:?}"
        );
    }
    // The arrive's `state` is the compiler's: nothing reads it, so it is a
    // scratch register (the form's `_` would need PTX 7.8 at sm_80).
    assert_eq!(
        support::lines_starting(ptx, "mbarrier.arrive.shared::cta.b64 %x64_").len(),
        1,
        "{ptx}"
    );
    assert_eq!(
        // The prologue's three (an unrolled loop) and the refill's.
        support::lines_starting(ptx, "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [").len(),
        4,
        "{ptx}"
    );
    assert_eq!(
        support::lines_starting(
            spellings::PTX,
            "mbarrier.arrive.relaxed.cta.shared.b64 %x64_"
        )
        .len(),
        1,
        "{}",
        spellings::PTX
    );
}

#[test]
fn mbarrier_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        (
            "reverse_through_full_barriers",
            reverse_through_full_barriers::PTX,
        ),
        (
            "reverse_through_full_and_empty",
            reverse_through_full_and_empty::PTX,
        ),
        (
            "reverse_refilling_two_steps_back",
            reverse_refilling_two_steps_back::PTX,
        ),
        ("spellings", spellings::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        full_barriers_publish_the_copies,
        full_and_empty_barriers_replace_the_cta_barrier,
        a_stage_refilled_two_steps_back,
        every_spelling_runs
    );

    fn a_stage_refilled_two_steps_back(dev: &Device) -> tile_kernel::Result<()> {
        for (m, n) in [(1, 1024), (3, 2 * 1024), (2, 9 * 1024)] {
            let host = inputs(m * n, 0x3ba7_0003 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            reverse_refilling_two_steps_back(dev, &x, &mut y)?;
            check_reversed(m, n, &host, &y.download()?);
        }
        Ok(())
    }

    /// `y[1024 j + 4 t + i] = x[1024 j + 1020 - 4 t + i]`.
    fn check_reversed(m: usize, n: usize, host: &[f32], got: &[f32]) {
        for r in 0..m {
            for c in 0..n {
                let (base, within) = (c / 1024 * 1024, c % 1024);
                let source = base + 1020 - within / 4 * 4 + within % 4;
                assert_eq!(
                    got[r * n + c].to_bits(),
                    host[r * n + source].to_bits(),
                    "{m} x {n}: y[{r}, {c}]"
                );
            }
        }
    }

    fn full_barriers_publish_the_copies(dev: &Device) -> tile_kernel::Result<()> {
        // Fewer chunks than stages, one wrap of the ring, several.
        for (m, n) in [(1, 1024), (3, 2 * 1024), (2, 9 * 1024)] {
            let host = inputs(m * n, 0x3ba7_0001 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            reverse_through_full_barriers(dev, &x, &mut y)?;
            check_reversed(m, n, &host, &y.download()?);
        }
        Ok(())
    }

    fn full_and_empty_barriers_replace_the_cta_barrier(dev: &Device) -> tile_kernel::Result<()> {
        for (m, n) in [(1, 1024), (3, 2 * 1024), (2, 9 * 1024)] {
            let host = inputs(m * n, 0x3ba7_0002 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            reverse_through_full_and_empty(dev, &x, &mut y)?;
            check_reversed(m, n, &host, &y.download()?);
        }
        Ok(())
    }

    fn every_spelling_runs(dev: &Device) -> tile_kernel::Result<()> {
        let m = 3;
        let host: Vec<u32> = (0..m * 128)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761))
            .collect();
        let x = dev.upload(&host, [m, 128])?;
        let mut y = dev.upload(&vec![0u32; m * 128], [m, 128])?;
        spellings(dev, &x, &mut y)?;
        let got = y.download()?;
        for r in 0..m {
            for t in 0..128 {
                assert_eq!(
                    got[r * 128 + t],
                    host[r * 128 + 127 - t].wrapping_add(1),
                    "y[{r}, {t}]"
                );
            }
        }
        Ok(())
    }
}
