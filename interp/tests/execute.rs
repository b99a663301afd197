//! The executor on small kernels built as syntax trees: grids, runtime
//! indices, guards, loops, and the faults it reports instead of garbage.

use std::sync::atomic::{AtomicU8, Ordering};

use tile_kernel_interp::{Arg, FaultKind, Prepared, RunOptions};
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::program::{Node, OperandValue, Program};
use tile_kernel_lowering::sym::Poly;
use tile_kernel_lowering::{DType, SpanId, Target, compile};

const S: SpanId = SpanId(0);

fn int(v: i128) -> Expr {
    Expr::Int(v, S)
}

fn name(n: &str) -> Expr {
    Expr::Name(n.into(), S)
}

fn call(f: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        func: f.into(),
        args,
        span: S,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
        span: S,
    }
}

/// `base.slice(s![at..at + len])`.
fn range(base: &str, at: Expr, len: i128) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![ViewOp {
            kind: ViewKind::Slice(vec![SliceItem::Range {
                start: Some(at.clone()),
                end: Some(bin(BinOp::Add, at, int(len))),
                step: 1,
                span: S,
            }]),
            span: S,
        }],
        span: S,
    })
}

fn tile(base: &str) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.into(),
        base_span: S,
        views: vec![],
        span: S,
    })
}

fn apply(opcode: &str, operands: Vec<Operand>) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.into(),
        opcode_span: S,
        operands,
        scope: None,
        pred: None,
        preserve_dst: None,
        span: S,
    })
}

fn alloc(n: &str, dtype: DType, shape: &[u64]) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: n.into(),
        name_span: S,
        dtype,
        dtype_span: S,
        shape: shape.iter().map(|d| Dim::constant(*d, S)).collect(),
        scope: None,
        space: AllocSpace::Registers,
        span: S,
    })
}

fn tensor(n: &str, dtype: DType, dim: Expr) -> Param {
    Param {
        name: n.into(),
        span: S,
        ty: ParamType::Tensor {
            dtype,
            dims: vec![Dim { expr: dim, span: S }],
        },
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

/// `copy(x: Tensor<u32, N>, y: Tensor<u32, N>)`, grid ceil_div(N, 4) x 4
/// threads, 1 element per thread, guarded by `i < N`.
fn copy_kernel() -> Kernel {
    let i = bin(
        BinOp::Add,
        bin(BinOp::Mul, call("cta_id", vec![int(0)]), int(4)),
        call("thread_id", vec![int(0)]),
    );
    Kernel {
        name: "copy".into(),
        name_span: S,
        launch: LaunchDims {
            grid: [call("ceil_div", vec![name("N"), int(4)]), int(1), int(1)],
            block: [4, 1, 1],
            span: S,
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
                cond: bin(BinOp::Lt, name("i"), name("N")),
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

/// The program with every memory offset shifted by `delta` bytes: what a
/// checker bug would look like.
fn shifted(mut program: Program, delta: i128) -> Program {
    fn walk(nodes: &mut [Node], delta: i128) {
        for node in nodes {
            match node {
                Node::Statement(s) => {
                    for i in &mut s.instructions {
                        for o in &mut i.operands {
                            if let OperandValue::Memory { offset, .. } = o {
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
                            if let OperandValue::Memory { offset, .. } = o {
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
                    s.form = "activemask".into();
                    for i in &mut s.instructions {
                        i.opcode = "activemask.b32".into();
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
                cond: bin(BinOp::Lt, name("i"), n()),
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
                s.form = "bar.sync".into();
                for i in &mut s.instructions {
                    i.opcode = "bar.sync".into();
                    i.operands = vec![OperandValue::Immediate { value: 0 }];
                }
                true
            }
            Node::Statement(s) => {
                let own = |o: &OperandValue, param| {
                    matches!(o, OperandValue::Memory { param: p, .. } if *p == param)
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
                            if let OperandValue::Memory { offset, .. } = o {
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
                Node::Statement(s) => s.form = "st".into(),
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
            .expect_err("a load is not a store")
            .to_string(),
        "kernel `copy` cannot be interpreted: `ld.global.u32` is not a variant of form `st`"
    );
}
