//! Scopes and shared memory in near-legal kernels.
//!
//! Half the near-legal kernels also declare warp tiles `w: u32 [32, 2]` and
//! `wp: bool [32, 1]`, CTA tiles `g: u32 [T, 1]` and `gp: bool [T, 1]` (or
//! `[T / 32, 32, 1]`), and/or a shared buffer `sh: f32 [L]` (a constant `L`,
//! a static buffer; or, in about a third of them, tame ones too, `[N]`,
//! `{2 * N}` or `{N + 1}`: the kernel's dynamic buffer, sized at launch from
//! the size symbol `N` of the tensor dims), and use them:
//! warp collectives (member mask omitted), scoped applies, own parts
//! (`w.slice(s![lane_id(), ..])`), CTA barriers, `.shared` loads, stores
//! and atomics, under uniform and divergent `if`s, loops and `pred`s.
//! Choices are bytes decoded by [`pick`], whose first entry is the legal
//! one, so a failure shrinks towards a legal kernel; the other entries are
//! mutations (wrong extents and scopes, unknown scope names, per-thread
//! tiles in scoped applies, explicit member masks, global forms on shared
//! buffers, absurd blocks and buffers, dynamic extents that name no size
//! symbol (`n`, `tt`) or divide `N` where no dim requires it, a second
//! dynamic buffer) that the checker must reject or prove.
//!
//! Shared memory starts undefined, and the interpreter faults on a read of a
//! never-written byte (the checker does not track that, by design), so a
//! kernel with a shared buffer first has every thread store `0.0` to its
//! slots `j * T + tt` (all of the buffer; for a dynamic buffer, whose
//! length `shn` is known only at launch, a grid-stride loop
//! `for si in (tt..shn).step_by(T)` or the cyclic `si = j * T + tt` of a
//! runtime loop over `j`), then a barrier: a fault of a compiled
//! kernel stays a hole in a proof. The interpreter runs them with dynamic
//! buffers of a few KiB, far below the 227 KiB of shared memory a block may
//! have (and refuses the one launch per kernel that asks for more).

use super::*;

/// Which of the scoped features a near-legal kernel declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Features {
    /// `w`, `wp` (warp tiles), `g`, `gp` (CTA tiles).
    pub(crate) warp: bool,
    /// `sh` (a shared buffer) and `shn` (its length).
    pub(crate) shared: bool,
    /// No mutations and no thread-dependent conditions around scoped
    /// statements: half the kernels with scopes, so that enough of them
    /// compile and run.
    pub(crate) tame: bool,
}

impl Features {
    pub(crate) fn any(self) -> bool {
        self.warp || self.shared
    }
}

/// [`pick`] from the first `legal` entries of `table` in a tame kernel,
/// from all of them (the rest are mutations) otherwise.
pub(crate) fn mutate<T: Clone>(
    features: Features,
    byte: u8,
    table: &[(u32, T)],
    legal: usize,
) -> T {
    if features.tame {
        pick(byte, &table[..legal])
    } else {
        pick(byte, table)
    }
}

/// The entry of `table` that `byte` selects, each entry with its weight.
/// Byte 0 selects the first entry (what shrinking goes to).
pub(crate) fn pick<T: Clone>(byte: u8, table: &[(u32, T)]) -> T {
    let total: u32 = table.iter().map(|(w, _)| w).sum();
    let mut at = u32::from(byte) * total / 256;
    for (weight, value) in table {
        if at < *weight {
            return value.clone();
        }
        at -= weight;
    }
    unreachable!("a weight table covers 0..256")
}

pub(crate) fn call0(func: &str) -> Expr {
    Expr::Call {
        func: func.to_string(),
        args: Vec::new(),
        span: SpanId(150),
    }
}

pub(crate) fn lane() -> Expr {
    call0("lane_id")
}

pub(crate) fn warp() -> Expr {
    call0("warp_id")
}

pub(crate) fn not(expr: Expr) -> Expr {
    Expr::Unary {
        op: UnOp::Not,
        expr: Box::new(expr),
        span: SpanId(151),
    }
}

pub(crate) fn lit(value: i128) -> Operand {
    build::literal(value)
}

pub(crate) fn flit(value: f64) -> Operand {
    Operand::Literal(Literal {
        value: LiteralValue::Float(value),
        span: SpanId(152),
    })
}

/// `..`
pub(crate) fn full() -> SliceItem {
    SliceItem::range(None, None, 1, SpanId(153))
}

/// `start..start + width`
pub(crate) fn span_item(start: Expr, width: i128) -> SliceItem {
    SliceItem::Range {
        start: Some(start.clone()),
        end: Some(binary(BinOp::Add, start, int(width))),
        step: 1,
        span: SpanId(154),
    }
}

pub(crate) fn index_item(index: Expr) -> SliceItem {
    SliceItem::Index {
        index,
        span: SpanId(155),
    }
}

pub(crate) fn viewed(base: &str, views: Vec<ViewKind>) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.to_string(),
        base_span: SpanId(156),
        views: views
            .into_iter()
            .map(|kind| ViewOp {
                kind,
                span: SpanId(157),
            })
            .collect(),
        span: SpanId(158),
    })
}

/// `w.slice(s![.., a..a + 1])` (or of `w.view::<f32>()`): one column of
/// the warp tile.
pub(crate) fn w_col(a: i128, f32_view: bool) -> Operand {
    let mut views = Vec::new();
    if f32_view {
        views.push(ViewKind::View(DType::F32));
    }
    views.push(ViewKind::Slice(vec![full(), span_item(int(a), 1)]));
    viewed("w", views)
}

/// `r.view::<u32>().slice(s![e])`: one register of `r` as `u32`.
pub(crate) fn r_u32(element: i128) -> Operand {
    viewed(
        "r",
        vec![
            ViewKind::View(DType::U32),
            ViewKind::Slice(vec![index_item(int(element))]),
        ],
    )
}

/// `r[e]` as `f32`.
pub(crate) fn r_f32(element: i128) -> Operand {
    viewed("r", vec![ViewKind::Slice(vec![index_item(int(element))])])
}

/// `sh.slice(s![at..at + width])`, reshaped to `[1, width]` when wider.
pub(crate) fn sh_at(at: Expr, width: i128, u32_view: bool) -> Operand {
    let mut views = vec![ViewKind::Slice(vec![span_item(at, width)])];
    if u32_view {
        views.push(ViewKind::View(DType::U32));
    }
    if width > 1 {
        views.push(ViewKind::Reshape(vec![1, width as i64]));
    }
    viewed("sh", views)
}

pub(crate) fn scoped_apply(
    opcode: &str,
    operands: Vec<Operand>,
    scope: Option<&str>,
    pred: Option<Expr>,
    preserve: bool,
) -> Stmt {
    let preserve = preserve && pred.is_some();
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: SpanId(159),
        operands,
        scope: scope.map(|s| (s.to_string(), SpanId(160))),
        pred,
        preserve_dst: preserve.then_some((true, SpanId(161))),
        zero_fill: None,
        span: SpanId(162),
    })
}

/// The scope of an `apply` whose own scope is `own`: mostly `own`, else
/// none, another scope or an unknown name.
pub(crate) fn apply_scope(features: Features, byte: u8, own: &'static str) -> Option<&'static str> {
    mutate(
        features,
        byte,
        &[
            (150, Some(own)),
            (2, None),
            (1, Some("thread")),
            (1, Some("warp")),
            (1, Some("cta")),
            (1, Some("warpgroup")),
            (1, Some("Warp")),
            (1, Some("")),
            (1, Some("lane")),
        ],
        1,
    )
}

/// A condition (for `pred` or `if`): uniform over the grid (all a tame
/// kernel uses), a warp, or differing between lanes.
pub(crate) fn scope_cond(features: Features, byte: u8) -> Expr {
    let lt = |lhs: Expr, c: i128| binary(BinOp::Lt, lhs, int(c));
    let eq = |lhs: Expr, c: i128| binary(BinOp::Eq, lhs, int(c));
    mutate(
        features,
        byte,
        &[
            (6, name("p")),
            (2, not(name("p"))),
            (3, lt(name("N"), 64)),
            (2, lt(name("n"), 4)),
            (3, lt(call("cta_id", 0), 2)),
            (1, eq(name("k"), 1)),
            (4, lt(warp(), 1)),
            (3, eq(warp(), 0)),
            (2, lt(lane(), 16)),
            (1, eq(lane(), 0)),
            (1, lt(call("thread_id", 0), 32)),
            (1, eq(call("thread_id", 1), 0)),
            (1, eq(call("thread_id", 2), 0)),
            (1, lt(name("tt"), 64)),
            (1, name("q")),
        ],
        6,
    )
}

/// A `pred` for a collective or barrier: mostly none.
pub(crate) fn scope_pred(features: Features, byte: u8, cond: u8) -> Option<Expr> {
    (byte >= 192).then(|| scope_cond(features, cond))
}

/// A warp collective on the warp tiles (`redux.sync`, `shfl.sync`,
/// `vote.sync`, `activemask`, `match`, `elect`, `bar.warp.sync`), member
/// mask omitted; mutations give the mask, use a per-thread tile, a thread's
/// own part or a CTA tile, or another scope.
pub(crate) fn collective(features: Features) -> impl Strategy<Value = Stmt> {
    any::<[u8; 8]>().prop_map(move |[kind, a, b, c, scope, pred, cond, mutation]| {
        let (d, s) = (i128::from(a % 2), i128::from(b % 2));
        let lane_mask = || {
            lit(mutate(
                features,
                c,
                &[
                    (4, 16),
                    (4, 1),
                    (2, 8),
                    (2, 4),
                    (2, 2),
                    (1, 0),
                    (1, 31),
                    (1, 32),
                    (1, -1),
                    (1, 1 << 40),
                ],
                7,
            ))
        };
        let (opcode, mut operands) = match kind % 16 {
            0 => ("redux.sync.max.u32", vec![w_col(d, false), w_col(s, false)]),
            1 => ("redux.sync.add.u32", vec![w_col(d, false), w_col(s, false)]),
            2 => ("redux.sync.or.b32", vec![w_col(d, false), w_col(s, false)]),
            3 | 4 => (
                "shfl.sync.bfly.b32",
                vec![w_col(d, false), w_col(s, false), lane_mask(), lit(0x1f)],
            ),
            5 => (
                "shfl.sync.idx.b32",
                vec![w_col(d, false), w_col(s, false), lane_mask(), lit(0x1f)],
            ),
            6 => (
                "shfl.sync.down.b32",
                vec![w_col(d, false), w_col(s, false), lit(1), lit(0x1f)],
            ),
            7 => (
                "shfl.sync.up.b32",
                vec![w_col(d, false), w_col(s, false), lit(1), lit(0)],
            ),
            // The source lane from a register.
            8 => (
                "shfl.sync.idx.b32",
                vec![
                    w_col(d, false),
                    w_col(s, false),
                    w_col(1 - s, false),
                    lit(0x1f),
                ],
            ),
            // `d|p`: whether the source lane was in range.
            9 => (
                "shfl.sync.down.b32",
                vec![
                    w_col(d, false),
                    viewed("wp", Vec::new()),
                    w_col(s, false),
                    lit(3),
                    lit(0x1f),
                ],
            ),
            10 => (
                "vote.sync.ballot.b32",
                vec![w_col(d, false), viewed("wp", Vec::new())],
            ),
            11 => (
                "vote.sync.any.pred",
                vec![viewed("wp", Vec::new()), viewed("wp", Vec::new())],
            ),
            12 => ("activemask.b32", vec![w_col(d, false)]),
            13 => ("match.any.sync.b32", vec![w_col(d, false), w_col(s, false)]),
            14 => (
                "elect.sync",
                vec![w_col(d, false), viewed("wp", Vec::new())],
            ),
            _ => ("bar.warp.sync", Vec::new()),
        };
        match mutate(
            features,
            mutation,
            &[(70, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6)],
            1,
        ) {
            // The member mask given explicitly.
            1 => operands.push(lit(0xffff_ffff)),
            2 => operands.push(pick(
                c,
                &[(1, lit(-1)), (1, lit(0xffff)), (1, w_col(0, false))],
            )),
            // A per-thread tile, a thread's own part, a CTA tile.
            3 if !operands.is_empty() => operands[0] = r_u32(0),
            4 if !operands.is_empty() => {
                let last = operands.len() - 1;
                operands[last.min(1)] = viewed(
                    "w",
                    vec![ViewKind::Slice(vec![
                        index_item(lane()),
                        span_item(int(s), 1),
                    ])],
                );
            }
            5 if !operands.is_empty() => operands[0] = viewed("g", Vec::new()),
            // The group axis narrowed to half a warp.
            6 if !operands.is_empty() => {
                operands[0] = viewed(
                    "w",
                    vec![ViewKind::Slice(vec![
                        SliceItem::range(Some(0), Some(16), 1, SpanId(163)),
                        span_item(int(d), 1),
                    ])],
                );
            }
            _ => {}
        }
        scoped_apply(
            opcode,
            operands,
            apply_scope(features, scope, "warp"),
            scope_pred(features, pred, cond),
            false,
        )
    })
}

/// `if wbase + width <= N { stmt }` (or the statement alone).
pub(crate) fn warp_guard(guard: bool, width: i128, stmt: Stmt) -> Stmt {
    if !guard {
        return stmt;
    }
    let end = binary(
        BinOp::Add,
        binary(BinOp::Mul, name("wbase"), int(width / 32)),
        int(width),
    );
    Stmt::If(If {
        cond: binary(BinOp::Le, end, name("N")),
        then: vec![stmt],
        otherwise: Vec::new(),
        span: SpanId(164),
    })
}

/// `x.slice(s![wbase * m..wbase * m + width]).reshape([rows, width / rows])`:
/// a warp's chunk of a tensor, `width / rows` elements per lane.
pub(crate) fn warp_chunk(tensor: &str, width: i128, rows: i64) -> Operand {
    let at = binary(BinOp::Mul, name("wbase"), int(width / 32));
    viewed(
        tensor,
        vec![
            ViewKind::Slice(vec![span_item(at, width)]),
            ViewKind::Reshape(vec![rows, width as i64 / rows]),
        ],
    )
}

/// Scoped applies that are not collectives (any `pred` allowed): warp-
/// and CTA-tile arithmetic, predicates, warp-scope global and shared
/// loads and stores (lane `l` at row `l`), and tensors of wrong leading
/// extents.
pub(crate) fn scoped_op(features: Features) -> impl Strategy<Value = Stmt> {
    (any::<[u8; 6]>(), near_pred()).prop_map(move |([kind, a, b, scope, guard, c], pred)| {
        let mut stmt = scoped_op_of(features, [kind, a, b, scope, guard, c], pred);
        if features.tame {
            keep_old_values(&mut stmt);
        }
        stmt
    })
}

/// `preserve_dst = true` on a predicated `apply` (also inside an `if`).
pub(crate) fn keep_old_values(stmt: &mut Stmt) {
    match stmt {
        Stmt::Apply(apply) if apply.pred.is_some() && !apply.opcode.starts_with("st.") => {
            apply.preserve_dst = Some((true, SpanId(168)));
        }
        Stmt::If(branch) => branch.then.iter_mut().for_each(keep_old_values),
        _ => {}
    }
}

pub(crate) fn scoped_op_of(features: Features, bytes: [u8; 6], pred: Option<Expr>) -> Stmt {
    {
        let [kind, a, b, scope, guard, c] = bytes;
        let (a, b) = (i128::from(a % 2), i128::from(b % 2));
        let guard = guard >= 48;
        let mut kind = mutate(
            features,
            kind,
            &[
                (3, 0),
                (4, 1),
                (4, 2),
                (4, 3),
                (3, 4),
                (4, 5),
                (2, 6),
                (3, 8),
                (3, 9),
                (3, 10),
                (3, 11),
                (1, 7),
                (1, 12),
                (1, 13),
            ],
            11,
        );
        if !features.shared && (kind == 10 || kind == 11) {
            kind = 1;
        }
        let warp_scope = apply_scope(features, scope, "warp");
        let cta_scope = apply_scope(features, scope, "cta");
        match kind {
            0 => scoped_apply(
                "mov.b32",
                vec![viewed("w", vec![ViewKind::Unsqueeze(-1)]), lit(0)],
                warp_scope,
                pred,
                true,
            ),
            1 => scoped_apply(
                "add.u32",
                vec![w_col(a, false), w_col(b, false), lit(1)],
                warp_scope,
                pred,
                false,
            ),
            2 => scoped_apply(
                "setp.lt.u32",
                vec![
                    viewed("wp", Vec::new()),
                    w_col(a, false),
                    lit(i128::from(c % 40)),
                ],
                warp_scope,
                pred,
                false,
            ),
            3 => warp_guard(
                guard,
                32,
                scoped_apply(
                    "ld.global.f32",
                    vec![w_col(a, true), warp_chunk("x", 32, 32)],
                    warp_scope,
                    pred,
                    true,
                ),
            ),
            4 => warp_guard(
                guard,
                32,
                scoped_apply(
                    "st.global.f32",
                    vec![warp_chunk("y", 32, 32), w_col(a, true)],
                    warp_scope,
                    pred,
                    false,
                ),
            ),
            5 => scoped_apply(
                "selp.u32",
                vec![w_col(a, false), lit(1), lit(0), viewed("wp", Vec::new())],
                warp_scope,
                pred,
                false,
            ),
            // Two elements per lane: a `v2` load.
            6 => warp_guard(
                guard,
                64,
                scoped_apply(
                    "ld.global.v2.f32",
                    vec![
                        viewed("w", vec![ViewKind::View(DType::F32)]),
                        warp_chunk("x", 64, 32),
                    ],
                    warp_scope,
                    pred,
                    false,
                ),
            ),
            // A chunk of 16 rows in a warp-scope apply.
            7 => warp_guard(
                guard,
                32,
                scoped_apply(
                    "ld.global.f32",
                    vec![w_col(a, true), warp_chunk("x", 32, 16)],
                    warp_scope,
                    pred,
                    false,
                ),
            ),
            8 => scoped_apply(
                if b == 0 { "mov.b32" } else { "add.u32" },
                if b == 0 {
                    vec![viewed("g", Vec::new()), lit(0)]
                } else {
                    vec![viewed("g", Vec::new()), viewed("g", Vec::new()), lit(1)]
                },
                cta_scope,
                pred,
                false,
            ),
            9 => scoped_apply(
                "setp.ne.u32",
                vec![viewed("gp", Vec::new()), viewed("g", Vec::new()), lit(0)],
                cta_scope,
                pred,
                false,
            ),
            // The warp's 32 slots of `sh`, lane `l` at slot `32 w + l`.
            10 | 11 => {
                let chunk = viewed(
                    "sh",
                    vec![
                        ViewKind::Slice(vec![span_item(binary(BinOp::Mul, warp(), int(32)), 32)]),
                        ViewKind::Reshape(vec![32, 1]),
                    ],
                );
                if kind == 10 {
                    scoped_apply(
                        "st.shared.f32",
                        vec![chunk, w_col(a, true)],
                        warp_scope,
                        pred,
                        false,
                    )
                } else {
                    scoped_apply(
                        "ld.shared.f32",
                        vec![w_col(a, true), chunk],
                        warp_scope,
                        pred,
                        true,
                    )
                }
            }
            // A per-thread tile in a scoped apply.
            12 => scoped_apply(
                "mov.f32",
                vec![r_f32(0), flit(1.5)],
                warp_scope,
                pred,
                false,
            ),
            // A warp tile in a CTA apply.
            _ => scoped_apply(
                "add.u32",
                vec![w_col(a, false), w_col(b, false), lit(1)],
                cta_scope,
                pred,
                false,
            ),
        }
    }
}

/// Per-thread applies on a thread's own part of a group tile
/// (`w.slice(s![lane_id(), ..])`, `g.slice(s![tt, ..])`); mutations index
/// another thread's part or use the whole group tile.
pub(crate) fn own_part(features: Features) -> impl Strategy<Value = Stmt> {
    (
        any::<[u8; 6]>(),
        near_pred(),
        prop_oneof![
            3 => (0i128..4).prop_map(|c| binary(BinOp::Add, name("own"), int(c))),
            1 => index(),
        ],
    )
        .prop_map(move |([kind, idx, a, e, scope, gidx], pred, at)| {
            let (a, e) = (i128::from(a % 2), i128::from(e % 4));
            let rank = mutate(
                features,
                idx,
                &[
                    (70, Some(lane())),
                    (1, Some(int(0))),
                    (1, Some(call("thread_id", 0))),
                    (1, Some(warp())),
                    (1, Some(binary(BinOp::Add, lane(), int(1)))),
                    (1, Some(name("tt"))),
                    (1, None),
                ],
                1,
            );
            let part = |f32_view: bool| {
                let mut views = Vec::new();
                if f32_view {
                    views.push(ViewKind::View(DType::F32));
                }
                let first = rank.clone().map_or_else(full, index_item);
                views.push(ViewKind::Slice(vec![first, span_item(int(a), 1)]));
                viewed("w", views)
            };
            // `gown` is this thread's part of `g` (the preamble's view);
            // mutations index `g` by a rank of the other form or another
            // thread's.
            let g_part = || {
                let items = mutate(
                    features,
                    gidx,
                    &[
                        (50, None),
                        (1, Some(vec![index_item(name("tt")), full()])),
                        (
                            1,
                            Some(vec![index_item(warp()), index_item(lane()), full()]),
                        ),
                        (1, Some(vec![index_item(lane()), full()])),
                        (1, Some(vec![index_item(int(0)), full()])),
                    ],
                    1,
                );
                match items {
                    None => viewed("gown", Vec::new()),
                    Some(items) => viewed("g", vec![ViewKind::Slice(items)]),
                }
            };
            let scope = mutate(
                features,
                scope,
                &[(40, None), (4, Some("thread")), (1, Some("warp"))],
                2,
            );
            let mut kind = kind % 7;
            if !features.shared && kind == 6 {
                kind = 0;
            }
            match kind {
                0 => scoped_apply("mov.b32", vec![part(false), r_u32(e)], scope, pred, true),
                1 => scoped_apply("mov.b32", vec![r_u32(e), part(false)], scope, pred, true),
                2 => scoped_apply(
                    "st.global.f32",
                    vec![tensor_slice("y", at, 1), part(true)],
                    scope,
                    pred,
                    false,
                ),
                3 => scoped_apply(
                    "ld.global.f32",
                    vec![part(true), tensor_slice("x", at, 1)],
                    scope,
                    pred,
                    true,
                ),
                4 => scoped_apply("mov.b32", vec![g_part(), r_u32(e)], scope, pred, true),
                5 => scoped_apply("mov.b32", vec![r_u32(e), g_part()], scope, pred, true),
                _ => scoped_apply(
                    "st.shared.f32",
                    vec![sh_at(name("tt"), 1, false), part(true)],
                    scope,
                    pred,
                    false,
                ),
            }
        })
}

/// A CTA barrier: `bar.sync 0` with `scope = "cta"`, its other spellings,
/// and mutations (other ids, a thread count, no operand, a register, `bar.red`
/// and `bar.arrive`, other scopes, `pred`s).
pub(crate) fn barrier(features: Features) -> impl Strategy<Value = Stmt> {
    any::<[u8; 4]>().prop_map(move |[kind, scope, pred, cond]| {
        let red = |opcode: &str, d: &str| {
            (
                opcode.to_string(),
                vec![viewed(d, Vec::new()), lit(0), viewed("gp", Vec::new())],
            )
        };
        let (opcode, operands) = match mutate(
            features,
            kind,
            &[
                (60, 0),
                (6, 1),
                (6, 2),
                (4, 8),
                (4, 9),
                (1, 3),
                (1, 4),
                (1, 5),
                (1, 6),
                (1, 7),
                (1, 10),
            ],
            5,
        ) {
            0 => ("bar.sync".to_string(), vec![lit(0)]),
            1 => ("barrier.sync".to_string(), vec![lit(0)]),
            2 => ("barrier.sync.aligned".to_string(), vec![lit(0)]),
            3 => ("bar.sync".to_string(), vec![lit(1)]),
            4 => ("bar.sync".to_string(), vec![lit(16)]),
            5 => ("bar.sync".to_string(), vec![lit(0), lit(64)]),
            6 => ("bar.sync".to_string(), Vec::new()),
            7 => ("bar.sync".to_string(), vec![w_col(0, false)]),
            8 if features.warp => red("bar.red.popc.u32", "g"),
            9 if features.warp => red("bar.red.or.pred", "gp"),
            10 => ("bar.arrive".to_string(), vec![lit(0), lit(64)]),
            _ => ("bar.sync".to_string(), vec![lit(0)]),
        };
        scoped_apply(
            &opcode,
            operands,
            apply_scope(features, scope, "cta"),
            scope_pred(features, pred, cond),
            false,
        )
    })
}

/// A `.shared` access of `sh`: loads, stores, vector forms, atomics and
/// reductions at the thread's slot `tt`, the mirrored `rt`, the lane, the
/// warp, constants, loop variables and runtime offsets, with and without
/// a guard; mutations put `sh` in a global form and a tensor in a shared
/// one.
pub(crate) fn shared_access(features: Features) -> impl Strategy<Value = Stmt> {
    (
        any::<[u8; 6]>(),
        prop_oneof![
            12 => Just(None),
            2 => index().prop_map(Some),
            1 => Just(Some(name("shn"))),
        ],
    )
        .prop_map(move |([kind, at, e, guard, f, form], runtime)| {
            let e = i128::from(e % 4);
            // `shn` itself is always out of bounds (not when tame).
            let runtime = runtime.filter(|at| !(features.tame && *at == name("shn")));
            let at = runtime.unwrap_or_else(|| {
                pick(
                    at,
                    &[
                        (8, name("tt")),
                        (4, name("rt")),
                        (2, lane()),
                        (2, warp()),
                        (2, int(0)),
                        (1, name("k")),
                        (1, binary(BinOp::Add, name("tt"), name("k"))),
                        (1, binary(BinOp::Mul, name("tt"), int(2))),
                        (1, binary(BinOp::Add, name("tt"), int(1))),
                        (1, binary(BinOp::Sub, name("shn"), int(1))),
                    ],
                )
            });
            let in_buffer = |at: &Expr, width: i128| {
                binary(
                    BinOp::Le,
                    binary(BinOp::Add, at.clone(), int(width)),
                    name("shn"),
                )
            };
            let kind = mutate(
                features,
                kind,
                &[
                    (6, 0),
                    (6, 1),
                    (3, 2),
                    (2, 3),
                    (2, 4),
                    (2, 5),
                    (2, 6),
                    (1, 7),
                    (2, 8),
                    (1, 9),
                    (1, 10),
                    (1, 11),
                ],
                9,
            );
            let width = if matches!(kind, 5 | 6) { 4 } else { 1 };
            // `4 * at` keeps a v4 access aligned; the mutation does not.
            let at = if width == 4 && (f % 8 != 0 || features.tame) {
                binary(BinOp::Mul, at, int(4))
            } else {
                at
            };
            // A tame kernel guards every access (buffers may be shorter
            // than the block) and keeps the destination's old value.
            let pred = mutate(
                features,
                guard,
                &[
                    (4, Some(in_buffer(&at, width))),
                    (
                        2,
                        Some(binary(
                            BinOp::And,
                            binary(BinOp::Ge, at.clone(), int(0)),
                            in_buffer(&at, width),
                        )),
                    ),
                    (10, None),
                    (1, Some(binary(BinOp::Eq, lane(), int(0)))),
                    (1, Some(name("p"))),
                    (1, Some(binary(BinOp::Lt, name("tt"), int(8)))),
                ],
                2,
            );
            let keep = form % 2 == 0 || features.tame;
            let src = if f % 3 == 0 { flit(1.5) } else { r_f32(e) };
            match kind {
                0 => scoped_apply(
                    "st.shared.f32",
                    vec![sh_at(at, 1, false), src],
                    None,
                    pred,
                    false,
                ),
                1 => scoped_apply(
                    "ld.shared.f32",
                    vec![r_f32(e), sh_at(at, 1, false)],
                    None,
                    pred,
                    keep,
                ),
                2 => scoped_apply(
                    "atom.shared.add.f32",
                    vec![r_f32(e), sh_at(at, 1, false), src],
                    None,
                    pred,
                    keep,
                ),
                3 => scoped_apply(
                    "red.shared.add.f32",
                    vec![sh_at(at, 1, false), flit(1.0)],
                    None,
                    pred,
                    false,
                ),
                4 => scoped_apply(
                    if form % 3 == 0 {
                        "atom.shared.exch.b32"
                    } else {
                        "atom.shared.add.u32"
                    },
                    vec![r_u32(e), sh_at(at, 1, true), lit(1)],
                    None,
                    pred,
                    keep,
                ),
                5 => scoped_apply(
                    "ld.shared.v4.f32",
                    vec![tile(None, true, 0), sh_at(at, 4, false)],
                    None,
                    pred,
                    keep,
                ),
                6 => scoped_apply(
                    "st.shared.v4.f32",
                    vec![sh_at(at, 4, false), tile(None, true, 0)],
                    None,
                    pred,
                    false,
                ),
                7 => scoped_apply(
                    "ld.shared::cta.f32",
                    vec![r_f32(e), sh_at(at, 1, false)],
                    None,
                    pred,
                    keep,
                ),
                8 => scoped_apply(
                    "st.shared.u32",
                    vec![sh_at(at, 1, true), r_u32(e)],
                    None,
                    pred,
                    false,
                ),
                // A shared buffer in a global form, a tensor in a shared one.
                9 => scoped_apply(
                    "ld.global.f32",
                    vec![r_f32(e), sh_at(at, 1, false)],
                    None,
                    pred,
                    keep,
                ),
                10 => scoped_apply(
                    "ld.shared.f32",
                    vec![r_f32(e), tensor_slice("x", name("own"), 1)],
                    None,
                    pred,
                    keep,
                ),
                // A shared store in a warp-scope apply of a per-thread view.
                _ => scoped_apply(
                    "st.shared.f32",
                    vec![sh_at(at, 1, false), src],
                    Some("warp"),
                    pred,
                    false,
                ),
            }
        })
}

/// The scoped leaves `features` allows, with their weights.
pub(crate) fn scoped_leaves(features: Features) -> Vec<(u32, BoxedStrategy<Stmt>)> {
    let mut leaves: Vec<(u32, BoxedStrategy<Stmt>)> = Vec::new();
    if features.warp {
        leaves.push((3, collective(features).boxed()));
        leaves.push((2, scoped_op(features).boxed()));
        leaves.push((2, own_part(features).boxed()));
    }
    if features.shared {
        leaves.push((4, shared_access(features).boxed()));
    }
    if features.any() {
        leaves.push((2, barrier(features).boxed()));
    }
    leaves
}

/// `if <scope condition> { .. } else { .. }` and loops whose bounds are
/// uniform over the grid, a CTA or a warp, or differ between lanes: where
/// collectives and barriers may or may not go.
pub(crate) fn scoped_blocks(
    features: Features,
    inner: BoxedStrategy<Stmt>,
) -> Vec<(u32, BoxedStrategy<Stmt>)> {
    let body = prop::collection::vec(inner, 1..4);
    let branch = (any::<(u8, bool)>(), body.clone(), body.clone())
        .prop_map(move |((cond, has_else), then, otherwise)| {
            Stmt::If(If {
                cond: scope_cond(features, cond),
                then,
                otherwise: if has_else { otherwise } else { Vec::new() },
                span: SpanId(165),
            })
        })
        .boxed();
    let lt = any::<[u8; 3]>();
    let loop_ = (lt, body)
        .prop_map(move |([start, end, step], body)| {
            let start = mutate(
                features,
                start,
                &[
                    (6, int(0)),
                    (6, call("cta_id", 0)),
                    (4, warp()),
                    (2, name("n")),
                    (1, lane()),
                    (1, name("tt")),
                ],
                4,
            );
            let end = pick(
                end,
                &[
                    (3, name("N")),
                    (2, name("n")),
                    (1, binary(BinOp::Add, name("N"), int(1))),
                    (1, int(4)),
                ],
            );
            let step = mutate(
                features,
                step,
                &[
                    (6, Some(call("grid_dim", 0))),
                    (4, None),
                    (2, Some(int(2))),
                    (1, Some(name("n"))),
                ],
                3,
            );
            Stmt::For(For {
                var: "i".to_string(),
                var_span: SpanId(166),
                start,
                end,
                step,
                body,
                span: SpanId(167),
            })
        })
        .boxed();
    vec![(3, branch), (2, loop_)]
}

/// Replaces loop variables and `let` names used outside their scope
/// (`k`, `i`, `base`, `q`) by values that are in scope, so that most
/// near-legal kernels get past name resolution.
pub(crate) fn fix_scopes(stmts: &mut [Stmt], scope: &mut Vec<String>) {
    fn fix(expr: &mut Expr, scope: &[String]) {
        match expr {
            Expr::Name(n, _) if !scope.iter().any(|s| s == n) => {
                *expr = match n.as_str() {
                    "k" => int(1),
                    "i" | "base" => call("thread_id", 0),
                    "q" => name("p"),
                    _ => return,
                };
            }
            Expr::Binary { lhs, rhs, .. } => {
                fix(lhs, scope);
                fix(rhs, scope);
            }
            Expr::Unary { expr, .. } => fix(expr, scope),
            Expr::Call { args, .. } => args.iter_mut().for_each(|a| fix(a, scope)),
            Expr::View(place) => fix_place(place, scope),
            _ => {}
        }
    }
    fn fix_place(place: &mut PlaceExpr, scope: &[String]) {
        for view in &mut place.views {
            if let ViewKind::Slice(items) = &mut view.kind {
                for item in items {
                    match item {
                        SliceItem::Index { index, .. } => fix(index, scope),
                        SliceItem::Range { start, end, .. } => {
                            start
                                .iter_mut()
                                .chain(end.iter_mut())
                                .for_each(|e| fix(e, scope));
                        }
                    }
                }
            }
        }
    }
    let outer = scope.len();
    for stmt in stmts {
        match stmt {
            Stmt::Let(binding) => {
                fix(&mut binding.value, scope);
                scope.push(binding.name.clone());
            }
            Stmt::Apply(apply) => {
                for operand in &mut apply.operands {
                    if let Operand::Place(place) = operand {
                        fix_place(place, scope);
                    }
                }
                if let Some(pred) = &mut apply.pred {
                    fix(pred, scope);
                }
            }
            Stmt::For(for_loop) => {
                fix(&mut for_loop.start, scope);
                fix(&mut for_loop.end, scope);
                if let Some(step) = &mut for_loop.step {
                    fix(step, scope);
                }
                let depth = scope.len();
                scope.push(for_loop.var.clone());
                fix_scopes(&mut for_loop.body, scope);
                scope.truncate(depth);
            }
            Stmt::If(branch) => {
                fix(&mut branch.cond, scope);
                fix_scopes(&mut branch.then, scope);
                fix_scopes(&mut branch.otherwise, scope);
            }
            // Not generated by these fuzzers.
            Stmt::AllocLocal(_)
            | Stmt::Invalid(_)
            | Stmt::Ewise(_)
            | Stmt::Function(_)
            | Stmt::KernelFunction(_)
            | Stmt::Call(_) => {}
        }
    }
    scope.truncate(outer);
}

/// Renames `x`, `y` and `r` to non-ASCII names everywhere.
pub(crate) fn rename_stmts(stmts: &mut [Stmt]) {
    fn rename(name: &mut String) {
        match name.as_str() {
            "x" => *name = "ẋ".to_string(),
            "y" => *name = "ÿ".to_string(),
            "r" => *name = "ŕ".to_string(),
            _ => {}
        }
    }
    for stmt in stmts {
        match stmt {
            Stmt::AllocLocal(alloc) => rename(&mut alloc.name),
            Stmt::Apply(apply) => {
                for operand in &mut apply.operands {
                    if let Operand::Place(place) = operand {
                        rename(&mut place.base);
                    }
                }
            }
            Stmt::For(for_loop) => rename_stmts(&mut for_loop.body),
            Stmt::If(branch) => {
                rename_stmts(&mut branch.then);
                rename_stmts(&mut branch.otherwise);
            }
            Stmt::Let(_)
            | Stmt::Invalid(_)
            | Stmt::Ewise(_)
            | Stmt::Function(_)
            | Stmt::KernelFunction(_)
            | Stmt::Call(_) => {}
        }
    }
}

pub(crate) fn near_kernel() -> impl Strategy<Value = Kernel> {
    // Half the kernels plain; the others with warp and CTA tiles, a shared
    // buffer or both, half of those tame.
    near_kernel_of((0u8..12).prop_map(|f| Features {
        warp: f >= 6 && f % 3 != 1,
        shared: f >= 6 && f % 3 != 2,
        tame: f >= 9,
    }))
}

pub(crate) fn near_kernel_of(
    features: impl Strategy<Value = Features>,
) -> impl Strategy<Value = Kernel> {
    let dim = prop::sample::select(vec![
        Dim::constant(64, SpanId(72)),
        Dim {
            expr: name("N"),
            span: SpanId(72),
        },
        Dim {
            expr: binary(BinOp::Mul, int(4), name("N")),
            span: SpanId(72),
        },
        Dim {
            expr: binary(BinOp::Div, name("N"), int(2)),
            span: SpanId(72),
        },
        Dim {
            expr: binary(BinOp::Add, name("N"), int(1)),
            span: SpanId(72),
        },
    ]);
    let grid = prop::sample::select(vec![
        [int(1), int(1), int(1)],
        [int(4), int(1), int(1)],
        [
            Expr::Call {
                func: "ceil_div".to_string(),
                args: vec![name("N"), int(256)],
                span: SpanId(73),
            },
            int(1),
            int(1),
        ],
        [
            Expr::Call {
                func: "min".to_string(),
                args: vec![name("N"), int(8)],
                span: SpanId(73),
            },
            int(1),
            int(1),
        ],
        [
            binary(BinOp::Add, binary(BinOp::Div, name("N"), int(1024)), int(1)),
            int(2),
            int(1),
        ],
    ]);
    let plain_block = prop::sample::select(vec![[1u32, 1, 1], [32, 1, 1], [256, 1, 1], [32, 2, 1]]);
    // Kernels with scopes: mostly whole warps (one warpgroup at 128), also
    // 2-D and 3-D blocks, partial warps and absurd blocks.
    let scoped_block = |features: Features| {
        any::<u8>().prop_map(move |b| {
            mutate(
                features,
                b,
                &[
                    (16, [32u32, 1, 1]),
                    (10, [64, 1, 1]),
                    (12, [128, 1, 1]),
                    (10, [256, 1, 1]),
                    (8, [32, 2, 1]),
                    (6, [8, 4, 2]),
                    (4, [96, 1, 1]),
                    (4, [1024, 1, 1]),
                    (2, [16, 2, 1]),
                    (2, [1, 1, 1]),
                    (1, [33, 1, 1]),
                    (1, [0, 1, 1]),
                    (1, [2048, 1, 1]),
                    (1, [u32::MAX, 1, 1]),
                    (1, [65536, 65536, 1]),
                ],
                9,
            )
        })
    };
    features.prop_flat_map(move |features| {
        let block = if features.any() {
            scoped_block(features).boxed()
        } else {
            plain_block.clone().boxed()
        };
        (
            (dim.clone(), dim.clone(), block, grid.clone()),
            prop::collection::vec(near_stmt(features), 1..6),
            any::<(u8, bool, bool, bool, bool)>(),
            any::<[u8; 12]>(),
        )
            .prop_map(
                move |(
                    (dx, dy, block, grid),
                    mut stmts,
                    (init, base, store, non_ascii, wrap),
                    setup,
                )| {
                    let init = init % 5 != 0 || features.tame;
                    // `if own + 4 <= N { .. }`: accesses at `own + c` proven.
                    // With scopes also a warp-uniform or a uniform condition
                    // (a thread-dependent one fails every collective in it).
                    let own_fits = binary(
                        BinOp::Le,
                        binary(BinOp::Add, name("own"), int(4)),
                        name("N"),
                    );
                    let wrap = if !features.any() {
                        wrap.then_some(own_fits)
                    } else {
                        mutate(
                            features,
                            setup[7],
                            &[
                                (12, None),
                                (3, Some(name("p"))),
                                (
                                    3,
                                    Some(binary(
                                        BinOp::Le,
                                        binary(BinOp::Add, name("wbase"), int(32)),
                                        name("N"),
                                    )),
                                ),
                                (2, Some(own_fits)),
                            ],
                            2,
                        )
                    };
                    if let Some(cond) = wrap {
                        stmts = vec![Stmt::If(If {
                            cond,
                            then: stmts,
                            otherwise: Vec::new(),
                            span: SpanId(89),
                        })];
                    }
                    let tensor = |name: &str, dim: Dim, span| Param {
                        name: name.to_string(),
                        span: SpanId(span),
                        ty: ParamType::Tensor {
                            dtype: DType::F32,
                            dims: vec![dim],
                        },
                    };
                    let mut body = vec![Stmt::AllocLocal(AllocLocal {
                        name: "r".to_string(),
                        name_span: SpanId(74),
                        dtype: DType::F32,
                        dtype_span: SpanId(75),
                        shape: vec![Dim::constant(4, SpanId(76)), Dim::constant(1, SpanId(76))],
                        scope: None,
                        layout: None,
                        space: AllocSpace::Registers,
                        span: SpanId(77),
                    })];
                    if init {
                        // `r` written up front, so reads of it are legal.
                        let zero = Operand::Literal(Literal {
                            value: LiteralValue::Float(0.0),
                            span: SpanId(78),
                        });
                        body.push(plain_apply(
                            "mov.f32",
                            vec![tile(None, false, 0), zero],
                            None,
                        ));
                    }
                    // `let base = (cta_id(0) * 256 + thread_id(0)) * 4;`
                    let base_value = binary(
                        BinOp::Mul,
                        binary(
                            BinOp::Add,
                            binary(BinOp::Mul, call("cta_id", 0), int(256)),
                            call("thread_id", 0),
                        ),
                        int(4),
                    );
                    if base {
                        body.push(Stmt::Let(Let {
                            name: "base".to_string(),
                            name_span: SpanId(79),
                            value: base_value.clone(),
                            span: SpanId(80),
                        }));
                    }
                    body.push(Stmt::Let(Let {
                        name: "own".to_string(),
                        name_span: SpanId(79),
                        value: base_value.clone(),
                        span: SpanId(80),
                    }));
                    body.push(Stmt::Let(Let {
                        name: "q".to_string(),
                        name_span: SpanId(81),
                        value: binary(BinOp::Lt, call("thread_id", 0), name("N")),
                        span: SpanId(82),
                    }));
                    let mut sinks = Vec::new();
                    if features.any() {
                        let (preamble, reads) = scoped_preamble(features, block, setup);
                        body.extend(preamble);
                        sinks = reads;
                    }
                    body.extend(stmts);
                    body.extend(sinks);
                    if store {
                        // A per-thread store of `r`: race-free, bounds by the `if`.
                        let at = binary(BinOp::Mul, base_value, int(1));
                        body.push(Stmt::If(If {
                            cond: binary(
                                BinOp::Le,
                                binary(BinOp::Add, at.clone(), int(4)),
                                name("N"),
                            ),
                            then: vec![plain_apply(
                                "st.global.v4.f32",
                                vec![tensor_slice("y", at, 4), tile(None, true, 0)],
                                None,
                            )],
                            otherwise: Vec::new(),
                            span: SpanId(83),
                        }));
                    }
                    fix_scopes(&mut body, &mut Vec::new());
                    let (x, y) = if non_ascii { ("ẋ", "ÿ") } else { ("x", "y") };
                    if non_ascii {
                        rename_stmts(&mut body);
                    }
                    Kernel {
                        name: "k".to_string(),
                        name_span: SpanId(0),
                        launch: LaunchDims {
                            grid,
                            block,
                            span: SpanId(84),
                            // Sometimes CTAs in clusters of 2 or 4 (a
                            // grid of another size is refused at launch).
                            cluster: match setup[9] % 8 {
                                0 => [2, 1, 1],
                                1 => [4, 1, 1],
                                _ => [1, 1, 1],
                            },
                            cluster_span: SpanId(84),
                        },
                        target: Target::SM_90,
                        params: vec![
                            tensor(x, dx, 85),
                            tensor(y, dy, 86),
                            Param {
                                name: "n".into(),
                                span: SpanId(87),
                                ty: ParamType::Scalar(DType::U32),
                            },
                            Param {
                                name: "p".into(),
                                span: SpanId(88),
                                ty: ParamType::Scalar(DType::Bool),
                            },
                        ],
                        body,
                    }
                },
            )
    })
}

/// The declarations a near-legal kernel with `features` starts with, for
/// `block`, decoded from `setup` (entry 0 of each choice the legal one):
///
/// - `tt` (the thread's linear index), `rt = T - 1 - tt`, and `wbase`
///   (32 times the warp's index in the grid);
/// - warp tiles `w: u32 [32, 2]`, `wp: bool [32, 1]`, CTA tiles
///   `g: u32 [T, 1]`, `gp: bool [T, 1]` (or `[T / 32, 32, 1]`), written
///   up front (mutations: other extents and scopes, not written);
/// - a shared buffer `sh: f32 [L]` (mutations: odd and huge lengths) and
///   `shn = L`, or a dynamic one `sh: f32 [N]` (or `{2 * N}`, `{N + 1}`)
///   and `shn = N` (the same form; mutations: `{N / 2}`, which needs a
///   tensor dim `{N / 2}`, names that are not size symbols, forms the
///   checker refuses). Every element is stored once by the thread of slot
///   `j * T + tt` (`for j in 0..ceil(L / T)`, unrolled, guarded where `T`
///   does not divide `L`) or by a grid-stride loop
///   `for si in (tt..shn).step_by(T)` (for a dynamic buffer, else the
///   cyclic `for j in 0..(shn + T - 1) / T`, guarded), then a CTA barrier (mutation: no barrier; then reading
///   another thread's slot is a race the checker must find). Mutation: a
///   second dynamic buffer `sh2: u32 [N]`, written by a grid-stride loop
///   (an error beside a dynamic `sh`, legal beside a static one).
pub(crate) fn scoped_preamble(
    features: Features,
    block: [u32; 3],
    setup: [u8; 12],
) -> (Vec<Stmt>, Vec<Stmt>) {
    let [bx, by, bz] = block.map(i128::from);
    let threads = bx * by * bz;
    let let_ = |name: &str, value: Expr| {
        Stmt::Let(Let {
            name: name.to_string(),
            name_span: SpanId(170),
            value,
            span: SpanId(171),
        })
    };
    let alloc = |name: &str, dtype: DType, shape: &[i128], scope: Option<&str>, space| {
        Stmt::AllocLocal(AllocLocal {
            name: name.to_string(),
            name_span: SpanId(172),
            dtype,
            dtype_span: SpanId(173),
            shape: shape
                .iter()
                .map(|d| Dim {
                    expr: int(*d),
                    span: SpanId(174),
                })
                .collect(),
            scope: scope.map(|s| (s.to_string(), SpanId(175))),
            layout: None,
            space,
            span: SpanId(176),
        })
    };
    let mut tt = call("thread_id", 0);
    if by > 1 {
        tt = binary(
            BinOp::Add,
            tt,
            binary(BinOp::Mul, int(bx), call("thread_id", 1)),
        );
    }
    if bz > 1 {
        tt = binary(
            BinOp::Add,
            tt,
            binary(BinOp::Mul, int(bx * by), call("thread_id", 2)),
        );
    }
    let mut sinks = Vec::new();
    let warps = mutate(
        features,
        setup[6],
        &[(6, (threads + 31) / 32), (1, 8), (1, 1)],
        1,
    );
    let mut body = vec![
        let_("tt", tt),
        let_("rt", binary(BinOp::Sub, int(threads - 1), name("tt"))),
        let_(
            "wbase",
            binary(
                BinOp::Mul,
                binary(
                    BinOp::Add,
                    binary(BinOp::Mul, call("cta_id", 0), int(warps)),
                    warp(),
                ),
                int(32),
            ),
        ),
    ];
    if features.warp {
        let w_rows = mutate(
            features,
            setup[0],
            &[(150, 32), (1, 16), (1, 64), (1, threads), (1, 0), (1, 33)],
            1,
        );
        let w_scope = mutate(
            features,
            setup[1],
            &[
                (150, "warp"),
                (1, "cta"),
                (1, "warpgroup"),
                (1, "thread"),
                (1, "lane"),
                (1, ""),
            ],
            1,
        );
        let g_axes = mutate(
            features,
            setup[2],
            &[
                (70, vec![threads]),
                (60, vec![threads / 32, 32]),
                (1, vec![threads + 1]),
                (1, vec![128]),
                (1, vec![4, 32]),
                (1, vec![32]),
                (1, Vec::new()),
            ],
            2,
        );
        let g_scope = mutate(
            features,
            setup[3],
            &[(120, "cta"), (2, "warpgroup"), (1, "warp"), (1, "block")],
            1,
        );
        let g_shape = [g_axes.as_slice(), &[1]].concat();
        body.push(alloc(
            "w",
            DType::U32,
            &[w_rows, 2],
            Some(w_scope),
            AllocSpace::Registers,
        ));
        body.push(alloc(
            "wp",
            DType::Bool,
            &[32, 1],
            Some("warp"),
            AllocSpace::Registers,
        ));
        body.push(alloc(
            "g",
            DType::U32,
            &g_shape,
            Some(g_scope),
            AllocSpace::Registers,
        ));
        body.push(alloc(
            "gp",
            DType::Bool,
            &g_shape,
            Some(g_scope),
            AllocSpace::Registers,
        ));
        // `let gown = g.slice(s![tt, ..]);` (or `s![warp_id(), lane_id(), ..]`):
        // this thread's part.
        let rank = if g_axes.len() == 2 {
            vec![index_item(warp()), index_item(lane()), full()]
        } else {
            vec![index_item(name("tt")), full()]
        };
        body.push(let_(
            "gown",
            Expr::View(PlaceExpr {
                base: "g".to_string(),
                base_span: SpanId(179),
                views: vec![ViewOp {
                    kind: ViewKind::Slice(rank),
                    span: SpanId(179),
                }],
                span: SpanId(179),
            }),
        ));
        // Written up front (or not, or in part).
        let written = mutate(features, setup[4], &[(60, 4), (1, 0), (1, 1), (1, 3)], 1);
        let inits = [
            scoped_apply(
                "mov.b32",
                vec![viewed("w", vec![ViewKind::Unsqueeze(-1)]), lit(0)],
                Some(w_scope),
                None,
                false,
            ),
            scoped_apply(
                "setp.lt.u32",
                vec![viewed("wp", Vec::new()), w_col(0, false), lit(1)],
                Some("warp"),
                None,
                false,
            ),
            scoped_apply(
                "mov.b32",
                vec![viewed("g", Vec::new()), lit(0)],
                Some(g_scope),
                None,
                false,
            ),
            scoped_apply(
                "setp.ne.u32",
                vec![viewed("gp", Vec::new()), viewed("g", Vec::new()), lit(0)],
                Some(g_scope),
                None,
                false,
            ),
        ];
        body.extend(inits.into_iter().take(written));
        // Reads of `wp` and `gp` at the end (`w` and `g` are read by the
        // `setp`s above): a tile written but never read is an error.
        sinks.push(scoped_apply(
            "selp.u32",
            vec![w_col(0, false), lit(1), lit(0), viewed("wp", Vec::new())],
            Some(w_scope),
            None,
            false,
        ));
        sinks.push(scoped_apply(
            "selp.u32",
            vec![
                viewed("g", Vec::new()),
                lit(1),
                lit(0),
                viewed("gp", Vec::new()),
            ],
            Some(g_scope),
            None,
            false,
        ));
    }
    if features.shared {
        let t = threads.max(1);
        let n = || name("N");
        // `sh`'s extent: a constant (a static buffer), or a form of the
        // size symbol `N` (the kernel's dynamic buffer, sized at launch).
        let extent = mutate(
            features,
            setup[5],
            &[
                (32, ShExtent::Static(t)),
                (12, ShExtent::Static(2 * t)),
                (8, ShExtent::Static(4 * t)),
                (6, ShExtent::Static((t / 2).max(1))),
                (4, ShExtent::Static(t + 1)),
                (6, ShExtent::Static(32)),
                (2, ShExtent::Static(1)),
                (2, ShExtent::Static(8)),
                (1, ShExtent::Static(12288)),
                (24, ShExtent::Dynamic(n())),
                (4, ShExtent::Dynamic(binary(BinOp::Mul, int(2), n()))),
                (4, ShExtent::Dynamic(binary(BinOp::Add, n(), int(1)))),
                // Mutations.
                (1, ShExtent::Static(12289)),
                (1, ShExtent::Static(65536)),
                (1, ShExtent::Static(1 << 40)),
                (1, ShExtent::Static(i128::from(u64::MAX))),
                (1, ShExtent::Static(0)),
                // Legal only where a tensor dim is `{N / 2}` (`N` even).
                (3, ShExtent::Dynamic(binary(BinOp::Div, n(), int(2)))),
                // A parameter, a runtime value, an unknown name: no size
                // symbols.
                (1, ShExtent::Dynamic(name("n"))),
                (1, ShExtent::Dynamic(name("tt"))),
                (1, ShExtent::Dynamic(name("M"))),
                // Possibly negative, not affine, a division that needs `N`
                // a multiple of 3 (no dim requires that), a zero multiple.
                (1, ShExtent::Dynamic(binary(BinOp::Sub, n(), int(1)))),
                (1, ShExtent::Dynamic(binary(BinOp::Mul, n(), n()))),
                (1, ShExtent::Dynamic(binary(BinOp::Div, n(), int(3)))),
                (1, ShExtent::Dynamic(binary(BinOp::Mul, int(0), n()))),
            ],
            12,
        );
        let (extent, length) = match extent {
            ShExtent::Static(length) => (int(length), Some(length)),
            ShExtent::Dynamic(extent) => (extent, None),
        };
        body.push(shared_alloc("sh", DType::F32, extent.clone()));
        // `shn`: the length as a runtime value (the extent's own expression).
        body.push(let_("shn", extent));
        // Every element once, slot `si` by thread `si mod T`: a constant
        // length unrolled, `for j in 0..ceil(L / T)` with `si = j * T + tt`
        // (guarded where `T` does not divide `L`), or a runtime loop
        // `for si in (tt..shn).step_by(T)` or `for j in 0..ceil(shn / T)`
        // (a dynamic buffer, whose length is known only at launch).
        let guarded = setup[9] >= 128;
        // `buffer[si] = value`, under `pred = si < end` when guarded.
        let store = |buffer: &str, opcode: &str, value: Operand, end: Option<Expr>| {
            scoped_apply(
                opcode,
                vec![
                    viewed(
                        buffer,
                        vec![ViewKind::Slice(vec![span_item(name("si"), 1)])],
                    ),
                    value,
                ],
                None,
                end.map(|end| binary(BinOp::Lt, name("si"), end)),
                false,
            )
        };
        let stride = |buffer: &str, opcode: &str, value: Operand, end: Expr| {
            Stmt::For(For {
                var: "si".to_string(),
                var_span: SpanId(177),
                start: name("tt"),
                end: end.clone(),
                step: Some(int(t)),
                body: vec![store(buffer, opcode, value, guarded.then_some(end))],
                span: SpanId(178),
            })
        };
        // `for j in 0..end { let si = j * T + tt; .. }`
        let over_j = |end: Expr, guard: bool| {
            Stmt::For(For {
                var: "j".to_string(),
                var_span: SpanId(177),
                start: int(0),
                end,
                step: None,
                body: vec![
                    let_(
                        "si",
                        binary(
                            BinOp::Add,
                            binary(BinOp::Mul, name("j"), int(t)),
                            name("tt"),
                        ),
                    ),
                    store("sh", "st.shared.f32", flit(0.0), guard.then(|| name("shn"))),
                ],
                span: SpanId(178),
            })
        };
        body.push(match length {
            Some(length) if setup[10] < 208 => {
                over_j(int((length + t - 1) / t), length % t != 0 || guarded)
            }
            Some(_) => stride("sh", "st.shared.f32", flit(0.0), name("shn")),
            // A runtime loop over `j` to `ceil(shn / T)`, guarded: a
            // cyclic distribution (`j * T + tt`), which the race rule
            // separates like a grid-stride variable.
            None if pick(setup[10], &[(8, false), (4, true)]) => over_j(
                binary(
                    BinOp::Div,
                    binary(BinOp::Add, name("shn"), int(t - 1)),
                    int(t),
                ),
                true,
            ),
            None => stride("sh", "st.shared.f32", flit(0.0), name("shn")),
        });
        // A second buffer sized at launch: rejected beside a dynamic `sh`,
        // legal (and written) beside a static one.
        if mutate(features, setup[11], &[(24, false), (1, true)], 1) {
            body.push(shared_alloc("sh2", DType::U32, name("N")));
            body.push(stride("sh2", "st.shared.u32", lit(0), name("N")));
        }
        if setup[8] < 248 || features.tame {
            body.push(scoped_apply(
                "bar.sync",
                vec![lit(0)],
                Some("cta"),
                None,
                false,
            ));
        }
    }
    (body, sinks)
}

/// The extent of the near-legal kernels' shared buffer `sh`.
#[derive(Debug, Clone)]
pub(crate) enum ShExtent {
    /// `[L]`: a static buffer.
    Static(i128),
    /// `[N]`, `{2 * N}`, ..: the kernel's dynamic buffer, sized at launch
    /// (mutations: names that are no size symbols, forms the checker
    /// refuses).
    Dynamic(Expr),
}

/// `let name = alloc_shared::<dtype>([extent]);`
pub(crate) fn shared_alloc(name: &str, dtype: DType, extent: Expr) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.to_string(),
        name_span: SpanId(172),
        dtype,
        dtype_span: SpanId(173),
        shape: vec![Dim {
            expr: extent,
            span: SpanId(174),
        }],
        scope: None,
        layout: None,
        space: AllocSpace::Shared,
        span: SpanId(176),
    })
}

/// Whether `stmts` declare or use a scope or shared memory.
pub(crate) fn uses_scopes(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match stmt {
        Stmt::AllocLocal(alloc) => alloc.scope.is_some() || alloc.space == AllocSpace::Shared,
        Stmt::Apply(apply) => apply.scope.is_some(),
        Stmt::For(for_loop) => uses_scopes(&for_loop.body),
        Stmt::If(branch) => uses_scopes(&branch.then) || uses_scopes(&branch.otherwise),
        Stmt::Ewise(ewise) => ewise.scope.is_some(),
        Stmt::KernelFunction(def) => uses_scopes(&def.body),
        Stmt::Let(_) | Stmt::Invalid(_) | Stmt::Function(_) | Stmt::Call(_) => false,
    })
}
