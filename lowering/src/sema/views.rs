//! Names and view chains -> operand values.
//!
//! Guarantee: a tile view has constant offsets and every element inside its
//! tile (slices of tiles are proven in bounds here), or, while a constant
//! loop is checked once in its variable (`super::rolled`), an offset that
//! moves by a constant per unit of that variable, every element inside its
//! tile at each of the variable's values; a tensor view carries
//! the [`Bound`]s that must hold where it is accessed, and a bound that can
//! never hold is reported here as a statically out-of-range slice.

use crate::ast::{self, LiteralValue, Operand, PlaceExpr, SliceItem, ViewKind};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::layout::{Bound, BoundKind, Layout, SliceBound, StaticLayout, shape_text};
use crate::memory::{Buffer, MemorySpace};
use crate::program::ParamKind;
use crate::ptx::resolve::nearest;
use crate::sym::{Poly, Prover};

use super::{Binding, Checker, Value, View, ViewBase, values};
use crate::scope::Scope;

impl Checker<'_> {
    /// A runtime integer operand: a literal when it is a constant, else its
    /// value with the range every thread's value lies in. Its value must fit
    /// index arithmetic.
    fn index_operand(&mut self, poly: Poly, span: SpanId) -> Option<Value> {
        if let Some(value) = poly.as_const() {
            return Some(Value::Literal(LiteralValue::Int(value)));
        }
        if !self.materialize(&poly, span) {
            return None;
        }
        Some(Value::Index {
            text: super::limits::poly_text(&poly, &self.atoms),
            range: self.atoms.range(&poly),
            value: poly,
        })
    }

    /// An `apply` operand: a literal, a scalar parameter, or a view with
    /// constant extents.
    pub(super) fn operand_value(&mut self, operand: &Operand, scope: Scope) -> Option<Value> {
        let place = match operand {
            Operand::Literal(literal) => return Some(Value::Literal(literal.value)),
            Operand::Special { name, .. } => return Some(Value::Special(name.clone())),
            Operand::Value(expr) => {
                let poly = self.eval_int(expr)?;
                return self.index_operand(poly, expr.span());
            }
            Operand::Place(place) => place,
        };
        // A bare name that is no tile or tensor: one lookup, and only an
        // integer's polynomial cloned (not a named view's layout).
        enum Bare {
            Runtime(Poly),
            Param(usize),
        }
        if place.views.is_empty() {
            let bare = match self.lookup(&place.base) {
                // A name of a compile-time integer (an unrolled loop's
                // variable, a `let` of constants) is a literal operand.
                Some(Binding::Int(poly)) => match poly.as_const() {
                    Some(value) => return Some(Value::Literal(LiteralValue::Int(value))),
                    None => Some(Bare::Runtime(poly.clone())),
                },
                // A runtime integer by name: a size symbol, a `let` of one,
                // a runtime loop variable.
                Some(Binding::Symbol(poly)) => Some(Bare::Runtime(poly.clone())),
                Some(Binding::Param(param)) => Some(Bare::Param(*param)),
                _ => None,
            };
            match bare {
                Some(Bare::Runtime(poly)) => return self.index_operand(poly, place.span),
                Some(Bare::Param(param)) => {
                    if let ParamKind::Scalar(dtype) = self.params[param].kind {
                        return Some(Value::Scalar {
                            param,
                            name: place.base.clone(),
                            dtype,
                        });
                    }
                }
                None => {}
            }
        }
        let view = self.view(place)?;
        let view = self.bind_group(view, scope, place)?;
        let Some(mut layout) = StaticLayout::of(&view.layout) else {
            let axis = view
                .layout
                .shape
                .iter()
                .position(|d| !d.is_const())
                .unwrap_or(0);
            self.diags.push(
                Diagnostic::new(
                    Code::OPERAND_EXTENT_NOT_CONSTANT,
                    place.span,
                    format!(
                        "operand `{}` has extent `{}` on axis {axis}, which is not a compile-time constant",
                        view.name,
                        super::limits::poly_text(&view.layout.shape[axis], &self.atoms)
                    ),
                )
                .with_help(format!(
                    "slice a constant-size part of it, like `{}.slice(s![i..i + 4])`",
                    view.name
                )),
            );
            return None;
        };
        // A tile view that moves with a rolled loop's variable: its first
        // iteration's registers, and how far they move per unit.
        let mut roll_shift = 0;
        if matches!(view.base, ViewBase::Tile(_))
            && let Some((first, shift)) = self.rolled_offset(&view.layout.offset)
        {
            layout.offset = usize::try_from(first).unwrap_or(usize::MAX);
            roll_shift = shift;
        }
        Some(match view.base {
            ViewBase::Tile(tile) => Value::Local {
                tile,
                name: view.name,
                layout,
                roll_shift,
            },
            ViewBase::Memory(buffer) => Value::Memory {
                buffer,
                name: view.name,
                layout,
                view: view.layout,
                bounds: view.bounds,
                cta: view.cta,
            },
        })
    }

    /// Resolves a name and applies its views.
    pub(super) fn view(&mut self, place: &PlaceExpr) -> Option<View> {
        let Some(binding) = self.lookup(&place.base).cloned() else {
            let mut diag = Diagnostic::new(
                Code::UNKNOWN_NAME,
                place.base_span,
                format!(
                    "cannot find tile or parameter `{}` in this kernel",
                    place.base
                ),
            );
            let names = self.names_in_scope();
            if let Some(near) = nearest(&place.base, names.iter().map(String::as_str)) {
                diag = diag.with_help(format!(
                    "a tile or parameter with a similar name exists: `{near}`"
                ));
            }
            self.diags.push(diag);
            return None;
        };
        let mut view = match binding {
            Binding::Unparsed | Binding::Failed => return None,
            Binding::Tile(tile) => {
                let t = &self.tiles[tile].tile;
                View {
                    base: ViewBase::Tile(tile),
                    name: place.base.clone(),
                    layout: Layout::row_major_const(t.dtype, &t.shape),
                    bounds: Vec::new(),
                    group: self.tiles[tile].group.clone(),
                    cta: None,
                }
            }
            Binding::View(view) => view,
            Binding::Shared(buffer) => {
                let b = &self.shared[buffer].buffer;
                let shape: Vec<Poly> = b.shape.iter().map(|d| self.dim_poly(*d)).collect();
                View {
                    base: ViewBase::Memory(Buffer::shared(buffer)),
                    name: place.base.clone(),
                    layout: Layout::row_major(b.dtype, &shape),
                    bounds: Vec::new(),
                    group: None,
                    cta: None,
                }
            }
            Binding::Param(param) => match self.params[param].kind.clone() {
                ParamKind::Scalar(_) => {
                    let span = place.views.first().map_or(place.span, |v| v.span);
                    self.diags.error(
                        Code::NOT_A_PLACE,
                        span,
                        format!(
                            "`{}` is a scalar parameter; views apply only to tiles and tensors",
                            place.base
                        ),
                    );
                    return None;
                }
                ParamKind::Tensor { dtype, dims, .. } => {
                    let shape: Vec<Poly> = dims.iter().map(|d| self.dim_poly(*d)).collect();
                    View {
                        base: ViewBase::Memory(Buffer::global(param)),
                        name: place.base.clone(),
                        layout: Layout::row_major(dtype, &shape),
                        bounds: Vec::new(),
                        group: None,
                        cta: None,
                    }
                }
            },
            Binding::KernelFunction(_) => {
                self.diags.push(Diagnostic::new(
                    Code::NOT_A_PLACE,
                    place.base_span,
                    format!(
                        "`{}` is a kernel function, not a tile or tensor",
                        place.base
                    ),
                ));
                return None;
            }
            Binding::Function(_) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_A_PLACE,
                        place.base_span,
                        format!(
                            "`{}` is a scalar function, not a tile or tensor",
                            place.base
                        ),
                    )
                    .with_help(format!(
                        "a scalar function runs on tiles through `ewise({}, dst, inputs..)`",
                        place.base
                    )),
                );
                return None;
            }
            Binding::Symbol(_) | Binding::Int(_) | Binding::Bool(_) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_A_PLACE,
                        place.base_span,
                        format!("`{}` is a runtime value, not a tile or tensor", place.base),
                    )
                    .with_note("`apply` operands are tiles, tensors, views of them, scalar parameters, runtime integers and literals; views apply only to tiles and tensors"),
                );
                return None;
            }
        };
        for op in &place.views {
            if let ViewKind::InCta(rank) = &op.kind {
                self.in_cta(&mut view, rank, op.span)?;
                continue;
            }
            // On a view with group axes an operation applies to the thread's
            // part; a slice's leading items select the group axes first.
            let grouped = view.group.is_some();
            let result = match &op.kind {
                ViewKind::InCta(_) => continue,
                ViewKind::Reshape(dims) if grouped => {
                    let dims =
                        self.group_part_dims(&view, dims, op.span, Code::RESHAPE, "reshape")?;
                    view.layout.reshape(dims, op.span)
                }
                ViewKind::Broadcast(dims) if grouped => {
                    let dims =
                        self.group_part_dims(&view, dims, op.span, Code::BROADCAST, "broadcast")?;
                    view.layout.broadcast(dims, op.span)
                }
                ViewKind::Unsqueeze(axis) if grouped => {
                    let axis = self.group_unsqueeze(&view, *axis, op.span)?;
                    view.layout.unsqueeze(axis, op.span)
                }
                ViewKind::Slice(items) => {
                    let items = if grouped {
                        self.group_slice(&mut view, items, op.span)?
                    } else {
                        items.as_slice()
                    };
                    if items.is_empty() {
                        continue;
                    }
                    let bounds = self.slice_bounds(&view, items)?;
                    match view.layout.slice(&bounds, op.span) {
                        Ok((layout, new_bounds)) => {
                            if !self.accept_bounds(&view, &layout, &new_bounds, items) {
                                return None;
                            }
                            if matches!(view.base, ViewBase::Memory(_)) {
                                view.bounds.extend(new_bounds);
                            }
                            Ok(layout)
                        }
                        Err(err) => Err(err),
                    }
                }
                ViewKind::View(dtype) => view.layout.view(*dtype, op.span),
                ViewKind::Reshape(dims) => view.layout.reshape(dims, op.span),
                ViewKind::Unsqueeze(axis) => view.layout.unsqueeze(*axis, op.span),
                ViewKind::Permute(_) if grouped => {
                    self.diags.push(
                        Diagnostic::new(
                            Code::PERMUTE,
                            op.span,
                            "`.permute` on a scoped tile is not supported: its group axes name the threads",
                        )
                        .with_help("permute a view of shared or global memory, or a thread's own tile"),
                    );
                    return None;
                }
                ViewKind::Permute(order) => view.layout.permute(order, op.span),
                ViewKind::Broadcast(dims) => view.layout.broadcast(dims, op.span),
            };
            match result {
                Ok(next) => view.layout = next,
                Err(err) => {
                    let mut diag = Diagnostic::new(err.code, err.span, err.message);
                    if let Some(help) = err.help {
                        diag = diag.with_help(help);
                    }
                    self.diags.push(diag);
                    return None;
                }
            }
        }
        Some(view)
    }

    /// `.in_cta(rank)` on `view`: the same view of the copy of its shared
    /// buffer that the CTA of rank `rank` in the cluster holds. The rank
    /// must lie in the cluster: a bound like a slice's (proven or guarded
    /// where the view is accessed), and an error where it never can.
    fn in_cta(&mut self, view: &mut View, rank: &ast::Expr, span: SpanId) -> Option<()> {
        let ctas: i128 = self.launch.cluster.iter().map(|c| i128::from(*c)).product();
        let problem = match view.base {
            _ if view.cta.is_some() => Some((
                format!("`{}` already names another CTA's buffer", view.name),
                "use one `.in_cta(rank)` per view".to_string(),
            )),
            ViewBase::Memory(buffer) if buffer.space == MemorySpace::Shared => (ctas <= 1).then(|| {
                (
                    format!(
                        "`.in_cta` names a buffer of another CTA of the cluster, but kernel `{}` declares no cluster",
                        self.kernel.name
                    ),
                    "declare one in the attribute, like `cluster = [2, 1, 1]` (sm_90 or newer)".to_string(),
                )
            }),
            ViewBase::Memory(buffer) => Some((
                format!(
                    "`{}` is a {}; `.in_cta` selects another CTA's copy of a shared buffer",
                    view.name,
                    buffer.space.noun()
                ),
                "every CTA sees the same global tensors: use the view without `.in_cta`".to_string(),
            )),
            ViewBase::Tile(_) => Some((
                format!(
                    "`{}` is a register tile; `.in_cta` selects another CTA's copy of a shared buffer",
                    view.name
                ),
                "registers are the thread's own: exchange values through a shared buffer".to_string(),
            )),
        };
        if let Some((message, help)) = problem {
            self.diags
                .push(Diagnostic::new(Code::IN_CTA, span, message).with_help(help));
            return None;
        }
        let rank_poly = self.eval_int(rank)?;
        let last = Poly::constant(ctas - 1);
        let bounds = [
            Bound {
                le0: rank_poly.scale(-1),
                span: rank.span(),
                what: BoundKind::ClusterRank,
                axis: 0,
            },
            Bound {
                le0: rank_poly.sub(&last),
                span: rank.span(),
                what: BoundKind::ClusterRank,
                axis: 0,
            },
        ];
        let prover = Prover {
            atoms: &self.atoms,
            facts: &[],
        };
        if bounds.iter().any(|b| prover.refute_le0(&b.le0)) {
            let value = rank_poly
                .as_const()
                .map_or_else(|| "the rank".to_string(), |v| format!("rank {v}"));
            self.diags.push(
                Diagnostic::new(
                    Code::OUT_OF_BOUNDS,
                    rank.span(),
                    format!(
                        "{value} is never a CTA of the cluster, whose ranks are 0 to {}",
                        ctas - 1
                    ),
                )
                .with_note(format!(
                    "cluster = {:?} holds {ctas} CTAs",
                    self.launch.cluster
                )),
            );
            return None;
        }
        view.bounds.extend(bounds);
        view.cta = Some(rank_poly);
        Some(())
    }

    /// Evaluates the items of `s![..]` against the current view.
    fn slice_bounds(&mut self, view: &View, items: &[SliceItem]) -> Option<Vec<SliceBound>> {
        let mut out = Vec::new();
        for (axis, item) in items.iter().enumerate() {
            let Some(len) = view.layout.shape.get(axis).cloned() else {
                // Too many items: the layout reports it with the shape.
                out.push(SliceBound::Index {
                    index: Poly::default(),
                    span: item.span(),
                });
                continue;
            };
            // ndarray's convention: a negative constant counts from the end.
            let position = |checker: &mut Self, expr: &ast::Expr| -> Option<Poly> {
                let value = checker.eval_int(expr)?;
                Some(match value.as_const() {
                    Some(v) if v < 0 => len.add_const(v),
                    _ => value,
                })
            };
            match item {
                SliceItem::Index { index, span } => {
                    let index = position(self, index)?;
                    out.push(SliceBound::Index { index, span: *span });
                }
                SliceItem::Range {
                    start,
                    end,
                    step,
                    span,
                } => {
                    let start_poly = match start {
                        Some(e) => position(self, e)?,
                        None => Poly::default(),
                    };
                    let end_poly = match end {
                        Some(e) => position(self, e)?,
                        None => len.clone(),
                    };
                    if *step <= 0 {
                        self.diags.error(
                            Code::SLICE_STEP,
                            *span,
                            format!(
                                "slice step must be positive, got {step} (reversed views are not supported)"
                            ),
                        );
                        return None;
                    }
                    let extent = end_poly.sub(&start_poly);
                    let Some(extent) = extent.as_const() else {
                        self.diags.push(
                            Diagnostic::new(
                                Code::SLICE_EXTENT,
                                *span,
                                format!(
                                    "the extent of this slice, `{}`, is not a compile-time constant",
                                    super::limits::poly_text(&extent, &self.atoms)
                                ),
                            )
                            .with_help("write the range as `start..start + 4`: a start plus a constant extent"),
                        );
                        return None;
                    };
                    if extent < 0 {
                        let text = |p: &Poly| super::limits::poly_text(p, &self.atoms);
                        self.diags.error(
                            Code::SLICE_REVERSED,
                            *span,
                            format!(
                                "slice start {} is past its end {} on axis {axis}",
                                text(&start_poly),
                                text(&end_poly)
                            ),
                        );
                        return None;
                    }
                    let step = *step as usize;
                    let count = (extent as usize).div_ceil(step);
                    out.push(SliceBound::Range {
                        start: start_poly,
                        count,
                        step,
                        span: *span,
                    });
                }
            }
        }
        Some(out)
    }

    /// Tiles: every bound must hold now (registers are static). Tensors: a
    /// bound that can never hold is a statically out-of-range slice.
    fn accept_bounds(
        &mut self,
        view: &View,
        layout: &Layout,
        bounds: &[Bound],
        items: &[SliceItem],
    ) -> bool {
        let is_tile = matches!(view.base, ViewBase::Tile(_));
        if is_tile && !layout.is_static() && !self.rolls_statically(layout) {
            let span = items
                .iter()
                .find(|i| match i {
                    SliceItem::Index { index, .. } => values::const_int(index).is_none(),
                    SliceItem::Range { start, .. } => start
                        .as_ref()
                        .is_some_and(|s| values::const_int(s).is_none()),
                })
                .map_or_else(
                    || items.first().map_or(Default::default(), SliceItem::span),
                    SliceItem::span,
                );
            self.diags.push(
                Diagnostic::new(
                    Code::RUNTIME_TILE_INDEX,
                    span,
                    format!(
                        "local tile `{}` cannot be indexed by a runtime value: registers are named at compile time",
                        view.name
                    ),
                )
                .with_help("use a constant index; a loop with constant bounds (`for k in 0..8`) makes `k` a constant"),
            );
            return false;
        }
        let prover = Prover {
            atoms: &self.atoms,
            facts: &[],
        };
        for bound in bounds {
            let impossible = if is_tile {
                !prover.prove_le0(&bound.le0)
            } else {
                prover.refute_le0(&bound.le0)
            };
            if !impossible {
                continue;
            }
            let len = super::limits::poly_text(&view.layout.shape[bound.axis], &self.atoms);
            let message = match (&items[bound.axis], bound.what) {
                (SliceItem::Index { index, .. }, _) => format!(
                    "index {} is out of bounds for axis {} of extent {len}",
                    values::const_int(index).map_or_else(|| "value".to_string(), |v| v.to_string()),
                    bound.axis
                ),
                (_, BoundKind::Start) => format!(
                    "this slice starts before index 0 of axis {} of `{}`",
                    bound.axis, view.name
                ),
                // Slices make no rank bounds (`in_cta` checks its own).
                (_, BoundKind::End | BoundKind::ClusterRank) => format!(
                    "this slice ends past the extent {len} of axis {} of `{}`",
                    bound.axis, view.name
                ),
            };
            let shape = view
                .layout
                .const_shape()
                .map(|s| format!(" (shape {})", shape_text(&s)))
                .unwrap_or_default();
            self.diags.push(
                Diagnostic::new(Code::OUT_OF_BOUNDS, bound.span, message)
                    .with_note(format!("`{}`{shape} is sliced out of range", view.name)),
            );
            return false;
        }
        true
    }
}
