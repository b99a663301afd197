//! Functions shared between kernels: `#[tile_kernel::function]`.
//!
//! A proc macro sees only the item it is attached to, so a kernel cannot
//! read a function defined elsewhere. The attribute turns the function into
//! a `macro_rules!` of the same name that holds its tokens; a kernel that
//! calls a function it does not define (`warp_sum(s, t);`, `ewise(silu, ..)`)
//! expands to a call of that macro, handing it the kernel's own tokens, and
//! the macro re-emits the kernel with the function's definition first in its
//! body:
//!
//! ```text
//! #[tile_kernel(..)] fn k(..) { warp_sum(s, t); }
//!   -> warp_sum! { @tile_kernel (::tile_kernel) (..) (fn k(..)) { warp_sum(s, t); } }
//!   -> #[::tile_kernel::tile_kernel(..)] fn k(..) { fn warp_sum(..) { .. } warp_sum(s, t); }
//! ```
//!
//! One round trip per missing function; the definition's tokens keep their
//! spans, so errors inside it point at the function's source.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use tile_kernel_lowering::SpanId;
use tile_kernel_lowering::ast::{self, scalar};
use tile_kernel_lowering::diag::Code;

use crate::spans::{self, SpanTable};

/// The first function `kernel` uses but does not define, with the span of
/// its first use.
pub fn first_missing(kernel: &ast::Kernel) -> Option<(String, SpanId)> {
    let mut defined = HashSet::new();
    let mut used = Vec::new();
    walk(&kernel.body, &mut defined, &mut used);
    used.into_iter().find(|(name, _)| !defined.contains(name))
}

fn walk(body: &[ast::Stmt], defined: &mut HashSet<String>, used: &mut Vec<(String, SpanId)>) {
    for stmt in body {
        match stmt {
            ast::Stmt::KernelFunction(def) => {
                defined.insert(def.name.clone());
                walk(&def.body, defined, used);
            }
            ast::Stmt::Function(def) => {
                defined.insert(def.name.clone());
                scalar_calls(&def.function, used);
            }
            ast::Stmt::Call(call) => used.push((call.name.clone(), call.name_span)),
            ast::Stmt::Ewise(ewise) => match &ewise.function {
                ast::EwiseFunction::Named(name, span) => used.push((name.clone(), *span)),
                ast::EwiseFunction::Inline(function) => scalar_calls(function, used),
            },
            ast::Stmt::For(for_loop) => walk(&for_loop.body, defined, used),
            ast::Stmt::If(branch) => {
                walk(&branch.then, defined, used);
                walk(&branch.otherwise, defined, used);
            }
            // A `let` binds a name that may shadow a function's.
            ast::Stmt::Let(binding) => {
                defined.insert(binding.name.clone());
            }
            ast::Stmt::AllocLocal(alloc) => {
                defined.insert(alloc.name.clone());
            }
            ast::Stmt::Invalid(invalid) => defined.extend(invalid.binds.iter().cloned()),
            ast::Stmt::Apply(_) => {}
        }
    }
}

/// Calls of functions that are not built in, inside a scalar function.
fn scalar_calls(function: &scalar::Function, used: &mut Vec<(String, SpanId)>) {
    let mut stack: Vec<&scalar::Expr> = Vec::new();
    stack.extend(function.body.exprs());
    while let Some(expr) = stack.pop() {
        match expr {
            scalar::Expr::Call {
                func,
                func_span,
                args,
                ..
            } => {
                if !tile_kernel_lowering::sema::is_builtin_scalar_function(func) {
                    used.push((func.clone(), *func_span));
                }
                stack.extend(args);
            }
            scalar::Expr::Ptx { args, .. } => stack.extend(args),
            scalar::Expr::Binary { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            scalar::Expr::Unary { expr, .. } | scalar::Expr::Cast { expr, .. } => stack.push(expr),
            scalar::Expr::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                stack.push(cond);
                stack.extend(then.exprs());
                stack.extend(otherwise.exprs());
            }
            scalar::Expr::Block(block) => stack.extend(block.exprs()),
            _ => {}
        }
    }
}

/// The kernel handed to the macro of the function `name` it lacks, which
/// re-emits it with the definition (module docs).
pub fn callback(
    name: &str,
    span: proc_macro2::Span,
    krate: &TokenStream,
    args: &TokenStream,
    item: &TokenStream,
) -> TokenStream {
    let mut head: Vec<TokenTree> = item.clone().into_iter().collect();
    let body = head.pop();
    // Names come from identifiers: a keyword (`r#type`) needs its raw form.
    let name = name.strip_prefix("r#").unwrap_or(name);
    let name = if syn::parse_str::<syn::Ident>(name).is_ok() {
        proc_macro2::Ident::new(name, span)
    } else if matches!(name, "self" | "Self" | "super" | "crate" | "_") {
        return spans::error(
            Code::UNKNOWN_FUNCTION,
            &proc_macro2::Ident::new("function", span),
            format!("`{name}` cannot name a function"),
        )
        .to_compile_error();
    } else {
        proc_macro2::Ident::new_raw(name, span)
    };
    quote! {
        #name! { @tile_kernel (#krate) (#args) (#(#head)*) #body }
    }
}

/// `#[tile_kernel::function]`: the function as a `macro_rules!` of its name
/// (module docs), plus a `pub(crate) use` of it for a `pub` function so
/// other modules can import it.
pub fn function(args: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(first) = args.clone().into_iter().next() {
        return spans::error(
            Code::MALFORMED_KERNEL_FUNCTION,
            &first,
            "`#[tile_kernel::function]` takes no arguments",
        )
        .to_compile_error();
    }
    let parsed = match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(parsed) => parsed,
        Err(error) => {
            return spans::coded(Code::MALFORMED_KERNEL_FUNCTION, error).to_compile_error();
        }
    };
    // The syntax is checked here, where the function is written; its
    // meaning at each kernel that inlines it.
    let mut table = SpanTable::default();
    let mut parser = crate::parse::KernelParser {
        spans: &mut table,
        errors: Vec::new(),
        deferred: Vec::new(),
        incomplete: false,
    };
    let inner = syn::Stmt::Item(syn::Item::Fn(parsed.clone()));
    let errors = match parser.stmt(&inner) {
        Ok(_) => parser.errors,
        Err(error) => {
            let mut errors = parser.errors;
            errors.push(error);
            errors
        }
    };
    if !errors.is_empty() {
        let errors = errors.iter().map(syn::Error::to_compile_error);
        return quote!(#(#errors)*);
    }
    let name = &parsed.sig.ident;
    let export = match parsed.vis {
        syn::Visibility::Inherited => quote!(),
        _ => quote! {
            #[allow(unused_imports)]
            pub(crate) use #name;
        },
    };
    let mut bare = parsed.clone();
    bare.vis = syn::Visibility::Inherited;
    quote! {
        #[allow(unused_macros)]
        macro_rules! #name {
            (@tile_kernel ($($krate:tt)*) ($($args:tt)*) ($($head:tt)*) { $($body:tt)* }) => {
                #[$($krate)*::tile_kernel($($args)*)]
                $($head)* {
                    #bare
                    $($body)*
                }
            };
        }
        #export
    }
}
