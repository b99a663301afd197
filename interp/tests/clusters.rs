//! Thread-block clusters in the executor: the CTAs of a cluster run as one
//! lockstep unit, each with its own copy of the shared buffers, which the
//! other CTAs reach through `.shared::cluster` addresses of another rank
//! (`OperandValue::Memory::cta`, `buf.in_cta(rank)`). The programs are
//! compiled from syntax trees and then given remote operands (and, for
//! the faults, the changes a checker bug would make).

use std::sync::atomic::{AtomicU8, Ordering};

use tile_kernel_interp::{Arg, Fault, FaultKind, Prepared, RunOptions, ThreadId};
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::program::{CmpOp, Cond, Node, OperandValue, Program};
use tile_kernel_lowering::sym::{AtomKind, Poly};
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

fn eq(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Eq, a, b)
}

fn tile(base: &str) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![],
        span: S,
    })
}

/// `base.slice(s![at..at + 1])`.
fn element(base: &str, at: Expr) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![ViewOp {
            kind: ViewKind::Slice(vec![SliceItem::Range {
                start: Some(at.clone()),
                end: Some(binary(BinOp::Add, at, int(1))),
                step: 1,
                span: S,
            }]),
            span: S,
        }],
        span: S,
    })
}

/// `base.slice(s![row, at..at + 1])` of a 2-D tensor.
fn row_element(base: &str, row: Expr, at: Expr) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![ViewOp {
            kind: ViewKind::Slice(vec![
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
            ]),
            span: S,
        }],
        span: S,
    })
}

/// A `Tensor<u32, rows, columns>` parameter.
fn matrix(n: &str, rows: Expr, columns: u64) -> Param {
    Param {
        name: n.into(),
        span: S,
        ty: ParamType::Tensor {
            dtype: DType::U32,
            dims: vec![
                Dim {
                    expr: rows,
                    span: S,
                },
                Dim::constant(columns, S),
            ],
        },
    }
}

/// A kernel of blocks of `block` threads in clusters of `cluster` CTAs.
fn kernel(
    name: &str,
    (grid, block, cluster): ([Expr; 3], u32, [u32; 3]),
    params: Vec<Param>,
    body: Vec<Stmt>,
) -> Kernel {
    Kernel {
        name: name.into(),
        name_span: S,
        launch: LaunchDims {
            grid,
            block: [block, 1, 1],
            span: S,
            cluster,
            cluster_span: S,
        },
        target: Target::SM_90,
        params,
        body,
    }
}

fn program(kernel: &Kernel) -> Program {
    let compilation = compile(kernel);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    compilation.program.expect("a legal kernel")
}

fn cluster_arrive() -> Stmt {
    apply_scoped("barrier.cluster.arrive.aligned", vec![], "cluster")
}

fn cluster_wait() -> Stmt {
    apply_scoped("barrier.cluster.wait.aligned", vec![], "cluster")
}

fn cta_barrier() -> Stmt {
    apply_scoped("bar.sync", vec![literal(0)], "cta")
}

/// What orders the writes of `exchange` before its remote reads.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    ClusterBarrier,
    CtaBarrier,
    /// Nothing: the CTA barrier dropped after the checker (which refuses
    /// the kernel without one).
    Nothing,
}

/// `exchange(x, y: Tensor<u32, B, 64>)`, clusters of two CTAs of 64
/// threads: thread `t` of CTA `b` stores `x[b, t]` in `s[t]` (where
/// `writes` holds), `order` orders the stores, and it loads `s[63 - t]`
/// with `ld.shared::cluster` (of its own CTA until [`remote`] names
/// another), a cluster barrier (no CTA exits while another reads its
/// buffer), and it stores the value in `y[b, t]`. `before` runs first.
fn exchange(writes: Option<Expr>, order: Order, before: Vec<Stmt>) -> Program {
    let mut body = vec![
        alloc_shared("s", DType::U32, &[64]),
        alloc("r", DType::U32, &[1]),
    ];
    body.extend(before);
    body.push(apply(
        "ld.global.u32",
        vec![tile("r"), row_element("x", block(), thread())],
    ));
    let store = apply("st.shared.u32", vec![element("s", thread()), tile("r")]);
    body.push(match writes {
        Some(cond) => guarded(cond, vec![store]),
        None => store,
    });
    match order {
        Order::ClusterBarrier => body.extend([cluster_arrive(), cluster_wait()]),
        Order::CtaBarrier | Order::Nothing => body.push(cta_barrier()),
    }
    body.extend([
        apply(
            "ld.shared::cluster.u32",
            vec![
                tile("r"),
                element("s", binary(BinOp::Sub, int(63), thread())),
            ],
        ),
        cluster_arrive(),
        cluster_wait(),
        apply(
            "st.global.u32",
            vec![row_element("y", block(), thread()), tile("r")],
        ),
    ]);
    let rows = || name("B");
    let mut program = program(&kernel(
        "exchange",
        ([rows(), int(1), int(1)], 64, [2, 1, 1]),
        vec![matrix("x", rows(), 64), matrix("y", rows(), 64)],
        body,
    ));
    if order == Order::Nothing {
        program
            .body
            .retain(|node| !matches!(node, Node::Statement(s) if s.opcode == "bar.sync"));
    }
    program
}

/// The polynomial of atom `kind` in `program`.
fn atom(program: &Program, kind: AtomKind) -> Poly {
    let id = program
        .atoms
        .find(&kind)
        .unwrap_or_else(|| panic!("the program has no atom {kind:?}"));
    Poly::atom(id)
}

/// `%cluster_ctarank` of a cluster of `[2, 1, 1]` CTAs.
fn rank(program: &Program) -> Poly {
    atom(program, AtomKind::ClusterCtaId(0))
}

/// Applies `edit` to every statement of `nodes` whose opcode starts with
/// `opcode`.
fn edit_statements(nodes: &mut [Node], opcode: &str, edit: &mut dyn FnMut(&mut Node)) {
    for node in nodes {
        match node {
            Node::Statement(s) if s.opcode.starts_with(opcode) => edit(node),
            Node::If {
                then, otherwise, ..
            } => {
                edit_statements(then, opcode, edit);
                edit_statements(otherwise, opcode, edit);
            }
            Node::Loop { body, .. } => edit_statements(body, opcode, edit),
            _ => {}
        }
    }
}

/// `program` with the shared operands of its statements `opcode..`
/// addressing the copy of the CTA of rank `cta` (a polynomial over the
/// program's atoms, per thread).
fn remote(mut program: Program, opcode: &str, cta: &Poly) -> Program {
    edit_statements(&mut program.body, opcode, &mut |node| {
        let Node::Statement(s) = node else { return };
        for i in &mut s.instructions {
            for o in &mut i.operands {
                if let OperandValue::Memory { cta: target, .. } = o {
                    *target = Some(cta.clone());
                }
            }
        }
    });
    program
}

/// `program` with its statements `opcode..` executed only where `guard`
/// holds: what a checker bug would let through.
fn guard(mut program: Program, opcode: &str, guard: &Cond) -> Program {
    edit_statements(&mut program.body, opcode, &mut |node| {
        let Node::Statement(s) = node else { return };
        s.guard = guard.clone();
    });
    program
}

/// The peer's rank in a cluster of two CTAs: `1 - %cluster_ctarank`.
fn peer(program: &Program) -> Poly {
    Poly::constant(1).sub(&rank(program))
}

/// `exchange` reading the peer CTA's buffer.
fn exchange_with_peer(writes: Option<Expr>, order: Order) -> Program {
    let program = exchange(writes, order, Vec::new());
    let peer = peer(&program);
    remote(program, "ld.shared::cluster", &peer)
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

/// `x[b, t] = 1000 b + t`.
fn rows_x(b: u32) -> Vec<u32> {
    (0..b * 64).map(|i| 1000 * (i / 64) + i % 64).collect()
}

/// Runs a kernel over `x, y: Tensor<u32, B, 64>` on a grid of `b` CTAs
/// and `threads` host threads; `y` as words.
fn run_rows(program: Program, b: u32, threads: usize) -> Result<Vec<u32>, Box<Fault>> {
    let prepared = Prepared::new(program).unwrap_or_else(|e| panic!("{e}"));
    let x = rows_x(b);
    let (xb, yb) = (bytes_of(&x), bytes_of(&vec![0; x.len()]));
    prepared.run(
        [b, 1, 1],
        &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
        &[u64::from(b)],
        &RunOptions {
            threads,
            ..RunOptions::default()
        },
    )?;
    Ok(words_of(&yb))
}

/// `y[b, t] = x[b ^ 1, 63 - t]`: each CTA's row reversed from its peer's.
fn exchanged(b: u32) -> Vec<u32> {
    (0..b * 64)
        .map(|i| 1000 * ((i / 64) ^ 1) + 63 - i % 64)
        .collect()
}

fn thread_of(cta: u32, t: u32) -> ThreadId {
    ThreadId {
        cta: [cta, 0, 0],
        thread: [t, 0, 0],
    }
}

#[test]
fn after_the_cluster_barrier_each_cta_reads_its_peers_shared_buffer() {
    let program = exchange_with_peer(None, Order::ClusterBarrier);
    for b in [2, 6] {
        for threads in [1, 2] {
            let y = run_rows(program.clone(), b, threads).unwrap_or_else(|f| panic!("{f}"));
            assert_eq!(y, exchanged(b), "{b} CTAs, {threads} host threads");
        }
    }
    // Its own buffer through the same form: rank `%cluster_ctarank`.
    let own = exchange(None, Order::ClusterBarrier, Vec::new());
    let own_rank = rank(&own);
    let own = remote(own, "ld.shared::cluster", &own_rank);
    let y = run_rows(own, 4, 2).unwrap_or_else(|f| panic!("{f}"));
    let reversed: Vec<u32> = (0..4 * 64).map(|i| 1000 * (i / 64) + 63 - i % 64).collect();
    assert_eq!(y, reversed);
}

#[test]
fn without_the_cluster_barrier_the_remote_read_races_with_the_peers_store() {
    let fault = run_rows(exchange_with_peer(None, Order::Nothing), 4, 2).expect_err("races");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 4 (`ld.shared::cluster.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         data race on byte 252 of shared buffer `s` with thread (63, 0, 0) of block (1, 0, 0), \
         no barrier between them"
    );
    // A CTA barrier orders its own CTA's threads only.
    let fault = run_rows(exchange_with_peer(None, Order::CtaBarrier), 4, 1).expect_err("races");
    assert_eq!(
        fault.kind,
        FaultKind::SharedRace {
            buffer: "s".into(),
            offset: 252,
            other: Some(thread_of(1, 63)),
        }
    );
    assert_eq!(fault.statement, Some((4, "ld.shared::cluster.u32".into())));
    assert_eq!(fault.thread, Some(thread_of(0, 0)));
}

#[test]
fn a_remote_read_of_a_byte_its_cta_never_wrote_is_a_fault() {
    // Only CTA 0 of each cluster stores: CTA 1's buffer stays undefined,
    // and CTA 0 reads it.
    let rank0 = eq(call("cluster_ctarank", vec![]), int(0));
    let fault = run_rows(exchange_with_peer(Some(rank0), Order::ClusterBarrier), 2, 1)
        .expect_err("reads undefined shared memory");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 5 (`ld.shared::cluster.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         reads byte 252 of shared buffer `s`, which no thread of the block has written \
         (shared memory starts undefined)"
    );
}

#[test]
fn a_rank_outside_the_cluster_is_a_fault() {
    let program = exchange(None, Order::ClusterBarrier, Vec::new());
    for rank in [2, -1] {
        let fault = run_rows(
            remote(program.clone(), "ld.shared::cluster", &Poly::constant(rank)),
            4,
            2,
        )
        .expect_err("no such CTA");
        assert_eq!(
            fault.kind,
            FaultKind::ClusterRank {
                buffer: "s".into(),
                rank: rank as i64,
                cluster: 2,
            }
        );
        assert_eq!(fault.thread, Some(thread_of(0, 0)));
    }
    // `%cluster_ctarank + %clusterid.x`: in range in cluster 0, and for
    // CTA 2 (rank 0 of cluster 1); CTA 3 names rank 2.
    let past = rank(&program).add(&atom(&program, AtomKind::ClusterId(0)));
    let fault = run_rows(remote(program, "ld.shared::cluster", &past), 4, 2)
        .expect_err("CTA 3 names rank 2");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 5 (`ld.shared::cluster.u32`), thread (0, 0, 0) of block (3, 0, 0): \
         addresses shared buffer `s` of the CTA of rank 2 in its cluster, but the cluster has 2 CTAs \
         (ranks 0 to 1)"
    );
}

#[test]
fn a_remote_operand_in_a_kernel_without_a_cluster_is_a_fault() {
    let mut program = exchange(None, Order::ClusterBarrier, Vec::new());
    program.launch.cluster = [1, 1, 1];
    let fault = run_rows(
        remote(program, "ld.shared::cluster", &Poly::constant(0)),
        2,
        1,
    )
    .expect_err("no cluster");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 5 (`ld.shared::cluster.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         addresses shared buffer `s` of the CTA of rank 0 in its cluster, but the kernel declares no \
         cluster (each CTA is a cluster of 1: `cluster = [..]` in the attribute declares one)"
    );
}

#[test]
fn corrupt_cluster_programs_are_refused_when_prepared() {
    // `st.shared.u32` is `.shared::cta`.
    let program = exchange(None, Order::ClusterBarrier, Vec::new());
    let peer = peer(&program);
    let refused = |program| Prepared::new(program).expect_err("refused").to_string();
    assert_eq!(
        refused(remote(program.clone(), "st.shared", &peer)),
        "kernel `exchange` cannot be interpreted: `st.shared.u32` addresses another CTA's copy of \
         shared buffer `s`, which only the `.shared::cluster` forms of `ld`, `st`, `atom`, `red` and \
         `mbarrier.arrive` may"
    );
    // Tensors have no per-CTA copies.
    assert_eq!(
        refused(remote(program.clone(), "ld.global", &peer)),
        "kernel `exchange` cannot be interpreted: `ld.global.u32` addresses another CTA's copy of a tensor"
    );
    // A cluster holds at most 16 CTAs.
    let mut huge = program;
    huge.launch.cluster = [17, 1, 1];
    assert_eq!(
        refused(huge),
        "kernel `exchange` cannot be interpreted: its cluster of 17 CTAs exceeds the 16 a cluster may hold"
    );
}

#[test]
fn a_cta_barrier_one_cta_of_the_cluster_runs_is_that_ctas_alone() {
    // `if cluster_ctarank() == 0 { bar.sync }` before the exchange.
    let rank0 = eq(call("cluster_ctarank", vec![]), int(0));
    let program = exchange(
        None,
        Order::ClusterBarrier,
        vec![guarded(rank0, vec![cta_barrier()])],
    );
    let peer = peer(&program);
    let program = remote(program, "ld.shared::cluster", &peer);
    let y = run_rows(program, 4, 2).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(y, exchanged(4));
    // Every thread of CTA 0 but only threads 0..32 of CTA 1: CTA 1's
    // barrier lacks half its threads.
    let program = exchange(None, Order::ClusterBarrier, vec![cta_barrier()]);
    let tid = atom(&program, AtomKind::ThreadId(0));
    let partial = Cond::Or(
        Box::new(Cond::Cmp(CmpOp::Eq, rank(&program))),
        Box::new(Cond::Cmp(CmpOp::Lt, tid.add_const(-32))),
    );
    let fault = run_rows(guard(program, "bar.sync", &partial), 2, 1).expect_err("diverges");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 1 (`bar.sync`), thread (0, 0, 0) of block (1, 0, 0): \
         barrier 0 expects 64 threads, but 32 reach it here (a barrier in divergent control flow, \
         or a count that does not match)"
    );
}

#[test]
fn a_cluster_barrier_not_every_thread_of_the_cluster_reaches_is_a_fault() {
    let program = exchange_with_peer(None, Order::ClusterBarrier);
    // CTA 0 alone.
    let rank0 = Cond::Cmp(CmpOp::Eq, rank(&program));
    let fault = run_rows(guard(program.clone(), "barrier.cluster.wait", &rank0), 2, 1)
        .expect_err("CTA 1 does not wait");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 4 (`barrier.cluster.wait.aligned`), thread (0, 0, 0) of block (0, 0, 0): \
         the cluster barrier (`barrier.cluster.wait`) expects all 128 threads of the cluster's 2 CTAs, \
         but 64 reach it here, thread (0, 0, 0) of block (1, 0, 0) not among them (a cluster barrier \
         in divergent control flow, or one some CTA of the cluster does not reach)"
    );
    // Every thread but thread 63 of CTA 0.
    let tid = atom(&program, AtomKind::ThreadId(0));
    let below_63 = Cond::Or(
        Box::new(Cond::Cmp(CmpOp::Lt, tid.add_const(-63))),
        Box::new(Cond::Not(Box::new(rank0))),
    );
    let fault = run_rows(guard(program, "barrier.cluster.wait", &below_63), 2, 1)
        .expect_err("thread 63 does not wait");
    assert!(
        matches!(&fault.kind, FaultKind::Barrier { message } if message.contains(
            "but 127 reach it here, thread (63, 0, 0) of block (0, 0, 0) not among them"
        )),
        "{fault}"
    );
}

/// `count(x, y: Tensor<u32, B, 64>, c: Tensor<u32, B>)`, clusters of two
/// CTAs: thread 0 of each CTA zeroes its `counter`; every thread adds
/// `x[b, t] % 1000 + 1` to it with `atom.shared::cluster.add.u32` (of its
/// own CTA until [`remote`] names another), its old value into `y[b, t]`;
/// a cluster barrier (`closing`: or a CTA barrier); thread 0 of each CTA
/// stores its counter in `c[b]`.
fn count(closing: Order) -> Program {
    let first = || eq(thread(), int(0));
    let mut body = vec![
        alloc_shared("counter", DType::U32, &[1]),
        alloc("r", DType::U32, &[1]),
        alloc("old", DType::U32, &[1]),
        apply("mov.b32", vec![tile("r"), literal(0)]),
        guarded(
            first(),
            vec![apply(
                "st.shared.u32",
                vec![element("counter", int(0)), tile("r")],
            )],
        ),
        cluster_arrive(),
        cluster_wait(),
        apply(
            "ld.global.u32",
            vec![tile("r"), row_element("x", block(), thread())],
        ),
        apply("rem.u32", vec![tile("r"), tile("r"), literal(1000)]),
        apply("add.u32", vec![tile("r"), tile("r"), literal(1)]),
        apply(
            "atom.shared::cluster.add.u32",
            vec![tile("old"), element("counter", int(0)), tile("r")],
        ),
        apply(
            "st.global.u32",
            vec![row_element("y", block(), thread()), tile("old")],
        ),
    ];
    match closing {
        Order::ClusterBarrier => body.extend([cluster_arrive(), cluster_wait()]),
        Order::CtaBarrier | Order::Nothing => body.push(cta_barrier()),
    }
    body.push(guarded(
        first(),
        vec![
            apply("ld.shared.u32", vec![tile("r"), element("counter", int(0))]),
            apply("st.global.u32", vec![element("c", block()), tile("r")]),
        ],
    ));
    let rows = || name("B");
    let counts = Param {
        name: "c".into(),
        span: S,
        ty: ParamType::Tensor {
            dtype: DType::U32,
            dims: vec![Dim {
                expr: rows(),
                span: S,
            }],
        },
    };
    program(&kernel(
        "count",
        ([rows(), int(1), int(1)], 64, [2, 1, 1]),
        vec![matrix("x", rows(), 64), matrix("y", rows(), 64), counts],
        body,
    ))
}

/// Runs `count` on a grid of `b` CTAs: `c`, and the old values `y`.
fn run_count(program: Program, b: u32) -> Result<(Vec<u32>, Vec<u32>), Box<Fault>> {
    let prepared = Prepared::new(program).unwrap_or_else(|e| panic!("{e}"));
    let x = rows_x(b);
    let (xb, yb, cb) = (
        bytes_of(&x),
        bytes_of(&vec![0; x.len()]),
        bytes_of(&vec![0; b as usize]),
    );
    prepared.run(
        [b, 1, 1],
        &[Arg::Tensor(&xb), Arg::Tensor(&yb), Arg::Tensor(&cb)],
        &[u64::from(b)],
        &RunOptions::default(),
    )?;
    Ok((words_of(&cb), words_of(&yb)))
}

#[test]
fn atomics_of_both_ctas_on_one_ctas_counter_count_exactly() {
    // Everyone adds to CTA 0's counter: 1 + 2 + .. + 64, twice.
    let program = remote(
        count(Order::ClusterBarrier),
        "atom.shared::cluster",
        &Poly::constant(0),
    );
    let (c, y) = run_count(program, 4).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(c, [2 * 2080, 0, 2 * 2080, 0]);
    // The old values of each cluster's 128 atomics: distinct partial sums.
    for cluster in y.chunks(128) {
        let mut olds = cluster.to_vec();
        olds.sort_unstable();
        olds.dedup();
        assert_eq!(olds.len(), 128);
        assert!(olds[0] == 0 && olds[127] < 2 * 2080, "{olds:?}");
    }
    // With a CTA barrier instead, thread 0 of CTA 0 reads its counter
    // while CTA 1's atomics update it.
    let program = remote(
        count(Order::CtaBarrier),
        "atom.shared::cluster",
        &Poly::constant(0),
    );
    let fault = run_count(program, 2).expect_err("races");
    assert_eq!(
        fault.kind,
        FaultKind::SharedRace {
            buffer: "counter".into(),
            offset: 0,
            other: Some(thread_of(1, 0)),
        }
    );
    assert_eq!(fault.thread, Some(thread_of(0, 0)));
}

/// `ids(ids: Tensor<u32, R, 10>)` on a grid of 4 x 2 CTAs of 48 threads
/// in clusters of 2 x 2: per thread, in row `(cta_id(1) * 4 + cta_id(0))
/// * 48 + t`, its CTA's rank in the cluster, `cluster_ctaid(0..2)`,
/// `cluster_id(0..2)`, `cta_id(0..2)`, `thread_id(0)`, `%laneid` and
/// `warp_id()`.
fn ids() -> Program {
    let values = [
        Operand::Value(call("cluster_ctarank", vec![])),
        Operand::Value(call("cluster_ctaid", vec![int(0)])),
        Operand::Value(call("cluster_ctaid", vec![int(1)])),
        Operand::Value(call("cluster_id", vec![int(0)])),
        Operand::Value(call("cluster_id", vec![int(1)])),
        Operand::Value(call("cta_id", vec![int(0)])),
        Operand::Value(call("cta_id", vec![int(1)])),
        Operand::Value(thread()),
        Operand::Special {
            name: "%laneid".into(),
            span: S,
        },
        Operand::Value(call("warp_id", vec![])),
    ];
    let row = binary(
        BinOp::Add,
        binary(
            BinOp::Mul,
            binary(
                BinOp::Add,
                binary(BinOp::Mul, call("cta_id", vec![int(1)]), int(4)),
                block(),
            ),
            int(48),
        ),
        thread(),
    );
    let mut body = vec![alloc("v", DType::U32, &[1])];
    for (k, value) in values.into_iter().enumerate() {
        body.push(apply("mov.u32", vec![tile("v"), value]));
        body.push(apply(
            "st.global.u32",
            vec![row_element("ids", row.clone(), int(k as i128)), tile("v")],
        ));
    }
    program(&kernel(
        "ids",
        ([int(4), int(2), int(1)], 48, [2, 2, 1]),
        vec![matrix("ids", int(8 * 48), 10)],
        body,
    ))
}

#[test]
fn each_thread_of_a_cluster_has_its_own_ctas_ids() {
    let prepared = Prepared::new(ids()).unwrap_or_else(|e| panic!("{e}"));
    for threads in [1, 2] {
        let ids = bytes_of(&[0; 8 * 48 * 10]);
        prepared
            .run(
                [4, 2, 1],
                &[Arg::Tensor(&ids)],
                &[],
                &RunOptions {
                    threads,
                    ..RunOptions::default()
                },
            )
            .unwrap_or_else(|f| panic!("{f}"));
        let got = words_of(&ids);
        for (cy, cx, t) in
            (0..2).flat_map(|y| (0..4).flat_map(move |x| (0..48).map(move |t| (y, x, t))))
        {
            let row = ((cy * 4 + cx) * 48 + t) as usize;
            let want = [
                cx % 2 + 2 * (cy % 2),
                cx % 2,
                cy % 2,
                cx / 2,
                cy / 2,
                cx,
                cy,
                t,
                t % 32,
                t / 32,
            ];
            assert_eq!(
                &got[row * 10..row * 10 + 10],
                &want,
                "CTA ({cx}, {cy}), thread {t}, {threads} host threads"
            );
        }
    }
}

/// `masks(y: Tensor<u32, B, 48>)`, clusters of two CTAs of 48 threads:
/// `y[b, t]` is the `activemask` of the thread's warp. Kernels cannot use
/// warp collectives yet: a `mov` placeholder is replaced here.
fn masks() -> Program {
    let rows = || name("B");
    let mut program = program(&kernel(
        "masks",
        ([rows(), int(1), int(1)], 48, [2, 1, 1]),
        vec![matrix("y", rows(), 48)],
        vec![
            alloc("m", DType::U32, &[1]),
            apply("mov.b32", vec![tile("m"), literal(0)]),
            apply(
                "st.global.u32",
                vec![row_element("y", block(), thread()), tile("m")],
            ),
        ],
    ));
    let variant = tile_kernel_lowering::ptx::resolve("activemask.b32")
        .expect("a legal opcode")
        .into_iter()
        .find(|m| m.form.id == "activemask")
        .expect("the activemask form")
        .id();
    edit_statements(&mut program.body, "mov.b32", &mut |node| {
        let Node::Statement(s) = node else { return };
        s.opcode = "activemask.b32".into();
        s.variant = variant.clone();
        for i in &mut s.instructions {
            i.operands.truncate(1);
        }
    });
    program
}

#[test]
fn warps_are_each_ctas_own_even_when_its_size_is_not_a_multiple_of_32() {
    // Each CTA: warp 0 of 32 lanes, warp 1 of 16 (threads 32..48); the
    // next CTA's threads do not fill it.
    let prepared = Prepared::new(masks()).unwrap_or_else(|e| panic!("{e}"));
    let y = bytes_of(&[0; 4 * 48]);
    prepared
        .run([4, 1, 1], &[Arg::Tensor(&y)], &[4], &RunOptions::default())
        .unwrap_or_else(|f| panic!("{f}"));
    let mut row = vec![0xffff_ffff_u32; 32];
    row.extend([0xffff; 16]);
    assert_eq!(words_of(&y), row.repeat(4));
}

#[test]
fn a_work_limit_counts_each_ctas_threads() {
    // 8 statements of 64 threads: 512 instructions per CTA, 1024 per
    // cluster.
    let prepared = Prepared::new(exchange_with_peer(None, Order::ClusterBarrier))
        .unwrap_or_else(|e| panic!("{e}"));
    let x = rows_x(2);
    let limited = |work_limit| {
        let (xb, yb) = (bytes_of(&x), bytes_of(&vec![0; x.len()]));
        prepared.run(
            [2, 1, 1],
            &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
            &[2],
            &RunOptions {
                threads: 1,
                work_limit: Some(work_limit),
            },
        )
    };
    let report = limited(512).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!((report.blocks, report.instructions), (2, 1024));
    let fault = limited(511).expect_err("over the limit");
    assert_eq!(fault.kind, FaultKind::WorkLimit { limit: 511 });
    assert_eq!(fault.statement, Some((8, "st.global.u32".into())));
    assert_eq!(fault.thread, Some(thread_of(0, 0)));
}

/// `push(x, y: Tensor<u32, B, 64>)`, clusters of two CTAs of 64 threads:
/// thread `t` of CTA `b` stores `x[b, t]` in `s[t]` with
/// `st.shared::cluster` (of its own CTA until [`remote`] names another),
/// after a cluster barrier unless `opening` is false; a cluster barrier;
/// it stores `s[63 - t]` in `y[b, t]`.
fn push(opening: bool) -> Program {
    let mut body = vec![
        alloc_shared("s", DType::U32, &[64]),
        alloc("r", DType::U32, &[1]),
        apply(
            "ld.global.u32",
            vec![tile("r"), row_element("x", block(), thread())],
        ),
    ];
    if opening {
        body.extend([cluster_arrive(), cluster_wait()]);
    }
    body.extend([
        apply(
            "st.shared::cluster.u32",
            vec![element("s", thread()), tile("r")],
        ),
        cluster_arrive(),
        cluster_wait(),
        apply(
            "ld.shared.u32",
            vec![
                tile("r"),
                element("s", binary(BinOp::Sub, int(63), thread())),
            ],
        ),
        apply(
            "st.global.u32",
            vec![row_element("y", block(), thread()), tile("r")],
        ),
    ]);
    let rows = || name("B");
    let program = program(&kernel(
        "push",
        ([rows(), int(1), int(1)], 64, [2, 1, 1]),
        vec![matrix("x", rows(), 64), matrix("y", rows(), 64)],
        body,
    ));
    let peer = peer(&program);
    remote(program, "st.shared::cluster", &peer)
}

#[test]
fn another_ctas_buffer_is_reached_only_between_cluster_barriers() {
    // Pushed into the peer's buffer between two cluster barriers.
    let y = run_rows(push(true), 4, 2).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(y, exchanged(4));
    // Before the first, the peer may not have started.
    let fault = run_rows(push(false), 4, 2).expect_err("before the first barrier");
    assert_eq!(
        fault.to_string(),
        "kernel `push`, statement 2 (`st.shared::cluster.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         accesses shared buffer `s` of the CTA of rank 1 in its cluster before the cluster's first \
         cluster barrier (`barrier.cluster.wait`): that CTA may not have started, and its shared \
         memory may not exist yet"
    );
    // Without a cluster barrier after the remote read, the peer may have
    // exited: a fault at the end, naming the first such access.
    let mut program = exchange_with_peer(None, Order::ClusterBarrier);
    let mut halves = 0;
    edit_statements(&mut program.body, "barrier.cluster", &mut |node| {
        let Node::Statement(s) = node else { return };
        halves += 1;
        // The closing arrive and wait (statements 6 and 7) run nowhere.
        if halves > 2 {
            s.guard = Cond::Const(false);
        }
    });
    let fault = run_rows(program, 4, 2).expect_err("after the last barrier");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 5 (`ld.shared::cluster.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         accesses shared buffer `s` of the CTA of rank 1 in its cluster with no cluster barrier \
         (`barrier.cluster.wait`) after it: that CTA may exit, and its shared memory cease to exist, \
         before the access"
    );
}
