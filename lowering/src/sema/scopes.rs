//! Scopes (SPEC §7, `docs/scopes.md`): group tiles, the binding of group
//! axes to the threads of a scope, and the uniformity rule of collectives.
//!
//! - A **group tile** (`alloc_local::<T>([32, 4], scope = "warp")`) has
//!   leading *group axes* bound to the threads of its scope: lane `l` of
//!   the warp holds part `[l, ..]`. Only that part is a register tile of
//!   the thread (the program's [`crate::program::Tile`] has the part's
//!   shape). Group axes are one axis of the scope's size (32 lanes, 128
//!   threads of a warpgroup, every thread of the CTA) or, above a warp, two
//!   axes `[warps, 32]` (warp, then lane).
//! - In an `apply` of scope S every tile operand is a group tile of S used
//!   with its group axes whole, and every tensor operand has leading axes
//!   of the same extents; each thread issues the instruction on its own
//!   part (the group axes indexed by its rank). No thread is elected.
//! - In thread scope a group tile is reachable only through the thread's
//!   own part: `m.slice(s![lane_id(), ..])`.
//! - A collective of scope S (`shfl.sync`, `redux.sync`, ..) runs only
//!   where every enclosing condition, runtime loop and `pred` is uniform
//!   over S (the same for every thread of one S); the compiler supplies
//!   its member mask, the whole scope.
//!
//! Guarantee: an operand that passes [`Checker::bind_group`] is the issuing
//! thread's own part; whole instances of the scope exist (the block is a
//! multiple of it). That a collective runs in every thread of its scope
//! together is the convergence obligation (`crate::prove::convergence`).

use crate::ast;
use crate::diag::{Code, Diagnostic, SpanId};
use crate::layout::{SliceBound, shape_text};
use crate::memory::{Buffer, MemorySpace};
use crate::sym::{ComputedOp, Poly};

use super::{Checker, View, ViewBase};
use crate::scope::Scope;

/// The group axes of a tile or operand: bound to the threads of `scope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Group {
    pub scope: Scope,
    /// The extents of the leading group axes: `[32]`, `[128]`, `[4, 32]`.
    pub axes: Vec<usize>,
}

impl Checker<'_> {
    /// Threads in one block.
    pub(super) fn block_threads(&self) -> usize {
        // Saturating: an absurd block is reported elsewhere (TK0602).
        self.kernel
            .launch
            .block
            .iter()
            .fold(1usize, |acc, b| acc.saturating_mul(*b as usize))
    }

    /// The scope of an `apply` or `alloc_local` as written; an unknown
    /// name is reported and `None`.
    pub(super) fn scope_of(&mut self, scope: Option<&(String, SpanId)>) -> Option<Scope> {
        let Some((text, span)) = scope else {
            return Some(Scope::Thread);
        };
        match Scope::parse(text) {
            Some(scope) => self.scope_fits_block(scope, *span).then_some(scope),
            None => {
                self.diags.push(
                    Diagnostic::new(
                        Code::UNKNOWN_SCOPE,
                        *span,
                        format!("unknown scope `\"{text}\"`"),
                    )
                    .with_help("the scopes are \"thread\", \"warp\", \"warpgroup\", \"cta\" and \"cluster\" (cluster barriers only)"),
                );
                None
            }
        }
    }

    /// The scope of a tile (`alloc_local`, `ewise`): any but a cluster's,
    /// whose threads share no registers; `None` after an error.
    pub(super) fn tile_scope(&mut self, scope: Option<&(String, SpanId)>) -> Option<Scope> {
        let parsed = self.scope_of(scope)?;
        if parsed != Scope::Cluster {
            return Some(parsed);
        }
        let span = scope.map_or(SpanId::default(), |(_, span)| *span);
        self.diags.push(
            Diagnostic::new(
                Code::UNKNOWN_SCOPE,
                span,
                "`scope = \"cluster\"` is the scope of a cluster barrier's `apply` only: the threads of a cluster share no tiles",
            )
            .with_help("the scopes of tiles are \"thread\", \"warp\", \"warpgroup\" and \"cta\""),
        );
        None
    }

    /// A warp or warpgroup scope needs the block to consist of whole ones.
    fn scope_fits_block(&mut self, scope: Scope, span: SpanId) -> bool {
        let threads = self.block_threads();
        let size = match scope {
            Scope::Warp | Scope::Warpgroup => scope.size(threads),
            Scope::Thread | Scope::Cta | Scope::Cluster => return true,
        };
        if threads.is_multiple_of(size) {
            return true;
        }
        if std::mem::replace(&mut self.partial_scope_reported, true) {
            // Reported at the first use: the launch shape is the mistake.
            return false;
        }
        let [x, y, z] = self.kernel.launch.block;
        let missing = size - threads % size;
        self.diags.push(
            Diagnostic::new(
                Code::PARTIAL_SCOPE,
                span,
                format!(
                    "`scope = \"{}\"` needs whole {}s of {size} threads, but the block [{x}, {y}, {z}] has {threads} threads",
                    scope.name(),
                    scope.name()
                ),
            )
            .with_note(format!(
                "the last {} of this block would lack {missing} threads, which could not take part in its collectives",
                scope.name()
            ))
            .with_help(format!(
                "make the block a multiple of {size} threads, e.g. `block = {}`",
                threads.saturating_add(size - 1) / size * size
            )),
        );
        false
    }

    /// The group axes a tile of `shape` allocated with `scope` has, or an
    /// error at `span`.
    pub(super) fn alloc_group(
        &mut self,
        scope: Scope,
        shape: &[usize],
        alloc: &ast::AllocLocal,
    ) -> Option<Group> {
        if scope == Scope::Thread {
            return None;
        }
        let axes = self.group_axes(scope, shape);
        match axes {
            Some(axes) if shape.len() > axes.len() => Some(Group { scope, axes }),
            Some(_) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::GROUP_EXTENT,
                        alloc.span,
                        format!(
                            "group tile `{}` {} has no axis for a {}'s own part",
                            alloc.name,
                            shape_text(shape),
                            scope.member()
                        ),
                    )
                    .with_help(format!(
                        "add the register axis: `{}`",
                        shape_text(&[shape, &[1]].concat())
                    )),
                );
                None
            }
            None => {
                let span = alloc.shape.first().map_or(alloc.span, |d| d.span);
                self.diags
                    .push(self.group_extent_error(scope, shape, span, &alloc.name));
                None
            }
        }
    }

    /// The leading group axes of `shape` for `scope`: `[size]`, or above a
    /// warp `[size / 32, 32]`.
    fn group_axes(&self, scope: Scope, shape: &[usize]) -> Option<Vec<usize>> {
        let size = scope.size(self.block_threads());
        if shape.first() == Some(&size) {
            return Some(vec![size]);
        }
        if scope != Scope::Warp
            && size.is_multiple_of(32)
            && shape.len() >= 2
            && shape[..2] == [size / 32, 32]
        {
            return Some(shape[..2].to_vec());
        }
        None
    }

    /// A memory operand of a warp-scope `apply` may also split the lane
    /// into leading axes `[a_1, .., a_n]` (n >= 2, powers of two above 1
    /// whose product is 32): lane `l` accesses its mixed-radix digits,
    /// most significant first (for `[32 / b, b]`: `[l / b, l % b, ..]`).
    /// Matrix instructions need it: `ldmatrix` rows of two 8-element
    /// halves of a 16-row tile are `[2, 16]`, halves first; its four
    /// matrices in the order of an `mma`'s B pairs are `[2, 2, 8]` (row
    /// halves, column halves, rows).
    fn split_lane_axes(scope: Scope, shape: &[usize]) -> Option<Vec<usize>> {
        if scope != Scope::Warp {
            return None;
        }
        let mut product = 1usize;
        for (count, &extent) in shape.iter().enumerate() {
            if extent < 2 || !extent.is_power_of_two() {
                return None;
            }
            product = product.checked_mul(extent)?;
            if product == 32 {
                return (count >= 1 && shape.len() > count + 1).then(|| shape[..=count].to_vec());
            }
            if product > 32 {
                return None;
            }
        }
        None
    }

    fn group_extent_error(
        &self,
        scope: Scope,
        shape: &[usize],
        span: SpanId,
        name: &str,
    ) -> Diagnostic {
        let size = scope.size(self.block_threads());
        let first = shape
            .first()
            .map_or_else(|| "none".to_string(), ToString::to_string);
        let forms = if scope == Scope::Warp {
            "`32` (one per lane), or for a tensor or shared view the lane's digits: two axes `32 / b, b` (`lane_id() / b`, then `lane_id() % b`) or more, powers of two whose product is 32".to_string()
        } else if !size.is_multiple_of(32) {
            format!("`{size}`")
        } else {
            format!(
                "`{size}` (one per thread) or `{}, 32` (warps, then lanes)",
                size / 32
            )
        };
        Diagnostic::new(
            Code::GROUP_EXTENT,
            span,
            format!(
                "the leading axis of `{name}` binds the {size} threads of a {} (scope = \"{}\"), so its extent must be {size}, but it is {first}",
                scope.name(),
                scope.name()
            ),
        )
        .with_note(format!(
            "group axes of a {} tile or operand: {forms}",
            scope.name()
        ))
    }

    /// This thread's rank in `scope`, one value per group axis of `axes`.
    pub(super) fn rank_polys(&mut self, scope: Scope, axes: &[usize]) -> Vec<Poly> {
        // The warp's index in its warpgroup: `warp_id()` in a block of one
        // warpgroup (the remainder folds away), else its own atom.
        let warp_in_group = |checker: &mut Self| {
            let warp = checker.builtin("warp_id");
            let span = SpanId::default();
            checker
                .computed(ComputedOp::Rem, warp, Poly::constant(4), span, span, span)
                .unwrap_or_default()
        };
        match (scope, axes.len()) {
            // No tile has the cluster's scope (`Checker::tile_scope`).
            (Scope::Thread | Scope::Cluster, _) => Vec::new(),
            (Scope::Warp, n) if n >= 2 => {
                // `[a_1, .., a_n]`: the lane's mixed-radix digits, most
                // significant first: `lane_id() / (a_2 .. a_n)`, then
                // `lane_id() / (a_{i+1} .. a_n) % a_i`, down to
                // `lane_id() % a_n` (digits of the race rule).
                let lane = self.builtin("lane_id");
                let span = SpanId::default();
                let mut digits = Vec::with_capacity(n);
                for axis in 0..n {
                    let below: usize = axes[axis + 1..].iter().product();
                    let shifted = if below == 1 {
                        lane.clone()
                    } else {
                        self.computed(
                            ComputedOp::Div,
                            lane.clone(),
                            Poly::constant(below as i128),
                            span,
                            span,
                            span,
                        )
                        .unwrap_or_default()
                    };
                    let digit = if axis == 0 {
                        shifted
                    } else {
                        self.computed(
                            ComputedOp::Rem,
                            shifted,
                            Poly::constant(axes[axis] as i128),
                            span,
                            span,
                            span,
                        )
                        .unwrap_or_default()
                    };
                    digits.push(digit);
                }
                digits
            }
            (Scope::Warpgroup, 2) => vec![warp_in_group(self), self.builtin("lane_id")],
            (_, 2) => vec![self.builtin("warp_id"), self.builtin("lane_id")],
            (Scope::Warp, _) => vec![self.builtin("lane_id")],
            (Scope::Warpgroup, _) => {
                let warp = warp_in_group(self);
                vec![warp.scale(32).add(&self.builtin("lane_id"))]
            }
            (Scope::Cta, _) => {
                let [bx, by, _] = self.kernel.launch.block.map(i128::from);
                let tx = self.builtin_axis("thread_id", 0);
                let ty = self.builtin_axis("thread_id", 1);
                let tz = self.builtin_axis("thread_id", 2);
                vec![tx.add(&ty.scale(bx)).add(&tz.scale(bx * by))]
            }
        }
    }

    fn builtin(&mut self, name: &str) -> Poly {
        let call = ast::Expr::Call {
            func: name.to_string(),
            args: Vec::new(),
            span: SpanId::default(),
        };
        self.eval_int(&call).unwrap_or_default()
    }

    fn builtin_axis(&mut self, name: &str, axis: i128) -> Poly {
        let call = ast::Expr::Call {
            func: name.to_string(),
            args: vec![ast::Expr::Int(axis, SpanId::default())],
            span: SpanId::default(),
        };
        self.eval_int(&call).unwrap_or_default()
    }

    /// The rank expressions a thread writes for its own part, for messages.
    fn rank_text(scope: Scope, axes: usize) -> &'static str {
        match (scope, axes) {
            (Scope::Warpgroup, 2) => "warp_id() % 4, lane_id()",
            (_, 2) => "warp_id(), lane_id()",
            (Scope::Warp, _) => "lane_id()",
            (Scope::Warpgroup, _) => "(warp_id() % 4) * 32 + lane_id()",
            _ => "thread_id(0)",
        }
    }

    /// One view operation on a view with group axes: it applies to the
    /// thread's part, except that a slice's leading items select the group
    /// axes (`..` keeps them; the thread's own rank drops them). Returns
    /// the items left for the part, or `None` after an error.
    pub(super) fn group_slice<'i>(
        &mut self,
        view: &mut View,
        items: &'i [ast::SliceItem],
        span: SpanId,
    ) -> Option<&'i [ast::SliceItem]> {
        let group = view.group.clone()?;
        let g = group.axes.len();
        let full = |item: &ast::SliceItem| {
            matches!(
                item,
                ast::SliceItem::Range {
                    start: None,
                    end: None,
                    step: 1,
                    ..
                }
            )
        };
        if items.len() >= g && items[..g].iter().all(full) {
            return Some(&items[g..]);
        }
        let ranks = self.rank_polys(group.scope, &group.axes);
        let mut own = items.len() >= g;
        for (item, rank) in items.iter().zip(&ranks) {
            match item {
                ast::SliceItem::Index { index, .. } => {
                    let value = self.eval_int(index)?;
                    own &= value == *rank;
                }
                ast::SliceItem::Range { .. } => own = false,
            }
        }
        if own {
            view.group = None;
            return Some(&items[g..]);
        }
        let at = items.first().map_or(span, ast::SliceItem::span);
        let rank = Self::rank_text(group.scope, g);
        let mut diag = Diagnostic::new(
            Code::GROUP_INDEX,
            at,
            format!(
                "`{}` is a {} tile: each {} holds only its own part, so its group axes can be indexed only by the {}'s rank (`{rank}`) or kept whole (`..`)",
                view.name,
                group.scope.name(),
                group.scope.member(),
                group.scope.member()
            ),
        )
        .with_help(format!("this thread's part is `{}.slice(s![{rank}, ..])`", view.name));
        if group.scope == Scope::Warp {
            diag = diag.with_help("to read another lane's value, exchange it with `shfl.sync` in an `apply` with `scope = \"warp\"`");
        }
        self.diags.push(diag);
        None
    }

    /// `.reshape(dims)` or `.broadcast(dims)` (`code`, `method`) of a view
    /// with group axes: the new shape starts with them, and the rest is
    /// each thread's part.
    pub(super) fn group_part_dims<'d>(
        &mut self,
        view: &View,
        dims: &'d [i64],
        span: SpanId,
        code: Code,
        method: &str,
    ) -> Option<&'d [i64]> {
        let group = view.group.as_ref()?;
        let g = group.axes.len();
        let keeps = dims.len() > g
            && dims[..g]
                .iter()
                .zip(&group.axes)
                .all(|(d, a)| usize::try_from(*d).is_ok_and(|d| d == *a));
        if keeps {
            return Some(&dims[g..]);
        }
        self.diags.push(
            Diagnostic::new(
                code,
                span,
                format!(
                    "a {method} of {} tile `{}` keeps its leading group axes {} and {method}s each {}'s part",
                    group.scope.name(),
                    view.name,
                    shape_text(&group.axes),
                    group.scope.member()
                ),
            )
            .with_help(format!(
                "start the new shape with the group axes: `.{method}([{}, ..])`",
                group.axes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            )),
        );
        None
    }

    /// `.unsqueeze(axis)` of a view with group axes: only after them.
    pub(super) fn group_unsqueeze(&mut self, view: &View, axis: i64, span: SpanId) -> Option<i64> {
        let group = view.group.as_ref()?;
        let g = group.axes.len() as i64;
        if axis < 0 {
            return Some(axis);
        }
        if axis >= g {
            return Some(axis - g);
        }
        self.diags.error(
            Code::UNSQUEEZE_AXIS,
            span,
            format!(
                "axis {axis} of {} tile `{}` is a group axis; a new axis goes after the group axes (axis {g} or later)",
                group.scope.name(),
                view.name
            ),
        );
        None
    }

    /// Binds an operand's group axes for an `apply` of `scope`: a group
    /// tile of that scope becomes the thread's part, a tensor view is
    /// indexed by the thread's rank on its leading axes. Reports operands
    /// owned by another scope.
    pub(super) fn bind_group(
        &mut self,
        view: View,
        scope: Scope,
        place: &ast::PlaceExpr,
    ) -> Option<View> {
        let tile = match view.base {
            ViewBase::Tile(tile) => Some(tile),
            _ => None,
        };
        let bound = self.bind_group_of(view, scope, place);
        // A tile reported here counts as written: its later reads add no
        // follow-up errors (one mistake, one error).
        if bound.is_none()
            && let Some(tile) = tile
        {
            self.havoc_tile(tile);
        }
        bound
    }

    fn bind_group_of(&mut self, view: View, scope: Scope, place: &ast::PlaceExpr) -> Option<View> {
        match (view.base, &view.group) {
            (ViewBase::Tile(_), Some(group)) if group.scope == scope => Some(View {
                group: None,
                ..view
            }),
            (ViewBase::Tile(_), Some(group)) => {
                let (owner, help) = if scope == Scope::Thread {
                    let rank = Self::rank_text(group.scope, group.axes.len());
                    (
                        "a per-thread tile".to_string(),
                        format!(
                            "use this thread's part, `{}.slice(s![{rank}, ..])`, or give the `apply` `scope = \"{}\"`",
                            place.base,
                            group.scope.name()
                        ),
                    )
                } else {
                    (
                        format!("a {} tile", scope.name()),
                        format!(
                            "give the `apply` `scope = \"{}\"`, or allocate the tile with `scope = \"{}\"`",
                            group.scope.name(),
                            scope.name()
                        ),
                    )
                };
                self.diags.push(
                    Diagnostic::new(
                        Code::SCOPE_MISMATCH,
                        place.span,
                        format!(
                            "`{}` is a {} tile, but this `apply` (scope = \"{}\") needs {owner}",
                            view.name,
                            group.scope.name(),
                            scope.name()
                        ),
                    )
                    .with_help(help),
                );
                None
            }
            (_, _) if scope == Scope::Thread => Some(view),
            (ViewBase::Tile(tile), None) => {
                let shape = self.tiles[tile].tile.shape.clone();
                let size = scope.size(self.block_threads());
                self.diags.push(
                    Diagnostic::new(
                        Code::SCOPE_MISMATCH,
                        place.span,
                        format!(
                            "`{}` is a per-thread tile, but this `apply` (scope = \"{}\") needs a {} tile, whose leading axis binds its {size} thread{}",
                            view.name,
                            scope.name(),
                            scope.name(),
                            if size == 1 { "" } else { "s" }
                        ),
                    )
                    .with_help(format!(
                        "allocate it as a {} tile: `alloc_local::<{}>({}, scope = \"{}\")`",
                        scope.name(),
                        self.tiles[tile].tile.dtype,
                        shape_text(&[&[size][..], &shape].concat()),
                        scope.name()
                    )),
                );
                None
            }
            (ViewBase::Memory(_), _) => self.bind_tensor_group(view, scope, place),
        }
    }

    /// A tensor view in an `apply` of `scope`: its leading axes are the
    /// group axes; the thread accesses its own index there.
    fn bind_tensor_group(
        &mut self,
        mut view: View,
        scope: Scope,
        place: &ast::PlaceExpr,
    ) -> Option<View> {
        let shape: Vec<usize> = view
            .layout
            .shape
            .iter()
            .map(|d| {
                d.as_const()
                    .and_then(|v| usize::try_from(v).ok())
                    .unwrap_or(0)
            })
            .collect();
        let Some(axes) = self
            .group_axes(scope, &shape)
            .or_else(|| Self::split_lane_axes(scope, &shape))
            .filter(|a| shape.len() > a.len())
        else {
            self.diags.push(
                self.group_extent_error(scope, &shape, place.span, &view.name)
                    .with_help(format!(
                        "reshape the part the {} accesses so that its leading axis has one row per thread, e.g. `.reshape([{}, -1])`",
                        scope.name(),
                        scope.size(self.block_threads())
                    )),
            );
            return None;
        };
        let ranks = self.rank_polys(scope, &axes);
        let bounds: Vec<SliceBound> = ranks
            .into_iter()
            .map(|index| SliceBound::Index {
                index,
                span: place.span,
            })
            .collect();
        match view.layout.slice(&bounds, place.span) {
            Ok((layout, new_bounds)) => {
                view.bounds.extend(new_bounds);
                view.layout = layout;
                // The race analysis needs the thread's own interval, also
                // after the reshape that made the group axis.
                if let Some((element, strides)) = self.row_major_strides(view.base) {
                    view.layout.refresh_region(element, &strides);
                }
                Some(view)
            }
            Err(err) => {
                self.diags
                    .push(Diagnostic::new(err.code, err.span, err.message));
                None
            }
        }
    }

    /// The element size and row-major byte strides of the tensor or
    /// shared buffer a view is cut from.
    fn row_major_strides(&self, base: ViewBase) -> Option<(usize, Vec<Poly>)> {
        let (dtype, dims): (_, Vec<Poly>) = match base {
            ViewBase::Memory(Buffer {
                space: MemorySpace::Global,
                index: param,
            }) => match &self.params[param].kind {
                crate::program::ParamKind::Tensor { dtype, dims, .. } => {
                    (*dtype, dims.iter().map(|d| self.dim_poly(*d)).collect())
                }
                crate::program::ParamKind::Scalar(_) => return None,
            },
            ViewBase::Memory(Buffer {
                space: MemorySpace::Shared,
                index: buffer,
            }) => {
                let b = &self.shared[buffer].buffer;
                let dims = b.shape.iter().map(|d| self.dim_poly(*d)).collect();
                (b.dtype, dims)
            }
            ViewBase::Tile(_) => return None,
        };
        let element = dtype.size_bytes();
        let mut strides = vec![Poly::constant(element as i128); dims.len()];
        for axis in (0..dims.len().saturating_sub(1)).rev() {
            strides[axis] = strides[axis + 1].mul(&dims[axis + 1]);
        }
        Some((element, strides))
    }
}
