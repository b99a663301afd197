//! The executor on small kernels built as syntax trees: grids, runtime
//! indices, guards, loops, and the faults it reports instead of garbage.

use std::sync::atomic::{AtomicU8, Ordering};

use tile_kernel_interp::{Arg, FaultKind, Prepared, RunOptions};
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::program::{Buffer, DimSpec, MemorySpace, Node, OperandValue, Program};
use tile_kernel_lowering::ptx::{VariantId, resolve};
use tile_kernel_lowering::sym::Poly;
use tile_kernel_lowering::{DType, Target, compile};
use tile_kernel_testkit::ast::{
    self as build, SPAN as S, alloc, alloc_shared, apply, apply_scoped, binary, call, int, literal,
    name, place,
};

/// `base.slice(s![at..at + len])`.
fn range(base: &str, at: Expr, len: i128) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![ViewOp {
            kind: ViewKind::Slice(vec![SliceItem::Range {
                start: Some(at.clone()),
                end: Some(binary(BinOp::Add, at, int(len))),
                step: 1,
                span: S,
            }]),
            span: S,
        }],
        span: S,
    })
}

fn tile(base: &str) -> Operand {
    place(base, vec![])
}

/// `n: Tensor<dtype, dim>`.
fn tensor(n: &str, dtype: DType, dim: Expr) -> Param {
    build::tensor(n, dtype, vec![dim])
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

/// `copy(x: Tensor<u32, N>, y: Tensor<u32, N>)`, grid ceil_div(N, 4) x 4
/// threads, 1 element per thread, guarded by `i < N`.
fn copy_kernel() -> Kernel {
    let i = binary(
        BinOp::Add,
        binary(BinOp::Mul, call("cta_id", vec![int(0)]), int(4)),
        call("thread_id", vec![int(0)]),
    );
    Kernel {
        name: "copy".into(),
        name_span: S,
        launch: LaunchDims {
            grid: [call("ceil_div", vec![name("N"), int(4)]), int(1), int(1)],
            block: [4, 1, 1],
            span: S,
            cluster: [1, 1, 1],
            cluster_span: S,
        },
        target: Target::SM_90,
        params: vec![
            tensor("x", DType::U32, name("N")),
            tensor("y", DType::U32, name("N")),
        ],
        body: vec![
            alloc("r", DType::U32, &[1]),
            Stmt::Let(Let {
                name: "i".into(),
                name_span: S,
                value: i,
                span: S,
            }),
            Stmt::If(If {
                cond: binary(BinOp::Lt, name("i"), name("N")),
                then: vec![
                    apply("ld.global.u32", vec![tile("r"), range("x", name("i"), 1)]),
                    apply("st.global.u32", vec![range("y", name("i"), 1), tile("r")]),
                ],
                otherwise: vec![],
                span: S,
            }),
        ],
    }
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

#[test]
fn a_guarded_copy_over_a_grid_copies_exactly_n_elements() {
    let prepared = Prepared::new(program(&copy_kernel())).expect("prepares");
    for n in [0u32, 1, 3, 4, 5, 1000, 4097] {
        let x: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let xb = bytes_of(&x);
        let yb = bytes_of(&vec![0; n as usize]);
        let grid = [n.div_ceil(4), 1, 1];
        for threads in [1, 2] {
            let report = prepared
                .run(
                    grid,
                    &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
                    &[u64::from(n)],
                    &RunOptions {
                        threads,
                        ..RunOptions::default()
                    },
                )
                .expect("runs");
            assert_eq!(words_of(&yb), x, "n = {n}");
            assert_eq!(report.instructions, 2 * u64::from(n));
        }
    }
}

/// The copy kernel in clusters of two CTAs: it copies as without them
/// where the grid is whole clusters, and a grid that is not is refused
/// before any block runs (as the launcher refuses it).
#[test]
fn a_grid_of_partial_clusters_is_refused_before_anything_runs() {
    let mut kernel = copy_kernel();
    kernel.launch.cluster = [2, 1, 1];
    let prepared = Prepared::new(program(&kernel)).expect("prepares");
    for n in [8u32, 12] {
        let x: Vec<u32> = (0..n).map(|i| i + 1).collect();
        let xb = bytes_of(&x);
        let yb = bytes_of(&vec![0; n as usize]);
        let result = prepared.run(
            [n.div_ceil(4), 1, 1],
            &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
            &[u64::from(n)],
            &RunOptions::default(),
        );
        if n == 8 {
            result.expect("two CTAs: one whole cluster");
            assert_eq!(words_of(&yb), x);
        } else {
            let fault = result.expect_err("three CTAs: not whole clusters of two");
            assert!(
                matches!(&fault.kind, FaultKind::Arguments(m) if m == "a grid of [3, 1, 1] CTAs is not whole clusters of [2, 1, 1]"),
                "{fault}"
            );
            assert!(words_of(&yb).iter().all(|w| *w == 0));
        }
    }
}

/// The program with every memory offset shifted by `delta` bytes: what a
/// checker bug would look like.
fn shifted(mut program: Program, delta: i128) -> Program {
    fn walk(nodes: &mut [Node], delta: i128) {
        for node in nodes {
            match node {
                Node::Statement(s) => {
                    for i in &mut s.instructions {
                        for o in &mut i.operands {
                            if let OperandValue::Memory { buffer, offset, .. } = o
                                && buffer.space == MemorySpace::Global
                            {
                                *offset = offset.add(&Poly::constant(delta));
                            }
                        }
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    walk(then, delta);
                    walk(otherwise, delta);
                }
                Node::Loop { body, .. } => walk(body, delta),
                Node::Define(_) => {}
            }
        }
    }
    walk(&mut program.body, delta);
    program
}

#[test]
fn an_out_of_bounds_access_is_a_fault_naming_statement_and_thread() {
    let prepared = Prepared::new(shifted(program(&copy_kernel()), 4)).expect("prepares");
    let xb = bytes_of(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let yb = bytes_of(&[0; 8]);
    let fault = prepared
        .run(
            [2, 1, 1],
            &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
            &[8],
            &RunOptions {
                threads: 2,
                ..RunOptions::default()
            },
        )
        .expect_err("reads past the end");
    assert_eq!(
        fault.to_string(),
        "kernel `copy`, statement 1 (`ld.global.u32`), thread (3, 0, 0) of block (1, 0, 0): \
         4-byte access at byte 32 of `x` is out of bounds (32 bytes)"
    );
}

/// `copy` with no `if`: the compiler guards the load and the store
/// (`i + 1 <= N`), and `add.u32` between them runs on every thread, on
/// whatever the skipped load left.
fn auto_guarded_increment() -> Kernel {
    let mut kernel = copy_kernel();
    kernel.name = "increment".into();
    kernel.body = vec![
        alloc("r", DType::U32, &[1]),
        alloc("s", DType::U32, &[1]),
        build::let_(
            "i",
            binary(
                BinOp::Add,
                binary(BinOp::Mul, call("cta_id", vec![int(0)]), int(4)),
                call("thread_id", vec![int(0)]),
            ),
        ),
        apply("ld.global.u32", vec![tile("r"), range("x", name("i"), 1)]),
        apply("add.u32", vec![tile("s"), tile("r"), literal(1)]),
        apply("st.global.u32", vec![range("y", name("i"), 1), tile("s")]),
    ];
    kernel
}

fn run_increment(program: Program, n: u32) -> Result<Vec<u32>, Box<tile_kernel_interp::Fault>> {
    let prepared = Prepared::new(program).expect("prepares");
    let x: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let (xb, yb) = (bytes_of(&x), bytes_of(&vec![0; n as usize]));
    prepared.run(
        [n.div_ceil(4), 1, 1],
        &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
        &[u64::from(n)],
        &RunOptions::default(),
    )?;
    Ok(words_of(&yb))
}

#[test]
fn a_pure_instruction_on_an_undefined_input_is_no_fault() {
    let program = program(&auto_guarded_increment());
    // N = 5: the second block's threads 1..4 skip the load and the store,
    // and compute `s` from an undefined `r` in between.
    for n in [1u32, 4, 5, 1003] {
        let y = run_increment(program.clone(), n).unwrap_or_else(|f| panic!("{f}"));
        let want: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(1))
            .collect();
        assert_eq!(y, want, "n = {n}");
    }
}

#[test]
fn a_store_of_a_value_computed_from_an_undefined_input_is_a_fault() {
    // What a checker bug would look like: the store loses its guard.
    fn unguard_stores(nodes: &mut [Node]) {
        for node in nodes {
            if let Node::Statement(s) = node
                && s.opcode.starts_with("st.")
            {
                s.guard = tile_kernel_lowering::program::Cond::Const(true);
            }
        }
    }
    let mut program = program(&auto_guarded_increment());
    unguard_stores(&mut program.body);
    let fault = run_increment(program, 5).expect_err("stores an undefined value");
    assert!(
        matches!(&fault.kind, FaultKind::UndefinedRegister { tile, element: 0 } if tile == "s"),
        "{fault}"
    );
    assert!(
        fault
            .to_string()
            .contains("statement 3 (`st.global.u32`), thread (1, 0, 0) of block (1, 0, 0)"),
        "{fault}"
    );
}

#[test]
fn a_misaligned_access_is_a_fault() {
    let prepared = Prepared::new(shifted(program(&copy_kernel()), 2)).expect("prepares");
    let xb = bytes_of(&[1, 2, 3, 4]);
    let yb = bytes_of(&[0; 4]);
    let fault = prepared
        .run(
            [1, 1, 1],
            &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
            &[4],
            &RunOptions {
                threads: 1,
                ..RunOptions::default()
            },
        )
        .expect_err("misaligned");
    assert!(
        matches!(fault.kind, FaultKind::Misaligned { .. }),
        "{fault}"
    );
}

#[test]
fn two_threads_storing_the_same_bytes_is_a_race() {
    // Every thread of block 0 and block 1 writes element `thread_id`: a
    // checker bug that forgot the block offset.
    let mut program = program(&copy_kernel());
    fn drop_cta(nodes: &mut [Node], cta_atom: u32) {
        for node in nodes {
            match node {
                Node::Statement(s) => {
                    for i in &mut s.instructions {
                        for o in &mut i.operands {
                            if let OperandValue::Memory { buffer, offset, .. } = o
                                && buffer.space == MemorySpace::Global
                            {
                                *offset = offset.split_on(cta_atom).1;
                            }
                        }
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    drop_cta(then, cta_atom);
                    drop_cta(otherwise, cta_atom);
                }
                Node::Loop { body, .. } => drop_cta(body, cta_atom),
                Node::Define(_) => {}
            }
        }
    }
    let cta = (0..program.atoms.len() as u32)
        .find(|a| program.atoms.get(*a).name == "cta_id(0)")
        .expect("a cta_id atom");
    drop_cta(&mut program.body, cta);
    let prepared = Prepared::new(program).expect("prepares");
    let xb = bytes_of(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let yb = bytes_of(&[0; 8]);
    let fault = prepared
        .run(
            [2, 1, 1],
            &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
            &[8],
            &RunOptions {
                threads: 1,
                ..RunOptions::default()
            },
        )
        .expect_err("races");
    assert_eq!(
        fault.to_string(),
        "kernel `copy`, statement 2 (`st.global.u32`), thread (0, 0, 0) of block (1, 0, 0): \
         data race on byte 0 of `y` with thread (0, 0, 0) of block (0, 0, 0)"
    );
}

#[test]
#[ignore = "timing; run with --release --ignored --nocapture"]
fn copy_speed() {
    let prepared = Prepared::new(program(&copy_kernel())).expect("prepares");
    let n = 1u32 << 20;
    let x: Vec<u32> = (0..n).collect();
    let xb = bytes_of(&x);
    let yb = bytes_of(&vec![0; n as usize]);
    for threads in [1, 2] {
        let t = std::time::Instant::now();
        prepared
            .run(
                [n / 4, 1, 1],
                &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
                &[u64::from(n)],
                &RunOptions {
                    threads,
                    ..RunOptions::default()
                },
            )
            .expect("runs");
        println!("threads {threads}: {:?}", t.elapsed());
    }
}

#[test]
fn a_work_limit_stops_a_block_with_a_fault() {
    let prepared = Prepared::new(program(&copy_kernel())).expect("prepares");
    let xb = bytes_of(&[1, 2, 3, 4]);
    let yb = bytes_of(&[0; 4]);
    let args = [Arg::Tensor(&xb), Arg::Tensor(&yb)];
    let limited = |work_limit| RunOptions {
        threads: 1,
        work_limit: Some(work_limit),
    };
    // 4 threads, 2 statements: 8 instructions.
    prepared
        .run([1, 1, 1], &args, &[4], &limited(8))
        .expect("within the limit");
    let fault = prepared
        .run([1, 1, 1], &args, &[4], &limited(7))
        .expect_err("over the limit");
    assert_eq!(fault.kind, FaultKind::WorkLimit { limit: 7 });
    assert_eq!(fault.statement, Some((2, "st.global.u32".to_string())));
}

/// The variant `opcode` of form `form`, for programs built by hand.
fn variant(form: &str, opcode: &str) -> VariantId {
    let candidates = resolve(opcode).expect("a legal opcode");
    let found = candidates.into_iter().find(|m| m.form.id == form);
    found.expect("a variant of the form").id()
}

/// `copy` with its `ld` replaced by `activemask.b32` into the loaded tile:
/// each thread stores the mask of its warp's lanes that execute with it.
/// (Kernels cannot use warp collectives yet; the program is built here.)
fn activemask_program() -> Program {
    let mut program = program(&copy_kernel());
    program.launch.block = [40, 1, 1];
    fn walk(nodes: &mut [Node]) {
        for node in nodes {
            match node {
                Node::Statement(s) if s.opcode.starts_with("ld.") => {
                    s.opcode = "activemask.b32".into();
                    s.variant = variant("activemask", "activemask.b32");
                    for i in &mut s.instructions {
                        i.operands.truncate(1);
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    walk(then);
                    walk(otherwise);
                }
                Node::Loop { body, .. } => walk(body),
                _ => {}
            }
        }
    }
    walk(&mut program.body);
    program
}

#[test]
fn a_collective_sees_exactly_the_lanes_that_execute_it() {
    // One block of 40 threads, i = thread_id(0) < N = 37 execute: warp 0
    // has all 32 lanes, warp 1 lanes 0..=4 (threads 32..=36).
    let prepared = Prepared::new(activemask_program()).expect("prepares");
    let xb = bytes_of(&[0; 37]);
    let yb = bytes_of(&[0; 37]);
    prepared
        .run(
            [1, 1, 1],
            &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
            &[37],
            &RunOptions::default(),
        )
        .unwrap_or_else(|fault| panic!("{fault}"));
    let mut expected = vec![0xffff_ffff_u32; 32];
    expected.extend([0x1f; 5]);
    assert_eq!(words_of(&yb), expected);
}

/// `exchange(x, y, w, z: Tensor<u32, N>)`, one block of 64 threads over
/// `i = thread_id(0) < N`: `y[i] = x[i]`; placeholder `mov` (later a
/// barrier) and its store into `w`; `z[i] = y[i]` (later `y[N - 1 - i]`).
fn exchange_kernel() -> Kernel {
    let i = call("thread_id", vec![int(0)]);
    let n = || name("N");
    Kernel {
        name: "exchange".into(),
        name_span: S,
        launch: LaunchDims {
            grid: [int(1), int(1), int(1)],
            block: [64, 1, 1],
            span: S,
            cluster: [1, 1, 1],
            cluster_span: S,
        },
        target: Target::SM_90,
        params: ["x", "y", "w", "z"]
            .into_iter()
            .map(|p| tensor(p, DType::U32, n()))
            .collect(),
        body: vec![
            alloc("r", DType::U32, &[1]),
            alloc("r2", DType::U32, &[1]),
            alloc("r3", DType::U32, &[1]),
            Stmt::Let(Let {
                name: "i".into(),
                name_span: S,
                value: i,
                span: S,
            }),
            Stmt::If(If {
                cond: binary(BinOp::Lt, name("i"), n()),
                then: vec![
                    apply("ld.global.u32", vec![tile("r"), range("x", name("i"), 1)]),
                    apply("st.global.u32", vec![range("y", name("i"), 1), tile("r")]),
                    apply("mov.b32", vec![tile("r2"), tile("r")]),
                    apply("st.global.u32", vec![range("w", name("i"), 1), tile("r2")]),
                    apply("ld.global.u32", vec![tile("r3"), range("y", name("i"), 1)]),
                    apply("st.global.u32", vec![range("z", name("i"), 1), tile("r3")]),
                ],
                otherwise: vec![],
                span: S,
            }),
        ],
    }
}

/// The exchange program with the placeholder `mov` turned into
/// `bar.sync 0` (or left out entirely, `barrier: false`) and its store
/// dropped, and the second load reading `y[N - 1 - i]` (another thread's
/// element). The checker refuses both until kernels have barriers.
fn exchange_program(barrier: bool) -> Program {
    let mut program = program(&exchange_kernel());
    let n = (0..program.atoms.len() as u32)
        .find(|a| program.atoms.get(*a).name == "N")
        .expect("the symbol N");
    fn walk(nodes: &mut Vec<Node>, n: u32, barrier: bool) {
        nodes.retain_mut(|node| match node {
            Node::Statement(s) if s.opcode == "mov.b32" => {
                if !barrier {
                    return false;
                }
                s.opcode = "bar.sync".into();
                s.variant = variant("bar.sync", "bar.sync");
                for i in &mut s.instructions {
                    i.operands = vec![OperandValue::Immediate { value: 0 }];
                }
                true
            }
            Node::Statement(s) => {
                let own = |o: &OperandValue, param| {
                    matches!(o, OperandValue::Memory { buffer, .. } if buffer.param() == Some(param))
                };
                // The store into `w` (parameter 2) goes with the placeholder.
                if s.instructions.iter().any(|i| i.operands.iter().any(|o| own(o, 2))) {
                    return false;
                }
                let is_y_load = s.opcode.starts_with("ld.")
                    && s.instructions.iter().any(|i| i.operands.iter().any(|o| own(o, 1)));
                if is_y_load {
                    for i in &mut s.instructions {
                        for o in &mut i.operands {
                            if let OperandValue::Memory { buffer, offset, .. } = o
                                && buffer.space == MemorySpace::Global
                            {
                                // 4 * (N - 1 - i) = 4 * N - 4 - offset.
                                *offset = Poly::atom(n).scale(4).add_const(-4).sub(offset);
                            }
                        }
                    }
                }
                true
            }
            Node::If {
                then, otherwise, ..
            } => {
                walk(then, n, barrier);
                walk(otherwise, n, barrier);
                true
            }
            _ => true,
        });
    }
    walk(&mut program.body, n, barrier);
    program
}

fn run_exchange(program: Program, n: u32) -> Result<Vec<u32>, Box<tile_kernel_interp::Fault>> {
    let prepared = Prepared::new(program).expect("prepares");
    let x: Vec<u32> = (0..n).map(|i| 1000 + i).collect();
    let (xb, yb, wb, zb) = (
        bytes_of(&x),
        bytes_of(&vec![0; n as usize]),
        bytes_of(&vec![0; n as usize]),
        bytes_of(&vec![0; n as usize]),
    );
    prepared.run(
        [1, 1, 1],
        &[
            Arg::Tensor(&xb),
            Arg::Tensor(&yb),
            Arg::Tensor(&wb),
            Arg::Tensor(&zb),
        ],
        &[u64::from(n)],
        &RunOptions::default(),
    )?;
    Ok(words_of(&zb))
}

#[test]
fn a_barrier_orders_the_threads_of_a_block() {
    let z = run_exchange(exchange_program(true), 64).unwrap_or_else(|fault| panic!("{fault}"));
    let expected: Vec<u32> = (0..64).rev().map(|i| 1000 + i).collect();
    assert_eq!(z, expected);
}

#[test]
fn without_the_barrier_the_exchange_is_a_race() {
    let fault = run_exchange(exchange_program(false), 64).expect_err("races");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 5 (`ld.global.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         data race on byte 252 of `y` with thread (63, 0, 0) of block (0, 0, 0)"
    );
}

#[test]
fn a_barrier_in_divergent_control_flow_is_a_fault() {
    // N = 40: threads 40..63 skip the `if`, so only 40 of 64 reach it.
    let fault = run_exchange(exchange_program(true), 40).expect_err("divergent");
    assert_eq!(
        fault.to_string(),
        "kernel `exchange`, statement 3 (`bar.sync`), thread (0, 0, 0) of block (0, 0, 0): \
         barrier 0 expects 64 threads, but 40 reach it here (a barrier in divergent control flow, or a count that does not match)"
    );
}

#[test]
fn corrupt_programs_are_refused_when_prepared() {
    let mut big_block = program(&copy_kernel());
    big_block.launch.block = [2048, 1, 1];
    assert_eq!(
        Prepared::new(big_block)
            .expect_err("too many threads")
            .to_string(),
        "kernel `copy` cannot be interpreted: its block of 2048 threads exceeds CUDA's 1024"
    );
    let mut big_tile = program(&copy_kernel());
    big_tile.tiles[0].shape = vec![1 << 20];
    assert_eq!(
        Prepared::new(big_tile)
            .expect_err("too many registers")
            .to_string(),
        "kernel `copy` cannot be interpreted: its tiles take more than 65536 bytes of registers per thread (at `r`)"
    );
    let mut wrong_form = program(&copy_kernel());
    fn rename(nodes: &mut [Node]) {
        for node in nodes {
            match node {
                Node::Statement(s) => s.variant.form = u16::MAX,
                Node::If {
                    then, otherwise, ..
                } => {
                    rename(then);
                    rename(otherwise);
                }
                _ => {}
            }
        }
    }
    rename(&mut wrong_form.body);
    assert_eq!(
        Prepared::new(wrong_form)
            .expect_err("no such form")
            .to_string(),
        "kernel `copy` cannot be interpreted: `ld.global.u32` names no variant of this build of the PTX table"
    );
}

// ------------------------------------------------------------ shared memory

/// `apply(opcode, operands.., pred = pred)`.
fn apply_pred(opcode: &str, operands: Vec<Operand>, pred: Expr) -> Stmt {
    let Stmt::Apply(mut apply) = apply(opcode, operands) else {
        unreachable!()
    };
    apply.pred = Some(pred);
    Stmt::Apply(apply)
}

/// `apply(ptx["bar.sync"], 0, scope = "cta")`.
fn cta_barrier() -> Stmt {
    apply_scoped("bar.sync", vec![literal(0)], "cta")
}

fn thread() -> Expr {
    call("thread_id", vec![int(0)])
}

fn block() -> Expr {
    call("cta_id", vec![int(0)])
}

fn eq(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Eq, a, b)
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

/// A kernel of grid `B`, blocks of 64 threads.
fn blocks_of_64(name: &str, params: Vec<Param>, body: Vec<Stmt>) -> Kernel {
    Kernel {
        name: name.into(),
        name_span: S,
        launch: LaunchDims {
            grid: [self::name("B"), int(1), int(1)],
            block: [64, 1, 1],
            span: S,
            cluster: [1, 1, 1],
            cluster_span: S,
        },
        target: Target::SM_90,
        params,
        body,
    }
}

/// `reverse(x, y: Tensor<u32, B, 64>)`: each block reverses its row
/// through a shared buffer: thread `t` stores `x[b, t]` in `s[t]`, a
/// barrier (unless `barrier` is false), then stores `s[63 - t]` in
/// `y[b, t]`.
fn reverse_kernel(barrier: bool) -> Kernel {
    let mut body = vec![
        alloc_shared("s", DType::U32, &[64]),
        alloc("r", DType::U32, &[1]),
        apply(
            "ld.global.u32",
            vec![tile("r"), row_element("x", block(), thread())],
        ),
        apply("st.shared.u32", vec![range("s", thread(), 1), tile("r")]),
    ];
    if barrier {
        body.push(cta_barrier());
    }
    body.extend([
        apply(
            "ld.shared.u32",
            vec![
                tile("r"),
                range("s", binary(BinOp::Sub, int(63), thread()), 1),
            ],
        ),
        apply(
            "st.global.u32",
            vec![row_element("y", block(), thread()), tile("r")],
        ),
    ]);
    blocks_of_64("reverse", vec![rows("x"), rows("y")], body)
}

/// Runs a kernel over `x, y: Tensor<u32, B, 64>` (`x[b, t] = 1000 b + t`)
/// on `threads` host threads; `y` as words.
fn run_rows(
    program: Program,
    b: u32,
    threads: usize,
) -> Result<Vec<u32>, Box<tile_kernel_interp::Fault>> {
    let prepared = Prepared::new(program).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<u32> = (0..b * 64).map(|i| 1000 * (i / 64) + i % 64).collect();
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

#[test]
fn threads_exchange_values_through_shared_memory_after_a_barrier() {
    let program = program(&reverse_kernel(true));
    assert_eq!(program.shared.len(), 1);
    for b in [1, 5, 9] {
        // One host thread reuses its block state (and shared memory) from
        // block to block; two run blocks side by side.
        for threads in [1, 2] {
            let y = run_rows(program.clone(), b, threads).unwrap_or_else(|f| panic!("{f}"));
            let expected: Vec<u32> = (0..b * 64).map(|i| 1000 * (i / 64) + 63 - i % 64).collect();
            assert_eq!(y, expected, "{b} blocks, {threads} host threads");
        }
    }
}

#[test]
fn without_the_barrier_the_checker_rejects_the_shared_exchange() {
    let compilation = compile(&reverse_kernel(false));
    let codes: Vec<String> = compilation
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    assert_eq!(codes, ["TK0406"], "{:?}", compilation.diagnostics);
}

/// `program` without its barriers: what a checker that missed the shared
/// race would pass on.
fn without_barriers(mut program: Program) -> Program {
    fn walk(nodes: &mut Vec<Node>) {
        nodes.retain_mut(|node| match node {
            Node::Statement(s) => s.opcode != "bar.sync",
            Node::If {
                then, otherwise, ..
            } => {
                walk(then);
                walk(otherwise);
                true
            }
            Node::Loop { body, .. } => {
                walk(body);
                true
            }
            Node::Define(_) => true,
        });
    }
    walk(&mut program.body);
    program
}

#[test]
fn without_the_barrier_the_shared_exchange_is_a_race() {
    let program = without_barriers(program(&reverse_kernel(true)));
    let fault = run_rows(program, 3, 1).expect_err("races");
    assert_eq!(
        fault.to_string(),
        "kernel `reverse`, statement 4 (`ld.shared.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         data race on byte 252 of shared buffer `s` with thread (63, 0, 0) of block (0, 0, 0), \
         no barrier between them"
    );
}

/// The program with every shared offset shifted by `delta` bytes.
fn shared_shifted(mut program: Program, delta: i128) -> Program {
    fn walk(nodes: &mut [Node], delta: i128) {
        for node in nodes {
            match node {
                Node::Statement(s) => {
                    for i in &mut s.instructions {
                        for o in &mut i.operands {
                            if let OperandValue::Memory { buffer, offset, .. } = o
                                && buffer.space == MemorySpace::Shared
                            {
                                *offset = offset.add(&Poly::constant(delta));
                            }
                        }
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    walk(then, delta);
                    walk(otherwise, delta);
                }
                Node::Loop { body, .. } => walk(body, delta),
                Node::Define(_) => {}
            }
        }
    }
    walk(&mut program.body, delta);
    program
}

#[test]
fn shared_accesses_outside_their_buffer_or_misaligned_are_faults() {
    let program = program(&reverse_kernel(true));
    let fault = run_rows(shared_shifted(program.clone(), 4), 2, 2).expect_err("past the end");
    assert_eq!(
        fault.to_string(),
        "kernel `reverse`, statement 2 (`st.shared.u32`), thread (63, 0, 0) of block (0, 0, 0): \
         4-byte access at byte 256 of shared buffer `s` is out of bounds (256 bytes)"
    );
    let fault = run_rows(shared_shifted(program.clone(), -8), 1, 1).expect_err("before the start");
    assert_eq!(
        fault.kind,
        FaultKind::SharedOutOfBounds {
            buffer: "s".into(),
            offset: -8,
            bytes: 4,
            len: 256
        }
    );
    let fault = run_rows(shared_shifted(program, 2), 1, 1).expect_err("misaligned");
    assert_eq!(
        fault.to_string(),
        "kernel `reverse`, statement 2 (`st.shared.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         4-byte access at byte 2 of shared buffer `s` is not 4-byte aligned"
    );
}

/// `broadcast(x, y: Tensor<u32, B, 64>)`: the threads for which `writes`
/// holds store `x[b, t]` in `s[t]`; a barrier; every thread stores `s[t]`
/// in `y[b, t]`.
fn broadcast_kernel(writes: Expr) -> Kernel {
    blocks_of_64(
        "broadcast",
        vec![rows("x"), rows("y")],
        vec![
            alloc_shared("s", DType::U32, &[64]),
            alloc("r", DType::U32, &[1]),
            apply(
                "ld.global.u32",
                vec![tile("r"), row_element("x", block(), thread())],
            ),
            apply_pred(
                "st.shared.u32",
                vec![range("s", thread(), 1), tile("r")],
                writes,
            ),
            cta_barrier(),
            apply("ld.shared.u32", vec![tile("r"), range("s", thread(), 1)]),
            apply(
                "st.global.u32",
                vec![row_element("y", block(), thread()), tile("r")],
            ),
        ],
    )
}

#[test]
fn a_read_of_shared_memory_no_thread_wrote_is_a_fault() {
    // Thread 0 writes `s[0]`; thread 1 reads `s[1]`, which the checker
    // allows (it does not track what shared memory holds).
    let program = program(&broadcast_kernel(eq(thread(), int(0))));
    let fault = run_rows(program, 2, 1).expect_err("reads undefined shared memory");
    assert_eq!(
        fault.to_string(),
        "kernel `broadcast`, statement 4 (`ld.shared.u32`), thread (1, 0, 0) of block (0, 0, 0): \
         reads byte 4 of shared buffer `s`, which no thread of the block has written \
         (shared memory starts undefined)"
    );
}

#[test]
fn shared_memory_starts_undefined_in_every_block() {
    // Only block 0 writes `s`: block 1, run next on the same host thread
    // (and the same storage), must not read what block 0 left there.
    let program = program(&broadcast_kernel(eq(block(), int(0))));
    let y = run_rows(program.clone(), 1, 1).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(y, (0..64).collect::<Vec<u32>>());
    let fault = run_rows(program, 2, 1).expect_err("block 1 reads undefined shared memory");
    assert_eq!(
        fault.to_string(),
        "kernel `broadcast`, statement 4 (`ld.shared.u32`), thread (0, 0, 0) of block (1, 0, 0): \
         reads byte 0 of shared buffer `s`, which no thread of the block has written \
         (shared memory starts undefined)"
    );
}

/// `count(y: Tensor<u32, B>, z: Tensor<u32, B, 64>)`: thread 0 zeroes a
/// shared counter; a barrier; every thread adds 1 with
/// `atom.shared.add.u32` (its old value into `z[b, t]`); a barrier;
/// thread 0 stores the count in `y[b]`.
fn count_kernel() -> Kernel {
    let first = || eq(thread(), int(0));
    blocks_of_64(
        "count",
        vec![tensor("y", DType::U32, name("B")), rows("z")],
        vec![
            alloc_shared("counter", DType::U32, &[1]),
            alloc("r", DType::U32, &[1]),
            alloc("one", DType::U32, &[1]),
            alloc("old", DType::U32, &[1]),
            apply("mov.b32", vec![tile("r"), literal(0)]),
            apply_pred(
                "st.shared.u32",
                vec![range("counter", int(0), 1), tile("r")],
                first(),
            ),
            cta_barrier(),
            apply("mov.b32", vec![tile("one"), literal(1)]),
            apply(
                "atom.shared.add.u32",
                vec![tile("old"), range("counter", int(0), 1), tile("one")],
            ),
            apply(
                "st.global.u32",
                vec![row_element("z", block(), thread()), tile("old")],
            ),
            cta_barrier(),
            apply(
                "ld.shared.u32",
                vec![tile("r"), range("counter", int(0), 1)],
            ),
            apply_pred(
                "st.global.u32",
                vec![range("y", block(), 1), tile("r")],
                first(),
            ),
        ],
    )
}

#[test]
fn shared_atomics_from_every_thread_count_exactly() {
    let prepared = Prepared::new(program(&count_kernel())).expect("prepares");
    for b in [1u32, 6] {
        for threads in [1, 2] {
            let yb = bytes_of(&vec![0; b as usize]);
            let zb = bytes_of(&vec![0; 64 * b as usize]);
            prepared
                .run(
                    [b, 1, 1],
                    &[Arg::Tensor(&yb), Arg::Tensor(&zb)],
                    &[u64::from(b)],
                    &RunOptions {
                        threads,
                        ..RunOptions::default()
                    },
                )
                .unwrap_or_else(|f| panic!("{f}"));
            assert_eq!(words_of(&yb), vec![64; b as usize]);
            // The old values of each block: 0..64, each once.
            for row in words_of(&zb).chunks(64) {
                let mut row = row.to_vec();
                row.sort_unstable();
                assert_eq!(row, (0..64).collect::<Vec<u32>>());
            }
        }
    }
}

#[test]
fn a_shared_atomic_on_memory_no_thread_wrote_is_a_fault() {
    // Without thread 0's store, the counter starts undefined.
    let mut program = program(&count_kernel());
    program
        .body
        .retain(|node| !matches!(node, Node::Statement(s) if s.opcode == "st.shared.u32"));
    let prepared = Prepared::new(program).expect("prepares");
    let (yb, zb) = (bytes_of(&[0]), bytes_of(&[0; 64]));
    let fault = prepared
        .run(
            [1, 1, 1],
            &[Arg::Tensor(&yb), Arg::Tensor(&zb)],
            &[1],
            &RunOptions::default(),
        )
        .expect_err("undefined counter");
    assert_eq!(
        fault.kind,
        FaultKind::UninitializedShared {
            buffer: "counter".into(),
            offset: 0
        }
    );
    assert_eq!(fault.statement, Some((5, "atom.shared.add.u32".into())));
}

#[test]
fn corrupt_shared_memory_programs_are_refused_when_prepared() {
    let refused = |program: Program| Prepared::new(program).expect_err("corrupt").to_string();
    let mut huge = program(&reverse_kernel(true));
    huge.shared[0].shape = vec![DimSpec::Const(1 << 40), DimSpec::Const(1 << 40)];
    assert_eq!(
        refused(huge),
        "kernel `reverse` cannot be interpreted: its shared buffers take more than 232448 bytes (at `s`)"
    );
    let mut missing = program(&reverse_kernel(true));
    missing.shared.clear();
    assert_eq!(
        refused(missing),
        "kernel `reverse` cannot be interpreted: operand of unknown shared buffer 0"
    );
    // A shared buffer in a global form's address, and a tensor in a shared
    // form's.
    let mut swapped = program(&reverse_kernel(true));
    fn swap(nodes: &mut [Node]) {
        for node in nodes {
            if let Node::Statement(s) = node {
                for i in &mut s.instructions {
                    for o in &mut i.operands {
                        *o = match o.clone() {
                            OperandValue::Memory { buffer, offset, .. } => OperandValue::Memory {
                                buffer: match buffer.space {
                                    MemorySpace::Shared => Buffer::global(0),
                                    MemorySpace::Global => Buffer::shared(0),
                                },
                                offset,
                                generic: false,
                                cta: None,
                            },
                            other => other,
                        };
                    }
                }
            }
        }
    }
    swap(&mut swapped.body);
    assert_eq!(
        refused(swapped),
        "kernel `reverse` cannot be interpreted: `ld.global.u32` does not address shared memory, but its operand is shared buffer `s`"
    );
}

#[test]
fn total_smem_size_is_the_static_shared_memory_in_allocation_units() {
    // 256 bytes of `s`: two 128-byte units.
    let mut kernel = reverse_kernel(true);
    kernel.body.push(alloc("size", DType::U32, &[1]));
    kernel.body.push(apply(
        "mov.u32",
        vec![
            tile("size"),
            Operand::Special {
                name: "%total_smem_size".into(),
                span: S,
            },
        ],
    ));
    kernel.body.push(apply(
        "st.global.u32",
        vec![row_element("y", block(), thread()), tile("size")],
    ));
    let y = run_rows(program(&kernel), 1, 1).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(y, vec![256; 64]);
}

/// `base.slice(s![thread_id(0), ..])` of a CTA tile: the thread's part.
fn own_part(base: &str) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![ViewOp {
            kind: ViewKind::Slice(vec![
                SliceItem::Index {
                    index: thread(),
                    span: S,
                },
                SliceItem::Range {
                    start: None,
                    end: None,
                    step: 1,
                    span: S,
                },
            ]),
            span: S,
        }],
        span: S,
    })
}

/// `apply(opcode, operands.., scope = "cta")`.
fn apply_cta(opcode: &str, operands: Vec<Operand>) -> Stmt {
    apply_scoped(opcode, operands, "cta")
}

/// `alloc_local::<dtype>([64, 1], scope = "cta")`.
fn cta_tile(n: &str, dtype: DType) -> Stmt {
    let Stmt::AllocLocal(mut alloc) = alloc(n, dtype, &[64, 1]) else {
        unreachable!()
    };
    alloc.scope = Some(("cta".into(), S));
    Stmt::AllocLocal(alloc)
}

#[test]
fn barrier_reductions_count_and_combine_the_threads_of_the_block() {
    // v = x[b, t] % 1000 = t; y[b, t] = 100 * popc(v < 10) + and(v < 64)
    // + 2 * or(v < 1) + 4 * and(v < 1) = 1000 + 1 + 2 + 0.
    let flag = |d: &str, weight: i128| {
        [
            apply_cta(
                "selp.u32",
                vec![tile("w"), literal(weight), literal(0), tile(d)],
            ),
            apply_cta("add.u32", vec![tile("sum"), tile("sum"), tile("w")]),
        ]
    };
    let mut body = vec![
        cta_tile("v", DType::U32),
        cta_tile("c", DType::Bool),
        cta_tile("sum", DType::U32),
        cta_tile("w", DType::U32),
        cta_tile("p", DType::Bool),
        apply(
            "ld.global.u32",
            vec![own_part("v"), row_element("x", block(), thread())],
        ),
        apply_cta("rem.u32", vec![tile("v"), tile("v"), literal(1000)]),
        apply_cta("setp.lt.u32", vec![tile("c"), tile("v"), literal(10)]),
        apply_cta("bar.red.popc.u32", vec![tile("sum"), literal(0), tile("c")]),
        apply_cta("mul.lo.u32", vec![tile("sum"), tile("sum"), literal(100)]),
        apply_cta("setp.lt.u32", vec![tile("c"), tile("v"), literal(64)]),
        apply_cta("bar.red.and.pred", vec![tile("p"), literal(0), tile("c")]),
    ];
    body.extend(flag("p", 1));
    body.extend([
        apply_cta("setp.lt.u32", vec![tile("c"), tile("v"), literal(1)]),
        apply_cta(
            "barrier.red.or.pred",
            vec![tile("p"), literal(0), tile("c")],
        ),
    ]);
    body.extend(flag("p", 2));
    body.push(apply_cta(
        "barrier.red.and.pred",
        vec![tile("p"), literal(0), tile("c")],
    ));
    body.extend(flag("p", 4));
    body.push(apply(
        "st.global.u32",
        vec![row_element("y", block(), thread()), own_part("sum")],
    ));
    let kernel = blocks_of_64("reductions", vec![rows("x"), rows("y")], body);
    let y = run_rows(program(&kernel), 3, 2).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(y, vec![1003; 3 * 64]);
}

/// `swaps(x, y: Tensor<u32, B, 64>)`: `r = x[b, t]`, then `B` times (a
/// runtime loop): `s[t] = r`, a barrier, `r = s[63 - t]`, and a barrier
/// ending the body unless `closing` is false; `y[b, t] = r`.
fn swaps_kernel(closing: bool) -> Kernel {
    let mut body = vec![
        apply("st.shared.u32", vec![range("s", thread(), 1), tile("r")]),
        cta_barrier(),
        apply(
            "ld.shared.u32",
            vec![
                tile("r"),
                range("s", binary(BinOp::Sub, int(63), thread()), 1),
            ],
        ),
    ];
    if closing {
        body.push(cta_barrier());
    }
    blocks_of_64(
        "swaps",
        vec![rows("x"), rows("y")],
        vec![
            alloc_shared("s", DType::U32, &[64]),
            alloc("r", DType::U32, &[1]),
            apply(
                "ld.global.u32",
                vec![tile("r"), row_element("x", block(), thread())],
            ),
            Stmt::For(For {
                var: "i".into(),
                var_span: S,
                start: int(0),
                end: name("B"),
                step: None,
                body,
                span: S,
            }),
            apply(
                "st.global.u32",
                vec![row_element("y", block(), thread()), tile("r")],
            ),
        ],
    )
}

#[test]
fn a_loop_reusing_a_shared_buffer_needs_a_barrier_before_the_next_iteration() {
    let program = program(&swaps_kernel(true));
    for b in [1u32, 2, 3] {
        let y = run_rows(program.clone(), b, 2).unwrap_or_else(|f| panic!("{f}"));
        let expected: Vec<u32> = (0..b * 64)
            .map(|i| 1000 * (i / 64) + if b % 2 == 1 { 63 - i % 64 } else { i % 64 })
            .collect();
        assert_eq!(y, expected, "{b} swaps");
    }
    // Without the closing barrier, iteration 2's store into `s[t]` races
    // with iteration 1's read of it by thread 63 - t.
    let compilation = compile(&swaps_kernel(false));
    let codes: Vec<String> = compilation
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    assert_eq!(codes, ["TK0406"], "{:?}", compilation.diagnostics);
    let mut unclosed = program;
    fn drop_last_barrier(nodes: &mut [Node]) {
        for node in nodes {
            if let Node::Loop { body, .. } = node {
                let last = body
                    .iter()
                    .rposition(|n| matches!(n, Node::Statement(s) if s.opcode == "bar.sync"))
                    .expect("a barrier in the loop");
                body.remove(last);
            }
        }
    }
    drop_last_barrier(&mut unclosed.body);
    // One swap is fine; the second iteration's store races.
    run_rows(unclosed.clone(), 1, 1).unwrap_or_else(|f| panic!("{f}"));
    let fault = run_rows(unclosed, 2, 1).expect_err("races");
    assert_eq!(
        fault.to_string(),
        "kernel `swaps`, statement 2 (`st.shared.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         data race on byte 0 of shared buffer `s` with thread (63, 0, 0) of block (0, 0, 0), \
         no barrier between them"
    );
}

#[test]
fn a_plain_read_of_what_atomics_update_in_the_same_phase_is_a_race() {
    // The counter read without the barrier after the atomics: the checker
    // refuses it, and the interpreter reports it in a patched program.
    let mut kernel = count_kernel();
    let last_barrier = kernel
        .body
        .iter()
        .rposition(|s| matches!(s, Stmt::Apply(a) if a.opcode == "bar.sync"))
        .expect("a barrier");
    kernel.body.remove(last_barrier);
    let compilation = compile(&kernel);
    let codes: Vec<String> = compilation
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect();
    assert_eq!(codes, ["TK0406"], "{:?}", compilation.diagnostics);
    let mut program = program(&count_kernel());
    let last = program
        .body
        .iter()
        .rposition(|n| matches!(n, Node::Statement(s) if s.opcode == "bar.sync"))
        .expect("a barrier");
    program.body.remove(last);
    let prepared = Prepared::new(program).expect("prepares");
    let (yb, zb) = (bytes_of(&[0]), bytes_of(&[0; 64]));
    let fault = prepared
        .run(
            [1, 1, 1],
            &[Arg::Tensor(&yb), Arg::Tensor(&zb)],
            &[1],
            &RunOptions::default(),
        )
        .expect_err("races");
    assert_eq!(
        fault.to_string(),
        "kernel `count`, statement 8 (`ld.shared.u32`), thread (0, 0, 0) of block (0, 0, 0): \
         data race on byte 0 of shared buffer `counter`, which several other threads touched \
         since the last barrier"
    );
}

/// `y[i] = x[x[i]]` for `x[i] < N`: a data-dependent index read from the
/// register `j` (`j[0]`, a register atom).
fn self_gather_kernel() -> Kernel {
    let mut kernel = copy_kernel();
    kernel.name = "self_gather".into();
    let j0 = || {
        Expr::View(PlaceExpr {
            base: "j".into(),
            base_span: S,
            views: vec![ViewOp {
                kind: ViewKind::Slice(vec![SliceItem::Index {
                    index: int(0),
                    span: S,
                }]),
                span: S,
            }],
            span: S,
        })
    };
    kernel.body = vec![
        alloc("j", DType::U32, &[1]),
        alloc("r", DType::U32, &[1]),
        build::let_(
            "i",
            binary(
                BinOp::Add,
                binary(BinOp::Mul, call("cta_id", vec![int(0)]), int(4)),
                call("thread_id", vec![int(0)]),
            ),
        ),
        Stmt::If(If {
            cond: binary(BinOp::Lt, name("i"), name("N")),
            then: vec![
                apply("ld.global.u32", vec![tile("j"), range("x", name("i"), 1)]),
                Stmt::If(If {
                    cond: binary(BinOp::Lt, j0(), name("N")),
                    then: vec![
                        apply("ld.global.u32", vec![tile("r"), range("x", j0(), 1)]),
                        apply("st.global.u32", vec![range("y", name("i"), 1), tile("r")]),
                    ],
                    otherwise: vec![],
                    span: S,
                }),
            ],
            otherwise: vec![],
            span: S,
        }),
    ];
    kernel
}

fn run_self_gather(
    program: Program,
    x: &[u32],
) -> Result<Vec<u32>, Box<tile_kernel_interp::Fault>> {
    let prepared = Prepared::new(program).expect("prepares");
    let n = x.len() as u32;
    let (xb, yb) = (bytes_of(x), bytes_of(&vec![u32::MAX; x.len()]));
    prepared.run(
        [n.div_ceil(4), 1, 1],
        &[Arg::Tensor(&xb), Arg::Tensor(&yb)],
        &[u64::from(n)],
        &RunOptions::default(),
    )?;
    Ok(words_of(&yb))
}

#[test]
fn a_register_index_reads_the_threads_own_register() {
    let program = program(&self_gather_kernel());
    // Ids in range gather; ids out of range leave the sentinel.
    let x: Vec<u32> = (0..37u32)
        .map(|i| if i % 5 == 3 { 1000 + i } else { (i * 7) % 37 })
        .collect();
    let y = run_self_gather(program, &x).unwrap_or_else(|f| panic!("{f}"));
    for (i, id) in x.iter().enumerate() {
        let want = if (*id as usize) < x.len() {
            x[*id as usize]
        } else {
            u32::MAX
        };
        assert_eq!(y[i], want, "element {i}");
    }
}

#[test]
fn a_register_index_of_an_unwritten_register_is_a_fault() {
    // What a checker bug would look like: the load of the index is gone.
    let mut program = program(&self_gather_kernel());
    fn drop_first_load(nodes: &mut Vec<Node>) -> bool {
        if let Some(at) = nodes
            .iter()
            .position(|n| matches!(n, Node::Statement(s) if s.opcode.starts_with("ld.")))
        {
            nodes.remove(at);
            return true;
        }
        nodes.iter_mut().any(|n| match n {
            Node::If { then, .. } => drop_first_load(then),
            _ => false,
        })
    }
    assert!(drop_first_load(&mut program.body));
    let fault = run_self_gather(program, &[0, 1, 2]).expect_err("reads an unwritten index");
    assert!(
        matches!(&fault.kind, FaultKind::UndefinedRegister { tile, element: 0 } if tile == "j"),
        "{fault}"
    );
}
