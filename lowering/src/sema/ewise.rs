//! `ewise(function, dst, inputs.., scope = ..)`: a scalar function at every
//! element of a register tile.
//!
//! **Input**: the statement, its operands' views and the scalar function
//! (in place, or a [`ast::FunctionDef`] of the kernel).
//! **Output**: nothing of its own in the checked kernel: the function's
//! straight-line code ([`super::scalar`]) becomes one `apply` per
//! instruction, over the destination's elements (each element a repeat
//! coordinate: the operands get a register axis of 1), with intermediate
//! values in temporary tiles of the destination's shape. Those `apply`s are
//! checked like any other (operand rules, definedness, order
//! independence), so every obligation holds for `ewise` with no proof of
//! its own, and the interpreter runs exactly the instructions the GPU does.
//!
//! Guarantees before expanding: the destination and every tile input are
//! register tiles of one shape (the inputs' elements are read at the
//! destination's coordinates; a zero-stride `.broadcast` view reuses one),
//! scalar inputs are kernel parameters, literals or runtime integers, the
//! inputs' types are the parameters' types and the result's type is the
//! destination's (no implicit conversion).

use std::rc::Rc;

use crate::ast::{self, Operand, PlaceExpr, ViewKind, ViewOp};
use crate::checked::Value;
use crate::diag::{Code, Diagnostic, SpanId};
use crate::dtype::DType;
use crate::program::ParamKind;
use crate::scope::Scope;

use super::scalar::{self as straight, Arg, Capture, Straight, Val};
use super::{Binding, Checker, ViewBase};

/// Temporary tiles of `ewise` expansions, reused across statements: per
/// dtype, allocated shape (group axes, then the destination's part, then a
/// register axis of 1) and scope, the names of the tiles made so far.
pub(super) type TempPool = std::collections::HashMap<(DType, Vec<usize>, Scope), Vec<String>>;

/// The start of every temporary tile's name (not a Rust identifier, so no
/// user name can clash with it).
pub(super) const TEMP_PREFIX: &str = "ewise temp ";

/// How one `ewise` input reaches the function.
enum Input {
    /// A register tile of the destination's shape, by its view.
    Tile(PlaceExpr),
    /// A scalar (parameter, literal, runtime integer), broadcast.
    Scalar(Operand),
}

impl Checker<'_> {
    /// `fn name(..) { .. }` or `let name = |..| ..;`: checks the function
    /// on its own (its parameters are typed) and binds its name.
    pub(super) fn function_def(&mut self, def: &ast::FunctionDef) {
        let function = &def.function;
        let inputs = function
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| Val::Typed(Arg::Input(k), p.dtype))
            .collect();
        let result = function.ret.map(|(dtype, _)| dtype);
        let checked = {
            let capture = |name: &str| self.capture_of(name);
            straight::straighten(function, inputs, result, &capture)
        };
        let binding = match checked {
            Ok(_) => Binding::Function(Rc::new(function.clone())),
            Err(diags) => {
                for diag in diags {
                    self.diags.push(diag);
                }
                Binding::Failed
            }
        };
        self.bind(&def.name, binding);
    }

    /// What `name` means to a scalar function running here.
    pub(super) fn capture_of(&self, name: &str) -> Capture {
        match self.lookup(name) {
            None => Capture::Unknown,
            Some(binding) => match binding {
                Binding::Param(param) => match &self.params[*param].kind {
                    ParamKind::Scalar(dtype) => Capture::Scalar(*dtype),
                    ParamKind::Tensor { .. } => Capture::Other("a tensor"),
                },
                Binding::Tile(_) => Capture::Other("a tile"),
                Binding::Shared(_) => Capture::Other("a shared buffer"),
                Binding::View(_) => Capture::Other("a view"),
                Binding::Symbol(poly) | Binding::Int(poly) => match poly.as_const() {
                    Some(value) => Capture::Constant(value),
                    None => Capture::Index,
                },
                Binding::Bool(_) => Capture::Other("a runtime condition"),
                Binding::Function(function) => Capture::Function(function.clone()),
                Binding::KernelFunction(_) => Capture::Other("a kernel function"),
                Binding::Unparsed | Binding::Failed => Capture::Silent,
            },
        }
    }

    pub(super) fn ewise(&mut self, ewise: &ast::Ewise) {
        let errors = self.diags.len();
        let expanded = self.ewise_checked(ewise);
        if expanded.is_none() || self.diags.len() > errors {
            // The destination counts as written: its reads add no
            // follow-up errors (one mistake, one error).
            if let Some(Binding::Tile(tile)) = self.lookup(&ewise.dst.base).cloned() {
                self.havoc_tile(tile);
            }
        }
    }

    /// Checks the statement and expands it; `None` after an error.
    fn ewise_checked(&mut self, ewise: &ast::Ewise) -> Option<()> {
        let scope = self.tile_scope(ewise.scope.as_ref())?;
        let dst_operand = Operand::Place(ewise.dst.clone());
        let group = match self.view(&ewise.dst)? {
            view if matches!(view.base, ViewBase::Tile(_)) => view.group,
            _ => None,
        };
        let dst = self.operand_value(&dst_operand, scope)?;
        let Value::Local { layout, .. } = &dst else {
            self.diags
                .push(not_registers(&dst, ewise.dst.span, "its destination"));
            return None;
        };
        let (dtype, shape) = (layout.dtype, layout.shape.clone());

        // The inputs, against the destination's shape.
        let mut inputs = Vec::new();
        let mut vals = Vec::new();
        let mut failed = false;
        for operand in &ewise.inputs {
            // A broadcast as the last view may widen the last axis too: in
            // `ewise` every axis is a repeat axis (the register axis of 1
            // goes in front of the broadcast).
            let broadcast_last = matches!(operand, Operand::Place(place)
                if matches!(place.views.last(), Some(ViewOp { kind: ViewKind::Broadcast(_), .. })));
            let resolved = match operand {
                Operand::Place(place) if broadcast_last => {
                    Operand::Place(with_register_axis(place))
                }
                other => other.clone(),
            };
            let Some(mut value) = self.operand_value(&resolved, scope) else {
                failed = true;
                continue;
            };
            if broadcast_last && let Value::Local { layout, .. } = &mut value {
                layout.shape.pop();
            }
            let (input, val) = match (&value, operand) {
                (Value::Local { layout, name, .. }, Operand::Place(place)) => {
                    if layout.shape != shape {
                        self.diags.push(
                            Diagnostic::new(
                                Code::EWISE_OPERAND,
                                operand.span(),
                                format!(
                                    "input `{name}` has shape {:?}, but the destination `{}` has {:?}",
                                    layout.shape, ewise.dst.base, shape
                                ),
                            )
                            .with_note("`ewise` reads each input at the destination's coordinates")
                            .with_help("slice the input to the destination's shape, or `.broadcast([..])` an axis of extent 1"),
                        );
                        failed = true;
                        continue;
                    }
                    (
                        Input::Tile(place.clone()),
                        Val::Typed(Arg::Input(inputs.len()), layout.dtype),
                    )
                }
                (Value::Scalar { name, dtype, .. }, _) => (
                    Input::Scalar(operand.clone()),
                    Val::Typed(Arg::Param(name.clone(), operand.span()), *dtype),
                ),
                (Value::Literal(ast::LiteralValue::Int(v)), _) => {
                    (Input::Scalar(operand.clone()), Val::Int(*v, operand.span()))
                }
                (Value::Literal(ast::LiteralValue::Float(v)), _) => (
                    Input::Scalar(operand.clone()),
                    Val::Float(format!("{v:e}"), operand.span()),
                ),
                (Value::Index { .. }, _) => {
                    let expr = match operand {
                        Operand::Value(expr) => expr.clone(),
                        Operand::Place(place) => ast::Expr::Name(place.base.clone(), place.span),
                        _ => return None,
                    };
                    (Input::Scalar(operand.clone()), Val::Index(expr))
                }
                (other, _) => {
                    self.diags
                        .push(not_registers(other, operand.span(), "an input"));
                    failed = true;
                    continue;
                }
            };
            inputs.push(input);
            vals.push(val);
        }
        if failed {
            return None;
        }

        let (function, name) = match &ewise.function {
            ast::EwiseFunction::Inline(function) => (Rc::new(function.clone()), None),
            ast::EwiseFunction::Named(name, span) => match self.capture_of(name) {
                Capture::Function(function) => (function, Some((name.clone(), *span))),
                Capture::Silent => return None,
                _ => {
                    self.diags.push(Diagnostic::new(
                        Code::UNKNOWN_FUNCTION,
                        *span,
                        format!("cannot find scalar function `{name}` in this kernel"),
                    ).with_help("define it in the kernel's body before the `ewise`: `fn name(x: f32) -> f32 { .. }` or `let name = |x: f32| ..;`"));
                    return None;
                }
            },
        };
        let function_span = name.as_ref().map_or(function.span, |(_, span)| *span);
        if function.params.len() != vals.len() {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            self.diags.push(
                Diagnostic::new(
                    Code::EWISE_ARITY,
                    function_span,
                    format!(
                        "this function takes {} parameter{}, but `ewise` gives it {} input{}",
                        function.params.len(),
                        plural(function.params.len()),
                        vals.len(),
                        plural(vals.len())
                    ),
                )
                .with_note("`ewise(function, dst, inputs..)`: one input per parameter, in order"),
            );
            return None;
        }
        for ((param, val), operand) in function.params.iter().zip(&vals).zip(&ewise.inputs) {
            if let Val::Typed(_, have) = val
                && *have != param.dtype
            {
                self.diags.push(
                    Diagnostic::new(
                        Code::EWISE_TYPE,
                        operand.span(),
                        format!(
                            "this input holds `{have}`, but parameter `{}` is `{}`",
                            param.name, param.dtype
                        ),
                    )
                    .with_note("`ewise` converts nothing implicitly")
                    .with_help(format!(
                        "declare the parameter as `{}: {have}` and convert inside with `as {}`",
                        param.name, param.dtype
                    )),
                );
                failed = true;
            }
        }
        if let Some((ret, _)) = function.ret
            && ret != dtype
        {
            self.diags.push(
                Diagnostic::new(
                    Code::EWISE_TYPE,
                    ewise.dst.span,
                    format!(
                        "the function returns `{ret}`, but the destination `{}` holds `{dtype}`",
                        ewise.dst.base
                    ),
                )
                .with_help(format!(
                    "convert the result inside the function: `(..) as {dtype}`"
                )),
            );
            failed = true;
        }
        if failed {
            return None;
        }
        let straight = {
            let capture = |name: &str| self.capture_of(name);
            straight::straighten(&function, vals, Some(dtype), &capture)
        };
        let straight = match straight {
            Ok(straight) => straight,
            Err(diags) => {
                // A named function's own errors were reported where it is
                // defined; what is left is about this use.
                for diag in diags {
                    self.diags.push(diag);
                }
                return None;
            }
        };
        let mut alloc_shape: Vec<usize> = group.map(|g| g.axes).unwrap_or_default();
        alloc_shape.extend(&shape);
        alloc_shape.push(1);
        self.expand_ewise(ewise, scope, dtype, &alloc_shape, &inputs, straight);
        Some(())
    }

    /// One `apply` per live instruction of `code`, the last writing the
    /// destination (of `dst_dtype`).
    fn expand_ewise(
        &mut self,
        ewise: &ast::Ewise,
        scope: Scope,
        dst_dtype: DType,
        alloc_shape: &[usize],
        inputs: &[Input],
        code: Straight,
    ) {
        let Straight {
            ops,
            result,
            result_span,
        } = code;
        // Only what the result depends on (nothing has an effect).
        let mut live = vec![false; ops.len()];
        let mut last_use = vec![usize::MAX; ops.len()];
        if let Arg::Temp(n) = result {
            live[n] = true;
            last_use[n] = ops.len();
        }
        for (i, op) in ops.iter().enumerate().rev() {
            if !live[i] {
                continue;
            }
            for arg in &op.args {
                if let Arg::Temp(n) = arg {
                    live[*n] = true;
                    if last_use[*n] == usize::MAX {
                        last_use[*n] = i;
                    }
                }
            }
        }
        let last_live = live.iter().rposition(|l| *l);
        // The last instruction writes the destination when it computes the
        // result; otherwise a move does.
        let writes_dst = |i: usize| Some(i) == last_live && result == Arg::Temp(i);
        let dst_operand = Operand::Place(with_register_axis(&ewise.dst));
        let mut slot_of: Vec<Option<(DType, usize)>> = vec![None; ops.len()];
        let mut free: std::collections::HashMap<DType, Vec<usize>> = Default::default();
        let mut used: std::collections::HashMap<DType, usize> = Default::default();
        for (i, op) in ops.iter().enumerate() {
            if !live[i] {
                continue;
            }
            let mut operands = Vec::with_capacity(op.args.len() + 1);
            for arg in &op.args {
                operands.push(self.ewise_operand(arg, &slot_of, &ops, inputs, scope, alloc_shape));
            }
            // Operands read for the last time free their tile for this
            // destination (same coordinate: in place is allowed).
            for arg in &op.args {
                if let Arg::Temp(n) = arg
                    && last_use[*n] == i
                    && let Some((dtype, slot)) = slot_of[*n]
                {
                    let list = free.entry(dtype).or_default();
                    if !list.contains(&slot) {
                        list.push(slot);
                    }
                }
            }
            let dst = if writes_dst(i) {
                dst_operand.clone()
            } else {
                let slot = match free.get_mut(&op.dtype).and_then(Vec::pop) {
                    Some(slot) => slot,
                    None => {
                        let next = used.entry(op.dtype).or_default();
                        *next += 1;
                        *next - 1
                    }
                };
                slot_of[i] = Some((op.dtype, slot));
                let name = self.ewise_temp(op.dtype, slot, alloc_shape, scope, ewise.span);
                temp_operand(name, op.span)
            };
            operands.insert(0, dst);
            self.ewise_apply(ewise, op.opcode.clone(), op.opcode_span, operands, op.span);
        }
        if !matches!(result, Arg::Temp(n) if writes_dst(n)) {
            let source = self.ewise_operand(&result, &slot_of, &ops, inputs, scope, alloc_shape);
            let dtype = match &result {
                Arg::Temp(n) => ops[*n].dtype,
                _ => dst_dtype,
            };
            let opcode = move_opcode(dtype);
            self.ewise_apply(
                ewise,
                opcode,
                result_span,
                vec![dst_operand, source],
                result_span,
            );
        }
    }

    fn ewise_operand(
        &mut self,
        arg: &Arg,
        slot_of: &[Option<(DType, usize)>],
        ops: &[straight::Op],
        inputs: &[Input],
        scope: Scope,
        alloc_shape: &[usize],
    ) -> Operand {
        match arg {
            Arg::Temp(n) => {
                let (dtype, slot) = slot_of[*n].unwrap_or((ops[*n].dtype, 0));
                let name = self.ewise_temp(dtype, slot, alloc_shape, scope, ops[*n].span);
                temp_operand(name, ops[*n].span)
            }
            Arg::Input(k) => match &inputs[*k] {
                Input::Tile(place) => Operand::Place(with_register_axis(place)),
                Input::Scalar(operand) => operand.clone(),
            },
            Arg::Param(name, span) => Operand::Place(PlaceExpr {
                base: name.clone(),
                base_span: *span,
                views: Vec::new(),
                span: *span,
            }),
            Arg::Index(ast::Expr::Name(name, span)) => Operand::Place(PlaceExpr {
                base: name.clone(),
                base_span: *span,
                views: Vec::new(),
                span: *span,
            }),
            Arg::Index(expr) => Operand::Value(expr.clone()),
            Arg::Literal(value, span) => Operand::Literal(ast::Literal {
                value: *value,
                span: *span,
            }),
        }
    }

    /// The name of temporary tile `slot` of `dtype` and shape
    /// `alloc_shape`, allocated (in the kernel's outermost scope, so later
    /// statements reuse it) when first asked for.
    fn ewise_temp(
        &mut self,
        dtype: DType,
        slot: usize,
        alloc_shape: &[usize],
        scope: Scope,
        span: SpanId,
    ) -> String {
        let key = (dtype, alloc_shape.to_vec(), scope);
        let made = self.ewise_temps.get(&key).map_or(0, Vec::len);
        for index in made..=slot {
            let total: usize = self.ewise_temps.values().map(Vec::len).sum();
            let name = format!("{TEMP_PREFIX}{total}");
            let alloc = ast::AllocLocal {
                name: name.clone(),
                name_span: span,
                dtype,
                dtype_span: span,
                shape: alloc_shape
                    .iter()
                    .map(|d| ast::Dim::constant(*d as u64, span))
                    .collect(),
                scope: (scope != Scope::Thread).then(|| (scope.name().to_string(), span)),
                layout: None,
                space: ast::AllocSpace::Registers,
                span,
            };
            self.alloc(&alloc);
            // Bound for the whole kernel, whatever block it was made in.
            let binding = self
                .scopes
                .unbind_innermost(&name)
                .unwrap_or(Binding::Failed);
            self.scopes.bind_outermost(&name, binding);
            self.ewise_temps.entry(key.clone()).or_default().push(name);
            debug_assert_eq!(self.ewise_temps[&key].len(), index + 1);
        }
        self.ewise_temps[&key][slot].clone()
    }

    fn ewise_apply(
        &mut self,
        ewise: &ast::Ewise,
        opcode: String,
        opcode_span: SpanId,
        operands: Vec<Operand>,
        span: SpanId,
    ) {
        let apply = ast::Apply {
            opcode,
            opcode_span,
            operands,
            scope: ewise.scope.clone(),
            pred: None,
            preserve_dst: None,
            zero_fill: None,
            span,
        };
        self.apply(&apply);
    }
}

/// `place` with a register axis of 1 appended: every element of the view
/// becomes a repeat coordinate of a scalar instruction. A final
/// `.broadcast([..])` gets the axis first (`.unsqueeze(-1).broadcast([.., 1])`),
/// so it may widen the view's last axis.
fn with_register_axis(place: &PlaceExpr) -> PlaceExpr {
    let mut place = place.clone();
    let unsqueeze = ViewOp {
        kind: ViewKind::Unsqueeze(-1),
        span: place.span,
    };
    match place.views.pop() {
        Some(ViewOp {
            kind: ViewKind::Broadcast(mut extents),
            span,
        }) => {
            extents.push(1);
            place.views.push(unsqueeze);
            place.views.push(ViewOp {
                kind: ViewKind::Broadcast(extents),
                span,
            });
        }
        last => {
            place.views.extend(last);
            place.views.push(unsqueeze);
        }
    }
    place
}

fn temp_operand(name: String, span: SpanId) -> Operand {
    Operand::Place(PlaceExpr {
        base: name,
        base_span: span,
        views: Vec::new(),
        span,
    })
}

/// The instruction that copies a value of `dtype` between registers.
fn move_opcode(dtype: DType) -> String {
    match dtype {
        DType::F32 => "mov.f32".into(),
        DType::F64 => "mov.f64".into(),
        DType::F16 | DType::Bf16 => "mov.b16".into(),
        DType::Bool => "mov.pred".into(),
        // PTX has no 8-bit `mov`; `cvt` of the same type copies.
        DType::U8 => "cvt.u8.u8".into(),
        DType::I8 => "cvt.s8.s8".into(),
        other => format!("mov.{}", super::scalar_ops::ptx_token(other)),
    }
}

fn not_registers(value: &Value, span: SpanId, what: &str) -> Diagnostic {
    let diag = Diagnostic::new(
        Code::EWISE_OPERAND,
        span,
        format!(
            "{what} of `ewise` is {}; `ewise` computes in registers",
            value.describe()
        ),
    );
    match value {
        Value::Memory { .. } => diag
            .with_note("a scalar function does no memory access")
            .with_help("load it into a tile first with `apply(ptx[\"ld..\"], tile, ..)`, or store the result with `apply(ptx[\"st..\"], ..)`"),
        _ => diag,
    }
}
