//! Bulk reductions into global memory end to end: a kernel built as a
//! syntax tree, lowered, prepared and run. Every CTA stages its row of `x`
//! in shared memory and one thread reduces it into the same `y`
//! (`cp.reduce.async.bulk.global.shared::cta.bulk_group`): the CTAs'
//! updates of each element are atomics, so they combine on any number of
//! host threads and are no race.

use std::sync::atomic::{AtomicU8, Ordering};

use tile_kernel_interp::{Arg, Prepared, RunOptions};
use tile_kernel_lowering::DType;
use tile_kernel_lowering::ast::{
    BinOp, Dim, Expr, Kernel, Operand, ParamType, SliceItem, ViewKind,
};
use tile_kernel_lowering::compile;
use tile_kernel_testkit::ast::{
    SPAN as S, alloc, alloc_shared, apply, apply_scoped, binary, call, guarded, int, kernel,
    literal, name, place, tensor,
};

fn thread() -> Expr {
    call("thread_id", vec![int(0)])
}

/// `x[row, at..at + 1]`.
fn element(base: &str, row: Expr, at: Expr) -> Operand {
    place(
        base,
        vec![ViewKind::Slice(vec![
            SliceItem::Index {
                index: row,
                span: S,
            },
            SliceItem::Range {
                start: Some(at.clone()),
                end: Some(binary(BinOp::Add, at, int(1))),
                step: 1,
                span: S,
            },
        ])],
    )
}

/// `s[at..at + 1]`.
fn one(base: &str, at: Expr) -> Operand {
    place(
        base,
        vec![ViewKind::Slice(vec![SliceItem::Range {
            start: Some(at.clone()),
            end: Some(binary(BinOp::Add, at, int(1))),
            step: 1,
            span: S,
        }])],
    )
}

/// `reduce(x: Tensor<u32, B, 64>, y: Tensor<u32, 64>)`, grid `B` x 64
/// threads: thread `t` of CTA `b` stages `x[b, t]` in `s[t]`; after a
/// proxy fence and a barrier, thread 0 reduces `s` into `y` with `opcode`
/// and waits until it has read `s`.
fn reduce_kernel(opcode: &str) -> Kernel {
    let mut x = tensor("x", DType::U32, vec![name("B")]);
    if let ParamType::Tensor { dims, .. } = &mut x.ty {
        dims.push(Dim::constant(64, S));
    }
    let body = vec![
        alloc_shared("s", DType::U32, &[64]),
        alloc("r", DType::U32, &[1]),
        apply(
            "ld.global.u32",
            vec![
                place("r", vec![]),
                element("x", call("cta_id", vec![int(0)]), thread()),
            ],
        ),
        apply(
            "st.shared.u32",
            vec![one("s", thread()), place("r", vec![])],
        ),
        apply("fence.proxy.async.shared::cta", vec![]),
        apply_scoped("bar.sync", vec![literal(0)], "cta"),
        guarded(
            binary(BinOp::Eq, thread(), int(0)),
            vec![
                apply(
                    opcode,
                    vec![place("y", vec![]), place("s", vec![]), literal(256)],
                ),
                apply("cp.async.bulk.commit_group", vec![]),
                apply("cp.async.bulk.wait_group.read", vec![literal(0)]),
            ],
        ),
    ];
    kernel(
        "reduce",
        [name("B"), int(1), int(1)],
        [64, 1, 1],
        vec![x, tensor("y", DType::U32, vec![int(64)])],
        body,
    )
}

fn bytes_of(words: &[u32]) -> Vec<AtomicU8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(AtomicU8::new)
        .collect()
}

fn words_of(bytes: &[AtomicU8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(std::array::from_fn(|i| c[i].load(Ordering::Relaxed))))
        .collect()
}

/// Runs the kernel of `op_type` (say `add.u32`) over `b` CTAs on each
/// number of host threads, `x[b, t] = x(b, t)`, `y[t] = y0(t)`, and checks
/// `y` against `fold` of the rows.
fn check(op_type: &str, x: impl Fn(u32, u32) -> u32, y0: u32, fold: impl Fn(u32, u32) -> u32) {
    let opcode = format!("cp.reduce.async.bulk.global.shared::cta.bulk_group.{op_type}");
    let compilation = compile(&reduce_kernel(&opcode));
    assert!(
        compilation.diagnostics.is_empty(),
        "{opcode}: {:?}",
        compilation.diagnostics
    );
    let program = compilation.program.expect("a legal kernel");
    let prepared = Prepared::new(program).unwrap_or_else(|e| panic!("{opcode}: {e}"));
    for b in [1u32, 5, 9] {
        let xs: Vec<u32> = (0..b * 64).map(|i| x(i / 64, i % 64)).collect();
        let expected: Vec<u32> = (0..64)
            .map(|t| (0..b).fold(y0, |acc, row| fold(acc, x(row, t))))
            .collect();
        for threads in [1, 2, 4] {
            let (xb, yb) = (bytes_of(&xs), bytes_of(&[y0; 64]));
            prepared
                .run(
                    [b, 1, 1],
                    &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
                    &[u64::from(b)],
                    &RunOptions {
                        threads,
                        ..RunOptions::default()
                    },
                )
                .unwrap_or_else(|fault| panic!("{opcode}, {b} CTAs: {fault}"));
            assert_eq!(words_of(&yb), expected, "{opcode}, {b} CTAs");
        }
    }
}

#[test]
fn every_ctas_add_reduction_lands_in_the_shared_destination() {
    check(
        "add.u32",
        |b, t| 1000 * b + t,
        7,
        |acc, v| acc.wrapping_add(v),
    );
}

#[test]
fn every_ctas_min_reduction_lands_in_the_shared_destination() {
    check(
        "min.u32",
        |b, t| (t * 37 + b * 11) % 101,
        100,
        |acc, v| acc.min(v),
    );
}
