//! Asynchronous copies (`cp.async`) on both devices, against host
//! references, and what the interpreter reports when a program loses the
//! waits and barriers the async-ownership obligation demands.
//!
//! - a 4-stage ring in which each thread reads only its own bytes (no
//!   barrier), with `.ca` 8-byte copies and an L2 prefetch size;
//! - a 2-stage ring in which threads read each other's bytes (a barrier
//!   after each wait, the refill after it);
//! - every copy size (4, 8 and 16 bytes) in two groups, the first retired
//!   by `wait_group 1` while the second may still be in flight;
//! - the ring's program with its barrier, its wait or its final
//!   `wait_all` removed: a race, a read of bytes in flight, a thread ending
//!   with a copy pending: faults, never a lucky value.
//!
//! The protocol mistakes themselves are compile errors: UI cases
//! `async_*` in `ui-tests/tests/compile-fail`.

// The launchers need the runtime (Cargo.toml lists this test with
// `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

use support::xorshift_inputs as inputs;
use tile_kernel::prelude::*;

/// `y = 2 * x` by rows, through a ring of 4 stages of 512 values; each
/// thread copies and reads back its own 8 bytes.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1])]
fn double_rows_own_bytes(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([4, 512]);
    let v = alloc_local::<f32>([1, 2]);
    for s in 0..3 {
        let c = s * 512 + 2 * t;
        apply(
            ptx["cp.async.ca.shared.global.L2::128B"],
            ring.slice(s![s..s + 1, 2 * t..2 * t + 2]),
            x.slice(s![row..row + 1, c..c + 2]),
            8,
        );
        apply(ptx["cp.async.commit_group"]);
    }
    for j in 0..ceil_div(N, 512) {
        apply(ptx["cp.async.wait_group"], 2);
        let c = j * 512 + 2 * t;
        let stage = j % 4;
        apply(
            ptx["ld.shared.v2.f32"],
            v,
            ring.slice(s![stage..stage + 1, 2 * t..2 * t + 2]),
            pred = c + 2 <= N,
        );
        let refill = (j + 3) % 4;
        let next = (j + 3) * 512 + 2 * t;
        apply(
            ptx["cp.async.ca.shared.global.L2::128B"],
            ring.slice(s![refill..refill + 1, 2 * t..2 * t + 2]),
            x.slice(s![row..row + 1, next..next + 2]),
            8,
        );
        apply(ptx["cp.async.commit_group"]);
        ewise(|a: f32| a + a, v, v);
        apply(
            ptx["st.global.v2.f32"],
            y.slice(s![row..row + 1, c..c + 2]),
            v,
            pred = c + 2 <= N,
        );
    }
    apply(ptx["cp.async.wait_all"]);
}

/// Each chunk of 1024 values reversed in groups of 4: thread `t` writes
/// the 4 values thread `255 - t` copied (`y[1024 j + 4 t + i] = x[1024 j
/// + 1020 - 4 t + i]`), through a ring of 2 stages.
#[tile_kernel(grid = [M, 1, 1], block = [256, 1, 1])]
fn reverse_chunks(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let row = cta_id(0);
    let ring = alloc_shared::<f32>([2, 1024]);
    let v = alloc_local::<f32>([1, 4]);
    apply(
        ptx["cp.async.cg.shared.global"],
        ring.slice(s![0..1, 4 * t..4 * t + 4]),
        x.slice(s![row..row + 1, 4 * t..4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.commit_group"]);
    for j in 0..N / 1024 {
        apply(ptx["cp.async.wait_group"], 0);
        apply(ptx["bar.sync"], 0, scope = "cta");
        let stage = j % 2;
        let back = 1020 - 4 * t;
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            ring.slice(s![stage..stage + 1, back..back + 4]),
        );
        let refill = (j + 1) % 2;
        let next = (j + 1) * 1024 + 4 * t;
        apply(
            ptx["cp.async.cg.shared.global"],
            ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]),
            x.slice(s![row..row + 1, next..next + 4]),
            16,
        );
        apply(ptx["cp.async.commit_group"]);
        let c = j * 1024 + 4 * t;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
    apply(ptx["cp.async.wait_all"]);
}

/// Copies of 4, 8 and 16 bytes in two groups; the first group's bytes are
/// read (reversed across threads) after `wait_group 1` and a barrier,
/// while the second may still be in flight, then the second's after
/// `wait_all` and a barrier.
#[tile_kernel(grid = 1, block = 64)]
fn copy_sizes(
    a: Tensor<f32, 64>,
    b: Tensor<f32, 128>,
    c: Tensor<f32, 256>,
    out4: Tensor<f32, 64>,
    out8: Tensor<f32, 128>,
    out16: Tensor<f32, 256>,
) {
    let t = thread_id(0);
    let s4 = alloc_shared::<f32>([64]);
    let s8 = alloc_shared::<f32>([128]);
    let s16 = alloc_shared::<f32>([256]);
    let r1 = alloc_local::<f32>([1, 1]);
    let r2 = alloc_local::<f32>([1, 2]);
    let r4 = alloc_local::<f32>([1, 4]);
    apply(
        ptx["cp.async.ca.shared.global"],
        s4.slice(s![t..t + 1]),
        a.slice(s![t..t + 1]),
        4,
    );
    apply(
        ptx["cp.async.ca.shared.global.L2::64B"],
        s8.slice(s![2 * t..2 * t + 2]),
        b.slice(s![2 * t..2 * t + 2]),
        8,
    );
    apply(ptx["cp.async.commit_group"]);
    apply(
        ptx["cp.async.cg.shared.global.L2::256B"],
        s16.slice(s![4 * t..4 * t + 4]),
        c.slice(s![4 * t..4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.commit_group"]);
    apply(ptx["cp.async.wait_group"], 1);
    apply(ptx["bar.sync"], 0, scope = "cta");
    let u = 63 - t;
    apply(
        ptx["ld.shared.f32"],
        r1,
        s4.slice(s![u..u + 1]).reshape([1, 1]),
    );
    apply(
        ptx["st.global.f32"],
        out4.slice(s![t..t + 1]).reshape([1, 1]),
        r1,
    );
    apply(
        ptx["ld.shared.v2.f32"],
        r2,
        s8.slice(s![2 * u..2 * u + 2]).reshape([1, 2]),
    );
    apply(
        ptx["st.global.v2.f32"],
        out8.slice(s![2 * t..2 * t + 2]).reshape([1, 2]),
        r2,
    );
    apply(ptx["cp.async.wait_all"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(
        ptx["ld.shared.v4.f32"],
        r4,
        s16.slice(s![4 * u..4 * u + 4]).reshape([1, 4]),
    );
    apply(
        ptx["st.global.v4.f32"],
        out16.slice(s![4 * t..4 * t + 4]).reshape([1, 4]),
        r4,
    );
}

#[test]
fn the_copies_are_the_named_instructions() {
    let ptx = copy_sizes::PTX;
    for line in [
        "cp.async.ca.shared.global [",
        "cp.async.ca.shared.global.L2::64B [",
        "cp.async.cg.shared.global.L2::256B [",
        "cp.async.wait_group 1;",
        "cp.async.wait_all",
    ] {
        assert_eq!(support::lines_starting(ptx, line).len(), 1, "{line}\n{ptx}");
    }
    assert_eq!(
        support::lines_starting(ptx, "cp.async.commit_group").len(),
        2,
        "{ptx}"
    );
}

#[test]
fn async_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("double_rows_own_bytes", double_rows_own_bytes::PTX),
        ("reverse_chunks", reverse_chunks::PTX),
        ("copy_sizes", copy_sizes::PTX),
        ("zero_filled_tail", zero_filled_tail::PTX),
        ("zero_filled_window", zero_filled_window::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        a_ring_of_own_bytes_doubles_rows,
        a_ring_read_across_threads_reverses_chunks,
        every_copy_size_lands,
        zero_fill_copies_the_bytes_inside_the_tensor,
        zero_fill_reads_rows_past_the_end_as_zeros
    );

    fn zero_fill_copies_the_bytes_inside_the_tensor(dev: &Device) -> tile_kernel::Result<()> {
        // Tails of 0 to 3 elements past a vector, and a grid past the data.
        for (n, c) in [(1, 4), (6, 8), (7, 8), (1021, 1024), (1024, 1024), (5, 512)] {
            let host = inputs(n, 0x5eed_0003 + n as u64);
            let x = dev.upload(&host, [n])?;
            let mut out = dev.upload(&vec![f32::NAN; c], [c])?;
            zero_filled_tail(dev, &x, &mut out)?;
            for (i, got) in out.download()?.iter().enumerate() {
                let want = if i < n { host[i] } else { 0.0 };
                assert_eq!(got.to_bits(), want.to_bits(), "N = {n}, C = {c}: out[{i}]");
            }
        }
        Ok(())
    }

    fn zero_fill_reads_rows_past_the_end_as_zeros(dev: &Device) -> tile_kernel::Result<()> {
        for ((m, n), (r, c)) in [((3, 8), (5, 16)), ((2, 260), (4, 512)), ((4, 4), (4, 4))] {
            let host = inputs(m * n, 0x5eed_0004 + (m * n) as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut out = dev.upload(&vec![f32::NAN; r * c], [r, c])?;
            zero_filled_window(dev, &x, &mut out)?;
            let got = out.download()?;
            for i in 0..r {
                for j in 0..c {
                    let want = if i < m && j < n { host[i * n + j] } else { 0.0 };
                    assert_eq!(
                        got[i * c + j].to_bits(),
                        want.to_bits(),
                        "{m} x {n} in {r} x {c}: out[{i}, {j}]"
                    );
                }
            }
        }
        Ok(())
    }

    fn a_ring_of_own_bytes_doubles_rows(dev: &Device) -> tile_kernel::Result<()> {
        // Rows shorter than the ring, of a partial chunk, of many chunks.
        for (m, n) in [(2, 6), (3, 514), (2, 4096 + 64)] {
            let host = inputs(m * n, 0x5eed_0001 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            double_rows_own_bytes(dev, &x, &mut y)?;
            for (i, (got, v)) in y.download()?.iter().zip(&host).enumerate() {
                assert_eq!(got.to_bits(), (v + v).to_bits(), "{m} x {n}: element {i}");
            }
        }
        Ok(())
    }

    fn a_ring_read_across_threads_reverses_chunks(dev: &Device) -> tile_kernel::Result<()> {
        for (m, n) in [(1, 1024), (3, 5 * 1024)] {
            let host = inputs(m * n, 0x5eed_0002 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            reverse_chunks(dev, &x, &mut y)?;
            let got = y.download()?;
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
        Ok(())
    }

    fn every_copy_size_lands(dev: &Device) -> tile_kernel::Result<()> {
        let (ha, hb, hc) = (inputs(64, 1), inputs(128, 2), inputs(256, 3));
        let a = dev.upload(&ha, [64])?;
        let b = dev.upload(&hb, [128])?;
        let c = dev.upload(&hc, [256])?;
        let mut out4 = dev.upload(&vec![f32::NAN; 64], [64])?;
        let mut out8 = dev.upload(&vec![f32::NAN; 128], [128])?;
        let mut out16 = dev.upload(&vec![f32::NAN; 256], [256])?;
        copy_sizes(dev, &a, &b, &c, &mut out4, &mut out8, &mut out16)?;
        let (got4, got8, got16) = (out4.download()?, out8.download()?, out16.download()?);
        for t in 0..64 {
            let u = 63 - t;
            assert_eq!(got4[t].to_bits(), ha[u].to_bits(), "4-byte copy {t}");
            for i in 0..2 {
                assert_eq!(
                    got8[2 * t + i].to_bits(),
                    hb[2 * u + i].to_bits(),
                    "8-byte copy {t}"
                );
            }
            for i in 0..4 {
                assert_eq!(
                    got16[4 * t + i].to_bits(),
                    hc[4 * u + i].to_bits(),
                    "16-byte copy {t}"
                );
            }
        }
        Ok(())
    }
}

/// The interpreter on programs that lost what the checker demanded (what a
/// checker bug would look like): faults, not values.
mod without_the_protocol {
    use std::sync::atomic::AtomicU8;

    use tile_kernel::lowering::encoding::decode;
    use tile_kernel::lowering::program::{Node, OperandValue, Program};
    use tile_kernel_interp::{Arg, FaultKind, Prepared, RunOptions};

    /// Removes or rewrites the statements `edit` picks (`None`: remove).
    fn edit(
        nodes: &mut Vec<Node>,
        f: &impl Fn(&mut tile_kernel::lowering::program::Statement) -> bool,
    ) {
        nodes.retain_mut(|node| match node {
            Node::Statement(s) => f(s),
            Node::If {
                then, otherwise, ..
            } => {
                edit(then, f);
                edit(otherwise, f);
                true
            }
            Node::Loop { body, .. } => {
                edit(body, f);
                true
            }
            Node::Define(_) => true,
        });
    }

    /// `reverse_chunks` on 2 rows of `n` values, as `program` says.
    fn run(program: Program, n: usize) -> Result<(), Box<tile_kernel_interp::Fault>> {
        let m = 2usize;
        let x: Vec<AtomicU8> = (0..m * n * 4).map(|i| AtomicU8::new(i as u8)).collect();
        let y: Vec<AtomicU8> = (0..m * n * 4).map(|_| AtomicU8::new(0)).collect();
        let prepared = Prepared::new(program).expect("prepares");
        prepared
            .run(
                [m as u32, 1, 1],
                &[Arg::Tensor(&x), Arg::Tensor(&y)],
                &[m as u64, n as u64],
                &RunOptions::default(),
            )
            .map(|_| ())
    }

    fn program() -> Program {
        decode(super::reverse_chunks::PROGRAM).expect("decodes")
    }

    #[test]
    fn the_checked_program_runs() {
        run(program(), 2048).expect("runs");
        run(program(), 2052).expect("runs");
    }

    #[test]
    fn reading_other_threads_bytes_without_the_barrier_is_a_race() {
        let mut p = program();
        edit(&mut p.body, &|s| !s.opcode.starts_with("bar.sync"));
        let fault = run(p, 2048).expect_err("a race");
        assert!(
            matches!(fault.kind, FaultKind::SharedRace { .. }),
            "{fault}"
        );
    }

    #[test]
    fn reading_before_the_wait_touches_bytes_in_flight() {
        let mut p = program();
        // `wait_group 0` becomes `wait_group 1`: the chunk read next is
        // still the newest group.
        edit(&mut p.body, &|s| {
            if s.opcode == "cp.async.wait_group" {
                for i in &mut s.instructions {
                    i.operands = vec![OperandValue::Immediate { value: 1 }];
                }
            }
            true
        });
        let fault = run(p, 2048).expect_err("a read of bytes in flight");
        assert!(
            matches!(&fault.kind, FaultKind::AsyncCopyInFlight { buffer, copy: 1, .. } if buffer == "ring"),
            "{fault}"
        );
        assert!(
            fault
                .to_string()
                .contains("while the `cp.async` of statement 1 still owns it"),
            "{fault}"
        );
    }

    #[test]
    fn ending_with_a_copy_in_flight_is_a_fault() {
        let mut p = program();
        edit(&mut p.body, &|s| s.opcode != "cp.async.wait_all");
        // Rows of 2048 values: every copy is read, so waited for.
        run(p.clone(), 2048).expect("runs");
        // 4 more: thread 0 copies a third chunk the loop never reads.
        let fault = run(p, 2052).expect_err("a copy never waited for");
        assert!(
            matches!(fault.kind, FaultKind::AsyncCopyNeverWaited { copy: 6 }),
            "{fault}"
        );
    }
}

/// `out[i] = x[i]` for `i < N` and 0 up to `C`: each thread copies 16 bytes
/// with `zero_fill`, whose `src-size` counts the bytes before `N` (0, 4,
/// 8, 12 or 16).
#[tile_kernel(grid = ceil_div(C, 256), block = 64)]
fn zero_filled_tail(x: Tensor<f32, N>, out: Tensor<f32, C>) {
    let t = thread_id(0);
    let c = cta_id(0) * 256 + 4 * t;
    let stage = alloc_shared::<f32>([256]);
    let v = alloc_local::<f32>([1, 4]);
    apply(
        ptx["cp.async.cg.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![c..c + 4]),
        16,
        zero_fill = true,
    );
    apply(ptx["cp.async.wait_all"]);
    apply(
        ptx["ld.shared.v4.f32"],
        v,
        stage.slice(s![4 * t..4 * t + 4]).reshape([1, 4]),
    );
    apply(
        ptx["st.global.v4.f32"],
        out.slice(s![c..c + 4]).reshape([1, 4]),
        v,
    );
}

/// A `[R, C]` window over `x: [M, N]`: rows past `M` and columns past `N`
/// read as zeros (a row out of bounds copies nothing: `src-size` 0).
#[tile_kernel(grid = [ceil_div(C, 256), R], block = 64)]
fn zero_filled_window(x: Tensor<f32, M, N>, out: Tensor<f32, R, C>) {
    let t = thread_id(0);
    let r = cta_id(1);
    let c = cta_id(0) * 256 + 4 * t;
    let stage = alloc_shared::<f32>([256]);
    let v = alloc_local::<f32>([1, 4]);
    apply(
        ptx["cp.async.ca.shared.global"],
        stage.slice(s![4 * t..4 * t + 4]),
        x.slice(s![r, c..c + 4]),
        16,
        zero_fill = true,
    );
    apply(ptx["cp.async.wait_all"]);
    apply(
        ptx["ld.shared.v4.f32"],
        v,
        stage.slice(s![4 * t..4 * t + 4]).reshape([1, 4]),
    );
    apply(
        ptx["st.global.v4.f32"],
        out.slice(s![r..r + 1, c..c + 4]),
        v,
    );
}
