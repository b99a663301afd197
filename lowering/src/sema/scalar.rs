//! Typing of scalar functions (the functions `ewise` inlines).
//!
//! **Input**: a [`scalar::Function`], the values its parameters take (the
//! `ewise` inputs) and what the kernel's names mean where it runs
//! ([`Capture`]).
//! **Output**: straight-line code ([`Straight`]): one [`Op`] per PTX
//! instruction ([`super::scalar_ops`]), every value with one dtype, or the
//! diagnostics of the function.
//!
//! Rust's typing rules, without implicit conversion: both sides of an
//! operator have one type, a literal takes the type its context gives
//! (`x * 2.0` with `x: f32`), `as` converts, and a function's result is its
//! declared type. An `if`/`else` computes both arms (they have no effects)
//! and selects. Calls of the kernel's scalar functions are inlined; a
//! function sees only functions defined before it, so calls cannot recurse.

use std::collections::HashMap;
use std::rc::Rc;

use crate::ast::{self, BinOp, LiteralValue, UnOp, scalar};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::dtype::DType;
use crate::ptx::form::{Access, Effect, OperandKind, ResolvedOperand, Usability};
use crate::ptx::resolve;

use super::scalar_ops::{self, Class};

/// The most instructions one `ewise` function may expand to (inlined calls
/// multiply).
pub(super) const MAX_OPS: usize = 4096;

/// What a name that is not the function's own means in the kernel.
#[derive(Clone)]
pub(super) enum Capture {
    /// A scalar parameter of the kernel.
    Scalar(DType),
    /// A compile-time integer (an unrolled loop's variable).
    Constant(i128),
    /// A runtime integer: a size symbol, a `let` of one, a loop variable.
    Index,
    /// A scalar function of the kernel.
    Function(Rc<scalar::Function>),
    /// Something a scalar function cannot read (a tile, a tensor, a
    /// predicate): what it is, for the message.
    Other(&'static str),
    /// A name whose definition failed (already reported).
    Silent,
    Unknown,
}

/// An operand of one instruction.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Arg {
    /// The result of op `n`.
    Temp(usize),
    /// The `ewise` input of the outermost function's parameter `k`.
    Input(usize),
    /// A scalar parameter of the kernel, by name.
    Param(String, SpanId),
    /// A runtime integer of the kernel, as an index expression.
    Index(ast::Expr),
    Literal(LiteralValue, SpanId),
}

/// One instruction: `opcode dst, args..` with a fresh destination of
/// `dtype`.
#[derive(Debug, Clone)]
pub(super) struct Op {
    pub opcode: String,
    /// The token that chose the instruction (an operator, a call, `as`).
    pub opcode_span: SpanId,
    pub args: Vec<Arg>,
    pub dtype: DType,
    /// The expression whose value it computes.
    pub span: SpanId,
}

/// A function as straight-line code.
#[derive(Debug)]
pub(super) struct Straight {
    pub ops: Vec<Op>,
    pub result: Arg,
    pub result_span: SpanId,
}

/// A value while typing.
#[derive(Debug, Clone)]
pub(super) enum Val {
    Typed(Arg, DType),
    /// An integer literal (or compile-time integer) of no type yet.
    Int(i128, SpanId),
    /// A float literal of no type yet, as written.
    Float(String, SpanId),
    /// A runtime integer of the kernel (`N`, `N - 1`): exact until a type
    /// is given.
    Index(ast::Expr),
    /// A `let` whose value failed (already reported): uses are silent.
    Failed,
}

impl Val {
    fn dtype(&self) -> Option<DType> {
        match self {
            Val::Typed(_, dtype) => Some(*dtype),
            _ => None,
        }
    }
}

/// Types `function` with its parameters bound to `inputs` (already
/// checked against the parameters' types) and returns its straight-line
/// code, whose result has type `result` (any type when `None`: a function
/// checked on its own, where an untyped literal result stays untyped).
pub(super) fn straighten(
    function: &scalar::Function,
    inputs: Vec<Val>,
    result: Option<DType>,
    capture: &dyn Fn(&str) -> Capture,
) -> Result<Straight, Vec<Diagnostic>> {
    let mut typer = Typer {
        capture,
        diags: Vec::new(),
        ops: Vec::new(),
        frames: Vec::new(),
        calls: Vec::new(),
        too_large: false,
    };
    let value = typer.function_body(function, inputs);
    if typer.too_large {
        return Err(vec![
            error(
                Code::EWISE_TOO_LARGE,
                function.span,
                format!("this function expands to more than {MAX_OPS} instructions"),
            )
            .with_note("every call of a scalar function is inlined, so calls inside called functions multiply"),
        ]);
    }
    let straight = value.and_then(|(value, span)| {
        let arg = match (result, value) {
            (Some(result), value) => typer.coerce(value, result, span)?,
            (None, Val::Typed(arg, _)) => arg,
            (None, _) => Arg::Literal(LiteralValue::Int(0), span),
        };
        Some(Straight {
            ops: std::mem::take(&mut typer.ops),
            result: arg,
            result_span: span,
        })
    });
    match straight {
        Some(straight) if typer.diags.is_empty() => Ok(straight),
        _ => Err(typer.diags),
    }
}

/// One inlined function: its names and whether it may read the kernel's.
struct Frame {
    scopes: Vec<HashMap<String, Val>>,
    captures: bool,
}

struct Typer<'c> {
    capture: &'c dyn Fn(&str) -> Capture,
    diags: Vec<Diagnostic>,
    ops: Vec<Op>,
    frames: Vec<Frame>,
    /// The functions being inlined, innermost last.
    calls: Vec<String>,
    /// The code outgrew [`MAX_OPS`].
    too_large: bool,
}

fn error(code: Code, span: SpanId, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, span, message)
}

impl Typer<'_> {
    fn report(&mut self, diag: Diagnostic) -> Option<Val> {
        self.diags.push(diag);
        None
    }

    /// The body of `function` with its parameters bound to `args`; the
    /// value and the span of the expression that gives it.
    fn function_body(
        &mut self,
        function: &scalar::Function,
        args: Vec<Val>,
    ) -> Option<(Val, SpanId)> {
        let params: HashMap<String, Val> = function
            .params
            .iter()
            .map(|p| p.name.clone())
            .zip(args)
            .collect();
        self.frames.push(Frame {
            scopes: vec![params],
            captures: !function.is_item,
        });
        let expected = function.ret.map(|(dtype, _)| dtype);
        let value = self.block(&function.body, expected);
        self.frames.pop();
        let span = function
            .body
            .value
            .as_ref()
            .map_or(function.body.span, |v| v.span());
        if function.body.value.is_none() {
            self.report(
                error(
                    Code::EWISE_TYPE,
                    function.body.span,
                    "this function has no value: its body ends in a statement",
                )
                .with_help("end the body with the expression to return, without a `;`"),
            );
            return None;
        }
        let value = value?;
        match function.ret {
            Some((dtype, ret_span)) => {
                let arg = self.coerce_at(value, dtype, span, Some(ret_span))?;
                Some((Val::Typed(arg, dtype), span))
            }
            None => Some((value, span)),
        }
    }

    fn block(&mut self, block: &scalar::Block, expected: Option<DType>) -> Option<Val> {
        self.frame().scopes.push(HashMap::new());
        let value = self.block_inner(block, expected);
        self.frame().scopes.pop();
        value
    }

    fn block_inner(&mut self, block: &scalar::Block, expected: Option<DType>) -> Option<Val> {
        let mut ok = true;
        for binding in &block.lets {
            let want = binding.ty.map(|(dtype, _)| dtype);
            let value = self
                .expr(&binding.value, want)
                .and_then(|value| match binding.ty {
                    Some((dtype, ty_span)) => self
                        .coerce_at(value, dtype, binding.value.span(), Some(ty_span))
                        .map(|arg| Val::Typed(arg, dtype)),
                    None => Some(value),
                });
            ok &= value.is_some();
            // A failed value binds its name too: uses add no follow-up errors.
            let value = value.unwrap_or(Val::Failed);
            if let Some(scope) = self.frame().scopes.last_mut() {
                scope.insert(binding.name.clone(), value);
            }
        }
        let value = self.expr(block.value.as_deref()?, expected)?;
        ok.then_some(value)
    }

    fn frame(&mut self) -> &mut Frame {
        // `function_body` pushes a frame before typing any expression.
        if self.frames.is_empty() {
            self.frames.push(Frame {
                scopes: vec![HashMap::new()],
                captures: false,
            });
        }
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn push(
        &mut self,
        opcode: String,
        opcode_span: SpanId,
        args: Vec<Arg>,
        dtype: DType,
        span: SpanId,
    ) -> Option<Val> {
        if self.ops.len() >= MAX_OPS {
            // Reported once, at the function (`straighten`).
            self.too_large = true;
            return None;
        }
        self.ops.push(Op {
            opcode,
            opcode_span,
            args,
            dtype,
            span,
        });
        Some(Val::Typed(Arg::Temp(self.ops.len() - 1), dtype))
    }

    fn expr(&mut self, expr: &scalar::Expr, expected: Option<DType>) -> Option<Val> {
        match expr {
            scalar::Expr::Name(name, span) => self.name(name, *span),
            scalar::Expr::Int {
                value,
                suffix,
                span,
            } => match suffix {
                None => Some(Val::Int(*value, *span)),
                Some(dtype)
                    if scalar_ops::class(*dtype) == Class::Float
                        || scalar_ops::class(*dtype) == Class::Half =>
                {
                    let arg = self.coerce(Val::Float(value.to_string(), *span), *dtype, *span)?;
                    Some(Val::Typed(arg, *dtype))
                }
                Some(dtype) => {
                    let arg = self.coerce(Val::Int(*value, *span), *dtype, *span)?;
                    Some(Val::Typed(arg, *dtype))
                }
            },
            scalar::Expr::Float { text, suffix, span } => {
                let value = Val::Float(text.clone(), *span);
                match suffix {
                    None => Some(value),
                    Some(dtype) => {
                        let arg = self.coerce(value, *dtype, *span)?;
                        Some(Val::Typed(arg, *dtype))
                    }
                }
            }
            scalar::Expr::Bool(value, span) => {
                // PTX has no predicate immediates: compare two constants.
                let opcode = if *value { "setp.eq.u32" } else { "setp.ne.u32" };
                let zero = Arg::Literal(LiteralValue::Int(0), *span);
                self.push(
                    opcode.to_string(),
                    *span,
                    vec![zero.clone(), zero],
                    DType::Bool,
                    *span,
                )
            }
            scalar::Expr::Binary {
                op,
                lhs,
                rhs,
                op_span,
                span,
            } => self.binary(*op, lhs, rhs, *op_span, *span, expected),
            scalar::Expr::Unary { op, expr, span } => self.unary(*op, expr, *span, expected),
            scalar::Expr::Cast {
                expr,
                to,
                to_span,
                span,
            } => self.cast(expr, *to, *to_span, *span),
            scalar::Expr::Call {
                func,
                func_span,
                args,
                span,
            } => self.call(func, *func_span, args, *span, expected),
            scalar::Expr::Ptx {
                opcode,
                opcode_span,
                args,
                span,
            } => self.ptx(opcode, *opcode_span, args, *span),
            scalar::Expr::If {
                cond,
                then,
                otherwise,
                span,
            } => self.if_else(cond, then, otherwise, *span, expected),
            scalar::Expr::Block(block) => self.block(block, expected),
            scalar::Expr::Invalid(_) => None,
        }
    }

    fn name(&mut self, name: &str, span: SpanId) -> Option<Val> {
        let frame = self.frames.last()?;
        if let Some(value) = frame.scopes.iter().rev().find_map(|s| s.get(name)) {
            return match value {
                Val::Failed => None,
                value => Some(value.clone()),
            };
        }
        let captures = frame.captures;
        let capture = (self.capture)(name);
        match capture {
            Capture::Unknown => self.report(error(
                Code::UNKNOWN_NAME,
                span,
                format!("cannot find value `{name}` in this function"),
            )),
            Capture::Silent => None,
            Capture::Function(_) => self.report(
                error(
                    Code::EWISE_OPERATION,
                    span,
                    format!("`{name}` is a scalar function, not a value"),
                )
                .with_help(format!("call it: `{name}(..)`")),
            ),
            _ if !captures => self.report(
                error(
                    Code::EWISE_CAPTURE,
                    span,
                    format!("a `fn` item cannot read the kernel's `{name}`"),
                )
                .with_note("as in Rust, a `fn` item captures nothing from where it is defined")
                .with_help(format!("pass `{name}` as a parameter, or write the function as a closure")),
            ),
            Capture::Scalar(dtype) => Some(Val::Typed(Arg::Param(name.to_string(), span), dtype)),
            Capture::Constant(value) => Some(Val::Int(value, span)),
            Capture::Index => Some(Val::Index(ast::Expr::Name(name.to_string(), span))),
            Capture::Other(what) => self.report(
                error(
                    Code::EWISE_CAPTURE,
                    span,
                    format!("`{name}` is {what}; a scalar function reads one element of each input, not whole tiles"),
                )
                .with_help(format!("pass `{name}` to `ewise` as an input and give the function a parameter for it")),
            ),
        }
    }

    /// Both sides of a binary operator, given one type (`None` if neither
    /// has one and the context gives none).
    fn unify(lhs: &Val, rhs: &Val, expected: Option<DType>) -> Option<DType> {
        lhs.dtype().or(rhs.dtype()).or(expected)
    }

    fn binary(
        &mut self,
        op: BinOp,
        lhs: &scalar::Expr,
        rhs: &scalar::Expr,
        op_span: SpanId,
        span: SpanId,
        expected: Option<DType>,
    ) -> Option<Val> {
        let operand_hint = if scalar_ops::compares(op) || matches!(op, BinOp::And | BinOp::Or) {
            None
        } else {
            expected
        };
        let shift = matches!(op, BinOp::Shl | BinOp::Shr);
        // Each side's type is the other's context: in `1.0f32 / (448.0 *
        // 512.0)` the left side types the literals on the right, in
        // `(448.0 * 512.0) / x` the right side those on the left (typed
        // first; nothing has effects, so the order is free).
        let (left, right) = if !shift && literals_only(lhs) && !literals_only(rhs) {
            let right = self.expr(rhs, operand_hint);
            let left_hint = right.as_ref().and_then(Val::dtype).or(operand_hint);
            (self.expr(lhs, left_hint), right)
        } else {
            let left = self.expr(lhs, operand_hint);
            let right_hint = if shift {
                Some(DType::U32)
            } else {
                left.as_ref().and_then(Val::dtype).or(operand_hint)
            };
            (left, self.expr(rhs, right_hint))
        };
        let (left, right) = (left?, right?);
        if let Some(folded) = fold(op, &left, &right, span) {
            return Some(folded);
        }
        let dtype = if shift {
            left.dtype().or(operand_hint)
        } else {
            Self::unify(&left, &right, operand_hint)
        };
        let Some(dtype) = dtype else {
            return self.report(untyped_error(&left, span));
        };
        if let (Some(a), Some(b)) = (left.dtype(), right.dtype())
            && !shift
            && a != b
        {
            return self.report(
                error(
                    Code::EWISE_TYPE,
                    op_span,
                    format!("mismatched types: `{a}` {} `{b}`", op.symbol()),
                )
                .with_note("scalar functions convert nothing implicitly")
                .with_help(format!("convert one side with `as`, like `(b as {a})`")),
            );
        }
        let Some(opcode) = scalar_ops::binary(op, dtype) else {
            return self.report(no_instruction(
                &format!("`{}`", op.symbol()),
                dtype,
                op_span,
            ));
        };
        let a = self.coerce(left, dtype, lhs.span())?;
        let b = self.coerce(right, if shift { DType::U32 } else { dtype }, rhs.span())?;
        let result = if scalar_ops::compares(op) {
            DType::Bool
        } else {
            dtype
        };
        self.push(opcode, op_span, vec![a, b], result, span)
    }

    fn unary(
        &mut self,
        op: UnOp,
        inner: &scalar::Expr,
        span: SpanId,
        expected: Option<DType>,
    ) -> Option<Val> {
        let value = self.expr(inner, expected)?;
        match (op, &value) {
            (UnOp::Neg, Val::Int(v, _)) => {
                return match v.checked_neg() {
                    Some(negated) => Some(Val::Int(negated, span)),
                    None => self.report(error(
                        Code::EWISE_TYPE,
                        span,
                        "this literal is out of range for every integer type",
                    )),
                };
            }
            (UnOp::Neg, Val::Float(text, _)) => {
                let text = match text.strip_prefix('-') {
                    Some(positive) => positive.to_string(),
                    None => format!("-{text}"),
                };
                return Some(Val::Float(text, span));
            }
            _ => {}
        }
        let Some(dtype) = value.dtype().or(expected) else {
            return self.report(untyped_error(&value, span));
        };
        let Some(opcode) = scalar_ops::unary(op, dtype) else {
            let symbol = match op {
                UnOp::Neg => "unary `-`",
                UnOp::Not => "`!`",
            };
            return self.report(no_instruction(symbol, dtype, span));
        };
        let arg = self.coerce(value, dtype, inner.span())?;
        self.push(opcode, span, vec![arg], dtype, span)
    }

    fn cast(
        &mut self,
        inner: &scalar::Expr,
        to: DType,
        to_span: SpanId,
        span: SpanId,
    ) -> Option<Val> {
        let value = self.expr(inner, None)?;
        let from = match &value {
            Val::Typed(_, dtype) => *dtype,
            // An untyped literal takes the cast's type (`2 as f32` is `2.0`).
            Val::Int(v, s) if matches!(scalar_ops::class(to), Class::Float | Class::Half) => {
                let arg = self.coerce(Val::Float(v.to_string(), *s), to, *s)?;
                return Some(Val::Typed(arg, to));
            }
            Val::Int(..) | Val::Float(..) => {
                let arg = self.coerce(value, to, inner.span())?;
                return Some(Val::Typed(arg, to));
            }
            Val::Index(expr) if matches!(scalar_ops::class(to), Class::Int | Class::Byte) => {
                return Some(Val::Typed(Arg::Index(expr.clone()), to));
            }
            // A runtime integer to a float: from its 64-bit register.
            Val::Index(_) => DType::U64,
            Val::Failed => return None,
        };
        let arg = self.coerce(value, from, inner.span())?;
        if from == DType::Bool && matches!(scalar_ops::class(to), Class::Int | Class::Byte) {
            let wide = if to.bits() < 16 { DType::U32 } else { to };
            let one = Arg::Literal(LiteralValue::Int(1), span);
            let zero = Arg::Literal(LiteralValue::Int(0), span);
            let selected = self.push(
                format!("selp.{}", scalar_ops::ptx_token(wide)),
                to_span,
                vec![one, zero, arg],
                wide,
                span,
            )?;
            if wide == to {
                return Some(selected);
            }
            let Val::Typed(wide_arg, _) = selected else {
                return None;
            };
            return self.push(
                format!(
                    "cvt.{}.{}",
                    scalar_ops::ptx_token(to),
                    scalar_ops::ptx_token(wide)
                ),
                to_span,
                vec![wide_arg],
                to,
                span,
            );
        }
        let Some(steps) = scalar_ops::cast(from, to) else {
            let help = if to == DType::Bool {
                "compare instead: `x != 0`"
            } else {
                "convert through an integer: `b as u32`"
            };
            return self.report(
                error(
                    Code::EWISE_OPERATION,
                    to_span,
                    format!("`{from}` cannot be cast as `{to}`"),
                )
                .with_help(help),
            );
        };
        let source = arg.clone();
        let mut current = Val::Typed(arg, from);
        for (i, opcode) in steps.iter().enumerate() {
            let step_type = if i + 1 == steps.len() { to } else { DType::F32 };
            let Val::Typed(arg, _) = current else {
                return None;
            };
            current = self.push(opcode.clone(), to_span, vec![arg], step_type, span)?;
        }
        // PTX converts a NaN to a 64-bit integer as its most negative value
        // (the H200 and the interpreter agree); Rust's `as` gives 0.
        if matches!(scalar_ops::class(from), Class::Float | Class::Half)
            && scalar_ops::class(to) == Class::Int
            && to.bits() == 64
        {
            let Val::Typed(converted, _) = current else {
                return None;
            };
            let number = format!("setp.num.{}", scalar_ops::ptx_token(from));
            let Val::Typed(is_number, _) = self.push(
                number,
                to_span,
                vec![source.clone(), source],
                DType::Bool,
                span,
            )?
            else {
                return None;
            };
            let zero = Arg::Literal(LiteralValue::Int(0), span);
            current = self.push(
                format!("selp.{}", scalar_ops::ptx_token(to)),
                to_span,
                vec![converted, zero, is_number],
                to,
                span,
            )?;
        }
        // A cast to the same type is the value itself.
        match current {
            Val::Typed(arg, _) => Some(Val::Typed(arg, to)),
            other => Some(other),
        }
    }

    fn call(
        &mut self,
        func: &str,
        func_span: SpanId,
        args: &[scalar::Expr],
        span: SpanId,
        expected: Option<DType>,
    ) -> Option<Val> {
        // `a.mul_add(b, c)` is `fma(a, b, c)`.
        let func = scalar_ops::method_function(func).unwrap_or(func);
        // `f32::from_bits(u)`.
        if let Some(ty) = func.strip_suffix("::from_bits") {
            let Some(dtype) =
                DType::from_rust_name(ty).filter(|d| scalar_ops::class(*d) != Class::Bool)
            else {
                return self.report(error(
                    Code::EWISE_OPERATION,
                    func_span,
                    format!("`{ty}` has no `from_bits` a scalar function can call"),
                ));
            };
            let bits = container(dtype);
            let [arg] = args else {
                return self.report(arity_error(func, 1, args.len(), func_span));
            };
            let value = self.expr(arg, Some(bits))?;
            let arg = self.coerce(value, bits, arg.span())?;
            return self.push(
                format!("mov.b{}", dtype.bits()),
                func_span,
                vec![arg],
                dtype,
                span,
            );
        }
        if func == "to_bits" {
            let [arg] = args else {
                return self.report(arity_error(func, 1, args.len(), func_span));
            };
            let value = self.expr(arg, None)?;
            let Some(dtype) = value
                .dtype()
                .filter(|d| matches!(scalar_ops::class(*d), Class::Float | Class::Half))
            else {
                return self.report(error(
                    Code::EWISE_OPERATION,
                    func_span,
                    "`to_bits` takes a float of a known type, like `x.to_bits()` with `x: f32`",
                ));
            };
            let arg = self.coerce(value, dtype, span)?;
            return self.push(
                format!("mov.b{}", dtype.bits()),
                func_span,
                vec![arg],
                container(dtype),
                span,
            );
        }
        if let Some(function) = scalar_ops::function(func) {
            if args.len() != function.arity {
                return self.report(arity_error(func, function.arity, args.len(), func_span));
            }
            let mut values = Vec::new();
            for arg in args {
                values.push(self.expr(arg, expected));
            }
            let values: Vec<Val> = values.into_iter().collect::<Option<_>>()?;
            let typed: Vec<DType> = values.iter().filter_map(Val::dtype).collect();
            if let Some(first) = typed.first()
                && let Some(other) = typed.iter().find(|d| *d != first)
            {
                return self.report(
                    error(
                        Code::EWISE_TYPE,
                        func_span,
                        format!("mismatched types: `{func}` of `{first}` and `{other}`"),
                    )
                    .with_help("convert the arguments to one type with `as`"),
                );
            }
            let Some(dtype) = typed.first().copied().or(expected) else {
                return self.report(untyped_error(&values[0], span));
            };
            let Some(opcode) = (function.opcode)(dtype) else {
                return self.report(no_instruction(&format!("`{func}`"), dtype, func_span));
            };
            let mut coerced = Vec::new();
            for (value, arg) in values.into_iter().zip(args) {
                coerced.push(self.coerce(value, dtype, arg.span())?);
            }
            let ordered = function.order.iter().map(|&i| coerced[i].clone()).collect();
            return self.push(opcode, func_span, ordered, dtype, span);
        }
        match (self.capture)(func) {
            Capture::Function(function) => self.inline(func, &function, func_span, args, span),
            Capture::Silent => None,
            Capture::Unknown => {
                let names = scalar_ops::FUNCTIONS.iter().map(|f| f.name);
                let mut diag = error(
                    Code::UNKNOWN_FUNCTION,
                    func_span,
                    format!("cannot find function `{func}` for scalar functions"),
                );
                if let Some(near) = crate::ptx::resolve::nearest(func, names) {
                    diag =
                        diag.with_help(format!("a function with a similar name exists: `{near}`"));
                } else {
                    diag = diag.with_note("scalar functions call the functions of the `ewise` table (`fma`, `min`, `max`, `abs`, `sqrt`, `ex2_approx`, ..), `ptx[\"..\"](..)` and the kernel's own scalar functions");
                }
                self.report(diag)
            }
            _ => self.report(error(
                Code::EWISE_OPERATION,
                func_span,
                format!("`{func}` is not a function"),
            )),
        }
    }

    /// A call of a scalar function of the kernel: its body, inlined.
    fn inline(
        &mut self,
        name: &str,
        function: &scalar::Function,
        func_span: SpanId,
        args: &[scalar::Expr],
        span: SpanId,
    ) -> Option<Val> {
        if args.len() != function.params.len() {
            return self.report(arity_error(
                name,
                function.params.len(),
                args.len(),
                func_span,
            ));
        }
        if self.calls.iter().any(|c| c == name) {
            return self.report(error(
                Code::EWISE_OPERATION,
                func_span,
                format!("`{name}` calls itself; scalar functions cannot recurse"),
            ));
        }
        let mut values = Vec::new();
        for (arg, param) in args.iter().zip(&function.params) {
            let value = self.expr(arg, Some(param.dtype));
            let value = value.and_then(|v| self.coerce(v, param.dtype, arg.span()));
            values.push(value.map(|arg| Val::Typed(arg, param.dtype)));
        }
        let values: Vec<Val> = values.into_iter().collect::<Option<_>>()?;
        self.calls.push(name.to_string());
        let errors = self.diags.len();
        let body = self.function_body(function, values);
        self.calls.pop();
        if self.diags.len() > errors {
            // The function's own errors were reported where it is defined.
            self.diags.truncate(errors);
            return None;
        }
        let (value, _) = body?;
        let _ = span;
        Some(value)
    }

    fn ptx(
        &mut self,
        opcode: &str,
        opcode_span: SpanId,
        args: &[scalar::Expr],
        span: SpanId,
    ) -> Option<Val> {
        let candidates = match resolve(opcode) {
            Ok(candidates) => candidates,
            Err(err) => {
                let mut diag = Diagnostic::new(err.code, opcode_span, err.message);
                diag.help = err.help;
                diag.notes = err.notes;
                return self.report(diag);
            }
        };
        // The form with as many sources as arguments, else the first (whose
        // count the error names).
        let form = candidates
            .iter()
            .find(|m| {
                m.operands()
                    .iter()
                    .filter(|o| o.access == Access::Read)
                    .count()
                    == args.len()
            })
            .or(candidates.first())?;
        if form.effect() != Effect::Pure || form.usability() != Usability::Yes {
            return self.report(
                error(Code::EWISE_OPERATION, opcode_span, format!("`{opcode}` is not a register-to-register instruction"))
                    .with_note("a scalar function computes one element from the same element of its inputs: no memory access, no communication between threads"),
            );
        }
        let operands = form.operands();
        let writes: Vec<_> = operands
            .iter()
            .filter(|o| o.access == Access::Write)
            .collect();
        let reads: Vec<_> = operands
            .iter()
            .filter(|o| o.access == Access::Read)
            .collect();
        let scalar_slot = |o: &ResolvedOperand| {
            o.lanes == 1
                && matches!(
                    o.kind,
                    OperandKind::Register | OperandKind::Predicate | OperandKind::Immediate { .. }
                )
        };
        let [dst] = writes.as_slice() else {
            return self.report(error(
                Code::EWISE_OPERATION,
                opcode_span,
                format!(
                    "`{opcode}` has {} destinations; a value of a scalar function is one register",
                    writes.len()
                ),
            ));
        };
        if !scalar_slot(dst)
            || !reads.iter().all(|o| scalar_slot(o))
            || operands.first().map(|o| o.access) != Some(Access::Write)
        {
            return self.report(error(Code::EWISE_OPERATION, opcode_span, format!("`{opcode}` takes register groups; a scalar function's values are single registers")));
        }
        if reads.len() != args.len() {
            return self.report(arity_error(
                &format!("ptx[\"{opcode}\"]"),
                reads.len(),
                args.len(),
                opcode_span,
            ));
        }
        let dtype = value_dtype(dst.ty);
        let mut coerced = Vec::new();
        for (arg, slot) in args.iter().zip(&reads) {
            let want = value_dtype(slot.ty);
            let value = self.expr(arg, Some(want));
            coerced.push(value.and_then(|value| match value {
                // A typed value: the instruction's operand rules check it.
                Val::Typed(arg, _) => Some(arg),
                untyped => self.coerce(untyped, want, arg.span()),
            }));
        }
        let coerced: Vec<Arg> = coerced.into_iter().collect::<Option<_>>()?;
        self.push(form.opcode_text(), opcode_span, coerced, dtype, span)
    }

    fn if_else(
        &mut self,
        cond: &scalar::Expr,
        then: &scalar::Block,
        otherwise: &scalar::Block,
        span: SpanId,
        expected: Option<DType>,
    ) -> Option<Val> {
        let condition = self.expr(cond, Some(DType::Bool));
        let yes = self.block(then, expected);
        let no = self.block(otherwise, expected);
        let (condition, yes, no) = (condition?, yes?, no?);
        let condition = self.coerce(condition, DType::Bool, cond.span())?;
        let then_span = then.value.as_ref().map_or(then.span, |v| v.span());
        let else_span = otherwise
            .value
            .as_ref()
            .map_or(otherwise.span, |v| v.span());
        if let (Some(a), Some(b)) = (yes.dtype(), no.dtype())
            && a != b
        {
            return self.report(
                error(
                    Code::EWISE_TYPE,
                    else_span,
                    format!("`if` and `else` have different types: `{a}` and `{b}`"),
                )
                .with_help("convert one arm with `as`"),
            );
        }
        let Some(dtype) = Self::unify(&yes, &no, expected) else {
            return self.report(untyped_error(&yes, span));
        };
        let a = self.coerce(yes, dtype, then_span)?;
        let b = self.coerce(no, dtype, else_span)?;
        match scalar_ops::class(dtype) {
            Class::Bool => {
                // (c && a) || (!c && b)
                let Val::Typed(taken, _) = self.push(
                    "and.pred".into(),
                    span,
                    vec![condition.clone(), a],
                    DType::Bool,
                    span,
                )?
                else {
                    return None;
                };
                let Val::Typed(not_c, _) =
                    self.push("not.pred".into(), span, vec![condition], DType::Bool, span)?
                else {
                    return None;
                };
                let Val::Typed(other, _) =
                    self.push("and.pred".into(), span, vec![not_c, b], DType::Bool, span)?
                else {
                    return None;
                };
                self.push(
                    "or.pred".into(),
                    span,
                    vec![taken, other],
                    DType::Bool,
                    span,
                )
            }
            Class::Byte => self.report(no_instruction("`if`/`else`", dtype, span)),
            Class::Half => self.push(
                format!("selp.b{}", dtype.bits()),
                span,
                vec![a, b, condition],
                dtype,
                span,
            ),
            _ => self.push(
                format!("selp.{}", scalar_ops::ptx_token(dtype)),
                span,
                vec![a, b, condition],
                dtype,
                span,
            ),
        }
    }

    fn coerce(&mut self, value: Val, dtype: DType, span: SpanId) -> Option<Arg> {
        self.coerce_at(value, dtype, span, None)
    }

    /// `value` as an operand of type `dtype`; `declared` is where that type
    /// was written (a `let` annotation, a return type), for the message.
    fn coerce_at(
        &mut self,
        value: Val,
        dtype: DType,
        span: SpanId,
        declared: Option<SpanId>,
    ) -> Option<Arg> {
        let class = scalar_ops::class(dtype);
        match value {
            Val::Failed => None,
            Val::Typed(arg, have) if have == dtype => Some(arg),
            Val::Typed(_, have) => {
                let mut diag = error(
                    Code::EWISE_TYPE,
                    span,
                    format!("expected `{dtype}`, found `{have}`"),
                )
                .with_note("scalar functions convert nothing implicitly")
                .with_help(format!("convert with `as {dtype}`"));
                if declared.is_some() {
                    diag = diag.with_note(format!("`{dtype}` is the declared type"));
                }
                self.report(diag);
                None
            }
            Val::Int(v, lit_span) => match class {
                Class::Int | Class::Byte => {
                    let (lo, hi) = int_range(dtype);
                    if (lo..=hi).contains(&v) {
                        Some(Arg::Literal(LiteralValue::Int(v), lit_span))
                    } else {
                        self.report(error(
                            Code::EWISE_TYPE,
                            lit_span,
                            format!("the literal `{v}` does not fit in `{dtype}`"),
                        ));
                        None
                    }
                }
                Class::Float | Class::Half => {
                    self.report(
                        error(
                            Code::EWISE_TYPE,
                            lit_span,
                            format!("expected `{dtype}`, found an integer literal"),
                        )
                        .with_help(format!("write a float literal: `{v}.0`")),
                    );
                    None
                }
                Class::Bool => {
                    self.report(error(
                        Code::EWISE_TYPE,
                        lit_span,
                        "expected `bool`, found an integer literal",
                    ));
                    None
                }
            },
            Val::Float(text, lit_span) => {
                let bits = match class {
                    Class::Float | Class::Half => float_bits(&text, dtype),
                    _ => {
                        self.report(error(
                            Code::EWISE_TYPE,
                            lit_span,
                            format!("expected `{dtype}`, found a float literal"),
                        ));
                        return None;
                    }
                };
                let Some(bits) = bits else {
                    self.report(error(Code::EWISE_TYPE, lit_span, format!("the float literal `{text}` is out of range for `{dtype}` (it would become infinite)")));
                    return None;
                };
                match dtype {
                    DType::F32 => Some(Arg::Literal(
                        LiteralValue::Float(f64::from(f32::from_bits(bits as u32))),
                        lit_span,
                    )),
                    DType::F64 => Some(Arg::Literal(
                        LiteralValue::Float(f64::from_bits(bits)),
                        lit_span,
                    )),
                    // No f16/bf16 immediates in PTX: the bits, moved into a register.
                    _ => match self.push(
                        "mov.b16".to_string(),
                        lit_span,
                        vec![Arg::Literal(LiteralValue::Int(i128::from(bits)), lit_span)],
                        dtype,
                        lit_span,
                    )? {
                        Val::Typed(arg, _) => Some(arg),
                        _ => None,
                    },
                }
            }
            Val::Index(expr) => match class {
                Class::Int | Class::Byte => Some(Arg::Index(expr)),
                _ => {
                    self.report(
                        error(
                            Code::EWISE_TYPE,
                            span,
                            format!("expected `{dtype}`, found a runtime integer of the kernel"),
                        )
                        .with_help("convert it with `as`, like `N as f32`"),
                    );
                    None
                }
            },
        }
    }
}

/// Whether `expr` is made of unsuffixed literals only (`448.0 * 512.0`):
/// its type comes from its context.
fn literals_only(expr: &scalar::Expr) -> bool {
    match expr {
        scalar::Expr::Int { suffix, .. } | scalar::Expr::Float { suffix, .. } => suffix.is_none(),
        scalar::Expr::Unary { expr, .. } => literals_only(expr),
        scalar::Expr::Binary { lhs, rhs, .. } => literals_only(lhs) && literals_only(rhs),
        scalar::Expr::Block(block) => {
            block.lets.is_empty() && block.value.as_deref().is_some_and(literals_only)
        }
        _ => false,
    }
}

/// The unsigned integer of the same width (`to_bits`/`from_bits`).
fn container(dtype: DType) -> DType {
    match dtype.bits() {
        16 => DType::U16,
        32 => DType::U32,
        64 => DType::U64,
        _ => DType::U8,
    }
}

/// The dtype of a value in an operand of PTX type `ty`: the type itself,
/// or the unsigned integer of its width (`.b32`, `.f16x2`).
fn value_dtype(ty: crate::ptx::PtxType) -> DType {
    ty.natural_dtype().unwrap_or(match ty.carrier_bits() {
        8 => DType::U8,
        16 => DType::U16,
        64 => DType::U64,
        _ => DType::U32,
    })
}

fn int_range(dtype: DType) -> (i128, i128) {
    let bits = dtype.bits() as u32;
    if matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64) {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Constant folding of integer literals (`2 * 3`, `-1`): exact, typed where
/// used. Floats are not folded (their rounding depends on the type).
fn fold(op: BinOp, lhs: &Val, rhs: &Val, span: SpanId) -> Option<Val> {
    match (lhs, rhs) {
        (Val::Int(a, _), Val::Int(b, _)) => {
            let value = match op {
                BinOp::Add => a.checked_add(*b)?,
                BinOp::Sub => a.checked_sub(*b)?,
                BinOp::Mul => a.checked_mul(*b)?,
                // Rust's integer division, toward zero.
                BinOp::Div if *b != 0 => a.checked_div(*b)?,
                BinOp::Rem if *b != 0 => a.checked_rem(*b)?,
                BinOp::Shl if (0..127).contains(b) => a.checked_shl(*b as u32)?,
                _ => return None,
            };
            Some(Val::Int(value, span))
        }
        // Runtime integers stay exact index arithmetic (the checker's).
        (Val::Index(_) | Val::Int(..), Val::Index(_) | Val::Int(..))
            if matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
            ) =>
        {
            let expr = |v: &Val| match v {
                Val::Index(e) => Some(e.clone()),
                Val::Int(i, s) => Some(ast::Expr::Int(*i, *s)),
                _ => None,
            };
            Some(Val::Index(ast::Expr::Binary {
                op,
                lhs: Box::new(expr(lhs)?),
                rhs: Box::new(expr(rhs)?),
                span,
            }))
        }
        _ => None,
    }
}

fn untyped_error(value: &Val, span: SpanId) -> Diagnostic {
    let help = match value {
        Val::Float(..) => {
            "give a literal its type with a suffix (`2.0f32`) or the `let` a type (`let c: f32 = 2.0;`)"
        }
        _ => {
            "give a literal its type with a suffix (`2u32`) or the `let` a type (`let c: u32 = 2;`)"
        }
    };
    error(
        Code::EWISE_TYPE,
        span,
        "the type of this expression is not known",
    )
    .with_help(help)
}

fn no_instruction(what: &str, dtype: DType, span: SpanId) -> Diagnostic {
    let diag = error(
        Code::EWISE_OPERATION,
        span,
        format!("PTX has no instruction for {what} on `{dtype}`"),
    );
    match scalar_ops::class(dtype) {
        Class::Byte => diag.with_help(format!(
            "widen first: `x as u32`, or `x as i32` for `{dtype}`"
        )),
        Class::Half => diag.with_help(format!(
            "compute in `f32`: `((a as f32) / (b as f32)) as {dtype}`"
        )),
        _ => diag,
    }
}

fn arity_error(func: &str, want: usize, got: usize, span: SpanId) -> Diagnostic {
    let plural = if want == 1 { "" } else { "s" };
    error(
        Code::EWISE_ARITY,
        span,
        format!("`{func}` takes {want} argument{plural}, but {got} were given"),
    )
}

/// The bits of float literal `text` in `dtype`, rounded once to nearest
/// even from the decimal for `f32` and `f64` (as rustc rounds a literal);
/// `f16`/`bf16` round the `f64` value. `None` when it overflows to
/// infinity.
pub(super) fn float_bits(text: &str, dtype: DType) -> Option<u64> {
    let special = match text.trim_start_matches('-') {
        "inf" | "INFINITY" => Some(f64::INFINITY),
        "NAN" | "NaN" => Some(f64::NAN),
        _ => None,
    };
    let negative = text.starts_with('-');
    let signed = |v: f64| if negative { -v } else { v };
    match dtype {
        DType::F32 => {
            let value: f32 = match special {
                Some(v) if v.is_nan() => f32::NAN,
                Some(v) => signed(v) as f32,
                None => text.parse().ok()?,
            };
            (value.is_finite() || special.is_some()).then_some(u64::from(value.to_bits()))
        }
        DType::F64 => {
            let value: f64 = match special {
                Some(v) if v.is_nan() => f64::NAN,
                Some(v) => signed(v),
                None => text.parse().ok()?,
            };
            (value.is_finite() || special.is_some()).then_some(value.to_bits())
        }
        DType::F16 | DType::Bf16 => {
            let value: f64 = match special {
                Some(v) if v.is_nan() => f64::NAN,
                Some(v) => signed(v),
                None => text.parse().ok()?,
            };
            let (exponent_bits, mantissa_bits) = if dtype == DType::F16 { (5, 10) } else { (8, 7) };
            let bits = round_to_narrow_float(value, exponent_bits, mantissa_bits);
            let infinite = (bits & 0x7fff) == ((1u64 << exponent_bits) - 1) << mantissa_bits;
            (!infinite || special.is_some()).then_some(bits)
        }
        _ => None,
    }
}

/// `value` rounded to nearest even in a binary format of
/// `exponent_bits`/`mantissa_bits` (IEEE layout, 16 bits or fewer); NaN is
/// the canonical quiet NaN.
fn round_to_narrow_float(value: f64, exponent_bits: u32, mantissa_bits: u32) -> u64 {
    let sign = u64::from(value.is_sign_negative()) << (exponent_bits + mantissa_bits);
    let exponent_all = (1u64 << exponent_bits) - 1;
    if value.is_nan() {
        return (exponent_all << mantissa_bits) | (1 << (mantissa_bits - 1));
    }
    let magnitude = value.abs();
    if magnitude.is_infinite() {
        return sign | (exponent_all << mantissa_bits);
    }
    if magnitude == 0.0 {
        return sign;
    }
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let min_exponent = 1 - bias;
    // floor(log2(magnitude)), exactly, from the f64's bits.
    let raw = ((magnitude.to_bits() >> 52) & 0x7ff) as i32;
    let exponent = if raw == 0 {
        // An f64 subnormal: far below any narrow format's range.
        -1075
    } else {
        raw - 1023
    };
    let quantum_exponent = exponent.max(min_exponent) - mantissa_bits as i32;
    let scaled = magnitude * 2f64.powi(-quantum_exponent);
    let rounded = scaled.round_ties_even() as u64;
    let bits = if exponent < min_exponent {
        // Subnormal (a carry into the smallest normal encodes itself).
        rounded
    } else {
        (((exponent + bias) as u64) << mantissa_bits) + (rounded - (1u64 << mantissa_bits))
    };
    if bits >= exponent_all << mantissa_bits {
        sign | (exponent_all << mantissa_bits)
    } else {
        sign | bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_literals_round_like_the_half_crate() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut values = vec![
            0.0, -0.0, 1.0, 65504.0, 65520.0, 65519.99, 6.0e-8, 2.9e-8, 3.0e-8, 1.0e-10, 0.1, 1e5,
            3.4e38, 3.4e39,
        ];
        for _ in 0..20000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = f64::from_bits(state);
            if v.is_finite() && v.abs() < 1e40 && v.abs() > 1e-45 {
                values.push(v);
            }
            values.push(f64::from(f32::from_bits(state as u32)));
        }
        for v in values {
            if !v.is_finite() {
                continue;
            }
            let text = format!("{v:e}");
            let parsed: f64 = text.parse().unwrap();
            let want = u64::from(half::f16::from_f64(parsed).to_bits());
            let got = round_to_narrow_float(parsed, 5, 10);
            assert_eq!(got, want, "f16 of {text}");
            let want = u64::from(half::bf16::from_f64(parsed).to_bits());
            let got = round_to_narrow_float(parsed, 8, 7);
            assert_eq!(got, want, "bf16 of {text}");
        }
    }

    #[test]
    fn f32_literals_round_once_from_the_decimal() {
        // 1.00000005960464477539 (in f64: just above the f32 halfway
        // point); via f64 it would round twice.
        let text = "1.0000000596046448";
        assert_eq!(
            float_bits(text, DType::F32),
            Some(u64::from(text.parse::<f32>().unwrap().to_bits()))
        );
        assert_eq!(float_bits("1e39", DType::F32), None);
        assert_eq!(
            float_bits("-inf", DType::F32),
            Some(u64::from(f32::NEG_INFINITY.to_bits()))
        );
        assert_eq!(float_bits("NAN", DType::F16), Some(0x7e00));
        assert_eq!(float_bits("65520.0", DType::F16), None);
    }
}
