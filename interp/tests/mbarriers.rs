//! mbarrier objects in the executor, on kernels compiled from syntax trees:
//! a row reversed through shared memory whose `cp.async` copies complete
//! on an mbarrier phase, read across threads after a parity wait.

use std::sync::atomic::{AtomicU8, Ordering};

use tile_kernel_interp::{Arg, FaultKind, Prepared, RunOptions};
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::program::{Node, OperandValue, Program};
use tile_kernel_lowering::{DType, Target, compile};
use tile_kernel_testkit::ast::{
    SPAN as S, alloc, alloc_shared, apply, apply_scoped, binary, call, guarded, int, literal, name,
};

fn thread() -> Expr {
    call("thread_id", vec![int(0)])
}

fn block() -> Expr {
    call("cta_id", vec![int(0)])
}

/// `base.slice(s![items..])`.
fn slice(base: &str, items: Vec<SliceItem>) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![ViewOp {
            kind: ViewKind::Slice(items),
            span: S,
        }],
        span: S,
    })
}

/// `at..at + 1`.
fn one(at: Expr) -> SliceItem {
    SliceItem::Range {
        start: Some(at.clone()),
        end: Some(binary(BinOp::Add, at, int(1))),
        step: 1,
        span: S,
    }
}

/// `x.slice(s![row, at..at + 1])`.
fn element(base: &str, row: Expr, at: Expr) -> Operand {
    slice(
        base,
        vec![
            SliceItem::Index {
                index: row,
                span: S,
            },
            one(at),
        ],
    )
}

/// `let name = alloc_shared::<Mbarrier>([n]);`
fn mbarriers(name: &str, n: u64) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.into(),
        name_span: S,
        dtype: DType::U64,
        dtype_span: S,
        shape: vec![Dim::constant(n, S)],
        scope: None,
        layout: None,
        space: AllocSpace::Mbarriers,
        span: S,
    })
}

/// A `Tensor<u32, B, 64>` parameter.
fn rows(n: &str) -> Param {
    Param {
        name: n.into(),
        span: S,
        ty: ParamType::Tensor {
            dtype: DType::U32,
            dims: vec![
                Dim {
                    expr: name("B"),
                    span: S,
                },
                Dim::constant(64, S),
            ],
        },
    }
}

/// `reverse(x, y: Tensor<u32, B, 64>)`, blocks of 64 threads: thread `t`
/// copies `x[b, t]` into `s[t]` (`cp.async`), the copies complete on
/// `bar[0]` (`.noinc`: each thread's copies are one of its 64 arrivals),
/// each thread waits for phase 0 (`wait`: unless false), and stores
/// `s[63 - t]` in `y[b, t]`.
fn reverse_kernel(wait: bool) -> Kernel {
    let object = || slice("bar", vec![one(int(0))]);
    let mut body = vec![
        alloc_shared("s", DType::U32, &[64]),
        mbarriers("bar", 1),
        alloc("r", DType::U32, &[1]),
        guarded(
            binary(BinOp::Eq, thread(), int(0)),
            vec![apply(
                "mbarrier.init.shared::cta.b64",
                vec![object(), literal(64)],
            )],
        ),
        apply_scoped("bar.sync", vec![literal(0)], "cta"),
        apply(
            "cp.async.ca.shared.global",
            vec![
                slice("s", vec![one(thread())]),
                element("x", block(), thread()),
                literal(4),
            ],
        ),
        apply(
            "cp.async.mbarrier.arrive.noinc.shared::cta.b64",
            vec![object()],
        ),
    ];
    if wait {
        body.push(apply(
            "mbarrier.try_wait.parity.shared::cta.b64",
            vec![object(), literal(0)],
        ));
    }
    body.extend([
        apply(
            "ld.shared.u32",
            vec![
                Operand::Place(PlaceExpr {
                    base: "r".into(),
                    base_span: S,
                    views: vec![],
                    span: S,
                }),
                slice("s", vec![one(binary(BinOp::Sub, int(63), thread()))]),
            ],
        ),
        apply(
            "st.global.u32",
            vec![
                element("y", block(), thread()),
                Operand::Place(PlaceExpr {
                    base: "r".into(),
                    base_span: S,
                    views: vec![],
                    span: S,
                }),
            ],
        ),
    ]);
    Kernel {
        name: "reverse".into(),
        name_span: S,
        launch: LaunchDims {
            grid: [name("B"), int(1), int(1)],
            block: [64, 1, 1],
            span: S,
            cluster: [1, 1, 1],
            cluster_span: S,
        },
        target: Target::SM_90,
        params: vec![rows("x"), rows("y")],
        body,
    }
}

fn program(kernel: &Kernel) -> Program {
    let compilation = compile(kernel);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:#?}",
        compilation.diagnostics
    );
    compilation.program.expect("a legal kernel")
}

/// Runs `program` on `x[b, t] = 1000 b + t` over `b` blocks; `y`.
fn run(program: Program, b: u32) -> Result<Vec<u32>, Box<tile_kernel_interp::Fault>> {
    let prepared = Prepared::new(program).unwrap_or_else(|e| panic!("{e}"));
    let bytes = |words: &[u32]| -> Vec<AtomicU8> {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .map(AtomicU8::new)
            .collect()
    };
    let x: Vec<u32> = (0..b * 64).map(|i| 1000 * (i / 64) + i % 64).collect();
    let (xb, yb) = (bytes(&x), bytes(&vec![0; x.len()]));
    prepared.run(
        [b, 1, 1],
        &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
        &[u64::from(b)],
        &RunOptions {
            threads: 2,
            ..RunOptions::default()
        },
    )?;
    Ok(yb
        .chunks(4)
        .map(|c| u32::from_le_bytes(std::array::from_fn(|i| c[i].load(Ordering::Relaxed))))
        .collect())
}

#[test]
fn copies_completed_on_an_mbarrier_are_read_after_the_wait() {
    let y = run(program(&reverse_kernel(true)), 3).unwrap_or_else(|f| panic!("{f}"));
    let expected: Vec<u32> = (0..3 * 64).map(|i| 1000 * (i / 64) + 63 - i % 64).collect();
    assert_eq!(y, expected);
}

/// `program` with its statements whose opcode starts with `opcode`
/// removed: what a checker that missed the mistake would pass on.
fn without(mut program: Program, opcode: &str) -> Program {
    fn walk(nodes: &mut Vec<Node>, opcode: &str) {
        nodes.retain_mut(|node| match node {
            Node::Statement(s) => !s.opcode.starts_with(opcode),
            Node::If {
                then, otherwise, ..
            } => {
                walk(then, opcode);
                walk(otherwise, opcode);
                true
            }
            Node::Loop { body, .. } => {
                walk(body, opcode);
                true
            }
            Node::Define(_) => true,
        });
    }
    walk(&mut program.body, opcode);
    program
}

/// The statement numbers of the kernel: 1 `mbarrier.init`, 2 `bar.sync`,
/// 3 `cp.async`, 4 `cp.async.mbarrier.arrive`, 5 `mbarrier.try_wait`,
/// 6 `ld.shared`, 7 `st.global`.
#[test]
fn reading_a_copy_before_waiting_for_its_phase_is_a_fault() {
    let program = without(program(&reverse_kernel(true)), "mbarrier.try_wait");
    let fault = run(program, 3).expect_err("reads unobserved");
    assert_eq!(
        fault.to_string(),
        "kernel `reverse`, statement 6 (`ld.shared.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         touches byte 252 of shared buffer `s`, which the `cp.async` of statement 3 wrote when \
         phase 0 of mbarrier 0 of `bar` completed, but this thread has not observed that phase \
         (no acquiring `mbarrier.try_wait` returned after it) and no barrier since made the copy \
         visible"
    );
}

#[test]
fn a_wait_for_a_phase_no_thread_completes_is_a_fault_not_a_hang() {
    let program = without(program(&reverse_kernel(true)), "cp.async.mbarrier");
    let fault = run(program, 1).expect_err("never completes");
    assert_eq!(
        fault.to_string(),
        "kernel `reverse`, statement 5 (`mbarrier.try_wait.parity.shared::cta.b64`), \
         thread (0, 0, 0) of block (0, 0, 0): waits on mbarrier 0 of shared buffer `bar` for the \
         phase of parity 0, which never completes: 0 phases have completed, the current one (of \
         parity 0) lacks arrivals, and no thread of the block makes them before this wait in the \
         interpreter's lockstep order (on the GPU the wait would hang)"
    );
    assert!(matches!(
        fault.kind,
        FaultKind::MbarrierWaitNeverCompletes { phases: 0, .. }
    ));
}

#[test]
fn an_mbarrier_used_before_its_initialization_is_a_fault() {
    let program = without(program(&reverse_kernel(true)), "mbarrier.init");
    let fault = run(program, 1).expect_err("uninitialized");
    assert_eq!(
        fault.to_string(),
        "kernel `reverse`, statement 4 (`cp.async.mbarrier.arrive.noinc.shared::cta.b64`), \
         thread (0, 0, 0) of block (0, 0, 0): uses mbarrier 0 of shared buffer `bar`, which is \
         not initialized (no `mbarrier.init` in this block, or `mbarrier.inval` since)"
    );
}

#[test]
fn mbarrier_objects_are_reached_only_by_mbarrier_forms() {
    // The copy's destination moved to the mbarrier buffer.
    let mut program = program(&reverse_kernel(true));
    let bar = program
        .shared
        .iter()
        .position(|b| b.mbarrier)
        .expect("an mbarrier buffer");
    fn walk(nodes: &mut [Node], bar: usize) {
        for node in nodes {
            match node {
                Node::Statement(s) if s.opcode.starts_with("cp.async.ca") => {
                    for instruction in &mut s.instructions {
                        if let Some(OperandValue::Memory { buffer, .. }) =
                            instruction.operands.first_mut()
                        {
                            buffer.index = bar;
                        }
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    walk(then, bar);
                    walk(otherwise, bar);
                }
                Node::Loop { body, .. } => walk(body, bar),
                _ => {}
            }
        }
    }
    walk(&mut program.body, bar);
    let error = Prepared::new(program).expect_err("refused");
    assert!(
        error
            .message
            .contains("addresses shared buffer `bar`, which holds mbarrier objects"),
        "{error}"
    );
}
