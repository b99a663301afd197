//! Rust syntax -> lowering's [`ast`]. Only the shape of the syntax is checked
//! here ("is this an `apply` call?"); meaning is checked by
//! `tile_kernel_lowering::check`. Errors are collected, never thrown, so one
//! compile reports every unsupported construct.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::{BinOp, Expr, FnArg, GenericArgument, Lit, Pat, PathArguments, Stmt, Type, UnOp};
use tile_kernel_lowering::ast::{
    AllocLocal, AllocSpace, Apply, Dim, Literal, LiteralValue, Operand, Param, ParamType,
    PlaceExpr, SliceItem, ViewKind, ViewOp,
};
use tile_kernel_lowering::diag::Code;
use tile_kernel_lowering::{DType, SpanId, ast};

use crate::spans::{self, SpanTable};

/// The parts of the signature the launcher needs, parsed best-effort even
/// when the body has errors.
pub struct Signature {
    pub params: Vec<Param>,
}

pub struct KernelParser<'a> {
    pub spans: &'a mut SpanTable,
    pub errors: Vec<syn::Error>,
    /// Blocks of a compound statement whose own tokens did not parse,
    /// parsed statement by statement when the statement's block is reached
    /// (see [`KernelParser::body_group`]).
    pub deferred: Vec<Group>,
    /// Whether an editor replaced a statement it could not parse by a
    /// placeholder: the body is incomplete although no error of the macro's
    /// own says so (the editor reports that statement's syntax error).
    pub incomplete: bool,
}

pub(crate) type Parsed<T> = Result<T, syn::Error>;

/// An error with its catalogue code, at `node`'s tokens.
pub(crate) fn err(code: Code, node: &impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    spans::error(code, node, message)
}

impl KernelParser<'_> {
    /// Parameters: `name: Tensor<T, d0, ..>` or `name: scalar`.
    pub fn signature(&mut self, item: &syn::ItemFn) -> Signature {
        let sig = &item.sig;
        if let Some(token) = &sig.constness {
            self.errors.push(err(
                Code::FN_QUALIFIER,
                token,
                "a tile kernel cannot be `const`",
            ));
        }
        if let Some(token) = &sig.asyncness {
            self.errors.push(err(
                Code::FN_QUALIFIER,
                token,
                "a tile kernel cannot be `async`",
            ));
        }
        if !matches!(sig.safety, syn::Safety::Default) {
            self.errors.push(err(
                Code::FN_QUALIFIER,
                &sig.safety,
                "a tile kernel is checked at compile time and is never `unsafe`",
            ));
        }
        if let Some(abi) = &sig.abi {
            self.errors.push(err(
                Code::FN_QUALIFIER,
                abi,
                "a tile kernel has no ABI of its own; remove `extern`",
            ));
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            self.errors.push(err(
                Code::GENERIC_KERNEL,
                &sig.generics,
                "tile kernels cannot be generic",
            ));
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            self.errors.push(err(
                Code::RETURN_VALUE,
                ty,
                "a tile kernel returns nothing; results are written to `Tensor` parameters",
            ));
        }
        if let Some(variadic) = &sig.variadic {
            self.errors.push(err(
                Code::FN_QUALIFIER,
                variadic,
                "tile kernels cannot be variadic",
            ));
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(receiver) => {
                    self.errors.push(err(
                        Code::PARAM_PATTERN,
                        receiver,
                        "a tile kernel is a free function and takes no `self`",
                    ));
                }
                FnArg::Typed(typed) => {
                    let param = self.param(params.len(), &typed.pat, &typed.ty);
                    params.push(param);
                }
            }
        }
        Signature { params }
    }

    /// A parameter; on error it is still returned (as [`ParamType::Unparsed`])
    /// so the launcher keeps one argument per parameter.
    fn param(&mut self, index: usize, pat: &Pat, ty: &Type) -> Param {
        let span = self.spans.id(pat);
        let name = match pat {
            Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                ident.ident.unraw()
            }
            other => {
                self.errors.push(err(
                    Code::PARAM_PATTERN,
                    other,
                    "kernel parameters must be plain names",
                ));
                return Param {
                    name: format!("__param{index}"),
                    span,
                    ty: ParamType::Unparsed,
                };
            }
        };
        if name == "device" {
            self.errors.push(err(
                Code::RESERVED_PARAM,
                pat,
                "`device` is reserved: the generated launcher's first argument is `device: &Device`",
            ));
            return Param {
                name: format!("__param{index}"),
                span,
                ty: ParamType::Unparsed,
            };
        }
        let ty = match self.param_type(ty) {
            Ok(ty) => ty,
            Err(e) => {
                self.errors.push(e);
                ParamType::Unparsed
            }
        };
        Param { name, span, ty }
    }

    fn param_type(&mut self, ty: &Type) -> Parsed<ParamType> {
        // A type from a `macro_rules!` fragment (`$t:ty`) arrives wrapped in
        // an invisible group.
        if let Type::Group(group) = ty {
            return self.param_type(&group.elem);
        }
        let Type::Path(path) = ty else {
            return Err(err(
                Code::PARAM_TYPE,
                ty,
                "expected `Tensor<T, dims..>` or a scalar type such as `f32` or `bool`",
            ));
        };
        let Some(last) = path.path.segments.last() else {
            return Err(err(Code::PARAM_TYPE, ty, "expected a type"));
        };
        if last.ident == "Tensor" {
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return Err(err(
                    Code::MALFORMED_TENSOR,
                    ty,
                    "`Tensor` needs its element type and dims: `Tensor<f32, 4, 2>`",
                ));
            };
            let mut iter = args.args.iter();
            let dtype = match iter.next() {
                Some(GenericArgument::Type(elem)) => dtype_of(elem)?,
                Some(other) => {
                    return Err(err(
                        Code::MALFORMED_TENSOR,
                        other,
                        "the first `Tensor` argument is its element type, like `f32`",
                    ));
                }
                None => {
                    return Err(err(
                        Code::MALFORMED_TENSOR,
                        ty,
                        "`Tensor` needs its element type and dims: `Tensor<f32, 4, 2>`",
                    ));
                }
            };
            let mut dims = Vec::new();
            for arg in iter {
                dims.push(self.tensor_dim(arg)?);
            }
            if dims.is_empty() {
                return Err(err(
                    Code::MALFORMED_TENSOR,
                    ty,
                    "`Tensor` needs at least one dim: `Tensor<f32, 4, 2>`",
                ));
            }
            return Ok(ParamType::Tensor { dtype, dims });
        }
        if !matches!(last.arguments, PathArguments::None) {
            return Err(err(
                Code::PARAM_TYPE,
                ty,
                "expected `Tensor<T, dims..>` or a scalar type such as `f32` or `bool`",
            ));
        }
        match DType::from_rust_name(&last.ident.to_string()) {
            Some(dtype) => Ok(ParamType::Scalar(dtype)),
            None => Err(err(
                Code::PARAM_TYPE,
                ty,
                format!(
                    "unsupported parameter type `{}`: expected `Tensor<T, dims..>` or one of f16, bf16, f32, f64, u8, u16, u32, u64, i8, i16, i32, i64, bool",
                    ty.to_token_stream()
                ),
            )),
        }
    }

    /// A dim: a constant (`4`, `{8 / 2}`), a symbol (`N`) or a brace
    /// expression over one symbol (`{2 * N}`); checked by lowering.
    fn tensor_dim(&mut self, arg: &GenericArgument) -> Parsed<Dim> {
        let span = self.spans.id(arg);
        let expr = match arg {
            GenericArgument::Const(expr) => {
                // Constant parts are folded here so overflow and division
                // by zero are reported at the dim.
                if let Ok(value) = const_eval(expr) {
                    if value < 0 {
                        return Err(err(
                            Code::NEGATIVE_DIM,
                            arg,
                            "a tensor dim cannot be negative",
                        ));
                    }
                    ast::Expr::Int(value, span)
                } else if let Err(e) = const_eval_symbolic(expr) {
                    return Err(e);
                } else {
                    self.expr(expr)
                }
            }
            GenericArgument::Type(Type::Path(path))
                if path.qself.is_none() && path.path.get_ident().is_some() =>
            {
                let name = path.path.get_ident().map(|i| i.unraw()).unwrap_or_default();
                ast::Expr::Name(name, span)
            }
            other => {
                return Err(err(
                    Code::DIM_FORM,
                    other,
                    "a tensor dim must be an integer constant like `4` or `{8 / 2}`, or a size symbol like `N`",
                ));
            }
        };
        Ok(Dim { expr, span })
    }

    /// A nested block (of `for`, `if`, `else`) that parsed as Rust; a block
    /// held back by [`KernelParser::body_group`] is parsed from its tokens.
    pub fn body(&mut self, block: &syn::Block) -> Vec<ast::Stmt> {
        if let [Stmt::Macro(mac)] = &block.stmts[..]
            && mac.mac.path.is_ident(DEFERRED_BLOCK)
            && let Ok(index) = syn::parse2::<syn::LitInt>(mac.mac.tokens.clone())
            && let Ok(index) = index.base10_parse::<usize>()
            && let Some(group) = self.deferred.get(index).cloned()
        {
            return self.body_group(&group);
        }
        let mut out = Vec::new();
        for stmt in &block.stmts {
            self.push_stmt(stmt, &mut out);
        }
        out
    }

    /// The body from its tokens, statement by statement: a statement that
    /// does not parse as Rust (the user is typing it) is one error at the
    /// token where parsing stopped (TK0026), and the others are still
    /// checked. Placeholder tokens an editor inserted to repair the input
    /// (rust-analyzer's `__ra_fixup`) are dropped first, so an editor and
    /// rustc see the same error, never at a token the user did not write.
    pub fn body_group(&mut self, group: &Group) -> Vec<ast::Stmt> {
        let mut out = Vec::new();
        let chunks = split_statements(group.stream());
        // The fast path first: it parses only chunks without placeholders,
        // so when it parses them all the body has none, and no chunk is
        // rebuilt; otherwise the body is searched for one.
        let fast: Vec<Option<Vec<Stmt>>> = chunks
            .iter()
            .map(|chunk| crate::fast_parse::statements(chunk))
            .collect();
        let placeholders = fast.iter().any(Option::is_none) && has_placeholder(group.stream());
        for (chunk, fast) in chunks.into_iter().zip(fast) {
            if let (false, Some(stmts)) = (placeholders, &fast) {
                for stmt in stmts {
                    self.push_stmt(stmt, &mut out);
                }
                continue;
            }
            // A placeholder in the statement itself (not inside a call's
            // parentheses) stood for tokens the macro never sees: a whole
            // expression or statement, which may have written any tile.
            let replaced = placeholders
                && chunk
                    .iter()
                    .any(|tree| matches!(tree, TokenTree::Ident(i) if i == EDITOR_PLACEHOLDER));
            if replaced {
                self.incomplete = true;
                out.push(ast::Stmt::Invalid(ast::Invalid {
                    writes_any_tile: true,
                    ..Default::default()
                }));
            }
            let chunk = if placeholders {
                without_fixups(chunk)
            } else {
                chunk
            };
            if chunk.iter().all(is_semicolon) {
                continue;
            }
            match parse_statements(&chunk) {
                Ok(stmts) => {
                    for stmt in &stmts {
                        self.push_stmt(stmt, &mut out);
                    }
                }
                Err(error) => match self.defer_blocks(&chunk) {
                    Some(stmts) => {
                        for stmt in &stmts {
                            self.push_stmt(stmt, &mut out);
                        }
                    }
                    None => {
                        self.errors.push(spans::coded(Code::KERNEL_SYNTAX, error));
                        out.extend(traces(&chunk).into_iter().map(ast::Stmt::Invalid));
                    }
                },
            }
        }
        out
    }

    /// A compound statement (`for`, `if`) that did not parse, with each of
    /// its blocks replaced by a placeholder: when its head parses, its
    /// blocks are parsed on their own (one broken statement inside a loop
    /// does not hide the loop).
    fn defer_blocks(&mut self, chunk: &[TokenTree]) -> Option<Vec<Stmt>> {
        if !starts_compound(chunk) {
            return None;
        }
        let first = self.deferred.len();
        let replaced: Vec<TokenTree> = chunk
            .iter()
            .map(|tree| match tree {
                TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                    let index = proc_macro2::Literal::usize_unsuffixed(self.deferred.len());
                    self.deferred.push(group.clone());
                    let marker = Ident::new(DEFERRED_BLOCK, group.span());
                    let mut placeholder =
                        Group::new(Delimiter::Brace, quote::quote!(#marker!(#index);));
                    placeholder.set_span(group.span());
                    TokenTree::Group(placeholder)
                }
                other => other.clone(),
            })
            .collect();
        let parsed = parse_statements(&replaced).ok();
        if parsed.is_none() {
            self.deferred.truncate(first);
        }
        parsed
    }

    /// Checks one parsed statement; on error records it and its traces.
    fn push_stmt(&mut self, stmt: &Stmt, out: &mut Vec<ast::Stmt>) {
        // A stray `;` (`apply(..);;`, `for .. { .. };`, or one an editor
        // inserted after a loop it repaired): an empty statement, as in Rust.
        if let Stmt::Expr(Expr::Verbatim(tokens), Some(_)) = stmt
            && tokens.is_empty()
        {
            return;
        }
        match self.stmt(stmt) {
            Ok(s) => out.push(s),
            Err(e) => {
                self.errors.push(e);
                // A function that failed still defines its name: its calls
                // add no follow-up errors.
                if let Stmt::Item(syn::Item::Fn(item)) = stmt {
                    out.push(ast::Stmt::Invalid(ast::Invalid {
                        binds: vec![item.sig.ident.to_string()],
                        ..Default::default()
                    }));
                    return;
                }
                let tokens: Vec<TokenTree> = stmt.to_token_stream().into_iter().collect();
                out.extend(traces(&tokens).into_iter().map(ast::Stmt::Invalid));
            }
        }
    }

    pub(crate) fn stmt(&mut self, stmt: &Stmt) -> Parsed<ast::Stmt> {
        match stmt {
            Stmt::Local(local) => {
                let name = match &local.pat {
                    Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                        ident.ident.unraw()
                    }
                    Pat::Type(typed) => {
                        return Err(err(
                            Code::MALFORMED_LET,
                            &typed.ty,
                            "tile-language bindings take no type annotation: `let t = alloc_local::<f32>([4]);`",
                        ));
                    }
                    other => {
                        return Err(err(
                            Code::MALFORMED_LET,
                            other,
                            "bind to a plain name: `let t = alloc_local::<f32>([4]);` or `let i = thread_id(0);`",
                        ));
                    }
                };
                let Some(init) = &local.init else {
                    return Err(err(
                        Code::MALFORMED_LET,
                        local,
                        "a binding needs an initializer: `let t = alloc_local::<f32>([4]);`",
                    ));
                };
                if let Some((_, diverge)) = &init.diverge {
                    return Err(err(
                        Code::MALFORMED_LET,
                        diverge,
                        "`let .. else` is not part of the tile language",
                    ));
                }
                let name_span = self.spans.id(&local.pat);
                if let Expr::Closure(closure) = &*init.expr {
                    return Ok(ast::Stmt::Function(ast::FunctionDef {
                        name,
                        name_span,
                        function: self.closure(closure)?,
                    }));
                }
                if is_alloc_call(&init.expr) {
                    return self.alloc(name, name_span, &init.expr, local);
                }
                // `let x = 1 +` typed above `apply(..);`: Rust reads the two
                // lines as one statement.
                if let Some(call) = statement_call(init.expr.to_token_stream()) {
                    return Err(err(
                        Code::UNSUPPORTED_STATEMENT,
                        &call,
                        format!(
                            "`{call}(..)` is a statement, not a value: is the line before it unfinished?"
                        ),
                    ));
                }
                let value = self.let_value(&init.expr)?;
                Ok(ast::Stmt::Let(ast::Let {
                    name,
                    name_span,
                    value,
                    span: self.spans.id(local),
                }))
            }
            Stmt::Expr(Expr::ForLoop(for_loop), _) => self.for_loop(for_loop),
            Stmt::Expr(Expr::If(branch), _) => self.if_branch(branch).map(ast::Stmt::If),
            Stmt::Expr(expr, _) => self.apply(expr),
            // No return type: a kernel function; else a scalar function.
            Stmt::Item(syn::Item::Fn(item))
                if matches!(item.sig.output, syn::ReturnType::Default) =>
            {
                self.kernel_function(item)
            }
            Stmt::Item(syn::Item::Fn(item)) => self.function_item(item),
            Stmt::Item(item) => Err(err(
                Code::UNSUPPORTED_STATEMENT,
                item,
                "items cannot be declared inside a tile kernel",
            )),
            Stmt::Macro(mac) => Err(err(
                Code::UNSUPPORTED_STATEMENT,
                mac,
                "macros are not part of the tile language; use `apply(ptx[\"..\"], ..)`",
            )),
        }
    }

    /// The initialiser of a `let` that is not a tile: a value or a view.
    fn let_value(&mut self, expr: &Expr) -> Parsed<ast::Expr> {
        match expr {
            Expr::MethodCall(_) | Expr::Index(_) => Ok(ast::Expr::View(self.place(expr)?)),
            Expr::Paren(paren) => self.let_value(&paren.expr),
            Expr::Group(group) => self.let_value(&group.expr),
            other => Ok(self.expr(other)),
        }
    }

    fn for_loop(&mut self, for_loop: &syn::ExprForLoop) -> Parsed<ast::Stmt> {
        let (token, pat, in_token, range) = (
            &for_loop.for_token,
            &for_loop.pat,
            &for_loop.in_token,
            &for_loop.expr,
        );
        let head = quote::quote!(#token #pat #in_token #range);
        if let Some(label) = &for_loop.label {
            return Err(err(
                Code::MALFORMED_FOR,
                label,
                "loop labels are not part of the tile language",
            ));
        }
        let var = match &*for_loop.pat {
            Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                ident.ident.unraw()
            }
            other => {
                return Err(err(
                    Code::MALFORMED_FOR,
                    other,
                    "a loop variable is a plain name: `for k in 0..8`",
                ));
            }
        };
        let range_error = || {
            err(
                Code::MALFORMED_FOR,
                &for_loop.expr,
                "a loop runs over `start..end` or `(start..end).step_by(step)`",
            )
        };
        let (range, step) = match &*for_loop.expr {
            Expr::Range(range) => (range, None),
            Expr::MethodCall(call) if call.method == "step_by" && call.args.len() == 1 => {
                let mut receiver = &*call.receiver;
                while let Expr::Paren(paren) = receiver {
                    receiver = &paren.expr;
                }
                match receiver {
                    Expr::Range(range) => (range, Some(self.expr(&call.args[0]))),
                    _ => return Err(range_error()),
                }
            }
            _ => return Err(range_error()),
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return Err(err(
                Code::MALFORMED_FOR,
                range,
                "a loop range needs a start and an end: `0..n`",
            ));
        };
        let mut end = self.expr(end);
        if matches!(range.limits, syn::RangeLimits::Closed(_)) {
            let span = end.span();
            end = ast::Expr::Binary {
                op: ast::BinOp::Add,
                lhs: Box::new(end),
                rhs: Box::new(ast::Expr::Int(1, span)),
                span,
            };
        }
        let start = self.expr(start);
        let body = self.body(&for_loop.body);
        Ok(ast::Stmt::For(ast::For {
            var,
            var_span: self.spans.id(&for_loop.pat),
            start,
            end,
            step,
            body,
            span: self.spans.id(&head),
        }))
    }

    fn if_branch(&mut self, branch: &syn::ExprIf) -> Parsed<ast::If> {
        let cond = self.expr(&branch.cond);
        let then = self.body(&branch.then_branch);
        let otherwise = match &branch.else_branch {
            None => Vec::new(),
            Some((_, other)) => match &**other {
                Expr::Block(block) => self.body(&block.block),
                Expr::If(nested) => vec![ast::Stmt::If(self.if_branch(nested)?)],
                other => {
                    return Err(err(
                        Code::UNSUPPORTED_STATEMENT,
                        other,
                        "expected a block after `else`",
                    ));
                }
            },
        };
        let (token, cond_tokens) = (&branch.if_token, &branch.cond);
        Ok(ast::If {
            cond,
            then,
            otherwise,
            span: self.spans.id(&quote::quote!(#token #cond_tokens)),
        })
    }

    /// An integer or bool expression. Unsupported forms become
    /// [`ast::Expr::Other`], which lowering reports with context.
    pub fn expr(&mut self, expr: &Expr) -> ast::Expr {
        let span = self.spans.id(expr);
        let other = |e: &Expr| ast::Expr::Other(e.to_token_stream().to_string(), span);
        match expr {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(int), ..
            }) => match int.base10_parse::<i128>() {
                Ok(v) => ast::Expr::Int(v, span),
                Err(_) => other(expr),
            },
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            }) => ast::Expr::Bool(b.value, span),
            Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
                ast::Expr::Name(
                    path.path.get_ident().map(|i| i.unraw()).unwrap_or_default(),
                    span,
                )
            }
            Expr::Paren(paren) => self.expr(&paren.expr),
            Expr::Group(group) => self.expr(&group.expr),
            Expr::Block(block) if block.block.stmts.len() == 1 => match &block.block.stmts[0] {
                Stmt::Expr(inner, None) => self.expr(inner),
                _ => other(expr),
            },
            Expr::Unary(unary) => {
                let Some(op) = unary_op(&unary.op) else {
                    return other(expr);
                };
                ast::Expr::Unary {
                    op,
                    expr: Box::new(self.expr(&unary.expr)),
                    span,
                }
            }
            Expr::Binary(binary) => {
                let Some(op) = binary_op(&binary.op) else {
                    return other(expr);
                };
                ast::Expr::Binary {
                    op,
                    lhs: Box::new(self.expr(&binary.left)),
                    rhs: Box::new(self.expr(&binary.right)),
                    span,
                }
            }
            Expr::Call(call) => match &*call.func {
                Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
                    let func = path
                        .path
                        .get_ident()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    let args = call.args.iter().map(|a| self.expr(a)).collect();
                    ast::Expr::Call { func, args, span }
                }
                _ => other(expr),
            },
            Expr::MethodCall(_) | Expr::Index(_) => match self.place(expr) {
                Ok(place) => ast::Expr::View(place),
                Err(_) => other(expr),
            },
            _ => other(expr),
        }
    }

    fn alloc(
        &mut self,
        name: String,
        name_span: SpanId,
        init: &Expr,
        stmt: &syn::Local,
    ) -> Parsed<ast::Stmt> {
        let shape_error = || {
            err(
                Code::MALFORMED_ALLOC,
                init,
                "expected `alloc_local::<T>([d0, d1, ..])`",
            )
        };
        let Expr::Call(call) = init else {
            return Err(shape_error());
        };
        let Expr::Path(func) = &*call.func else {
            return Err(shape_error());
        };
        let Some(segment) = func.path.segments.last() else {
            return Err(shape_error());
        };
        let space = if segment.ident == "alloc_local" {
            AllocSpace::Registers
        } else if segment.ident == "alloc_shared" {
            AllocSpace::Shared
        } else {
            return Err(shape_error());
        };
        let what = if space == AllocSpace::Shared {
            "alloc_shared"
        } else {
            "alloc_local"
        };
        let PathArguments::AngleBracketed(generics) = &segment.arguments else {
            return Err(err(
                Code::MALFORMED_ALLOC,
                segment,
                format!("name the element type: `{what}::<f32>([..])`"),
            ));
        };
        let elem = match generics.args.first() {
            Some(GenericArgument::Type(elem)) if generics.args.len() == 1 => elem,
            _ => {
                return Err(err(
                    Code::MALFORMED_ALLOC,
                    generics,
                    format!("`{what}` takes exactly one element type, like `::<f32>`"),
                ));
            }
        };
        // `alloc_shared::<Mbarrier>`: barrier objects, stored as 8-byte words.
        let (space, dtype) = if space == AllocSpace::Shared && is_mbarrier_type(elem) {
            (AllocSpace::Mbarriers, DType::U64)
        } else {
            (space, dtype_of(elem)?)
        };
        let dtype_span = self.spans.id(elem);
        let args: Vec<&Expr> = call.args.iter().collect();
        let (array, scope, layout) = match args[..] {
            [Expr::Array(array)] => (array, None, None),
            [Expr::Array(array), Expr::Assign(assign)] if space == AllocSpace::Registers => {
                (array, Some(self.alloc_scope(assign)?), None)
            }
            [Expr::Array(array), Expr::Assign(assign)] if space == AllocSpace::Shared => {
                (array, None, Some(self.alloc_layout(assign)?))
            }
            [Expr::Array(_), extra] => {
                return Err(err(
                    Code::MALFORMED_ALLOC,
                    extra,
                    "`alloc_shared` takes the buffer's shape and optionally its layout: `alloc_shared::<f32>([256])`, `alloc_shared::<bf16>([64, 64], layout = \"swizzle_128\")` (one buffer per CTA)",
                ));
            }
            _ => {
                return Err(err(
                    Code::MALFORMED_ALLOC,
                    &call.args,
                    "`alloc_local` takes the tile shape as an array, and optionally a scope: `alloc_local::<f32>([4, 2])`, `alloc_local::<f32>([32, 4], scope = \"warp\")`",
                ));
            }
        };
        let mut shape = Vec::new();
        for elem in &array.elems {
            // A shared extent may name a size symbol (the dynamic buffer,
            // sized at launch); the checker decides which names are.
            let symbolic =
                space.is_shared() && const_eval(elem).is_err() && const_eval_symbolic(elem).is_ok();
            if symbolic {
                shape.push(Dim {
                    expr: self.expr(elem),
                    span: self.spans.id(elem),
                });
                continue;
            }
            let value = const_eval(elem)?;
            let value = u64::try_from(value)
                .map_err(|_| err(Code::TILE_SHAPE, elem, "a tile extent cannot be negative"))?;
            shape.push(Dim::constant(value, self.spans.id(elem)));
        }
        Ok(ast::Stmt::AllocLocal(AllocLocal {
            name,
            name_span,
            dtype,
            dtype_span,
            shape,
            scope,
            layout,
            space,
            span: self.spans.id(stmt),
        }))
    }

    /// `scope = "warp"` after a tile's shape.
    fn alloc_scope(&mut self, assign: &syn::ExprAssign) -> Parsed<(String, SpanId)> {
        if !matches!(&*assign.left, Expr::Path(key) if key.path.is_ident("scope")) {
            return Err(err(
                Code::MALFORMED_ALLOC,
                &assign.left,
                "`alloc_local` takes one keyword argument, `scope`: `alloc_local::<f32>([32, 4], scope = \"warp\")`",
            ));
        }
        match &*assign.right {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(text),
                ..
            }) => Ok((text.value(), self.spans.id(text))),
            other => Err(err(
                Code::KEYWORD_VALUE,
                other,
                "`scope` is a string: \"thread\", \"warp\", \"warpgroup\" or \"cta\"",
            )),
        }
    }

    /// `layout = "swizzle_128"` after a shared buffer's shape.
    fn alloc_layout(&mut self, assign: &syn::ExprAssign) -> Parsed<(String, SpanId)> {
        if !matches!(&*assign.left, Expr::Path(key) if key.path.is_ident("layout")) {
            return Err(err(
                Code::MALFORMED_ALLOC,
                &assign.left,
                "`alloc_shared` takes one keyword argument, `layout`: `alloc_shared::<bf16>([64, 64], layout = \"swizzle_128\")`",
            ));
        }
        // A `macro_rules!` literal arrives in an invisible group.
        let mut right = &*assign.right;
        while let Expr::Group(group) = right {
            right = &group.expr;
        }
        match right {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(text),
                ..
            }) => Ok((text.value(), self.spans.id(text))),
            other => Err(err(
                Code::KEYWORD_VALUE,
                other,
                "`layout` is a string: \"core_matrices\", \"swizzle_32\", \"swizzle_64\" or \"swizzle_128\"",
            )),
        }
    }

    fn apply(&mut self, expr: &Expr) -> Parsed<ast::Stmt> {
        let expected = "expected a tile-language statement: `apply(ptx[\"OPCODE\"], operands..)`, `let`, `for` or `if`";
        let Expr::Call(call) = expr else {
            return Err(control_flow_error(expr)
                .unwrap_or_else(|| err(Code::UNSUPPORTED_STATEMENT, expr, expected)));
        };
        match &*call.func {
            Expr::Path(path) if path.path.is_ident("apply") => {}
            Expr::Path(path) if path.path.is_ident("ewise") => return self.ewise(call, expr),
            // `name(args..)`: a call of a kernel function.
            Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
                let mut args = Vec::new();
                for arg in &call.args {
                    args.push(self.operand(arg)?);
                }
                return Ok(ast::Stmt::Call(ast::Call {
                    name: path.path.get_ident().map(Unraw::unraw).unwrap_or_default(),
                    name_span: self.spans.id(path),
                    args,
                    span: self.spans.id(expr),
                }));
            }
            other => return Err(err(Code::UNSUPPORTED_STATEMENT, other, expected)),
        }
        let mut args = call.args.iter();
        let (opcode, opcode_span) = match args.next() {
            Some(Expr::Index(index)) if matches!(&*index.expr, Expr::Path(p) if p.path.is_ident("ptx")) =>
            {
                // A `macro_rules!` `$op:literal` arrives wrapped in an
                // invisible group.
                let mut opcode = &*index.index;
                while let Expr::Group(group) = opcode {
                    opcode = &group.expr;
                }
                match opcode {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) => (text.value(), self.spans.id(text)),
                    other => {
                        return Err(err(
                            Code::MALFORMED_APPLY,
                            other,
                            "the opcode is a string literal: `ptx[\"cvt.rn.f16x2.f32\"]`",
                        ));
                    }
                }
            }
            Some(other) => {
                return Err(err(
                    Code::MALFORMED_APPLY,
                    other,
                    "the first argument of `apply` is the opcode: `ptx[\"cvt.rn.f16x2.f32\"]`",
                ));
            }
            None => {
                return Err(err(
                    Code::MALFORMED_APPLY,
                    call,
                    "`apply` needs an opcode: `apply(ptx[\"cvt.rn.f16x2.f32\"], d, a, b)`",
                ));
            }
        };
        let mut apply = Apply {
            opcode,
            opcode_span,
            operands: Vec::new(),
            scope: None,
            pred: None,
            preserve_dst: None,
            zero_fill: None,
            span: self.spans.id(expr),
        };
        let mut seen_keyword = false;
        for arg in args {
            if let Expr::Assign(assign) = arg {
                seen_keyword = true;
                self.keyword(assign, &mut apply)?;
                continue;
            }
            if seen_keyword {
                return Err(err(
                    Code::MALFORMED_APPLY,
                    arg,
                    "operands come before the keyword arguments (`scope`, `pred`, `preserve_dst`, `zero_fill`)",
                ));
            }
            let operand = self.operand(arg)?;
            apply.operands.push(operand);
        }
        Ok(ast::Stmt::Apply(apply))
    }

    fn keyword(&mut self, assign: &syn::ExprAssign, apply: &mut Apply) -> Parsed<()> {
        let Expr::Path(key) = &*assign.left else {
            return Err(err(
                Code::KEYWORD_VALUE,
                &assign.left,
                "expected a keyword: `scope`, `pred`, `preserve_dst` or `zero_fill`",
            ));
        };
        let key_name = key
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let duplicate = || {
            err(
                Code::DUPLICATE_KEYWORD,
                assign,
                format!("`{key_name}` is given more than once"),
            )
        };
        match key_name.as_str() {
            "scope" => {
                if apply.scope.is_some() {
                    return Err(duplicate());
                }
                match &*assign.right {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) => {
                        apply.scope = Some((text.value(), self.spans.id(text)));
                    }
                    other => {
                        return Err(err(
                            Code::KEYWORD_VALUE,
                            other,
                            "`scope` is a string: \"thread\", \"warp\", \"warpgroup\" or \"cta\"",
                        ));
                    }
                }
            }
            "pred" => {
                if apply.pred.is_some() {
                    return Err(duplicate());
                }
                apply.pred = Some(self.expr(&assign.right));
            }
            "preserve_dst" => {
                if apply.preserve_dst.is_some() {
                    return Err(duplicate());
                }
                match &*assign.right {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Bool(value),
                        ..
                    }) => {
                        apply.preserve_dst = Some((value.value, self.spans.id(assign)));
                    }
                    other => {
                        return Err(err(
                            Code::KEYWORD_VALUE,
                            other,
                            "`preserve_dst` is a compile-time `true` or `false`",
                        ));
                    }
                }
            }
            "zero_fill" => {
                if apply.zero_fill.is_some() {
                    return Err(duplicate());
                }
                match &*assign.right {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Bool(value),
                        ..
                    }) => {
                        if value.value {
                            apply.zero_fill = Some(self.spans.id(assign));
                        }
                    }
                    other => {
                        return Err(err(
                            Code::KEYWORD_VALUE,
                            other,
                            "`zero_fill` is a compile-time `true` or `false`",
                        ));
                    }
                }
            }
            _ => {
                return Err(err(
                    Code::UNKNOWN_KEYWORD,
                    &assign.left,
                    format!(
                        "unknown keyword argument `{key_name}`; `apply` takes `scope`, `pred`, `preserve_dst` and `zero_fill`"
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn operand(&mut self, expr: &Expr) -> Parsed<Operand> {
        match expr {
            Expr::Lit(lit) => Ok(Operand::Literal(self.literal(&lit.lit, false, expr)?)),
            Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => match &*unary.expr {
                Expr::Lit(lit) => Ok(Operand::Literal(self.literal(&lit.lit, true, expr)?)),
                Expr::Path(path) if float_type_path(path) => {
                    Ok(Operand::Literal(self.float_constant(path, true, expr)?))
                }
                other => Err(err(
                    Code::UNSUPPORTED_OPERAND,
                    other,
                    "only literals can be negated in an operand",
                )),
            },
            // `f32::NEG_INFINITY`, `f64::NAN`: a float literal.
            Expr::Path(path) if float_type_path(path) => {
                Ok(Operand::Literal(self.float_constant(path, false, expr)?))
            }
            // `N * 4`, `thread_id(0)`, `grid_dim(0)`: a runtime integer
            // (a bare name is a place until the checker knows what it names).
            Expr::Binary(_) => Ok(Operand::Value(self.expr(expr))),
            Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if p.path.get_ident().is_some_and(|i| i != "sreg")) => {
                Ok(Operand::Value(self.expr(expr)))
            }
            Expr::Paren(paren) => self.operand(&paren.expr),
            Expr::Group(group) => self.operand(&group.expr),
            // `sreg("%clock64")`: a special register.
            Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if p.path.is_ident("sreg")) => {
                match call.args.iter().collect::<Vec<_>>().as_slice() {
                    [
                        Expr::Lit(syn::ExprLit {
                            lit: Lit::Str(name),
                            ..
                        }),
                    ] => Ok(Operand::Special {
                        name: name.value(),
                        span: self.spans.id(expr),
                    }),
                    _ => Err(err(
                        Code::UNSUPPORTED_OPERAND,
                        expr,
                        "`sreg` takes the special register's PTX name as a string, like `sreg(\"%laneid\")`",
                    )),
                }
            }
            _ => Ok(Operand::Place(self.place(expr)?)),
        }
    }

    /// `f32::INFINITY`, `-f64::MAX`, ..: the value of a float constant of
    /// Rust's `f32`/`f64`.
    fn float_constant(
        &mut self,
        path: &syn::ExprPath,
        negate: bool,
        whole: &Expr,
    ) -> Parsed<Literal> {
        let ty = path.path.segments[0].ident.to_string();
        let name = path.path.segments[1].ident.to_string();
        let value = match (ty.as_str(), name.as_str()) {
            (_, "INFINITY") => f64::INFINITY,
            (_, "NEG_INFINITY") => f64::NEG_INFINITY,
            (_, "NAN") => f64::NAN,
            ("f32", "MAX") => f64::from(f32::MAX),
            ("f32", "MIN") => f64::from(f32::MIN),
            ("f32", "MIN_POSITIVE") => f64::from(f32::MIN_POSITIVE),
            ("f32", "EPSILON") => f64::from(f32::EPSILON),
            ("f64", "MAX") => f64::MAX,
            ("f64", "MIN") => f64::MIN,
            ("f64", "MIN_POSITIVE") => f64::MIN_POSITIVE,
            ("f64", "EPSILON") => f64::EPSILON,
            _ => {
                return Err(err(
                    Code::UNSUPPORTED_OPERAND,
                    path,
                    format!(
                        "`{ty}::{name}` is not a float constant an operand can name; they are `INFINITY`, `NEG_INFINITY`, `NAN`, `MAX`, `MIN`, `MIN_POSITIVE` and `EPSILON`"
                    ),
                ));
            }
        };
        Ok(Literal {
            value: LiteralValue::Float(if negate { -value } else { value }),
            span: self.spans.id(whole),
        })
    }

    fn literal(&mut self, lit: &Lit, negate: bool, whole: &Expr) -> Parsed<Literal> {
        let value = match lit {
            Lit::Int(int) => {
                let v: i128 = int.base10_parse().map_err(|_| {
                    err(
                        Code::LITERAL_OUT_OF_RANGE,
                        int,
                        "integer literal out of range",
                    )
                })?;
                LiteralValue::Int(if negate { -v } else { v })
            }
            Lit::Float(float) => {
                let v: f64 = float
                    .base10_parse()
                    .map_err(|_| err(Code::LITERAL_OUT_OF_RANGE, float, "invalid float literal"))?;
                if !v.is_finite() {
                    return Err(err(
                        Code::LITERAL_OUT_OF_RANGE,
                        float,
                        "float literal out of range for `f64`",
                    ));
                }
                LiteralValue::Float(if negate { -v } else { v })
            }
            Lit::Bool(value) if !negate => LiteralValue::Bool(value.value),
            other => {
                return Err(err(
                    Code::UNSUPPORTED_OPERAND,
                    other,
                    "operands are tiles, tensors, parameters or number literals",
                ));
            }
        };
        Ok(Literal {
            value,
            span: self.spans.id(whole),
        })
    }

    /// `name`, then `.slice(s![..])`, `.view::<U>()`, `.reshape([..])`,
    /// `.unsqueeze(axis)` and `[index]` in any order.
    pub(crate) fn place(&mut self, expr: &Expr) -> Parsed<PlaceExpr> {
        match expr {
            Expr::Path(path) => match path.path.get_ident() {
                Some(ident) if path.qself.is_none() => {
                    let span = self.spans.id(expr);
                    Ok(PlaceExpr {
                        base: ident.unraw(),
                        base_span: span,
                        views: Vec::new(),
                        span,
                    })
                }
                _ => Err(err(
                    Code::UNSUPPORTED_OPERAND,
                    expr,
                    "expected the name of a tile or parameter",
                )),
            },
            Expr::MethodCall(call) => {
                let mut place = self.place(&call.receiver)?;
                let method_span = self.spans.id(expr);
                let method = call.method.to_string();
                let args: Vec<&Expr> = call.args.iter().collect();
                let kind = match (method.as_str(), &args[..]) {
                    ("slice", [arg]) => ViewKind::Slice(self.slice_macro(arg)?),
                    ("slice", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.slice` takes one `s![..]` argument",
                        ));
                    }
                    ("view", []) => {
                        let elem = match &call.turbofish {
                            Some(turbofish) if turbofish.args.len() == 1 => {
                                match turbofish.args.first() {
                                    Some(GenericArgument::Type(ty)) => ty,
                                    _ => {
                                        return Err(err(
                                            Code::MALFORMED_VIEW,
                                            turbofish,
                                            "`.view` takes one element type: `.view::<u16>()`",
                                        ));
                                    }
                                }
                            }
                            _ => {
                                return Err(err(
                                    Code::MALFORMED_VIEW,
                                    call,
                                    "name the view's element type: `.view::<u16>()`",
                                ));
                            }
                        };
                        ViewKind::View(dtype_of(elem)?)
                    }
                    ("view", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.view::<U>()` takes no arguments",
                        ));
                    }
                    ("reshape", [Expr::Array(array)]) => {
                        let dims = const_ints(array)?;
                        ViewKind::Reshape(dims)
                    }
                    ("reshape", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.reshape` takes the new shape as an array: `.reshape([4, 2])`",
                        ));
                    }
                    ("unsqueeze", [axis]) => ViewKind::Unsqueeze(to_i64(const_eval(axis)?, axis)?),
                    ("permute", [Expr::Array(array)]) => {
                        let order = const_ints(array)?;
                        ViewKind::Permute(order)
                    }
                    ("permute", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.permute` takes the axes' new order as an array: `.permute([1, 0, 2])`",
                        ));
                    }
                    ("broadcast", [Expr::Array(array)]) => {
                        let dims = const_ints(array)?;
                        ViewKind::Broadcast(dims)
                    }
                    ("broadcast", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.broadcast` takes the new shape as an array: `.broadcast([4, 8, 1])`",
                        ));
                    }
                    ("unsqueeze", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.unsqueeze` takes one axis, like `.unsqueeze(-1)`",
                        ));
                    }
                    ("in_cta", [rank]) => ViewKind::InCta(self.expr(rank)),
                    ("in_cta", _) => {
                        return Err(err(
                            Code::MALFORMED_VIEW,
                            call,
                            "`.in_cta` takes the rank of a CTA in the cluster, like `.in_cta(cluster_ctarank() ^ 1)`",
                        ));
                    }
                    _ => {
                        return Err(err(
                            Code::UNKNOWN_VIEW,
                            &call.method,
                            format!(
                                "`.{method}` is not a tile view; use `.slice(s![..])`, `.view::<U>()`, `.reshape([..])`, `.unsqueeze(axis)`, `.permute([..])`, `.broadcast([..])` or `.in_cta(rank)`"
                            ),
                        ));
                    }
                };
                if !matches!(kind, ViewKind::View(_)) && call.turbofish.is_some() {
                    return Err(err(
                        Code::MALFORMED_VIEW,
                        &call.turbofish,
                        format!("`.{method}` takes no type arguments"),
                    ));
                }
                place.views.push(ViewOp {
                    kind,
                    span: method_span,
                });
                place.span = self.spans.id(expr);
                Ok(place)
            }
            Expr::Index(index) => {
                let mut place = self.place(&index.expr)?;
                let item = self.slice_item(&index.index)?;
                place.views.push(ViewOp {
                    kind: ViewKind::Slice(vec![item]),
                    span: self.spans.id(expr),
                });
                place.span = self.spans.id(expr);
                Ok(place)
            }
            Expr::Paren(paren) => self.place(&paren.expr),
            Expr::Group(group) => self.place(&group.expr),
            other => Err(err(
                Code::UNSUPPORTED_OPERAND,
                other,
                "unsupported operand: expected a tile or tensor name with views (`.slice(s![..])`, `.view::<U>()`, `.reshape([..])`, `.unsqueeze(axis)`), a scalar parameter or a literal",
            )),
        }
    }

    /// `s![item, item;step, ..]` in ndarray's convention.
    fn slice_macro(&mut self, arg: &Expr) -> Parsed<Vec<SliceItem>> {
        let Expr::Macro(mac) = arg else {
            return Err(err(
                Code::MALFORMED_SLICE,
                arg,
                "expected `s![..]`, like `s![.., 1..2]`",
            ));
        };
        if !mac.mac.path.is_ident("s") {
            return Err(err(
                Code::MALFORMED_SLICE,
                &mac.mac.path,
                "expected `s![..]`, like `s![.., 1..2]`",
            ));
        }
        let items = match crate::fast_parse::slice_items(&mac.mac.tokens) {
            Some(items) => items,
            None => slice_items
                .parse2(mac.mac.tokens.clone())
                .map_err(|e| spans::coded(Code::MALFORMED_SLICE, e))?,
        };
        let mut out = Vec::new();
        for (item, step) in items {
            let mut parsed = self.slice_item(&item)?;
            if let Some(step_expr) = step {
                let step_value = to_i64(const_eval(&step_expr)?, &step_expr)?;
                match &mut parsed {
                    SliceItem::Range { step, .. } => *step = step_value,
                    SliceItem::Index { .. } => {
                        return Err(err(
                            Code::MALFORMED_SLICE,
                            &step_expr,
                            "a step applies only to a range, like `0..8;2`",
                        ));
                    }
                }
            }
            out.push(parsed);
        }
        Ok(out)
    }

    /// One `s![..]` item; bounds may be runtime expressions.
    fn slice_item(&mut self, expr: &Expr) -> Parsed<SliceItem> {
        let span = self.spans.id(expr);
        match expr {
            Expr::Range(range) => {
                let start = range.start.as_deref().map(|e| self.expr(e));
                let mut end = range.end.as_deref().map(|e| self.expr(e));
                if matches!(range.limits, syn::RangeLimits::Closed(_)) {
                    end = match end {
                        // `..=-1` reaches the end of the axis (ndarray).
                        Some(ast::Expr::Int(-1, _)) => None,
                        Some(ast::Expr::Unary {
                            op: ast::UnOp::Neg,
                            expr,
                            ..
                        }) if matches!(*expr, ast::Expr::Int(1, _)) => None,
                        Some(e) => {
                            let span = e.span();
                            if let Some(v) = range.end.as_deref().and_then(|e| const_eval(e).ok())
                                && v.checked_add(1).is_none_or(|v| i64::try_from(v).is_err())
                            {
                                return Err(err(
                                    Code::CONSTANT_OVERFLOW,
                                    range,
                                    format!(
                                        "the inclusive end `{v}` is too large: `a..=b` is `a..b + 1`, and `{v} + 1` does not fit in `i64` (at most {})",
                                        i64::MAX
                                    ),
                                ));
                            }
                            Some(ast::Expr::Binary {
                                op: ast::BinOp::Add,
                                lhs: Box::new(e),
                                rhs: Box::new(ast::Expr::Int(1, span)),
                                span,
                            })
                        }
                        None => {
                            return Err(err(
                                Code::MALFORMED_SLICE,
                                range,
                                "an inclusive range needs an end",
                            ));
                        }
                    };
                }
                Ok(SliceItem::Range {
                    start,
                    end,
                    step: 1,
                    span,
                })
            }
            other => Ok(SliceItem::Index {
                index: self.expr(other),
                span,
            }),
        }
    }
}

/// `while` and `loop` are not statements of the tile language; the error
/// points at their head, not at the whole block.
fn control_flow_error(expr: &Expr) -> Option<syn::Error> {
    let (head, message) = match expr {
        Expr::While(w) => {
            let (token, cond) = (&w.while_token, &w.cond);
            (
                quote::quote!(#token #cond),
                "`while` loops are not part of the tile language; use `for i in (start..end).step_by(step)`".to_string(),
            )
        }
        Expr::Loop(l) => (
            l.loop_token.to_token_stream(),
            "`loop` is not part of the tile language; use `for i in (start..end).step_by(step)`"
                .to_string(),
        ),
        _ => return None,
    };
    Some(err(Code::UNSUPPORTED_STATEMENT, &head, message))
}

/// What an unreadable statement would have bound and touched, read from
/// its tokens (it may not parse): the name of a `let` (touching what its
/// initialiser starts from, which it may view), and the base names of each
/// `apply`'s operands (tokens that do not parse may hold several calls),
/// the stored one first when the opcode stores
/// (`tile_kernel_lowering::signature` keeps that tensor `&mut`).
fn traces(tokens: &[TokenTree]) -> Vec<ast::Invalid> {
    if let [TokenTree::Ident(keyword), rest @ ..] = tokens
        && keyword == "let"
    {
        let mut invalid = ast::Invalid::default();
        let mut rest = rest
            .iter()
            .skip_while(|t| matches!(t, TokenTree::Ident(i) if i == "mut"));
        if let Some(TokenTree::Ident(name)) = rest.next() {
            invalid.binds.push(name.unraw());
        }
        let mut init = rest.skip_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == '='));
        init.next();
        let init: Vec<TokenTree> = init.cloned().collect();
        invalid.touches.extend(token_base_name(&init));
        // An `apply` its value swallowed (`let x = 1 + apply(..);`) still
        // names what it writes.
        let mut out = vec![invalid];
        out.extend(apply_calls(&init).into_iter().map(apply_traces));
        return out;
    }
    let calls = apply_calls(tokens);
    if calls.is_empty() {
        return vec![ast::Invalid::default()];
    }
    calls.into_iter().map(apply_traces).collect()
}

/// The arguments of each `apply(..)` call among `tokens`, at any depth (in
/// the blocks of an `if` or `for` that did not parse too), in order.
fn apply_calls(tokens: &[TokenTree]) -> Vec<TokenStream> {
    let mut calls = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match (&tokens[i], tokens.get(i + 1)) {
            (TokenTree::Ident(func), Some(TokenTree::Group(args)))
                if func == "apply" && args.delimiter() == Delimiter::Parenthesis =>
            {
                calls.push(args.stream());
                i += 2;
                continue;
            }
            (TokenTree::Group(group), _) => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                calls.extend(apply_calls(&inner));
            }
            _ => {}
        }
        i += 1;
    }
    calls
}

/// The name of an `apply(..)` or `ewise(..)` call among `tokens`, at any
/// depth: a statement where a value was expected.
fn statement_call(tokens: TokenStream) -> Option<Ident> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(func)
                if (func == "apply" || func == "ewise")
                    && matches!(trees.get(i + 1), Some(TokenTree::Group(args)) if args.delimiter() == Delimiter::Parenthesis) =>
            {
                return Some(func.clone());
            }
            TokenTree::Group(group) => {
                if let Some(call) = statement_call(group.stream()) {
                    return Some(call);
                }
            }
            _ => {}
        }
    }
    None
}

/// The traces of one `apply(..)` call's arguments.
fn apply_traces(args: TokenStream) -> ast::Invalid {
    let mut invalid = ast::Invalid::default();
    let args = split_args(args);
    let Some((opcode, operands)) = args.split_first() else {
        return invalid;
    };
    let mut operands: Vec<&[TokenTree]> = operands.iter().map(Vec::as_slice).collect();
    let opcode = match &opcode[..] {
        [TokenTree::Ident(ptx), TokenTree::Group(index), rest @ ..] if ptx == "ptx" => {
            // `ptx["st.global.b32"] out, d`: a comma is missing.
            if !rest.is_empty() {
                operands.insert(0, rest);
            }
            syn::parse2::<syn::LitStr>(index.stream())
                .ok()
                .map(|text| text.value())
        }
        _ => None,
    };
    let names: Vec<Option<String>> = operands
        .iter()
        .filter(|arg| !is_keyword_argument(arg))
        .map(|arg| token_base_name(arg))
        .collect();
    let stored = opcode
        .as_deref()
        .map(tile_kernel_lowering::ptx::resolve::memory_destinations)
        .unwrap_or_default()
        .into_iter()
        .find(|&position| names.get(position).is_some_and(Option::is_some));
    if let Some(position) = stored {
        invalid.stores = true;
        invalid.touches.extend(names[position].clone());
    }
    for (position, name) in names.into_iter().enumerate() {
        if Some(position) != stored {
            invalid.touches.extend(name);
        }
    }
    invalid
}

/// The name an operand's tokens start from: `r` in `r.slice(s![..])`.
fn token_base_name(tokens: &[TokenTree]) -> Option<String> {
    match tokens.first()? {
        TokenTree::Ident(ident) => Some(ident.unraw()),
        TokenTree::Group(group) if group.delimiter() != Delimiter::Brace => {
            let inner: Vec<TokenTree> = group.stream().into_iter().collect();
            token_base_name(&inner)
        }
        _ => None,
    }
}

/// `pred = ..`, `scope = ..`, `preserve_dst = ..`.
fn is_keyword_argument(tokens: &[TokenTree]) -> bool {
    matches!(tokens, [TokenTree::Ident(_), TokenTree::Punct(eq), next, ..]
        if eq.as_char() == '=' && !matches!(next, TokenTree::Punct(p) if p.as_char() == '='))
}

/// The items of `s![..]`: expressions separated by commas, each with an
/// optional `;step` expression.
pub(crate) fn slice_items(input: ParseStream) -> syn::Result<Vec<(Expr, Option<Expr>)>> {
    let mut items = Vec::new();
    while !input.is_empty() {
        let item: Expr = input.parse()?;
        let step = if input.peek(syn::Token![;]) {
            let _: syn::Token![;] = input.parse()?;
            Some(input.parse::<Expr>()?)
        } else {
            None
        };
        items.push((item, step));
        if input.is_empty() {
            break;
        }
        let _: syn::Token![,] = input.parse()?;
    }
    Ok(items)
}

/// Call arguments split at their top-level commas.
fn split_args(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut args = vec![Vec::new()];
    for tree in tokens {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => args.push(Vec::new()),
            _ => args
                .last_mut()
                .into_iter()
                .for_each(|arg| arg.push(tree.clone())),
        }
    }
    args.retain(|arg| !arg.is_empty());
    args
}

/// The marker standing in for a block held back by
/// [`KernelParser::defer_blocks`].
const DEFERRED_BLOCK: &str = "__tile_kernel_deferred_block";

/// The ident rust-analyzer inserts where the input is incomplete (`a.`,
/// `if {`, an expression it could not parse); it is not the user's token.
const EDITOR_PLACEHOLDER: &str = "__ra_fixup";

fn is_semicolon(tree: &TokenTree) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == ';')
}

/// Whether a statement starts with a keyword whose block may end it.
fn starts_compound(chunk: &[TokenTree]) -> bool {
    matches!(chunk.first(), Some(TokenTree::Ident(keyword))
        if ["for", "if", "while", "loop", "match", "unsafe"].iter().any(|k| keyword == k))
}

/// A body's tokens cut into statements: at each top-level `;`, and after
/// the last block of a compound statement (`for .. { }`, `if .. { } else
/// { }`). Cuts need not be exact: a chunk holding two statements that parse
/// is two statements.
pub(crate) fn split_statements(body: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut chunks = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut trees = body.into_iter().peekable();
    while let Some(tree) = trees.next() {
        let ends = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                (current.is_empty() || starts_compound(&current))
                    && !matches!(trees.peek(), Some(TokenTree::Ident(next)) if next == "else")
            }
            _ => false,
        };
        current.push(tree);
        if ends {
            chunks.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// Whether `tokens` hold an editor placeholder, at any depth.
fn has_placeholder(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == EDITOR_PLACEHOLDER,
        TokenTree::Group(group) => has_placeholder(group.stream()),
        _ => false,
    })
}

/// `tokens` without editor placeholders, at any depth.
fn without_fixups(tokens: Vec<TokenTree>) -> Vec<TokenTree> {
    tokens
        .into_iter()
        .filter(|tree| !matches!(tree, TokenTree::Ident(i) if i == EDITOR_PLACEHOLDER))
        .map(|tree| match tree {
            TokenTree::Group(group) => {
                let inner = without_fixups(group.stream().into_iter().collect());
                let mut out = Group::new(group.delimiter(), inner.into_iter().collect());
                out.set_span(group.span());
                TokenTree::Group(out)
            }
            other => other,
        })
        .collect()
}

/// Parses statement tokens. An error at the end of the input (or of a
/// group: `d.)`) is placed on the last token the user wrote before it, not
/// on the whole group; and before a final `;`, since that `;` may be one an
/// editor inserted (rust-analyzer ends an unfinished `let v =` with one),
/// and "expected an expression" belongs after the `=` the user typed.
fn parse_statements(tokens: &[TokenTree]) -> syn::Result<Vec<Stmt>> {
    // The common statements without `syn`'s parser (the same syntax tree).
    if let Some(stmts) = crate::fast_parse::statements(tokens) {
        return Ok(stmts);
    }
    let error = match statements_before_semicolon(tokens) {
        Ok(stmts) => return Ok(stmts),
        Err(error) => error,
    };
    if !at_end_of_input(&error) {
        return Err(error);
    }
    let pinned: Vec<TokenTree> = tokens.iter().cloned().map(pin_group_end).collect();
    Err(statements_before_semicolon(&pinned)
        .err()
        .filter(at_end_of_input)
        .unwrap_or(error))
}

fn at_end_of_input(error: &syn::Error) -> bool {
    error.to_string().starts_with("unexpected end of input")
}

fn statements_before_semicolon(tokens: &[TokenTree]) -> syn::Result<Vec<Stmt>> {
    let first = block_statements(tokens);
    if let (Err(_), Some((last, rest))) = (&first, tokens.split_last())
        && is_semicolon(last)
        && let Err(error) = block_statements(rest)
        && at_end_of_input(&error)
    {
        return Err(error);
    }
    first
}

/// A group spanned at its last token (recursively), so syn's "unexpected
/// end of input" inside it points there.
fn pin_group_end(tree: TokenTree) -> TokenTree {
    let TokenTree::Group(group) = tree else {
        return tree;
    };
    let inner: Vec<TokenTree> = group.stream().into_iter().map(pin_group_end).collect();
    let span = inner.last().map_or_else(|| group.span(), TokenTree::span);
    let mut pinned = Group::new(group.delimiter(), inner.into_iter().collect());
    pinned.set_span(span);
    TokenTree::Group(pinned)
}

/// `tokens` parsed as the statements of a block whose end is the last
/// token, so an error at the end of the input points at that token.
fn block_statements(tokens: &[TokenTree]) -> syn::Result<Vec<Stmt>> {
    let Some(last) = tokens.last() else {
        return Ok(Vec::new());
    };
    let mut group = Group::new(Delimiter::Brace, tokens.iter().cloned().collect());
    group.set_span(last.span());
    let block: syn::Block = syn::parse2(TokenTree::Group(group).into())?;
    Ok(block.stmts)
}

/// The kernel fn, read as far as its signature, and its body's tokens (the
/// body is parsed statement by statement, [`KernelParser::body_group`]).
/// The returned fn has an empty block.
pub fn kernel_item(tokens: TokenStream) -> Result<(syn::ItemFn, Group), syn::Error> {
    let head = |input: ParseStream| -> syn::Result<(syn::ItemFn, Option<Group>)> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        let sig: syn::Signature = input.parse()?;
        let body = if input.peek(syn::token::Brace) {
            Some(input.parse::<Group>()?)
        } else {
            None
        };
        if body.is_some() && !input.is_empty() {
            return Err(input.error("unexpected tokens after the kernel's body"));
        }
        let brace = body.as_ref().map_or_else(syn::token::Brace::default, |b| {
            syn::token::Brace(b.delim_span())
        });
        let item = syn::ItemFn {
            attrs,
            vis,
            modifiers: syn::FnModifiers::default(),
            sig,
            block: Box::new(syn::Block {
                brace_token: brace,
                stmts: Vec::new(),
            }),
        };
        Ok((item, body))
    };
    let not_a_function = |tokens: TokenStream| match syn::parse2::<syn::ItemFn>(tokens) {
        Err(error) => spans::coded(Code::NOT_A_FUNCTION, error),
        Ok(item) => err(
            Code::NOT_A_FUNCTION,
            &item.sig.ident,
            "expected a function with a body",
        ),
    };
    // The common case first: the body is the last token and the rest
    // parses as the fn's head, so syn never flattens the body's tokens
    // (they are parsed statement by statement later).
    let mut trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // rust-analyzer replaces a body it could not repair by its placeholder
    // (`fn k(..) __ra_fixup`, while the user types `let x = ;`). Read it
    // as a body of that placeholder: incomplete, no error of the macro's
    // (the editor reports the syntax error at the user's tokens), and the
    // launcher from the signature.
    if let Some(last) = trees.last_mut()
        && matches!(last, TokenTree::Ident(ident) if ident == EDITOR_PLACEHOLDER)
    {
        let mut body = Group::new(Delimiter::Brace, TokenStream::from(last.clone()));
        body.set_span(last.span());
        *last = TokenTree::Group(body);
    }
    if let Some(TokenTree::Group(body)) = trees.pop()
        && body.delimiter() == Delimiter::Brace
    {
        let brace_token = syn::token::Brace(body.delim_span());
        // The common heads without `syn`'s parser (the same syntax tree).
        if let Some((attrs, vis, sig)) = crate::fast_parse::kernel_head(&trees) {
            let item = syn::ItemFn {
                attrs,
                vis,
                modifiers: syn::FnModifiers::default(),
                sig,
                block: Box::new(syn::Block {
                    brace_token,
                    stmts: Vec::new(),
                }),
            };
            return Ok((item, body));
        }
        if let Ok((mut item, None)) = head.parse2(trees.into_iter().collect()) {
            item.block.brace_token = brace_token;
            return Ok((item, body));
        }
    }
    match head.parse2(tokens.clone()) {
        Ok((item, Some(body))) => Ok((item, body)),
        Ok((_, None)) => Err(not_a_function(tokens)),
        Err(error) => {
            let has_fn = tokens
                .clone()
                .into_iter()
                .any(|tree| matches!(&tree, TokenTree::Ident(i) if i == "fn"));
            Err(if has_fn {
                spans::coded(Code::KERNEL_SYNTAX, error)
            } else {
                not_a_function(tokens)
            })
        }
    }
}

/// The tile language's operator for a Rust binary operator (`None` for the
/// compound assignments, which it has none of). Runtime expressions and
/// scalar functions share it.
pub(crate) fn binary_op(op: &BinOp) -> Option<ast::BinOp> {
    use ast::BinOp as B;
    Some(match op {
        BinOp::Add(_) => B::Add,
        BinOp::Sub(_) => B::Sub,
        BinOp::Mul(_) => B::Mul,
        BinOp::Div(_) => B::Div,
        BinOp::Rem(_) => B::Rem,
        BinOp::Shl(_) => B::Shl,
        BinOp::Shr(_) => B::Shr,
        BinOp::BitAnd(_) => B::BitAnd,
        BinOp::BitOr(_) => B::BitOr,
        BinOp::BitXor(_) => B::BitXor,
        BinOp::Lt(_) => B::Lt,
        BinOp::Le(_) => B::Le,
        BinOp::Gt(_) => B::Gt,
        BinOp::Ge(_) => B::Ge,
        BinOp::Eq(_) => B::Eq,
        BinOp::Ne(_) => B::Ne,
        BinOp::And(_) => B::And,
        BinOp::Or(_) => B::Or,
        _ => return None,
    })
}

/// The tile language's operator for a Rust unary operator (`None` for `*`).
pub(crate) fn unary_op(op: &UnOp) -> Option<ast::UnOp> {
    match op {
        UnOp::Neg(_) => Some(ast::UnOp::Neg),
        UnOp::Not(_) => Some(ast::UnOp::Not),
        _ => None,
    }
}

/// Whether a type is `Mbarrier`, the element type of a buffer of mbarrier objects.
fn is_mbarrier_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Mbarrier"))
}

/// Whether an initialiser is `alloc_local::<..>(..)` or `alloc_shared::<..>(..)`.
fn is_alloc_call(expr: &Expr) -> bool {
    let Expr::Call(call) = expr else {
        return false;
    };
    matches!(&*call.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "alloc_local" || s.ident == "alloc_shared"))
}

/// Checks the constant parts of a symbolic dim expression for overflow and
/// division by zero (symbols evaluate as 1 here only to find those).
fn const_eval_symbolic(expr: &Expr) -> Parsed<()> {
    match expr {
        Expr::Path(path) if path.path.get_ident().is_some() => Ok(()),
        Expr::Paren(paren) => const_eval_symbolic(&paren.expr),
        Expr::Group(group) => const_eval_symbolic(&group.expr),
        Expr::Block(block) if block.block.stmts.len() == 1 => match &block.block.stmts[0] {
            Stmt::Expr(inner, None) => const_eval_symbolic(inner),
            other => Err(err(
                Code::NOT_CONSTANT,
                other,
                "expected an integer constant expression",
            )),
        },
        Expr::Binary(binary) => {
            const_eval_symbolic(&binary.left)?;
            const_eval_symbolic(&binary.right)?;
            if matches!(binary.op, BinOp::Div(_) | BinOp::Rem(_))
                && const_eval(&binary.right).ok() == Some(0)
            {
                return Err(err(
                    Code::DIVISION_BY_ZERO,
                    expr,
                    "division by zero in constant expression",
                ));
            }
            Ok(())
        }
        Expr::Unary(unary) => const_eval_symbolic(&unary.expr),
        other => const_eval(other).map(|_| ()),
    }
}

pub(crate) trait Unraw {
    fn unraw(&self) -> String;
}

impl Unraw for syn::Ident {
    /// `r#type` -> `type`.
    fn unraw(&self) -> String {
        let text = self.to_string();
        text.strip_prefix("r#").map(str::to_string).unwrap_or(text)
    }
}

/// The elements of an array of constant integers (a view's shape or axis
/// order), each evaluated and range-checked where it is written.
fn const_ints(array: &syn::ExprArray) -> Parsed<Vec<i64>> {
    array
        .elems
        .iter()
        .map(|e| const_eval(e).and_then(|v| to_i64(v, e)))
        .collect()
}

fn to_i64(value: i128, node: &impl ToTokens) -> Parsed<i64> {
    i64::try_from(value).map_err(|_| {
        err(
            Code::CONSTANT_OVERFLOW,
            node,
            format!(
                "`{value}` does not fit in `i64` ({}..={}), the type of constant expressions",
                i64::MIN,
                i64::MAX
            ),
        )
    })
}

/// A dtype named by a Rust type (`f32`, `half::f16`, `tile_kernel::bf16`).
pub(crate) fn dtype_of(ty: &Type) -> Parsed<DType> {
    // A `$t:ty` fragment of `macro_rules!` arrives as an invisible group.
    if let Type::Group(group) = ty {
        return dtype_of(&group.elem);
    }
    let name = match ty {
        Type::Path(path) if path.qself.is_none() => {
            path.path.segments.last().map(|s| s.ident.to_string())
        }
        _ => None,
    };
    name.as_deref().and_then(DType::from_rust_name).ok_or_else(|| {
        err(
            Code::UNKNOWN_DTYPE,
            ty,
            format!(
                "unsupported element type `{}`: expected one of f16, bf16, f32, f64, u8, u16, u32, u64, i8, i16, i32, i64",
                ty.to_token_stream()
            ),
        )
    })
}

/// Evaluates an integer constant expression: literals, `+ - * / %`, unary
/// minus, parentheses and `{ .. }` blocks around one expression.
pub fn const_eval(expr: &Expr) -> Parsed<i128> {
    let overflow = || {
        err(
            Code::CONSTANT_OVERFLOW,
            expr,
            "integer overflow in constant expression",
        )
    };
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse::<i128>().map_err(|_| {
            err(
                Code::LITERAL_OUT_OF_RANGE,
                int,
                "integer literal out of range",
            )
        }),
        Expr::Paren(paren) => const_eval(&paren.expr),
        Expr::Group(group) => const_eval(&group.expr),
        Expr::Block(block) if block.block.stmts.len() == 1 => match &block.block.stmts[0] {
            Stmt::Expr(inner, None) => const_eval(inner),
            other => Err(err(
                Code::NOT_CONSTANT,
                other,
                "expected an integer constant expression",
            )),
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            const_eval(&unary.expr)?.checked_neg().ok_or_else(overflow)
        }
        Expr::Binary(binary) => {
            let left = const_eval(&binary.left)?;
            let right = const_eval(&binary.right)?;
            let result = match binary.op {
                BinOp::Add(_) => left.checked_add(right),
                BinOp::Sub(_) => left.checked_sub(right),
                BinOp::Mul(_) => left.checked_mul(right),
                BinOp::Div(_) | BinOp::Rem(_) if right == 0 => {
                    return Err(err(
                        Code::DIVISION_BY_ZERO,
                        expr,
                        "division by zero in constant expression",
                    ));
                }
                BinOp::Div(_) => left.checked_div(right),
                BinOp::Rem(_) => left.checked_rem(right),
                _ => {
                    return Err(err(
                        Code::NOT_CONSTANT,
                        &binary.op,
                        "only `+ - * / %` are allowed in constant expressions",
                    ));
                }
            };
            result.ok_or_else(overflow)
        }
        Expr::Path(path) if path.path.get_ident().is_some() => Err(err(
            Code::NOT_CONSTANT,
            expr,
            format!(
                "`{}` is not a constant: symbolic values are not supported yet; write an integer",
                path.to_token_stream()
            ),
        )),
        other => Err(err(
            Code::NOT_CONSTANT,
            other,
            "expected an integer constant expression",
        )),
    }
}

/// `f32::NAME` or `f64::NAME`: a path into a float type's constants.
fn float_type_path(path: &syn::ExprPath) -> bool {
    path.qself.is_none()
        && path.path.segments.len() == 2
        && matches!(
            path.path.segments[0].ident.to_string().as_str(),
            "f32" | "f64"
        )
        && path.path.segments.iter().all(|s| s.arguments.is_none())
}
