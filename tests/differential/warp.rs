//! The warp collectives (`lowering/src/ptx/table/warp.rs`): `shfl.sync`
//! (and `d|p`), `vote.sync`, `match.sync` (and `d|p`), `redux.sync`,
//! `activemask`, `elect.sync` and `bar.warp.sync`.
//!
//! Kernels cannot use them until scopes exist (`Usability::NeedsScope`:
//! the checker refuses them), so each variant's kernel is a legal kernel
//! with *placeholder* statements of the same operand shapes (usable forms
//! that read every source tile and write every destination tile) compiled
//! through `tile_kernel_lowering::compile`; the first placeholder
//! statement of the checked program is then replaced by the collective
//! (its opcode, form and register operands, with the form's own operand
//! flags so that the emitter writes `d|p`) and the others removed, and the
//! patched program goes to the emitter (PTX for the GPU) and to the
//! interpreter. The tiles are one register each, so no view moves data.
//!
//! Every thread `i < N` (`N` a multiple of [`BLOCK`]: whole warps, no
//! divergence, so every result is defined) loads its sources from row `i`
//! of one tensor per source (`a`, `b`, `c`, `membermask`; a predicate as
//! a `u32` 0 or 1), runs the collective and stores every destination to
//! row `i` of one tensor each (a predicate through `selp`).
//! `bar.warp.sync`, which has no destination, stores a copy of its
//! membermask made after it.
//!
//! The inputs are chosen per warp ([`warp_inputs`]): a first stretch of
//! warps goes through the scenarios systematically, the rest pick them at
//! random, with mostly full membermasks. Every membermask is legal: the
//! executing lanes split into groups that each name exactly themselves
//! (`0xffffffff`; halves `0x0000ffff`/`0xffff0000`; eighth-warp groups;
//! even and odd lanes; single lanes; random splits), and a `shfl.sync`
//! never reads, in range, a lane outside its group (the ISA leaves that
//! undefined; the interpreter faults on it, which the smoke test would
//! report).

use super::*;
use tile_kernel_lowering::DType;
use tile_kernel_lowering::ast::{BinOp, Dim, If, Kernel, Operand, SliceItem, Stmt, ViewKind};
use tile_kernel_lowering::emit::emit;
use tile_kernel_lowering::program::{Instruction, Lane, Node, OperandValue, Statement};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Access, InstructionForm};
use tile_kernel_testkit::ast::{SPAN as S, apply, binary, literal, name, place};
use tile_kernel_testkit::form_kernels::{
    ROWS, alloc, dtype_for, global_index, per_register, per_thread_launch, tensor_of,
};

/// Threads a block: two warps.
pub const BLOCK: u32 = 64;

/// Lanes a warp.
const LANES: usize = 32;

/// The warp forms: those waiting for scopes. The matrix collectives
/// (`mma`, `ldmatrix`, `stmatrix`) have a harness of their own
/// (`tests/tensor_cores.rs`).
pub fn forms() -> impl Iterator<Item = &'static InstructionForm> {
    FORMS.iter().filter(|f| {
        f.usable == Usability::NeedsScope && !matches!(f.mnemonic, "mma" | "ldmatrix" | "stmatrix")
    })
}

/// A variant's opcode with its operands (`shfl.sync.up.b32 d|p, a, b,
/// c, membermask`): two forms share each of `shfl.sync`'s and
/// `match.all.sync`'s opcodes.
pub fn label(m: &Modifiers) -> String {
    let mut text = m.opcode_text();
    for (k, op) in m.operands().iter().enumerate() {
        let join = match (k, op.after_pipe) {
            (_, true) => "|",
            (0, false) => " ",
            _ => ", ",
        };
        text.push_str(join);
        text.push_str(op.name);
    }
    text
}

/// One case per legal variant of every warp form.
pub fn enumerate(config: &Config) -> (usize, Vec<Case>, Skips) {
    let mut cases = Vec::new();
    let mut skips = Skips::default();
    let mut variants = 0;
    for form in forms() {
        for m in legal_variants(form) {
            let text = m.opcode_text();
            if !config.filter.is_empty() && !config.filter.iter().any(|w| text.contains(w.as_str()))
            {
                continue;
            }
            variants += 1;
            let target = match h200_target(&m) {
                Ok(target) => target,
                Err(why) => {
                    skips.add(why, text);
                    continue;
                }
            };
            cases.push(Case {
                label: label(&m),
                variant: m,
                family: Family::Compute,
                target,
                choices: Choices::default(),
                rows: config.warp_rows,
                shared: false,
                block: BLOCK,
                warp: true,
            });
        }
    }
    (variants, cases, skips)
}

/// A variant's kernel: the patched program, its PTX, and what each
/// tensor parameter is for.
pub struct WarpKernel {
    pub program: Program,
    pub ptx: String,
    pub roles: Vec<TensorRole>,
}

/// The tile of operand `i`.
fn tile(i: usize) -> String {
    format!("r{i}")
}

/// The tile `bar.warp.sync`'s kernel copies the membermask into.
const ECHO: &str = "echo";

/// The statements that stand in for the collective `m` (by operand
/// name, `t` giving the tile): usable forms that read every source
/// and write every destination of the collective. The first becomes
/// the collective, the rest are removed.
fn placeholders(m: &Modifiers, t: &dyn Fn(&str) -> Operand) -> Result<Vec<Stmt>, String> {
    let wide = m.ty(Slot::Type).is_some_and(|ty| ty.carrier_bits() == 64);
    // d from a (and the membermask).
    let d_from_a = || {
        if wide {
            vec![
                apply("cvt.u32.u64", vec![t("d"), t("a")]),
                apply("xor.b32", vec![t("d"), t("d"), t("membermask")]),
            ]
        } else {
            vec![apply("xor.b32", vec![t("d"), t("a"), t("membermask")])]
        }
    };
    Ok(match m.form.id {
        "shfl.sync" => vec![
            apply(
                "lop3.b32",
                vec![t("d"), t("a"), t("b"), t("c"), literal(0x96)],
            ),
            apply("xor.b32", vec![t("d"), t("d"), t("membermask")]),
        ],
        "shfl.sync.pred" => vec![
            apply(
                "lop3.b32",
                vec![t("d"), t("a"), t("b"), t("c"), literal(0x96)],
            ),
            apply("setp.ne.u32", vec![t("p"), t("d"), t("membermask")]),
        ],
        "vote.sync" => vec![apply(
            "setp.ne.and.u32",
            vec![t("d"), t("membermask"), literal(0), t("a")],
        )],
        "vote.sync.ballot" => vec![apply(
            "selp.b32",
            vec![t("d"), t("membermask"), t("membermask"), t("a")],
        )],
        "match.sync" | "redux.sync" | "redux.sync.bitwise" => d_from_a(),
        "match.sync.all-pred" => {
            let mut statements = d_from_a();
            statements.push(apply("setp.ne.u32", vec![t("p"), t("d"), literal(0)]));
            statements
        }
        "elect.sync" => vec![
            apply("mov.b32", vec![t("d"), t("membermask")]),
            apply("setp.ne.u32", vec![t("p"), t("membermask"), literal(0)]),
        ],
        "activemask" => vec![apply("mov.b32", vec![t("d"), literal(0)])],
        "bar.warp.sync" => vec![apply("mov.b32", vec![t(ECHO), t("membermask")])],
        other => {
            return Err(format!(
                "no placeholder statements for the warp form `{other}`: add them to warp::placeholders"
            ));
        }
    })
}

/// Row `i` of the `[N, 1]` tensor `t`, as one register.
fn row(t: &str) -> Operand {
    place(
        t,
        vec![
            ViewKind::Slice(vec![
                SliceItem::Index {
                    index: name("i"),
                    span: S,
                },
                SliceItem::range(None, None, 1, S),
            ]),
            ViewKind::Reshape(vec![1, 1]),
        ],
    )
}

fn rows_param(t: &str, dtype: DType) -> tile_kernel_lowering::ast::Param {
    tensor_of(
        t,
        dtype,
        vec![
            Dim {
                expr: name(ROWS),
                span: S,
            },
            Dim::constant(1, S),
        ],
    )
}

/// The kernel of collective `m` (entry `entry`), compiled with
/// placeholders and patched.
pub fn kernel(entry: &str, m: &Modifiers, target: Target) -> Result<WarpKernel, String> {
    let operands = m.operands();
    let mut params = Vec::new();
    let mut roles = Vec::new();
    let mut allocs = Vec::new();
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    let store = |io: &str, r: &str, dtype: DType, predicate: bool, out: &mut Vec<Stmt>| {
        if predicate {
            let staged = format!("{r}_u32");
            out.push(apply(
                "selp.u32",
                vec![
                    per_register(&staged, 1),
                    literal(1),
                    literal(0),
                    per_register(r, 1),
                ],
            ));
            out.push(apply(
                "st.global.b32",
                vec![row(io), per_register(&staged, 1)],
            ));
        } else {
            out.push(apply(
                &format!("st.global.b{}", dtype.bits()),
                vec![row(io), per_register(r, 1)],
            ));
        }
    };
    for (i, op) in operands.iter().enumerate() {
        if !matches!(op.kind, OperandKind::Register | OperandKind::Predicate) || op.lanes != 1 {
            return Err(format!(
                "operand `{}` of `{}` is not one register",
                op.name,
                label(m)
            ));
        }
        let dtype = dtype_for(op.ty)
            .ok_or_else(|| format!("no tile dtype carries `.{}`", op.ty.token()))?;
        let predicate = dtype == DType::Bool;
        let carrier = if predicate {
            DType::U32
        } else {
            dtype.bit_container()
        };
        let r = tile(i);
        allocs.push(alloc(&r, dtype, 1));
        if predicate {
            allocs.push(alloc(&format!("{r}_u32"), DType::U32, 1));
        }
        let io = format!("io{i}");
        params.push(rows_param(&io, carrier));
        let read = op.access == Access::Read;
        roles.push(TensorRole {
            operand: i,
            role: if read {
                Role::Source
            } else {
                Role::Destination
            },
            dtype: carrier,
            lanes: 1,
            per_row: true,
            predicate,
        });
        if !read {
            store(&io, &r, dtype, predicate, &mut stores);
        } else if predicate {
            let staged = format!("{r}_u32");
            loads.push(apply(
                "ld.global.b32",
                vec![per_register(&staged, 1), row(&io)],
            ));
            loads.push(apply(
                "setp.ne.u32",
                vec![per_register(&r, 1), per_register(&staged, 1), literal(0)],
            ));
        } else {
            loads.push(apply(
                &format!("ld.global.b{}", dtype.bits()),
                vec![per_register(&r, 1), row(&io)],
            ));
        }
    }
    let index = |n: &str| operands.iter().position(|o| o.name == n);
    // `bar.warp.sync` writes nothing: the kernel stores a copy of the
    // membermask made after it.
    let mut after = Vec::new();
    if m.form.id == "bar.warp.sync" {
        let membermask = index("membermask").ok_or("bar.warp.sync without a membermask")?;
        allocs.push(alloc(ECHO, DType::U32, 1));
        params.push(rows_param("io_echo", DType::U32));
        roles.push(TensorRole {
            operand: membermask,
            role: Role::Destination,
            dtype: DType::U32,
            lanes: 1,
            per_row: true,
            predicate: false,
        });
        after.push(apply(
            "mov.b32",
            vec![
                place(ECHO, Vec::new()),
                place(&tile(membermask), Vec::new()),
            ],
        ));
        store("io_echo", ECHO, DType::U32, false, &mut stores);
    }
    let missing = std::cell::RefCell::new(Vec::new());
    let t = |n: &str| match (n, index(n)) {
        (ECHO, _) => place(ECHO, Vec::new()),
        (_, Some(i)) => place(&tile(i), Vec::new()),
        (_, None) => {
            missing.borrow_mut().push(n.to_string());
            place(n, Vec::new())
        }
    };
    let stand_ins = placeholders(m, &t)?;
    if !missing.borrow().is_empty() {
        return Err(format!(
            "the placeholders of `{}` name operands it lacks: {:?}",
            label(m),
            missing.borrow()
        ));
    }
    let first = loads.len() + 1;
    let opcodes: Vec<String> = stand_ins
        .iter()
        .map(|s| match s {
            Stmt::Apply(a) => a.opcode.clone(),
            _ => String::new(),
        })
        .collect();
    let mut work = loads;
    work.extend(stand_ins);
    work.extend(after);
    work.extend(stores);
    let mut body = vec![global_index("i", BLOCK)];
    body.extend(allocs);
    body.push(Stmt::If(If {
        cond: binary(BinOp::Lt, name("i"), name(ROWS)),
        then: work,
        otherwise: Vec::new(),
        span: S,
    }));
    let kernel = Kernel {
        name: entry.to_string(),
        name_span: S,
        launch: per_thread_launch(ROWS, BLOCK),
        target,
        params,
        body,
    };
    let compilation = compile(&kernel);
    let Some(mut program) = compilation
        .program
        .filter(|_| compilation.diagnostics.is_empty())
    else {
        return Err(format!(
            "the placeholder kernel does not compile cleanly: {}",
            compilation
                .diagnostics
                .iter()
                .map(|d| d.rendered())
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    };
    patch(&mut program, m, first, &opcodes)?;
    let ptx = emit(&program);
    Ok(WarpKernel {
        program,
        ptx,
        roles,
    })
}

/// Keeps the statements of `nodes` (at any depth) for which `keep`
/// holds, after it has seen (and possibly rewritten) them.
fn retain_statements(nodes: &mut Vec<Node>, keep: &mut dyn FnMut(&mut Statement) -> bool) {
    nodes.retain_mut(|node| match node {
        Node::Statement(s) => keep(s),
        Node::If {
            then, otherwise, ..
        } => {
            retain_statements(then, keep);
            retain_statements(otherwise, keep);
            true
        }
        Node::Loop { body, .. } => {
            retain_statements(body, keep);
            true
        }
        Node::Define(_) => true,
    });
}

/// Replaces placeholder statement `first` (of `opcodes.len()`) by the
/// collective `m` over the operand tiles, removes the other
/// placeholders, and raises the PTX version to the collective's.
fn patch(
    program: &mut Program,
    m: &Modifiers,
    first: usize,
    opcodes: &[String],
) -> Result<(), String> {
    let mut operands = Vec::new();
    for (i, op) in m.operands().iter().enumerate() {
        let name = tile(i);
        let t = program
            .tiles
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| format!("no tile `{name}` in the program"))?;
        // The flags as lowering sets them from the
        // form's resolved operand (`lower.rs`).
        operands.push(OperandValue::Registers {
            lanes: vec![Lane {
                tile: t,
                byte_offset: 0,
                bytes: program.tiles[t].dtype.size_bytes(),
            }],
            write: op.access == Access::Write,
            braced: op.braced,
            piped: op.piped,
            after_pipe: op.after_pipe,
            own_braces: op.own_braces,
        });
    }
    let opcode = m.opcode_text();
    let mut seen = Vec::new();
    let mut problems = Vec::new();
    let range = first..first + opcodes.len();
    retain_statements(&mut program.body, &mut |s: &mut Statement| {
        if !range.contains(&s.number) {
            return true;
        }
        seen.push(s.number);
        let expected = &opcodes[s.number - first];
        if s.opcode != *expected || s.instructions.len() != 1 {
            problems.push(format!(
                "statement {} is `{}` with {} instruction(s), not the placeholder `{expected}`",
                s.number,
                s.opcode,
                s.instructions.len()
            ));
            return true;
        }
        if s.number != first {
            return false;
        }
        s.opcode = opcode.clone();
        s.variant = m.id();
        s.instructions = vec![Instruction {
            operands: operands.clone(),
        }];
        true
    });
    if seen != range.clone().collect::<Vec<_>>() {
        problems.push(format!(
            "placeholder statements {range:?} expected, found {seen:?}"
        ));
    }
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    program.ptx_version = program.ptx_version.max(m.requirement(program.target).ptx);
    Ok(())
}

// -----------------------------------------------------------------
// Inputs

/// How the 32 lanes of a warp split into membermask groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Partition {
    /// One group: `0xffffffff`.
    Full,
    /// Aligned groups of this many lanes (16: `0x0000ffff` for lanes
    /// 0-15, `0xffff0000` for 16-31).
    Groups(u32),
    /// Even lanes (`0x55555555`) and odd lanes (`0xaaaaaaaa`).
    EvenOdd,
    /// Every lane in one of this many random groups (not for `shfl`).
    Random(u32),
}

impl Partition {
    /// Each lane's membermask.
    fn masks(self, rng: &mut Rng) -> [u32; LANES] {
        let mut masks = [0u32; LANES];
        match self {
            Partition::Full => masks = [u32::MAX; LANES],
            Partition::Groups(g) => {
                let group = mask(g) as u32;
                for (lane, m) in masks.iter_mut().enumerate() {
                    *m = group << (lane as u32 / g * g);
                }
            }
            Partition::EvenOdd => {
                for (lane, m) in masks.iter_mut().enumerate() {
                    *m = if lane % 2 == 0 {
                        0x5555_5555
                    } else {
                        0xaaaa_aaaa
                    };
                }
            }
            Partition::Random(k) => {
                let group: Vec<usize> = (0..LANES).map(|_| rng.below(k as usize)).collect();
                for (lane, m) in masks.iter_mut().enumerate() {
                    *m = (0..LANES)
                        .filter(|&l| group[l] == group[lane])
                        .fold(0, |acc, l| acc | 1 << l);
                }
            }
        }
        masks
    }

    /// The lane-number bits that tell the groups apart, for aligned
    /// groups (a `shfl.sync` segment inside one group fixes them).
    fn group_bits(self) -> u32 {
        match self {
            Partition::Groups(g) => 0x1f & !(g - 1),
            _ => 0,
        }
    }

    fn text(self) -> String {
        match self {
            Partition::Full => "membermask 0xffffffff".into(),
            Partition::Groups(16) => "membermask per half".into(),
            Partition::Groups(g) => format!("membermask per {g} lanes"),
            Partition::EvenOdd => "membermask even/odd lanes".into(),
            Partition::Random(k) => format!("membermask: {k} random groups"),
        }
    }
}

/// The partitions of everything but `shfl.sync`.
const PARTITIONS: &[Partition] = &[
    Partition::Full,
    Partition::Groups(16),
    Partition::Groups(8),
    Partition::Groups(4),
    Partition::Groups(1),
    Partition::EvenOdd,
    Partition::Random(3),
    Partition::Random(7),
];

/// The partitions of `shfl.sync`.
const SHFL_PARTITIONS: &[Partition] = &[
    Partition::Full,
    Partition::Groups(16),
    Partition::Groups(8),
    Partition::EvenOdd,
];

/// A partition for a warp after the systematic ones: full half the
/// time.
fn some_partition(list: &[Partition], rng: &mut Rng) -> Partition {
    if rng.below(2) == 0 {
        Partition::Full
    } else {
        list[rng.below(list.len())]
    }
}

/// The sources of every lane of one warp, by operand name (a variant
/// reads those it has), and what they exercise.
pub struct WarpInputs {
    pub a: [u64; LANES],
    pub b: [u64; LANES],
    pub c: [u64; LANES],
    pub membermask: [u64; LANES],
    pub note: String,
}

impl WarpInputs {
    /// Draws the membermasks of `partition`.
    fn set_masks(&mut self, partition: Partition, rng: &mut Rng) -> [u32; LANES] {
        let masks = partition.masks(rng);
        for (m, mask) in self.membermask.iter_mut().zip(masks) {
            *m = u64::from(mask);
        }
        masks
    }

    pub fn get(&self, operand: &str) -> Option<&[u64; LANES]> {
        match operand {
            "a" => Some(&self.a),
            "b" => Some(&self.b),
            "c" => Some(&self.c),
            "membermask" => Some(&self.membermask),
            _ => None,
        }
    }
}

/// `c` of CUDA's `__shfl*_sync(mask, var, lane, width)`: the segment
/// mask `32 - width` in bits 12:8 and the clamp, 0 for `up` and 31
/// for the other modes.
pub fn cuda_c(mode: &str, width: u32) -> u32 {
    let clamp = if mode == "up" { 0 } else { 0x1f };
    ((32 - width) << 8) | clamp
}

/// How a warp's `shfl.sync` `c` is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShflC {
    /// CUDA's `c` for this width, for every lane.
    Width(u32),
    /// One random `c` for the warp, with random bits outside the
    /// segment mask and clamp fields.
    Random,
    /// A random segment mask and clamp for every lane.
    PerLane,
}

/// (partition, c) pairs the first warps go through.
fn shfl_combos() -> Vec<(Partition, ShflC)> {
    let mut out = Vec::new();
    for &p in SHFL_PARTITIONS {
        let largest = match p {
            Partition::Groups(g) => g,
            _ => 32,
        };
        for width in [32, 16, 8, 4, 2, 1] {
            if width <= largest {
                out.push((p, ShflC::Width(width)));
            }
        }
        out.push((p, ShflC::Random));
        out.push((p, ShflC::PerLane));
    }
    out
}

/// Lane offsets, source lanes and xor masks: in range, at the edges,
/// and beyond 31 (only `b[4:0]` counts).
const SHFL_B: &[u32] = &[
    1,
    16,
    5,
    31,
    2,
    8,
    0,
    3,
    4,
    7,
    9,
    15,
    17,
    23,
    24,
    30,
    32,
    33,
    47,
    63,
    64,
    0x7fff_ffff,
    0x8000_0001,
    0xffff_fff0,
    0xffff_ffff,
];

/// `b` made legal for `partition`: a lane never reads, in range, a
/// lane outside its group.
///
/// - Aligned groups: `c`'s segment mask covers the group bits
///   ([`shfl_c`]), so `up`, `down` and `idx` stay inside the group;
///   `bfly` may still reach an earlier group unless `b[4:0]` leaves
///   the group bits alone.
/// - Even/odd lanes: `up`, `down` and `bfly` keep the parity with an
///   even `b`; `idx` reads lane `b[4:0]` (with the lane's own bits
///   under the segment mask), so `b` gets the lane's parity.
fn shfl_b(mode: &str, partition: Partition, lane: u32, b: u32) -> u32 {
    match (partition, mode) {
        (Partition::Groups(_), "bfly") => b & !partition.group_bits(),
        (Partition::EvenOdd, "idx") => (b & !1) | (lane & 1),
        (Partition::EvenOdd, _) => b & !1,
        _ => b,
    }
}

/// `c` made legal for `partition`: the segment mask covers the group
/// bits.
fn shfl_c(partition: Partition, c: u32) -> u32 {
    c | partition.group_bits() << 8
}

/// The inputs of warp `w` of a case of variant `m`.
pub fn warp_inputs(m: &Modifiers, w: usize, rng: &mut Rng) -> WarpInputs {
    let mut inputs = WarpInputs {
        a: [0; LANES],
        b: [0; LANES],
        c: [0; LANES],
        membermask: [0; LANES],
        note: String::new(),
    };
    let id = m.form.id;
    if id.starts_with("shfl") {
        shfl_warp(m.get(Slot::Mode).unwrap_or("idx"), w, rng, &mut inputs)
    } else if id.starts_with("vote") {
        vote_warp(w, rng, &mut inputs)
    } else if id.starts_with("match") {
        let bits = m.ty(Slot::Type).map_or(32, |t| t.carrier_bits() as u32);
        match_warp(bits, w, rng, &mut inputs)
    } else if id.starts_with("redux") {
        redux_warp(w, rng, &mut inputs)
    } else {
        // elect.sync, bar.warp.sync, activemask: the membermask only.
        let partition = if w < PARTITIONS.len() * 2 {
            PARTITIONS[w % PARTITIONS.len()]
        } else {
            some_partition(PARTITIONS, rng)
        };
        inputs.set_masks(partition, rng);
        inputs.note = partition.text();
    }
    if id == "activemask" {
        inputs.note = "every lane executes".into();
    }
    inputs
}

/// `shfl.sync` (`mode`): systematic (partition, c) pairs, first with
/// random `b` per lane, then with each of [`SHFL_B`] for the warp;
/// random `a` whose low byte is the lane (which lane a result came
/// from shows in the reports).
fn shfl_warp(mode: &str, w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
    let combos = shfl_combos();
    let n = combos.len();
    let systematic = n * (1 + SHFL_B.len());
    let ((partition, c_kind), uniform_b) = if w < n {
        (combos[w], None)
    } else if w < systematic {
        let k = w - n;
        // Every b with every combo over the systematic stretch.
        (combos[k % n], Some(SHFL_B[(k / n + k % n) % SHFL_B.len()]))
    } else {
        let partition = some_partition(SHFL_PARTITIONS, rng);
        let fitting: Vec<(Partition, ShflC)> = combos
            .iter()
            .copied()
            .filter(|(p, _)| *p == partition)
            .collect();
        let combo = fitting[rng.below(fitting.len())];
        let b = (rng.below(2) == 0).then(|| SHFL_B[rng.below(SHFL_B.len())]);
        (combo, b)
    };
    let segment = match c_kind {
        ShflC::Width(width) => width as usize,
        _ => LANES,
    };
    let warp_c = match c_kind {
        ShflC::Width(width) => cuda_c(mode, width),
        ShflC::Random => rng.next_u64() as u32,
        ShflC::PerLane => 0,
    };
    for lane in 0..LANES {
        let l = lane as u32;
        inputs.a[lane] = u64::from((rng.next_u64() as u32 & !0xff) | l);
        // Mostly offsets within the segment (which land in range
        // most often).
        let b = uniform_b.unwrap_or_else(|| match rng.below(4) {
            0 | 1 => rng.below(segment) as u32,
            2 => rng.below(64) as u32,
            _ => rng.next_u64() as u32,
        });
        inputs.b[lane] = u64::from(shfl_b(mode, partition, l, b));
        let c = match c_kind {
            // `up` counts from the clamp upwards: mostly clamp 0.
            ShflC::PerLane if mode == "up" && rng.below(4) != 0 => rng.next_u64() as u32 & 0x1f00,
            ShflC::PerLane => rng.next_u64() as u32 & 0x1f1f,
            _ => warp_c,
        };
        inputs.c[lane] = u64::from(shfl_c(partition, c));
    }
    let c_text = match c_kind {
        ShflC::Width(width) => format!("width {width} (c {:#x})", shfl_c(partition, warp_c)),
        ShflC::Random => format!("c {:#x}", shfl_c(partition, warp_c)),
        ShflC::PerLane => "random c per lane".into(),
    };
    let b_text = match uniform_b {
        Some(b) => format!("b {b:#x}"),
        None => "random b per lane".into(),
    };
    inputs.note = format!("{}, {c_text}, {b_text}", partition.text());
    inputs.set_masks(partition, rng);
}

/// The systematic (partition, pattern) of warp `w` with `patterns`
/// patterns, then random ones.
fn pick(w: usize, patterns: usize, rng: &mut Rng) -> (Partition, usize) {
    let combos = PARTITIONS.len() * patterns;
    if w < combos {
        (PARTITIONS[w % PARTITIONS.len()], w / PARTITIONS.len())
    } else {
        (some_partition(PARTITIONS, rng), rng.below(patterns))
    }
}

/// A value per group of lanes sharing a membermask.
fn per_group(masks: &[u32; LANES], mut value: impl FnMut() -> u64) -> [u64; LANES] {
    let mut by_mask: BTreeMap<u32, u64> = BTreeMap::new();
    std::array::from_fn(|lane| *by_mask.entry(masks[lane]).or_insert_with(&mut value))
}

/// `vote.sync`: predicates all true, all false, random, one true, one
/// false, the same within each group, or rarely true.
fn vote_warp(w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
    const PATTERNS: &[&str] = &[
        "all true",
        "all false",
        "random",
        "one true",
        "one false",
        "uniform per group",
        "1 in 8 true",
    ];
    let (partition, pattern) = pick(w, PATTERNS.len(), rng);
    let masks = inputs.set_masks(partition, rng);
    let special = rng.below(LANES);
    let group = per_group(&masks, || rng.next_u64() & 1);
    for (lane, a) in inputs.a.iter_mut().enumerate() {
        *a = match pattern {
            0 => 1,
            1 => 0,
            2 => rng.next_u64() & 1,
            3 => u64::from(lane == special),
            4 => u64::from(lane != special),
            5 => group[lane],
            _ => u64::from(rng.below(8) == 0),
        };
    }
    inputs.note = format!("{}, predicates {}", partition.text(), PATTERNS[pattern]);
}

/// `match.sync`: values from a small set (differing in one low bit, in
/// the sign bit, or, for `.b64`, only in the high half), all equal,
/// all different, or the same within each group (but one).
fn match_warp(bits: u32, w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
    const PATTERNS: &[&str] = &[
        "all equal",
        "2 values",
        "4 values",
        "all different",
        "one value per group",
        "one value per group but one lane",
    ];
    let (partition, pattern) = pick(w, PATTERNS.len(), rng);
    let masks = inputs.set_masks(partition, rng);
    let base = rng.next_u64() & mask(bits);
    let set: Vec<u64> = if bits == 64 {
        vec![
            base,
            base ^ 1 << 32,
            base ^ 1,
            base ^ 1 << 63,
            base ^ 0xffff_ffff << 32,
        ]
    } else {
        vec![base, base ^ 1, base ^ 0x8000_0000, base ^ 0xffff_0000]
    };
    let mut pool = set.clone();
    let group = per_group(&masks, || {
        let v = pool[rng.below(pool.len())];
        pool.retain(|x| *x != v);
        if pool.is_empty() {
            pool = set.clone();
        }
        v
    });
    let odd = rng.below(LANES);
    for (lane, a) in inputs.a.iter_mut().enumerate() {
        *a = match pattern {
            0 => base,
            1 => set[rng.below(2)],
            2 => set[rng.below(4)],
            3 => rng.next_u64() & mask(bits),
            4 => group[lane],
            _ if lane == odd => group[lane] ^ 1 << (bits - 1),
            _ => group[lane],
        };
    }
    inputs.note = format!("{}, values {}", partition.text(), PATTERNS[pattern]);
}

/// Integer extremes and bit patterns for `redux.sync`.
const EXTREMES: &[u64] = &[
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_ffff,
    0xffff_fffe,
    0x5555_5555,
    0xaaaa_aaaa,
    0x0000_ffff,
    0xffff_0000,
];

/// `redux.sync`: random values, extremes (`i32::MIN`/`MAX`,
/// `u32::MAX`, ..), one extreme for every lane (sums that wrap), small
/// values of both signs, or one bit per lane.
fn redux_warp(w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
    const PATTERNS: &[&str] = &[
        "random",
        "extremes",
        "one extreme for all",
        "small, both signs",
        "one random bit",
    ];
    let (partition, pattern) = pick(w, PATTERNS.len(), rng);
    inputs.set_masks(partition, rng);
    let all = EXTREMES[rng.below(EXTREMES.len())];
    for a in inputs.a.iter_mut() {
        *a = match pattern {
            0 => rng.next_u64() & 0xffff_ffff,
            1 => rng.pick(EXTREMES),
            2 => all,
            3 => u64::from((rng.below(9) as i32 - 4) as u32),
            _ => 1 << rng.below(32),
        };
    }
    let all_text = if pattern == 2 {
        format!(" ({all:#x})")
    } else {
        String::new()
    };
    inputs.note = format!(
        "{}, values {}{all_text}",
        partition.text(),
        PATTERNS[pattern]
    );
}

/// Builds a warp case: the kernel, the inputs of every warp, and the
/// interpreter's run.
pub fn build(built: &mut Built, case: &Case, smoke: bool) {
    let kernel = match kernel(&built.entry, &case.variant, case.target) {
        Ok(kernel) => kernel,
        Err(e) => {
            built.error = Some(e);
            return;
        }
    };
    built.roles = kernel.roles;
    built.written = kernel
        .program
        .params
        .iter()
        .map(|p| {
            matches!(
                p.kind,
                ParamKind::Tensor {
                    borrow: tile_kernel_lowering::program::Borrow::Exclusive,
                    ..
                }
            )
        })
        .collect();
    built.checks = checks_for(case, &built.roles);
    let mut rng = Rng::from_label(&case.label);
    let warps: Vec<WarpInputs> = (0..case.rows.div_ceil(LANES))
        .map(|w| warp_inputs(&case.variant, w, &mut rng))
        .collect();
    built.inputs = input_bytes(&case.variant, &built.roles, case.rows, &|name, r| {
        warps[r / LANES]
            .get(name)
            .map_or(0, |lanes| lanes[r % LANES])
    });
    built.warp_notes = warps.into_iter().map(|w| w.note).collect();
    built.program = Some(kernel.program.clone());
    built.ptx = Some(kernel.ptx);
    interpret(built, case, kernel.program, smoke);
}

/// The initial bytes of every tensor (empty for outputs): row `r` of a
/// source operand named `name` holds `value(name, r)`.
fn input_bytes(
    m: &Modifiers,
    roles: &[TensorRole],
    rows: usize,
    value: &dyn Fn(&str, usize) -> u64,
) -> Vec<Vec<u8>> {
    let operands = m.operands();
    roles
        .iter()
        .map(|role| {
            if role.role != Role::Source {
                return Vec::new();
            }
            let size = role.dtype.size_bytes();
            let name = operands[role.operand].name;
            (0..rows)
                .flat_map(|r| value(name, r).to_le_bytes()[..size].to_vec())
                .collect()
        })
        .collect()
}

/// The variant `opcode` of warp form `form`.
pub fn variant(form: &str, opcode: &str) -> Modifiers {
    let f = forms()
        .find(|f| f.id == form)
        .unwrap_or_else(|| panic!("no warp form `{form}`"));
    legal_variants(f)
        .into_iter()
        .find(|m| m.opcode_text() == opcode)
        .unwrap_or_else(|| panic!("`{opcode}` is not a variant of `{form}`"))
}

/// Runs `opcode` of form `form` on the interpreter over `rows` threads
/// (blocks of [`BLOCK`], `i < rows` executing) whose sources are
/// `value(operand, row)`; returns each destination's rows by operand
/// name, or the interpreter's fault.
pub fn interpret_rows(
    form: &str,
    opcode: &str,
    rows: usize,
    value: impl Fn(&str, usize) -> u64,
) -> Result<BTreeMap<&'static str, Vec<u64>>, String> {
    let m = variant(form, opcode);
    let kernel = kernel("hand", &m, Target::SM_90).unwrap_or_else(|e| panic!("{e}"));
    let inputs = input_bytes(&m, &kernel.roles, rows, &value);
    let memories: Vec<Vec<AtomicU8>> = kernel
        .roles
        .iter()
        .zip(&inputs)
        .map(|(role, input)| {
            let bytes = if input.is_empty() {
                vec![INTERP_SENTINEL; rows * role.row_bytes()]
            } else {
                input.clone()
            };
            bytes.into_iter().map(AtomicU8::new).collect()
        })
        .collect();
    let args: Vec<Arg<'_>> = memories.iter().map(|m| Arg::Tensor(m)).collect();
    let prepared = Prepared::new(kernel.program).map_err(|e| e.to_string())?;
    prepared
        .run(
            [(rows as u32).div_ceil(BLOCK), 1, 1],
            &args,
            &[rows as u64],
            &RunOptions::default(),
        )
        .map_err(|fault| fault.to_string())?;
    let operands = m.operands();
    Ok(kernel
        .roles
        .iter()
        .zip(memories)
        .filter(|(role, _)| role.role == Role::Destination)
        .map(|(role, memory)| {
            let bytes: Vec<u8> = memory.into_iter().map(AtomicU8::into_inner).collect();
            let size = role.dtype.size_bytes();
            let name = if operands[role.operand].access == Access::Read {
                ECHO
            } else {
                operands[role.operand].name
            };
            (name, (0..rows).map(|r| element(&bytes, r, size)).collect())
        })
        .collect())
}
