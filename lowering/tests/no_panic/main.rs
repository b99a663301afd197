//! The compiler must never panic, hang or exhaust its stack, whatever the
//! input: a panicking proc macro gives users an opaque, span-less error, and
//! a hanging one freezes their editor. Grammar-based generators throw
//! random kernels and opcode strings at `compile` and `resolve`; only PTX or
//! diagnostics may come back, each case within [`CASE_TIME_LIMIT`].
//!
//! **Tiers.** `TILE_KERNEL_FUZZ_CASES` sets the number of cases per
//! generator: unset, a small tier ([`SMALL_TIER`]) that keeps CI within a few
//! seconds; the documented long tier (`docs/robustness.md`) is
//!
//! ```sh
//! TILE_KERNEL_FUZZ_CASES=100000 cargo test --release -p tile-kernel-lowering --test no_panic -- --nocapture
//! ```
//!
//! Every generator prints how many cases it ran (to the real stderr, so the
//! line shows even without `--nocapture`) and fails if it ran fewer than
//! asked. A watchdog aborts the run, printing the case, if one case runs
//! past [`HANG_LIMIT`] (a hang fails loudly instead of stalling CI).
//!
//! **Generators.**
//! - `random_kernels`: every form of the AST the macro can build: all
//!   statements (including unreadable ones), all expressions (every operator
//!   and built-in, huge and negative literals, the `end + 1` an inclusive
//!   range `a..=b` becomes), deeply nested view chains, `scope`/`pred`/
//!   `preserve_dst`, symbolic dims, grid formulas and arrays, odd blocks and
//!   targets, non-ASCII names.
//! - `near_legal_kernels`: plausible kernels (loads, stores, register ops,
//!   `let` values and predicates, unrolled, inclusive and grid-stride loops,
//!   `if`/`else if`/`else`) that often reach the proofs and the emitter; the
//!   test fails if too few of them compile (the generator must stay useful).
//!   Half of them also use scopes and shared memory: warp and CTA tiles,
//!   warp collectives, own parts, CTA barriers, `.shared` accesses to a
//!   static buffer or a dynamic one sized at launch (`[N]`, `{2 * N}`),
//!   under uniform and divergent control flow, legal and mutated (wrong
//!   extents and scopes, explicit member masks, absurd blocks and buffers,
//!   shared extents that name no size symbol, two dynamic buffers). Those
//!   that compile run on the interpreter without a fault; a dynamic buffer
//!   is also launched just too large, which the interpreter must refuse.
//! - `opcodes`: dotted opcode strings, from real table spellings and tokens.
//!
//! **Huge inputs** (`huge_*` tests): the limits of `docs/robustness.md` are
//! hit exactly, and each gives an error or compiles within a bound.
//!
//! **Files**, by job: `harness.rs` (the tiers, the fuzz driver, the
//! outcome invariants; persisted failures in
//! `harness.proptest-regressions`), the generators `opcodes.rs`,
//! `random.rs`, `near_legal.rs` and `scoped.rs` (its scopes and shared
//! memory), `interpret.rs` (running what compiles on the interpreter),
//! `huge.rs` (the huge kernels) and `surface.rs` (kernels printed as Rust,
//! for failure messages); the tests are here.

mod distributed;
mod harness;
mod huge;
mod interpret;
mod near_legal;
mod opcodes;
mod random;
mod scoped;
mod surface;

use std::fmt::Debug;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{
    Config, FileFailurePersistence, RngAlgorithm, TestCaseError, TestRng, TestRunner,
};
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::ptx::resolve;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::sema::limits::{
    MAX_BLOCK_DEPTH, MAX_CHECKED_STATEMENTS, MAX_COND_NODES, MAX_EXPR_DEPTH,
};
use tile_kernel_lowering::sema::{MAX_INSTRUCTIONS, MAX_TILE_ELEMENTS, MAX_UNROLL};
use tile_kernel_lowering::{Code, Compilation, DType, SpanId, Target, compile};
use tile_kernel_testkit::ast::{self as build, alloc, binary, int, let_, name};

// The generator modules share one namespace, as when they were one file.
use harness::*;
use huge::*;
use interpret::*;
use near_legal::*;
use opcodes::*;
use random::*;
use scoped::*;
use surface::*;

#[test]
fn opcodes_never_panic() {
    fuzz("opcodes", "resolved", 64, opcode(), |text| {
        Ok(resolve(text).is_ok())
    });
}

#[test]
fn random_kernels_never_panic() {
    fuzz("random_kernels", "compiled to PTX", 64, kernel(), |k| {
        outcome(k, &compile(k))
    });
}

#[test]
fn near_legal_kernels_never_panic() {
    let scoped = AtomicUsize::new(0);
    let dynamic = AtomicUsize::new(0);
    let (ran, compiled) = fuzz(
        "near_legal_kernels",
        "compiled to PTX",
        SMALL_TIER,
        near_kernel(),
        |k| {
            let out = compile(k);
            let compiled = outcome(k, &out)?;
            if compiled && uses_scopes(&k.body) {
                scoped.fetch_add(1, Ordering::Relaxed);
            }
            if out.program.as_ref().is_some_and(has_dynamic_shared) {
                dynamic.fetch_add(1, Ordering::Relaxed);
            }
            Ok(compiled)
        },
    );
    let scoped = scoped.into_inner();
    let dynamic = dynamic.into_inner();
    report(&format!(
        "no_panic: near_legal_kernels: {scoped} of the {compiled} compiled use scopes or shared memory, {dynamic} a dynamic shared buffer"
    ));
    // The generator must keep reaching the emitter (about 4% compile; most
    // stop at a proof, which is what it is for), also with scopes.
    assert!(
        compiled >= 1 && compiled * 100 >= ran,
        "only {compiled} of {ran} near-legal kernels compiled"
    );
    assert!(
        scoped >= 1,
        "none of {ran} near-legal kernels with scopes or shared memory compiled"
    );
    // About 1 in 11 compiled kernels has a dynamic shared buffer: a
    // handful in the CI tier, too few to require there.
    assert!(
        dynamic >= 1 || !long_tier(),
        "none of {ran} near-legal kernels with a dynamic shared buffer compiled"
    );
}

/// The checker's guarantees, tested by running what it accepts: every
/// near-legal kernel that compiles runs on the CPU interpreter, for a few
/// sizes of its symbol, without a fault. The interpreter checks at run
/// time what the checker proved (every access in bounds and aligned, no
/// race, no read of an unwritten register, collectives and barriers
/// reached together), so a fault here is a hole in a proof. (The one thing
/// the checker leaves to the kernel, reading shared memory no thread wrote,
/// cannot happen here: the generator writes every shared element first.)
///
/// A kernel with a dynamic shared buffer also gets a launch whose buffer
/// is just larger than a block may have: the interpreter must refuse it
/// (a [`FaultKind::Arguments`](tile_kernel_interp::FaultKind) refusal,
/// not a fault: see [`Launch::SharedTooLarge`]), and never run it.
#[test]
fn near_legal_kernels_that_compile_run_without_faults() {
    let scoped = AtomicUsize::new(0);
    let dynamic = AtomicUsize::new(0);
    let dynamic_ran = AtomicUsize::new(0);
    let refused = AtomicUsize::new(0);
    let (ran, compiled) = fuzz(
        "near_legal_kernels_run",
        "compiled and ran on the interpreter",
        4 * SMALL_TIER,
        near_kernel(),
        |k| {
            let out = compile(k);
            outcome(k, &out)?;
            let Some(program) = out.program else {
                return Ok(false);
            };
            let mut sizes = [0u64, 1, 7, 64, 1029].map(Size::Near).to_vec();
            let is_dynamic = has_dynamic_shared(&program);
            if is_dynamic {
                sizes.push(Size::OverSharedLimit);
            }
            let mut launched = false;
            for size in sizes {
                match run_on_interpreter(&program, size) {
                    Ok(Launch::Ran) => launched = true,
                    Ok(Launch::Skipped) => {}
                    Ok(Launch::SharedTooLarge) => {
                        refused.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(fault) => {
                        return Err(TestCaseError::fail(format!(
                            "a compiled kernel faults on the interpreter (size {size:?}): {fault}\n{}",
                            surface(k)
                        )));
                    }
                }
            }
            if uses_scopes(&k.body) {
                scoped.fetch_add(1, Ordering::Relaxed);
            }
            if is_dynamic {
                dynamic.fetch_add(1, Ordering::Relaxed);
                if launched {
                    dynamic_ran.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(true)
        },
    );
    let scoped = scoped.into_inner();
    let (dynamic, dynamic_ran) = (dynamic.into_inner(), dynamic_ran.into_inner());
    let refused = refused.into_inner();
    report(&format!(
        "no_panic: near_legal_kernels_run: {scoped} of the {compiled} run use scopes or shared memory; \
         {dynamic} a dynamic shared buffer ({dynamic_ran} of them ran, {refused} oversized launches refused)"
    ));
    assert!(compiled >= 1, "none of {ran} near-legal kernels compiled");
    assert!(
        scoped >= 1,
        "none of {ran} near-legal kernels with scopes or shared memory compiled"
    );
    assert!(
        dynamic_ran >= 1 || !long_tier(),
        "none of {ran} near-legal kernels with a dynamic shared buffer compiled and ran"
    );
}

/// Distributed shared memory (`distributed.rs`): every kernel of a
/// cluster that compiles runs on the interpreter without a fault, which
/// checks at run time what the checker proved about other CTAs' buffers
/// (ranks in the cluster, races across CTAs by cluster barrier, remote
/// accesses between the first and the last cluster barrier).
#[test]
fn distributed_kernels_that_compile_run_without_faults() {
    let remote = AtomicUsize::new(0);
    let (ran, compiled) = fuzz(
        "distributed_kernels_run",
        "compiled and ran on the interpreter",
        SMALL_TIER,
        distributed::distributed_kernel(),
        |k| {
            let out = compile(k);
            outcome(k, &out)?;
            let Some(program) = out.program else {
                return Ok(false);
            };
            for size in [1u64, 100, 1029].map(Size::Near) {
                if let Err(fault) = run_on_interpreter(&program, size) {
                    return Err(TestCaseError::fail(format!(
                        "a compiled kernel faults on the interpreter (size {size:?}): {fault}\n{}",
                        surface(k)
                    )));
                }
            }
            if out.ptx.as_deref().is_some_and(|p| p.contains("mapa.")) {
                remote.fetch_add(1, Ordering::Relaxed);
            }
            Ok(true)
        },
    );
    let remote = remote.into_inner();
    report(&format!(
        "no_panic: distributed_kernels_run: {remote} of the {compiled} run reach another CTA's buffer"
    ));
    assert!(
        remote >= 1,
        "none of {ran} distributed kernels with a remote access compiled"
    );
}

// ------------------------------------------------------------ huge inputs

#[test]
fn huge_tiles() {
    // 2^16 registers: allowed as a tile, over the register budget.
    let (codes, t) = compile_on(STACK, || {
        huge_kernel(
            DType::F32,
            &[65536, 1],
            1,
            vec![
                alloc("r", DType::F32, &[MAX_TILE_ELEMENTS as u64, 1]),
                plain_apply("ld.global.f32", vec![whole("r"), whole("x")], None),
                plain_apply("st.global.f32", vec![whole("y"), whole("r")], None),
            ],
        )
    });
    check_huge(
        "tile of 2^16 registers",
        &codes,
        &[Code::REGISTER_BUDGET],
        t,
    );
    let (codes, t) = compile_on(STACK, || {
        huge_kernel(
            DType::F32,
            &[4, 1],
            1,
            vec![alloc("r", DType::F32, &[MAX_TILE_ELEMENTS as u64 + 1, 1])],
        )
    });
    check_huge(
        "tile of 2^16 + 1 registers",
        &codes,
        &[Code::TILE_TOO_LARGE],
        t,
    );
    // Many tiles, each legal, far over the budget: reported once, fast.
    let (codes, t) = compile_on(STACK, || {
        let mut body: Vec<Stmt> = (0..1000)
            .map(|i| alloc(&format!("t{i}"), DType::F64, &[60000]))
            .collect();
        body.push(plain_apply("mov.f64", vec![whole("t0"), whole("t1")], None));
        huge_kernel(DType::F32, &[4, 1], 1, body)
    });
    check_huge(
        "1000 tiles of 60000 f64",
        &codes,
        &[Code::REGISTER_BUDGET],
        t,
    );
}

#[test]
fn huge_unrolling() {
    let (codes, t) = compile_on(STACK, || unrolled_copy(MAX_UNROLL));
    check_huge("unroll of 4096", &codes, &[], t);
    let (codes, t) = compile_on(STACK, || unrolled_copy(MAX_UNROLL + 1));
    check_huge("unroll of 4097", &codes, &[Code::UNROLL_LIMIT], t);
    // Nested loops with empty bodies: 4096^3 iterations, stopped by the
    // statement budget.
    let (codes, t) = compile_on(STACK, || {
        let nest = |body| nest("k", MAX_UNROLL, body);
        let empty = Stmt::If(If {
            cond: Expr::Bool(true, SpanId(109)),
            then: Vec::new(),
            otherwise: Vec::new(),
            span: SpanId(110),
        });
        huge_kernel(DType::F32, &[4], 1, vec![nest(nest(nest(empty)))])
    });
    check_huge(
        "unrolled 4096^3 loop nest",
        &codes,
        &[Code::UNROLL_LIMIT],
        t,
    );
    // A nest of 409,600 iterations (within the statement budget) around
    // a statement with a mistake: its error is found once, not once per
    // iteration (found by the long tier: a minute in a release build).
    let (codes, t) = compile_on(STACK, || {
        let wrong = plain_apply(
            "shfl.sync.idx.b32",
            vec![whole("x")],
            Some(binary(BinOp::Lt, name("n"), int(7))),
        );
        let inner = nest("k", 100, wrong);
        huge_kernel(DType::F32, &[4], 1, vec![nest("j", MAX_UNROLL, inner)])
    });
    check_huge(
        "a mistake in a 4096 x 100 loop nest",
        &codes,
        &[Code::COLLECTIVE_SCOPE],
        t,
    );
    // A 4096 x 1024 nest of loads at `j % 7`: the outer loop's rolled
    // check (`j % 7` computed from its variable alone) unrolls the inner
    // loop once, and its 4096 copies are over the statement budget. They
    // were made before the budget was checked: gigabytes, until the long
    // tier's process was killed for memory.
    let (codes, t) = compile_on(STACK, || {
        let at = binary(BinOp::Rem, name("j"), int(7));
        let load = plain_apply("ld.global.f32", vec![whole("r"), element("x", at)], None);
        huge_kernel(
            DType::F32,
            &[8],
            1,
            vec![
                alloc("r", DType::F32, &[1]),
                nest("j", MAX_UNROLL, nest("k", 1024, load)),
                plain_apply(
                    "st.global.f32",
                    vec![element("y", int(0)), whole("r")],
                    None,
                ),
            ],
        )
    });
    check_huge(
        "loads at `j % 7` in a 4096 x 1024 loop nest",
        &codes,
        &[Code::UNROLL_LIMIT],
        t,
    );
    const { assert!(MAX_CHECKED_STATEMENTS >= 1 << 20) };
}

#[test]
fn huge_instruction_counts() {
    // One statement over 2^20 instructions: an error before expanding.
    let (codes, t) = compile_on(STACK, || {
        huge_kernel(
            DType::F32,
            &[MAX_INSTRUCTIONS as u64 + 1, 1],
            1,
            vec![plain_apply(
                "st.global.f32",
                vec![
                    whole("y"),
                    Operand::Literal(Literal {
                        value: LiteralValue::Float(1.0),
                        span: SpanId(136),
                    }),
                ],
                None,
            )],
        )
    });
    check_huge(
        "one statement of 2^20 + 1 instructions",
        &codes,
        &[Code::INSTRUCTION_LIMIT],
        t,
    );
    if !long_tier() {
        return;
    }
    // Expanding up to the limit is what takes time (seconds in a debug
    // build), so these run in the long tier only.
    let (codes, t) = compile_on(STACK, || mov_ladder(5));
    check_huge(
        "2^20 + instructions, accumulated",
        &codes,
        &[Code::INSTRUCTION_LIMIT],
        t,
    );
    // Just below: 4 * 1024 * 224 + 224 = 917,728 register moves.
    let (codes, t) = compile_on(STACK, || mov_ladder(4));
    check_huge("917,728 instructions", &codes, &[], t);
    const { assert!((4 * 1024 * 224 + 224) < MAX_INSTRUCTIONS as i128) };
    // 1,024,000 guarded stores with symbolic offsets: the slowest kernel
    // within the budgets found so far.
    let (codes, t) = compile_on(STACK, || guarded_stores(4000));
    check_huge("1,024,000 guarded stores", &codes, &[], t);
}

#[test]
fn huge_nesting() {
    // Deep inputs are built and dropped on a large stack (dropping a
    // 5000-deep tree recurses); the compile itself needs no more than the
    // limits allow.
    const BIG: usize = 256 << 20;
    for (label, depth) in [("2000 nested negations", 2000), ("20000", 20000)] {
        let (codes, t) = compile_on(BIG, move || {
            huge_kernel(DType::F32, &[4], 1, vec![let_("v", negations(depth))])
        });
        check_huge(label, &codes, &[Code::NESTING_LIMIT], t);
    }
    let (codes, t) = compile_on(BIG, || {
        huge_kernel(DType::F32, &[4], 1, vec![let_("v", sum(5000))])
    });
    check_huge("5000-term sum", &codes, &[Code::NESTING_LIMIT], t);
    let (codes, t) = compile_on(BIG, || {
        huge_kernel(
            DType::F32,
            &[4],
            1,
            nested_ifs(2000, binary(BinOp::Lt, name("n"), int(4)), Vec::new()),
        )
    });
    check_huge("2000 nested ifs", &codes, &[Code::NESTING_LIMIT], t);

    // At the limits, on the default 2 MiB test stack: MAX_BLOCK_DEPTH ifs
    // around an expression MAX_EXPR_DEPTH deep, used as a predicate and a
    // slice bound (every recursive pass: checker, prover, emitter).
    let (codes, t) = compile_on(STACK, || {
        let deep = sum(MAX_EXPR_DEPTH - 2);
        let cond = binary(BinOp::Lt, deep.clone(), int(1 << 30));
        let slice = |base: &str| element(base, name("j"));
        let body = vec![
            plain_apply(
                "ld.global.f32",
                vec![whole("r"), slice("x")],
                Some(cond.clone()),
            ),
            plain_apply(
                "st.global.f32",
                vec![slice("y"), whole("r")],
                Some(cond.clone()),
            ),
        ];
        let mut stmts = vec![
            alloc("r", DType::F32, &[1]),
            let_("j", binary(BinOp::Rem, name("n"), int(4))),
        ];
        stmts.extend(nested_ifs(MAX_BLOCK_DEPTH, cond, body));
        huge_kernel(DType::F32, &[4], 1, stmts)
    });
    check_huge("nesting at the limits", &codes, &[], t);
}

#[test]
fn huge_bodies() {
    // 10,000 statements: 5000 loads and stores under `if`s.
    let (codes, t) = compile_on(STACK, || {
        let at = |base: &str| element(base, call("thread_id", 0));
        let mut body = vec![alloc("r", DType::F32, &[1])];
        for _ in 0..5000 {
            body.push(plain_apply(
                "ld.global.f32",
                vec![whole("r"), at("x")],
                None,
            ));
            body.push(plain_apply(
                "st.global.f32",
                vec![at("y"), whole("r")],
                None,
            ));
        }
        huge_kernel(DType::F32, &[32], 32, body)
    });
    check_huge("10,000 statements", &codes, &[], t);

    // Values that square through `let` chains: stopped by the size caps
    // (atoms of range 0..=1, so the values themselves stay small).
    let (codes, t) = compile_on(STACK, || {
        let mut body = vec![let_(
            "v0",
            binary(
                BinOp::Add,
                binary(BinOp::Add, call("thread_id", 0), call("thread_id", 1)),
                call("thread_id", 2),
            ),
        )];
        for i in 1..64 {
            let prev = format!("v{}", i - 1);
            body.push(let_(
                &format!("v{i}"),
                binary(BinOp::Mul, name(&prev), name(&prev)),
            ));
        }
        let mut kernel = huge_kernel(DType::F32, &[4], 1, body);
        kernel.launch.block = [2, 2, 2];
        kernel
    });
    check_huge("squaring let chain", &codes, &[Code::EXPRESSION_LIMIT], t);

    // Conditions that double through `let` chains, and 10,000 chained `&&`.
    let (codes, t) = compile_on(STACK, || {
        let mut body = vec![let_("q0", binary(BinOp::Lt, name("n"), int(4)))];
        for i in 1..64 {
            let prev = format!("q{}", i - 1);
            body.push(let_(
                &format!("q{i}"),
                binary(BinOp::And, name(&prev), name(&prev)),
            ));
        }
        huge_kernel(DType::F32, &[4], 1, body)
    });
    check_huge(
        "doubling condition chain",
        &codes,
        &[Code::EXPRESSION_LIMIT],
        t,
    );
    let (codes, t) = compile_on(STACK, || {
        let mut body = vec![let_("q", binary(BinOp::Lt, name("n"), int(4)))];
        for i in 0..10_000 {
            body.push(let_(
                "q",
                binary(BinOp::And, name("q"), binary(BinOp::Lt, name("n"), int(i))),
            ));
        }
        huge_kernel(DType::F32, &[4], 1, body)
    });
    check_huge(
        "10,000-link condition chain",
        &codes,
        &[Code::EXPRESSION_LIMIT],
        t,
    );
    const { assert!(MAX_COND_NODES < 10_000) };

    // Computed values whose names would double (`min(v, v)`): bounded text.
    let (codes, t) = compile_on(STACK, || {
        let mut body = vec![let_("v0", binary(BinOp::Add, name("n"), int(1)))];
        for i in 1..200 {
            let prev = format!("v{}", i - 1);
            body.push(let_(
                &format!("v{i}"),
                Expr::Call {
                    func: "min".into(),
                    args: vec![name(&prev), binary(BinOp::Add, name(&prev), int(1))],
                    span: SpanId(126),
                },
            ));
        }
        huge_kernel(DType::F32, &[4], 1, body)
    });
    check_huge("200 nested computed values", &codes, &[], t);
}

// ------------------------------------------------------------ regressions

/// Kernels the generators found panicking or slow, each fixed; kept as
/// plain tests since persisted proptest seeds replay through the current
/// generators and stop reproducing once those change.
#[test]
fn regressions_found_by_fuzzing() {
    let big = || int((1 << 62) - 1);
    let huge = || binary(BinOp::Mul, big(), big());
    let kernel = |block: [u32; 3], dims: Vec<Dim>, body: Vec<Stmt>| {
        let mut k = huge_kernel(DType::F32, &[4], 1, body);
        k.launch.block = block;
        k.params[0].ty = ParamType::Tensor {
            dtype: DType::F32,
            dims,
        };
        k
    };
    let four = || vec![Dim::constant(4, SpanId(140))];
    let cases: Vec<(&str, Kernel, Vec<Code>)> = vec![
        // `i128::MIN.abs()` overflowed in the literal range check.
        (
            "literal i128::MIN",
            kernel([1, 1, 1], four(), vec![let_("v", int(i128::MIN))]),
            vec![Code::LITERAL_INDEX_RANGE],
        ),
        // The block's thread count overflowed `u64`.
        (
            "block [2^32 - 1, 2^32 - 1, 2]",
            kernel([u32::MAX, u32::MAX, 2], four(), Vec::new()),
            vec![Code::BLOCK_TOO_LARGE],
        ),
        // Dim arithmetic overflowed `i128` (`MAX_SYMBOL * mul`, `-MIN`,
        // `MIN / -1`).
        (
            "dim {i128::MAX * N}",
            kernel(
                [1, 1, 1],
                vec![Dim {
                    expr: binary(BinOp::Mul, int(i128::MAX), name("N")),
                    span: SpanId(141),
                }],
                Vec::new(),
            ),
            vec![Code::CONSTANT_OVERFLOW],
        ),
        (
            "dim {i128::MIN / -1}",
            kernel(
                [1, 1, 1],
                vec![Dim {
                    expr: binary(
                        BinOp::Div,
                        int(i128::MIN),
                        Expr::Unary {
                            op: UnOp::Neg,
                            expr: Box::new(int(1)),
                            span: SpanId(142),
                        },
                    ),
                    span: SpanId(143),
                }],
                Vec::new(),
            ),
            vec![Code::CONSTANT_OVERFLOW],
        ),
        // Saturated constant bounds overflowed the unroll count; they are
        // now an overflow error at the product.
        (
            "unrolled loop over saturated bounds",
            kernel(
                [1, 1, 1],
                four(),
                vec![Stmt::For(For {
                    var: "k".into(),
                    var_span: SpanId(144),
                    start: Expr::Unary {
                        op: UnOp::Neg,
                        expr: Box::new(binary(BinOp::Mul, huge(), big())),
                        span: SpanId(145),
                    },
                    end: binary(BinOp::Mul, huge(), big()),
                    step: None,
                    body: Vec::new(),
                    span: SpanId(146),
                })],
            ),
            vec![Code::INDEX_OVERFLOW],
        ),
        // A constant past i128 folded after saturating: `% 8` of it gave a
        // wrong value instead of an error.
        (
            "(2^62 * 2^62 * 4) % 8",
            kernel(
                [1, 1, 1],
                four(),
                vec![let_(
                    "v",
                    binary(BinOp::Rem, binary(BinOp::Mul, huge(), int(4)), int(8)),
                )],
            ),
            vec![Code::INDEX_OVERFLOW],
        ),
        // A tensor over 1 TiB stayed usable: operand checks multiplied its
        // extent (2^64 - 1) by the element bits.
        (
            "Tensor<f16, 2^64 - 1> as an operand",
            {
                let mut k = kernel(
                    [1, 1, 1],
                    vec![Dim::constant(u64::MAX, SpanId(149))],
                    vec![plain_apply(
                        "ld.global.L1::evict_first.L2::128B.b16",
                        vec![
                            Operand::Literal(Literal {
                                value: LiteralValue::Int(0),
                                span: SpanId(150),
                            }),
                            whole("x"),
                        ],
                        None,
                    )],
                );
                k.params[0].ty = ParamType::Tensor {
                    dtype: DType::F16,
                    dims: vec![Dim::constant(u64::MAX, SpanId(149))],
                };
                k
            },
            vec![Code::TENSOR_TOO_LARGE],
        ),
        // ... and so did an empty one, `Tensor<f16, 0, 2^64 - 1>`.
        (
            "Tensor<f16, 0, 2^64 - 1> as an operand",
            {
                let mut k = kernel(
                    [1, 1, 1],
                    four(),
                    vec![plain_apply(
                        "ld.global.L1::evict_first.L2::128B.b16",
                        vec![
                            Operand::Literal(Literal {
                                value: LiteralValue::Int(0),
                                span: SpanId(150),
                            }),
                            whole("x"),
                        ],
                        None,
                    )],
                );
                k.params[0].ty = ParamType::Tensor {
                    dtype: DType::F16,
                    dims: vec![
                        Dim::constant(0, SpanId(149)),
                        Dim::constant(u64::MAX, SpanId(149)),
                    ],
                };
                k
            },
            vec![Code::TENSOR_TOO_LARGE],
        ),
        // A misspelled opcode in an unrolled loop was resolved (with its
        // suggestions) once per iteration: seconds per kernel.
        (
            "misspelled opcode unrolled 4096 times",
            kernel(
                [1, 1, 1],
                four(),
                vec![Stmt::For(For {
                    var: "k".into(),
                    var_span: SpanId(147),
                    start: int(0),
                    end: int(4096),
                    step: None,
                    body: vec![plain_apply("ld.global.cg.f16x2.u8", Vec::new(), None)],
                    span: SpanId(148),
                })],
            ),
            vec![Code::UNKNOWN_MODIFIER],
        ),
        // Each shared allocation summed every buffer before it against
        // the budget: a loop nest of allocations was quadratic (seconds
        // to minutes, found by the long tier). Here the nest runs until
        // the unrolling budget stops it.
        (
            "a shared buffer allocated in a 128 x 4096 loop nest",
            kernel(
                [1, 1, 1],
                four(),
                vec![Stmt::For(For {
                    var: "k".into(),
                    var_span: SpanId(147),
                    start: int(0),
                    end: int(128),
                    step: None,
                    body: vec![Stmt::For(For {
                        var: "e".into(),
                        var_span: SpanId(147),
                        start: int(0),
                        end: int(4096),
                        step: None,
                        body: vec![scoped::shared_alloc("s", DType::U32, int(8))],
                        span: SpanId(149),
                    })],
                    span: SpanId(148),
                })],
            ),
            vec![Code::SHARED_TOO_LARGE, Code::UNROLL_LIMIT],
        ),
    ];
    for (label, k, expected) in cases {
        let (codes, t) = compile_on(STACK, move || k);
        let shown: Vec<String> = codes.iter().map(ToString::to_string).collect();
        report(&format!(
            "no_panic: regression {label}: {shown:?} in {t:.1?}"
        ));
        assert!(
            codes.iter().all(|c| expected.contains(c)) && !codes.is_empty(),
            "{label}: {codes:?}, expected {expected:?}"
        );
        assert!(t < Duration::from_secs(2), "{label} took {t:?}");
    }
}
