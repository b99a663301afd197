//! Rust syntax of scalar functions -> lowering's [`ast::scalar`]: closures
//! (`|x: f32| x * 2.0`), `fn` items of the kernel's body and `ewise(..)`
//! statements. Only the shape of the syntax is checked here; types are
//! checked by `tile_kernel_lowering::sema`. An unsupported expression is
//! reported and replaced by [`scalar::Expr::Invalid`], so the rest of the
//! function is still read (one mistake, one error).

use quote::ToTokens;
use syn::{Expr, FnArg, Lit, Pat, ReturnType, Stmt};
use tile_kernel_lowering::ast::{self, scalar};
use tile_kernel_lowering::diag::Code;
use tile_kernel_lowering::{DType, SpanId};

use crate::parse::{KernelParser, Parsed, Unraw, binary_op, dtype_of, err, unary_op};

impl KernelParser<'_> {
    /// `ewise(function, dst, inputs.., scope = "..")`.
    pub(crate) fn ewise(&mut self, call: &syn::ExprCall, whole: &Expr) -> Parsed<ast::Stmt> {
        let mut args = call.args.iter();
        let function = match args.next() {
            Some(Expr::Closure(closure)) => ast::EwiseFunction::Inline(self.closure(closure)?),
            Some(Expr::Path(path)) if path.path.get_ident().is_some() => {
                let name = path
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                ast::EwiseFunction::Named(name, self.spans.id(path))
            }
            Some(other) => {
                return Err(err(
                    Code::MALFORMED_EWISE,
                    other,
                    "the first argument of `ewise` is a scalar function: a closure `|x: f32| ..` or the name of one",
                ));
            }
            None => {
                return Err(err(
                    Code::MALFORMED_EWISE,
                    call,
                    "`ewise` needs a function and a destination: `ewise(|x: f32| x * 2.0, y, x)`",
                ));
            }
        };
        let Some(dst) = args.next() else {
            return Err(err(
                Code::MALFORMED_EWISE,
                call,
                "`ewise` needs a destination tile after its function: `ewise(f, y, x)`",
            ));
        };
        let dst = self.place(dst)?;
        let mut inputs = Vec::new();
        let mut scope = None;
        for arg in args {
            if let Expr::Assign(assign) = arg {
                match &*assign.left {
                    Expr::Path(key) if key.path.is_ident("scope") && scope.is_none() => {
                        match &*assign.right {
                            Expr::Lit(syn::ExprLit {
                                lit: Lit::Str(text),
                                ..
                            }) => scope = Some((text.value(), self.spans.id(text))),
                            other => {
                                return Err(err(
                                    Code::KEYWORD_VALUE,
                                    other,
                                    "`scope` is a string: \"thread\", \"warp\", \"warpgroup\" or \"cta\"",
                                ));
                            }
                        }
                    }
                    Expr::Path(key) if key.path.is_ident("scope") => {
                        return Err(err(
                            Code::DUPLICATE_KEYWORD,
                            assign,
                            "`scope` is given more than once",
                        ));
                    }
                    other => {
                        return Err(err(
                            Code::UNKNOWN_KEYWORD,
                            other,
                            format!(
                                "unknown keyword argument `{}`; `ewise` takes `scope`",
                                other.to_token_stream()
                            ),
                        ));
                    }
                }
                continue;
            }
            if scope.is_some() {
                return Err(err(
                    Code::MALFORMED_EWISE,
                    arg,
                    "inputs come before the keyword argument `scope`",
                ));
            }
            if let Expr::Closure(_) = arg {
                return Err(err(
                    Code::MALFORMED_EWISE,
                    arg,
                    "the function is the first argument of `ewise`: `ewise(|v: f32| .., dst, inputs..)`",
                ));
            }
            inputs.push(self.operand(arg)?);
        }
        Ok(ast::Stmt::Ewise(ast::Ewise {
            function,
            dst,
            inputs,
            scope,
            span: self.spans.id(whole),
        }))
    }

    /// `|a: f32, b: f32| -> f32 { .. }` (the return type is optional).
    pub(crate) fn closure(&mut self, closure: &syn::ExprClosure) -> Parsed<scalar::Function> {
        if let Some(token) = closure
            .constness
            .as_ref()
            .map(ToTokens::to_token_stream)
            .or(closure.asyncness.as_ref().map(ToTokens::to_token_stream))
            .or(closure.capture.as_ref().map(ToTokens::to_token_stream))
        {
            return Err(err(
                Code::SCALAR_SYNTAX,
                &token,
                "a scalar function is a plain closure: `|x: f32| ..`",
            ));
        }
        let mut params = Vec::new();
        for input in &closure.inputs {
            let Pat::Type(typed) = input else {
                return Err(err(
                    Code::SCALAR_SYNTAX,
                    input,
                    "a scalar function's parameters have types: `|x: f32| ..`",
                ));
            };
            params.push(self.scalar_param(&typed.pat, &typed.ty)?);
        }
        let ret = self.return_type(&closure.output)?;
        let body = match &*closure.body {
            Expr::Block(block) if block.label.is_none() => self.scalar_block(&block.block),
            other => scalar::Block {
                lets: Vec::new(),
                value: Some(Box::new(self.scalar_expr(other))),
                span: self.spans.id(other),
            },
        };
        Ok(scalar::Function {
            params,
            ret,
            body,
            is_item: false,
            span: self.spans.id(closure),
        })
    }

    /// `fn name(a: f32) -> f32 { .. }` inside the kernel.
    pub(crate) fn function_item(&mut self, item: &syn::ItemFn) -> Parsed<ast::Stmt> {
        let sig = &item.sig;
        if let Some(token) = sig
            .constness
            .as_ref()
            .map(ToTokens::to_token_stream)
            .or(sig.asyncness.as_ref().map(ToTokens::to_token_stream))
            .or(sig.abi.as_ref().map(ToTokens::to_token_stream))
            .or_else(|| {
                let safety = sig.safety.to_token_stream();
                (!safety.is_empty()).then_some(safety)
            })
        {
            return Err(err(
                Code::SCALAR_SYNTAX,
                &token,
                "a scalar function is a plain `fn`: `fn name(x: f32) -> f32 { .. }`",
            ));
        }
        if !sig.generics.params.is_empty() {
            return Err(err(
                Code::SCALAR_SYNTAX,
                &sig.generics,
                "scalar functions are not generic: each parameter has one type",
            ));
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Typed(typed) => params.push(self.scalar_param(&typed.pat, &typed.ty)?),
                FnArg::Receiver(receiver) => {
                    return Err(err(
                        Code::SCALAR_SYNTAX,
                        receiver,
                        "a scalar function takes no `self`",
                    ));
                }
            }
        }
        let ret = self.return_type(&sig.output)?;
        if ret.is_none() {
            return Err(err(
                Code::SCALAR_SYNTAX,
                &sig.ident,
                format!(
                    "a scalar function returns a value: `fn {}(..) -> f32 {{ .. }}`",
                    sig.ident
                ),
            ));
        }
        let body = self.scalar_block(&item.block);
        Ok(ast::Stmt::Function(ast::FunctionDef {
            name: sig.ident.unraw(),
            name_span: self.spans.id(&sig.ident),
            function: scalar::Function {
                params,
                ret,
                body,
                is_item: true,
                span: self.spans.id(sig),
            },
        }))
    }

    /// `fn name(t: Tile, x: Tensor<f32>, s: Shared, n: usize) { .. }`: a
    /// kernel function (no return type).
    pub(crate) fn kernel_function(&mut self, item: &syn::ItemFn) -> Parsed<ast::Stmt> {
        let sig = &item.sig;
        if !sig.generics.params.is_empty() {
            return Err(err(
                Code::MALFORMED_KERNEL_FUNCTION,
                &sig.generics,
                "kernel functions are not generic: their parameters are `Tile`, `Tensor`, `Shared` or `usize`",
            ));
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            let FnArg::Typed(typed) = input else {
                return Err(err(
                    Code::MALFORMED_KERNEL_FUNCTION,
                    input,
                    "a kernel function takes no `self`",
                ));
            };
            let Pat::Ident(ident) = &*typed.pat else {
                return Err(err(
                    Code::MALFORMED_KERNEL_FUNCTION,
                    &typed.pat,
                    "a parameter is a plain name: `t: Tile`",
                ));
            };
            let (kind, dtype) = kernel_param_type(&typed.ty)?;
            params.push(ast::KernelParam {
                name: ident.ident.unraw(),
                name_span: self.spans.id(&ident.ident),
                kind,
                dtype,
                span: self.spans.id(&typed.ty),
            });
        }
        Ok(ast::Stmt::KernelFunction(ast::KernelFunction {
            name: sig.ident.unraw(),
            name_span: self.spans.id(&sig.ident),
            params,
            body: self.body(&item.block),
            span: self.spans.id(sig),
        }))
    }

    fn scalar_param(&mut self, pat: &Pat, ty: &syn::Type) -> Parsed<scalar::FunctionParam> {
        let Pat::Ident(ident) = pat else {
            return Err(err(
                Code::SCALAR_SYNTAX,
                pat,
                "a parameter is a plain name: `x: f32`",
            ));
        };
        let dtype = dtype_of(ty)?;
        Ok(scalar::FunctionParam {
            name: ident.ident.unraw(),
            name_span: self.spans.id(&ident.ident),
            dtype,
            dtype_span: self.spans.id(ty),
        })
    }

    fn return_type(&mut self, output: &ReturnType) -> Parsed<Option<(DType, SpanId)>> {
        match output {
            ReturnType::Default => Ok(None),
            ReturnType::Type(_, ty) => Ok(Some((dtype_of(ty)?, self.spans.id(ty)))),
        }
    }

    fn scalar_block(&mut self, block: &syn::Block) -> scalar::Block {
        let mut lets = Vec::new();
        let mut value = None;
        let count = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Local(local) => {
                    if let Some(binding) = self.scalar_let(local) {
                        lets.push(binding);
                    }
                }
                Stmt::Expr(expr, None) if i + 1 == count => {
                    value = Some(Box::new(self.scalar_expr(expr)));
                }
                other => {
                    let message = match other {
                        Stmt::Expr(expr, _) if loop_keyword(expr).is_some() => loop_message(expr),
                        _ => "a scalar function's body is `let` bindings and a final value"
                            .to_string(),
                    };
                    self.errors.push(err(Code::SCALAR_SYNTAX, other, message));
                    // The value is unknown: no follow-up "no value" error.
                    value = Some(Box::new(scalar::Expr::Invalid(self.spans.id(other))));
                }
            }
        }
        scalar::Block {
            lets,
            value,
            span: self.spans.id(block),
        }
    }

    fn scalar_let(&mut self, local: &syn::Local) -> Option<scalar::Let> {
        let (pat, ty) = match &local.pat {
            Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            other => (other, None),
        };
        let Pat::Ident(ident) = pat else {
            self.errors.push(err(
                Code::SCALAR_SYNTAX,
                pat,
                "bind to a plain name: `let y = x * 2.0;`",
            ));
            return None;
        };
        let name = ident.ident.unraw();
        let name_span = self.spans.id(&ident.ident);
        let ty = match ty {
            None => None,
            Some(ty) => match dtype_of(ty) {
                Ok(dtype) => Some((dtype, self.spans.id(ty))),
                Err(e) => {
                    self.errors.push(e);
                    None
                }
            },
        };
        let value = match &local.init {
            Some(init) if init.diverge.is_none() => self.scalar_expr(&init.expr),
            _ => {
                self.errors.push(err(
                    Code::SCALAR_SYNTAX,
                    local,
                    "a binding of a scalar function needs a value: `let y = x * 2.0;`",
                ));
                scalar::Expr::Invalid(name_span)
            }
        };
        Some(scalar::Let {
            name,
            name_span,
            ty,
            value,
        })
    }

    /// One expression; an unsupported one is reported and becomes
    /// [`scalar::Expr::Invalid`].
    fn scalar_expr(&mut self, expr: &Expr) -> scalar::Expr {
        match self.try_scalar_expr(expr) {
            Ok(expr) => expr,
            Err(error) => {
                self.errors.push(error);
                scalar::Expr::Invalid(self.spans.id(expr))
            }
        }
    }

    fn try_scalar_expr(&mut self, expr: &Expr) -> Parsed<scalar::Expr> {
        let span = self.spans.id(expr);
        Ok(match expr {
            Expr::Paren(paren) => return self.try_scalar_expr(&paren.expr),
            Expr::Group(group) => return self.try_scalar_expr(&group.expr),
            Expr::Path(path) if path.qself.is_none() => match path.path.get_ident() {
                Some(ident) => scalar::Expr::Name(ident.unraw(), span),
                None => return self.float_constant_expr(path, span),
            },
            Expr::Lit(lit) => self.scalar_literal(&lit.lit, span)?,
            Expr::Unary(unary) => {
                let Some(op) = unary_op(&unary.op) else {
                    return Err(err(
                        Code::SCALAR_SYNTAX,
                        &unary.op,
                        "scalar functions have no references",
                    ));
                };
                scalar::Expr::Unary {
                    op,
                    expr: Box::new(self.scalar_expr(&unary.expr)),
                    span,
                }
            }
            Expr::Binary(binary) => {
                let Some(op) = binary_op(&binary.op) else {
                    return Err(err(
                        Code::SCALAR_SYNTAX,
                        &binary.op,
                        "a scalar function assigns nothing: bind a new name with `let`",
                    ));
                };
                scalar::Expr::Binary {
                    op,
                    lhs: Box::new(self.scalar_expr(&binary.left)),
                    rhs: Box::new(self.scalar_expr(&binary.right)),
                    op_span: self.spans.id(&binary.op),
                    span,
                }
            }
            Expr::Cast(cast) => scalar::Expr::Cast {
                expr: Box::new(self.scalar_expr(&cast.expr)),
                to: dtype_of(&cast.ty)?,
                to_span: self.spans.id(&cast.ty),
                span,
            },
            Expr::Call(call) => match &*call.func {
                // `ptx["add.rz.f32"](a, b)`
                Expr::Index(index) if matches!(&*index.expr, Expr::Path(p) if p.path.is_ident("ptx")) =>
                {
                    let Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) = &*index.index
                    else {
                        return Err(err(
                            Code::SCALAR_SYNTAX,
                            &index.index,
                            "the opcode is a string literal: `ptx[\"add.rz.f32\"](a, b)`",
                        ));
                    };
                    scalar::Expr::Ptx {
                        opcode: text.value(),
                        opcode_span: self.spans.id(text),
                        args: call.args.iter().map(|a| self.scalar_expr(a)).collect(),
                        span,
                    }
                }
                Expr::Path(path) if path.qself.is_none() => {
                    let func = path
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.unraw())
                        .collect::<Vec<_>>()
                        .join("::");
                    scalar::Expr::Call {
                        func,
                        func_span: self.spans.id(path),
                        args: call.args.iter().map(|a| self.scalar_expr(a)).collect(),
                        span,
                    }
                }
                other => {
                    return Err(err(
                        Code::SCALAR_SYNTAX,
                        other,
                        "call a function by its name: `fma(a, b, c)`, or an instruction: `ptx[\"..\"](..)`",
                    ));
                }
            },
            // `x.abs()`, `a.mul_add(b, c)`, `x.to_bits()`: the receiver first.
            Expr::MethodCall(call) if call.turbofish.is_none() => {
                let mut args = vec![self.scalar_expr(&call.receiver)];
                args.extend(call.args.iter().map(|a| self.scalar_expr(a)));
                scalar::Expr::Call {
                    func: call.method.unraw(),
                    func_span: self.spans.id(&call.method),
                    args,
                    span,
                }
            }
            Expr::If(branch) => self.scalar_if(branch, span)?,
            Expr::Block(block) if block.label.is_none() => {
                scalar::Expr::Block(self.scalar_block(&block.block))
            }
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                return Err(err(Code::SCALAR_SYNTAX, expr, loop_message(expr)));
            }
            Expr::Index(_) => {
                return Err(err(
                    Code::SCALAR_SYNTAX,
                    expr,
                    "a scalar function reads no tiles or memory: pass the element's tile to `ewise` as an input",
                ));
            }
            Expr::Return(_) => {
                return Err(err(
                    Code::SCALAR_SYNTAX,
                    expr,
                    "a scalar function's value is its final expression; `return` is not supported",
                ));
            }
            other => {
                return Err(err(
                    Code::SCALAR_SYNTAX,
                    other,
                    "not part of scalar functions: they have literals, names, operators, `as`, calls, `if`/`else` and blocks",
                ));
            }
        })
    }

    fn scalar_if(&mut self, branch: &syn::ExprIf, span: SpanId) -> Parsed<scalar::Expr> {
        let Some((_, otherwise)) = &branch.else_branch else {
            return Err(err(
                Code::SCALAR_SYNTAX,
                branch,
                "an `if` of a scalar function needs an `else`: both paths give the value",
            ));
        };
        let then = self.scalar_block(&branch.then_branch);
        let otherwise = match &**otherwise {
            Expr::Block(block) => self.scalar_block(&block.block),
            // `else if`: a block of one value.
            other => scalar::Block {
                lets: Vec::new(),
                value: Some(Box::new(self.scalar_expr(other))),
                span: self.spans.id(other),
            },
        };
        Ok(scalar::Expr::If {
            cond: Box::new(self.scalar_expr(&branch.cond)),
            then,
            otherwise,
            span,
        })
    }

    fn scalar_literal(&mut self, lit: &Lit, span: SpanId) -> Parsed<scalar::Expr> {
        let suffix = |s: &str| -> Parsed<Option<DType>> {
            if s.is_empty() {
                return Ok(None);
            }
            DType::from_rust_name(s).map(Some).ok_or_else(|| {
                err(
                    Code::SCALAR_SYNTAX,
                    lit,
                    format!("unknown literal suffix `{s}`"),
                )
            })
        };
        Ok(match lit {
            Lit::Int(int) => scalar::Expr::Int {
                value: int.base10_parse().map_err(|_| {
                    err(
                        Code::LITERAL_OUT_OF_RANGE,
                        int,
                        "integer literal out of range",
                    )
                })?,
                suffix: suffix(int.suffix())?,
                span,
            },
            Lit::Float(float) => scalar::Expr::Float {
                text: float.base10_digits().to_string(),
                suffix: suffix(float.suffix())?,
                span,
            },
            Lit::Bool(value) => scalar::Expr::Bool(value.value, span),
            other => {
                return Err(err(
                    Code::SCALAR_SYNTAX,
                    other,
                    "scalar functions have number and `bool` literals",
                ));
            }
        })
    }

    /// `f32::INFINITY`, `f64::NAN`, `f32::MAX`, `f32::consts::LN_2`, ...
    fn float_constant_expr(&mut self, path: &syn::ExprPath, span: SpanId) -> Parsed<scalar::Expr> {
        let names: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        // `std::f32::consts::PI` and `core::..` as well as `f32::consts::PI`.
        let names = match names.first() {
            Some(&"std" | &"core") => &names[1..],
            _ => &names[..],
        };
        let constant = |ty: &str, name: &str| -> Option<String> {
            let wide = |v: f64| format!("{v:e}");
            Some(match (ty, name) {
                (_, "INFINITY") => "inf".into(),
                (_, "NEG_INFINITY") => "-inf".into(),
                (_, "NAN") => "NAN".into(),
                ("f32", "MAX") => wide(f64::from(f32::MAX)),
                ("f32", "MIN") => wide(f64::from(f32::MIN)),
                ("f32", "MIN_POSITIVE") => wide(f64::from(f32::MIN_POSITIVE)),
                ("f32", "EPSILON") => wide(f64::from(f32::EPSILON)),
                ("f64", "MAX") => wide(f64::MAX),
                ("f64", "MIN") => wide(f64::MIN),
                ("f64", "MIN_POSITIVE") => wide(f64::MIN_POSITIVE),
                ("f64", "EPSILON") => wide(f64::EPSILON),
                _ => return None,
            })
        };
        // The constants' values as Rust has them, each rounded once from
        // its decimal digits in its own type.
        macro_rules! consts {
            ($module:ident, $name:expr) => {{
                use std::$module::consts as c;
                Some(match $name {
                    "PI" => c::PI,
                    "TAU" => c::TAU,
                    "E" => c::E,
                    "LN_2" => c::LN_2,
                    "LN_10" => c::LN_10,
                    "LOG2_E" => c::LOG2_E,
                    "LOG10_E" => c::LOG10_E,
                    "LOG2_10" => c::LOG2_10,
                    "LOG10_2" => c::LOG10_2,
                    "SQRT_2" => c::SQRT_2,
                    "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
                    "FRAC_PI_2" => c::FRAC_PI_2,
                    "FRAC_PI_4" => c::FRAC_PI_4,
                    "FRAC_1_PI" => c::FRAC_1_PI,
                    "FRAC_2_PI" => c::FRAC_2_PI,
                    "FRAC_2_SQRT_PI" => c::FRAC_2_SQRT_PI,
                    _ => return None,
                })
            }};
        }
        let f32_const = |name: &str| -> Option<f32> { consts!(f32, name) };
        let f64_const = |name: &str| -> Option<f64> { consts!(f64, name) };
        let found = match names {
            [ty @ ("f32" | "f64"), name] => constant(ty, name).map(|text| (text, *ty)),
            // Exact texts: an f32 value is exact in f64's shortest text.
            ["f32", "consts", name] => {
                f32_const(name).map(|v| (format!("{:e}", f64::from(v)), "f32"))
            }
            ["f64", "consts", name] => f64_const(name).map(|v| (format!("{v:e}"), "f64")),
            _ => None,
        };
        let Some((text, ty)) = found else {
            return Err(err(
                Code::SCALAR_SYNTAX,
                path,
                format!(
                    "`{}` is not a constant scalar functions know; they know `f32::`/`f64::` `INFINITY`, `NEG_INFINITY`, `NAN`, `MAX`, `MIN`, `MIN_POSITIVE`, `EPSILON` and the `consts` (`f32::consts::LN_2`)",
                    path.to_token_stream()
                ),
            ));
        };
        Ok(scalar::Expr::Float {
            text,
            suffix: DType::from_rust_name(ty),
            span,
        })
    }
}

/// `for`, `while` or `loop` for a loop expression.
fn loop_keyword(expr: &Expr) -> Option<&'static str> {
    match expr {
        Expr::ForLoop(_) => Some("for"),
        Expr::While(_) => Some("while"),
        Expr::Loop(_) => Some("loop"),
        _ => None,
    }
}

fn loop_message(expr: &Expr) -> String {
    format!(
        "a scalar function has no `{}` loops: it computes one element; loop over tiles in the kernel",
        loop_keyword(expr).unwrap_or("for")
    )
}

/// `Tile`, `Tile<f32>`, `Tensor`, `Shared<u32>`, `usize`.
fn kernel_param_type(ty: &syn::Type) -> Parsed<(ast::KernelParamKind, Option<DType>)> {
    let wrong = || {
        let text = ty
            .to_token_stream()
            .to_string()
            .replace(" <", "<")
            .replace("< ", "<")
            .replace(" >", ">");
        // A scalar type: most likely a scalar function without its `-> T`.
        let scalar = if dtype_of(ty).is_ok() {
            format!(
                "; a function of `{text}` values is a scalar function, which returns one: `-> {text}`"
            )
        } else {
            String::new()
        };
        err(
            Code::MALFORMED_KERNEL_FUNCTION,
            ty,
            format!(
                "`{text}` is not a kernel function parameter type: they are `Tile`, `Tensor`, `Shared` (each optionally with its element type, `Tile<f32>`) and `usize`{scalar}"
            ),
        )
    };
    let syn::Type::Path(path) = ty else {
        return Err(wrong());
    };
    let Some(last) = path.path.segments.last() else {
        return Err(wrong());
    };
    let kind = match last.ident.to_string().as_str() {
        "Tile" => ast::KernelParamKind::Tile,
        "Tensor" => ast::KernelParamKind::Tensor,
        "Shared" => ast::KernelParamKind::Shared,
        "usize" if last.arguments.is_none() => return Ok((ast::KernelParamKind::Index, None)),
        _ => return Err(wrong()),
    };
    let dtype = match &last.arguments {
        syn::PathArguments::None => None,
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(inner) => Some(dtype_of(inner)?),
            _ => return Err(wrong()),
        },
        _ => return Err(wrong()),
    };
    Ok((kind, dtype))
}
