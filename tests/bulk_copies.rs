//! Bulk copies (`cp.async.bulk` global to shared, completing on an
//! mbarrier's transaction count) on both devices, against host references.
//!
//! - `reverse_through_bulk_copies`: each CTA streams 8 chunks of 1024
//!   floats of its row through a 4-stage ring: one thread expects each
//!   stage's 4096 bytes (`mbarrier.arrive.expect_tx`) and issues its bulk
//!   copy; every thread waits for the stage's `full` phase, reads it
//!   reversed by 16-byte groups and arrives on its `empty` barrier, which
//!   the producer waits for before refilling the stage.
//!
//! The protocol mistakes are compile errors: UI cases `bulk_*` in
//! `ui-tests/tests/compile-fail`.
#![cfg(feature = "runtime")]

mod support;

use support::xorshift_inputs as inputs;
use tile_kernel::prelude::*;

/// `y[r, 8192 c + 1024 j + 4 t + i] = x[r, 8192 c + 1024 j + 1020 - 4 t + i]`.
#[tile_kernel(grid = [C, M, 1], block = [256, 1, 1], arch = "sm_90")]
fn reverse_through_bulk_copies(x: Tensor<f32, M, { 8192 * C }>, y: Tensor<f32, M, { 8192 * C }>) {
    let t = thread_id(0);
    let row = cta_id(1);
    let base = cta_id(0) * 8192;
    let ring = alloc_shared::<f32>([4, 1024]);
    let full = alloc_shared::<Mbarrier>([4]);
    let empty = alloc_shared::<Mbarrier>([4]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..4]).reshape([4, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..4]).reshape([4, 1]),
            256,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    if t == 0 {
        for s in 0..3 {
            let c = base + s * 1024;
            apply(
                ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                full.slice(s![s..s + 1]),
                4096,
            );
            apply(
                ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
                ring.slice(s![s..s + 1, ..]),
                x.slice(s![row..row + 1, c..c + 1024]),
                4096,
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
        if j + 3 < 8 {
            if t == 0 {
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
                let c = base + (j + 3) * 1024;
                apply(
                    ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                    full.slice(s![refill..refill + 1]),
                    4096,
                );
                apply(
                    ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"],
                    ring.slice(s![refill..refill + 1, ..]),
                    x.slice(s![row..row + 1, c..c + 1024]),
                    4096,
                    full.slice(s![refill..refill + 1]),
                );
            }
        }
        let c = base + j * 1024 + 4 * t;
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            v,
        );
    }
}

#[test]
fn the_copies_are_expected_then_issued() {
    let ptx = reverse_through_bulk_copies::PTX;
    // The prologue's three (an unrolled loop) and the five refills.
    assert_eq!(
        support::lines_starting(ptx, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%sh1").len(),
        8,
        "{ptx}"
    );
    let copies = support::lines_starting(
        ptx,
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%sh0",
    );
    assert_eq!(copies.len(), 8, "{ptx}");
    // 4096 bytes each, in a register (the form takes no immediate size).
    assert!(ptx.contains("mov.b32 %k32_2, 0x00001000;"), "{ptx}");
    assert!(
        copies.iter().all(|c| c.contains("], %k32_2, [%sh1")),
        "{copies:?}"
    );
    assert_eq!(
        support::lines_starting(ptx, "fence.mbarrier_init.release.cluster").len(),
        1,
        "{ptx}"
    );
}

#[test]
fn bulk_kernels_assemble_without_spills() {
    support::assert_no_spills(&[(
        "reverse_through_bulk_copies",
        reverse_through_bulk_copies::PTX,
    )]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(bulk_copies_land_with_their_phase);

    fn bulk_copies_land_with_their_phase(dev: &Device) -> tile_kernel::Result<()> {
        for (m, c) in [(1, 1), (3, 2)] {
            let n = 8192 * c;
            let host = inputs(m * n, 0xb01c_0001 + n as u64);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.upload(&vec![f32::NAN; m * n], [m, n])?;
            reverse_through_bulk_copies(dev, &x, &mut y)?;
            let got = y.download()?;
            for r in 0..m {
                for col in 0..n {
                    let (chunk, within) = (col / 1024 * 1024, col % 1024);
                    let source = chunk + 1020 - within / 4 * 4 + within % 4;
                    assert_eq!(
                        got[r * n + col].to_bits(),
                        host[r * n + source].to_bits(),
                        "{m} x {n}: y[{r}, {col}]"
                    );
                }
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
    use tile_kernel::lowering::program::{Node, Program, Statement};
    use tile_kernel_interp::{Arg, FaultKind, Prepared, RunOptions};

    /// Keeps the statements `f` keeps (rewriting them as it likes).
    fn edit(nodes: &mut Vec<Node>, f: &mut impl FnMut(&mut Statement) -> bool) {
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

    /// The kernel on one row of 8192 values, as `program` says.
    fn run(program: Program) -> Result<(), Box<tile_kernel_interp::Fault>> {
        let n = 8192usize;
        let x: Vec<AtomicU8> = (0..n * 4).map(|i| AtomicU8::new(i as u8)).collect();
        let y: Vec<AtomicU8> = (0..n * 4).map(|_| AtomicU8::new(0)).collect();
        let prepared = Prepared::new(program).expect("prepares");
        prepared
            .run(
                [1, 1, 1],
                &[Arg::Tensor(&x), Arg::Tensor(&y)],
                &[1, 1],
                &RunOptions::default(),
            )
            .map(|_| ())
    }

    fn program() -> Program {
        decode(super::reverse_through_bulk_copies::PROGRAM).expect("decodes")
    }

    /// Whether `s` is the `n`-th statement (from 0) with `opcode`, counting
    /// in `seen`.
    fn nth(s: &Statement, opcode: &str, n: usize, seen: &mut usize) -> bool {
        if s.opcode != opcode {
            return false;
        }
        *seen += 1;
        *seen == n + 1
    }

    #[test]
    fn the_checked_program_runs() {
        run(program()).expect("runs");
    }

    #[test]
    fn reading_a_stage_before_its_phase_touches_bytes_in_flight() {
        let mut p = program();
        // The first wait on `full` (chunk 0) is gone.
        let mut seen = 0;
        edit(&mut p.body, &mut |s| {
            !nth(s, "mbarrier.try_wait.parity.shared::cta.b64", 0, &mut seen)
        });
        let fault = run(p).expect_err("a read before the wait");
        assert!(
            matches!(&fault.kind, FaultKind::AsyncCopyUnobserved { buffer, .. } if buffer == "ring"),
            "{fault}"
        );
    }

    #[test]
    fn a_phase_expecting_more_bytes_than_its_copy_delivers_never_completes() {
        let mut p = program();
        // The first `expect_tx` asks for 8192 bytes of a 4096-byte copy.
        let mut seen = 0;
        edit(&mut p.body, &mut |s| {
            if nth(s, "mbarrier.arrive.expect_tx.shared::cta.b64", 0, &mut seen) {
                for i in &mut s.instructions {
                    if let Some(tile_kernel::lowering::program::OperandValue::Constant {
                        value,
                        ..
                    }) = i.operands.last_mut()
                    {
                        *value = 8192;
                    }
                }
            }
            true
        });
        let fault = run(p).expect_err("a wait that never completes");
        assert!(
            matches!(
                &fault.kind,
                FaultKind::MbarrierWaitNeverCompletes { buffer, index: 0, .. } if buffer == "full"
            ),
            "{fault}"
        );
    }

    #[test]
    fn refilling_a_stage_before_its_readers_are_done_is_a_race() {
        let mut p = program();
        // The producer's first wait on `empty` is gone: the refill of stage
        // 3 at chunk 0 is fine (never read), at chunk 1 stage 0 is not.
        let mut seen = 0;
        edit(&mut p.body, &mut |s| {
            !(s.opcode == "mbarrier.try_wait.parity.shared::cta.b64"
                && s.instructions
                    .iter()
                    .any(|i| format!("{:?}", i.operands).contains("index: 2"))
                && {
                    seen += 1;
                    seen == 2
                })
        });
        let fault = run(p).expect_err("a refill racing with the readers");
        assert!(
            matches!(&fault.kind, FaultKind::SharedRace { buffer, .. } if buffer == "ring"),
            "{fault}"
        );
    }
}
