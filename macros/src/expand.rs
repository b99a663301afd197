//! Expansion: the PTX const, the kernel's runtime spec and the safe launcher.
//!
//! On errors the same public surface is emitted (with an empty PTX string) next
//! to the `compile_error!`s, so code that calls the launcher sees no cascade of
//! follow-up errors (thiserror's fallback idea).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use tile_kernel_lowering::ast::{self, LaunchDims, Param, ParamType};
use tile_kernel_lowering::diag::Code;
use tile_kernel_lowering::program::{
    DimSpec, LaunchFormula, LaunchOp, ParamKind as ProgramParamKind, Program, formula_text,
};
use tile_kernel_lowering::{DType, Target};

use crate::attr;
use crate::parse::KernelParser;
use crate::spans::{self, SpanTable};

/// Entry point of `#[tile_kernel]`.
pub fn tile_kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item) {
        Ok(item) => item,
        Err(e) => return spans::coded(Code::NOT_A_FUNCTION, e).to_compile_error(),
    };
    let mut errors: Vec<syn::Error> = Vec::new();
    let args = match attr::parse(args) {
        Ok(args) => Some(args),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    let target = match args.as_ref().and_then(|a| a.arch.as_ref()) {
        None => Target::SM_90,
        Some(arch) => Target::parse(&arch.value()).unwrap_or_else(|| {
            errors.push(spans::error(
                Code::UNKNOWN_TARGET,
                arch,
                format!(
                    "unknown target `{}`; known targets: {}",
                    arch.value(),
                    Target::known_names().join(", ")
                ),
            ));
            Target::SM_90
        }),
    };
    let mut spans = SpanTable::default();
    let mut parser = KernelParser {
        spans: &mut spans,
        errors: Vec::new(),
    };
    let launch = match args.as_ref() {
        Some(a) => {
            let mut grid =
                [1, 1, 1].map(|g| ast::Expr::Int(g, tile_kernel_lowering::SpanId::default()));
            if let Some(exprs) = &a.grid {
                for (slot, expr) in grid.iter_mut().zip(&exprs.0) {
                    *slot = parser.expr(expr);
                }
            }
            let span = match &a.grid {
                Some(exprs) => parser.spans.id(&exprs.0[0]),
                None => parser.spans.id(&item.sig.ident),
            };
            LaunchDims {
                grid,
                block: a.block.map_or([1, 1, 1], |b| b.0),
                span,
            }
        }
        None => LaunchDims::default(),
    };

    let signature = parser.signature(&item);
    let body = parser.body(&item.block);
    let parse_errors = std::mem::take(&mut parser.errors);
    let name_span = spans.id(&item.sig.ident);
    errors.extend(parse_errors);

    let kernel = ast::Kernel {
        name: kernel_name(&item.sig.ident),
        name_span,
        launch,
        target,
        params: signature.params,
        body,
    };
    // Semantic checks run even after syntax errors, so every independent
    // mistake shows up in one compile.
    let compilation = tile_kernel_lowering::compile(&kernel);
    for diagnostic in &compilation.diagnostics {
        errors.push(spans.error(diagnostic.span, diagnostic.rendered()));
    }
    let ptx = compilation.ptx.filter(|_| errors.is_empty());
    let program = compilation.program.as_ref().filter(|_| ptx.is_some());
    // The path to tile_kernel at the call site, and as seen from inside the
    // generated `mod NAME` (a relative path needs one more `super::`).
    let (krate, inner) = match args.as_ref().and_then(|a| a.krate.as_ref()) {
        None => (quote!(::tile_kernel), quote!(::tile_kernel)),
        Some(path) => match path.parse::<syn::Path>() {
            Ok(path) => {
                let absolute = path.leading_colon.is_some()
                    || path.segments.first().is_some_and(|s| s.ident == "crate");
                let inner = if absolute {
                    quote!(#path)
                } else {
                    quote!(super::#path)
                };
                (quote!(#path), inner)
            }
            Err(_) => {
                let error = spans::error(
                    Code::CRATE_PATH,
                    path,
                    "`crate` takes a path to the tile_kernel crate, like `crate = \"my_engine::tile_kernel\"`",
                );
                let error = error.to_compile_error();
                return quote!(#error);
            }
        },
    };
    let surface = public_surface(
        &krate,
        &inner,
        &item,
        &kernel,
        &compilation.param_writes,
        ptx.as_deref(),
        program,
    );
    let compile_errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        #(#compile_errors)*
        #surface
    }
}

/// `tokens` with every span set to `span` (paths interpolated into
/// `quote_spanned!` keep their own spans otherwise).
fn respan(tokens: &TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(&group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

/// A parameter name as a Rust identifier; keywords (from `r#type`) stay raw.
fn rust_ident(name: &str) -> syn::Ident {
    match syn::parse_str::<syn::Ident>(name) {
        Ok(ident) => ident,
        Err(_) => syn::Ident::new_raw(name, proc_macro2::Span::call_site()),
    }
}

/// The PTX entry name: the fn name without a raw-identifier prefix.
fn kernel_name(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_string).unwrap_or(text)
}

/// The Rust type of one element, as an absolute path.
fn element_type(krate: &TokenStream, dtype: DType) -> TokenStream {
    match dtype {
        DType::F16 => quote!(#krate::f16),
        DType::Bf16 => quote!(#krate::bf16),
        // Absolute, so a user type named like a primitive (`struct f32;`)
        // cannot capture it.
        other => {
            let ident = format_ident!("{}", other.rust_name());
            quote!(::core::primitive::#ident)
        }
    }
}

fn dtype_path(krate: &TokenStream, dtype: DType) -> TokenStream {
    let variant = format_ident!("{}", format!("{dtype:?}"));
    quote!(#krate::__private::DType::#variant)
}

/// A launch formula as spec tokens.
fn launch_expr(krate: &TokenStream, formula: &LaunchFormula) -> TokenStream {
    let ops = formula.0.iter().map(|op| match op {
        LaunchOp::Const(v) => quote!(#krate::__private::LaunchOp::Const(#v)),
        LaunchOp::Symbol(s) => quote!(#krate::__private::LaunchOp::Symbol(#s)),
        LaunchOp::Add => quote!(#krate::__private::LaunchOp::Add),
        LaunchOp::Sub => quote!(#krate::__private::LaunchOp::Sub),
        LaunchOp::Mul => quote!(#krate::__private::LaunchOp::Mul),
        LaunchOp::Div => quote!(#krate::__private::LaunchOp::Div),
        LaunchOp::CeilDiv => quote!(#krate::__private::LaunchOp::CeilDiv),
        LaunchOp::Min => quote!(#krate::__private::LaunchOp::Min),
        LaunchOp::Max => quote!(#krate::__private::LaunchOp::Max),
    });
    quote!(#krate::__private::LaunchExpr(&[#(#ops),*]))
}

fn dim_spec(krate: &TokenStream, dim: &DimSpec) -> TokenStream {
    match *dim {
        DimSpec::Const(v) => quote!(#krate::__private::DimSpec::Const(#v)),
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } => quote!(#krate::__private::DimSpec::Symbolic {
            symbol: #symbol,
            mul: #mul,
            div: #div,
            add: #add,
        }),
    }
}

/// The module `NAME` (PTX, spec) and the launcher fn `NAME`.
fn public_surface(
    krate: &TokenStream,
    inner: &TokenStream,
    item: &syn::ItemFn,
    kernel: &ast::Kernel,
    writes: &[bool],
    ptx: Option<&str>,
    program: Option<&Program>,
) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let entry = kernel_name(name);
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let [bx, by, bz] = kernel.launch.block;
    let arch = kernel.target.to_string();
    let (target_sm, target_specific) = (kernel.target.sm, kernel.target.arch_specific);
    let symbol_names: Vec<String> = program
        .map(|p| p.symbols.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let grid_formulas: Vec<LaunchFormula> = match program {
        Some(p) => p.launch.grid.to_vec(),
        None => vec![LaunchFormula::constant(1); 3],
    };
    let grid_tokens = grid_formulas.iter().map(|f| launch_expr(inner, f));
    let grid_text: Vec<String> = grid_formulas
        .iter()
        .map(|f| {
            formula_text(&f.0, |s| {
                symbol_names
                    .get(usize::from(s))
                    .cloned()
                    .unwrap_or_default()
            })
        })
        .collect();
    let symbol_specs = program.map(|p| p.symbols.clone()).unwrap_or_default();
    let symbol_tokens = symbol_specs.iter().map(|s| {
        let (sname, divisor, multiple_of) = (&s.name, s.divisor, s.multiple_of);
        quote! {
            #inner::__private::SymbolSpec {
                name: #sname,
                divisor: #divisor,
                multiple_of: #multiple_of,
            }
        }
    });

    let mut specs = Vec::new();
    let mut inputs = Vec::new();
    let mut pushes = Vec::new();
    // Mixed-site hygiene: cannot clash with a parameter named `launch`.
    let launch = syn::Ident::new("launch", proc_macro2::Span::mixed_site());
    for (
        index,
        Param {
            name: pname, ty, ..
        },
    ) in kernel.params.iter().enumerate()
    {
        // The launcher's parameters carry the spans of the kernel's, so a
        // wrong argument is explained at the parameter the user wrote.
        let declared = item.sig.inputs.iter().nth(index);
        let span = declared.map_or_else(proc_macro2::Span::call_site, Spanned::span);
        let mut ident = rust_ident(pname);
        ident.set_span(span);
        let written = writes.get(index).copied().unwrap_or(false);
        match ty {
            ParamType::Tensor { dtype, .. } => {
                let elem = element_type(krate, *dtype);
                let dtype = dtype_path(inner, *dtype);
                let dims: Vec<TokenStream> = match program.map(|p| &p.params[index].kind) {
                    Some(ProgramParamKind::Tensor { dims, .. }) => {
                        dims.iter().map(|d| dim_spec(inner, d)).collect()
                    }
                    _ => Vec::new(),
                };
                let access = if written { quote!(Write) } else { quote!(Read) };
                specs.push(quote! {
                    #inner::__private::ParamSpec {
                        name: #pname,
                        kind: #inner::__private::ParamKind::Tensor {
                            dtype: #dtype,
                            shape: &[#(#dims),*],
                            access: #inner::__private::Access::#access,
                        },
                    }
                });
                if written {
                    // The bound carries the parameter's span, so a wrong
                    // argument's "required by this bound" points at it.
                    let krate = respan(krate, span);
                    inputs.push(quote_spanned!(span=>
                        #ident: &mut (impl #krate::TensorArgMut<#elem> + ?::core::marker::Sized)
                    ));
                    pushes.push(quote!(#launch.push_tensor_mut(#ident)?;));
                } else {
                    let krate = respan(krate, span);
                    inputs.push(quote_spanned!(span=>
                        #ident: &(impl #krate::TensorArg<#elem> + ?::core::marker::Sized)
                    ));
                    pushes.push(quote!(#launch.push_tensor(#ident)?;));
                }
            }
            ParamType::Unparsed => {
                // The type was reported as an error: accept anything so
                // callers get no follow-up type errors.
                inputs.push(quote_spanned!(span=> #ident: impl ::core::marker::Sized));
            }
            ParamType::Scalar(dtype) => {
                let elem = if *dtype == DType::Bool {
                    quote!(::core::primitive::bool)
                } else {
                    element_type(krate, *dtype)
                };
                let dtype = dtype_path(inner, *dtype);
                specs.push(quote! {
                    #inner::__private::ParamSpec {
                        name: #pname,
                        kind: #inner::__private::ParamKind::Scalar { dtype: #dtype },
                    }
                });
                inputs.push(quote_spanned!(span=> #ident: #elem));
                pushes.push(quote!(#launch.push_scalar(&#ident)?;));
            }
        }
    }
    // Without PTX (the kernel has errors) the launcher keeps its signature
    // but never runs: `compile_error!` already stops the build.
    let body = match ptx {
        Some(_) => quote! {
            let mut #launch = #name::KERNEL.launch(device)?;
            #(#pushes)*
            #launch.run()
        },
        None => {
            let idents = kernel.params.iter().map(|p| rust_ident(&p.name));
            quote! {
                let _ = (device, #(#idents),*);
                ::core::unreachable!("this tile kernel failed to compile")
            }
        }
    };
    let ptx = ptx.unwrap_or_default();
    let requirements: Vec<String> = symbol_specs
        .iter()
        .flat_map(|s| {
            let mut lines = Vec::new();
            if s.divisor > 1 {
                lines.push(format!(
                    "`{} % {} == 0` (a dim divides it)",
                    s.name, s.divisor
                ));
            }
            if s.multiple_of > 1 {
                lines.push(format!(
                    "`{} % {} == 0` (the kernel's vector accesses are aligned only then)",
                    s.name, s.multiple_of
                ));
            }
            lines
        })
        .collect();
    let requirement_doc = if requirements.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nLaunch-time requirements (an `Err` otherwise): {}.",
            requirements.join(", ")
        )
    };
    let launch_doc = format!(
        "Launches the `{entry}` tile kernel on `device`'s stream (grid [{}], block [{bx}, {by}, {bz}], {arch}).\n\n\
         Checks every tensor's dtype, shape and device first, binds the size symbols from the shapes \
         (every parameter must agree), and launches nothing for empty work. Loads the module once per CUDA context. \
         The PTX text is [`{entry}::PTX`](mod@{entry}).{requirement_doc}",
        grid_text.join(", ")
    );
    let module_doc = format!("PTX text and runtime description of the `{entry}` tile kernel.");
    quote! {
        #[doc = #module_doc]
        #[allow(dead_code)]
        #vis mod #name {
            /// The PTX module text, generated at compile time.
            pub const PTX: &str = #ptx;
            /// The PTX entry name.
            pub const ENTRY: &str = #entry;
            /// The launch description: parameters (dtypes, dims and size
            /// symbols, access), launch-size formulas, target. With the
            /// `runtime` feature off, this is what an engine launches from.
            pub const SPEC: #inner::__private::KernelSpec = #inner::__private::KernelSpec {
                name: ENTRY,
                ptx: PTX,
                target: #inner::__private::Target {
                    sm: #target_sm,
                    arch_specific: #target_specific,
                },
                grid: [#(#grid_tokens),*],
                block: [#bx, #by, #bz],
                shared_mem_bytes: 0,
                params: &[#(#specs),*],
                symbols: &[#(#symbol_tokens),*],
            };
            #inner::__with_runtime! {
                /// The compiled kernel: spec plus per-context module cache.
                // SAFETY: the #[tile_kernel] compiler produced SPEC and PTX
                // from one kernel definition: the entry's parameters are
                // exactly `params` (in order) followed by one `.u64` per
                // symbol, and the compiler proved every memory access in
                // bounds, aligned and race-free for every launch whose
                // arguments pass the spec's launch-time checks.
                pub static KERNEL: #inner::__private::Kernel =
                    unsafe { #inner::__private::Kernel::new(SPEC) };
            }
        }

        #krate::__with_runtime! {
            #(#docs)*
            #[doc = #launch_doc]
            #[allow(dead_code, clippy::too_many_arguments)]
            #vis fn #name(device: &#krate::Device, #(#inputs),*) -> ::core::result::Result<(), #krate::Error> {
                #body
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The macro must never panic: every input yields tokens (items and/or
    //! `compile_error!`s). These run the expansion outside of rustc, on the
    //! seed kernel with each token deleted or duplicated in turn, and on
    //! hand-picked odd inputs.

    use proc_macro2::{TokenStream, TokenTree};
    use quote::quote;

    use super::tile_kernel;

    const SEED: &str = r#"
        fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>, p: bool, s: f32) {
            let r = alloc_local::<f32>([4, 2]);
            let d = alloc_local::<u32>([4, 1]);
            apply(ptx["ld.global.v2.f32"], r, a);
            apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2;1]), r[..].slice(s![.., 0..1]), pred = !p, preserve_dst = false);
            apply(ptx["add.f32"], r.reshape([8]).unsqueeze(-1), r.view::<u32>().view::<f32>().reshape([8, 1]), s);
            apply(ptx["st.global.b32"], out, d, scope = "thread", pred = !p);
        }
    "#;

    /// Flattens a token stream into leaves plus group delimiters, so single
    /// tokens can be removed or repeated at any depth.
    fn leaves(stream: TokenStream, out: &mut Vec<String>) {
        for tree in stream {
            match tree {
                TokenTree::Group(group) => {
                    let (open, close) = match group.delimiter() {
                        proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                        proc_macro2::Delimiter::Brace => ("{", "}"),
                        proc_macro2::Delimiter::Bracket => ("[", "]"),
                        proc_macro2::Delimiter::None => ("", ""),
                    };
                    out.push(open.to_string());
                    leaves(group.stream(), out);
                    out.push(close.to_string());
                }
                other => out.push(other.to_string()),
            }
        }
    }

    fn expand_text(args: TokenStream, text: &str) -> String {
        match text.parse::<TokenStream>() {
            Ok(item) => tile_kernel(args, item).to_string(),
            Err(_) => String::new(), // unbalanced delimiters never reach a macro
        }
    }

    #[test]
    fn the_seed_expands_without_errors() {
        let out = expand_text(quote!(grid = 1, block = 1), SEED);
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("cvt.rn.f16x2.f32"), "{out}");
    }

    #[test]
    fn deleting_or_repeating_any_token_never_panics() {
        let mut tokens = Vec::new();
        leaves(SEED.parse().expect("seed parses"), &mut tokens);
        let args = quote!(grid = 1, block = 1);
        for i in 0..tokens.len() {
            let mut deleted = tokens.clone();
            deleted.remove(i);
            let _ = expand_text(args.clone(), &deleted.join(" "));
            let mut repeated = tokens.clone();
            repeated.insert(i, tokens[i].clone());
            let _ = expand_text(args.clone(), &repeated.join(" "));
        }
    }

    #[test]
    fn odd_inputs_give_errors_not_panics() {
        let cases: &[(&str, &str)] = &[
            ("", "fn k() {}"),
            ("grid = 1", "fn k() {}"),
            ("grid = [1, 2, 3, 4], block = 0", "fn k() {}"),
            ("grid = 99999999999, block = 1", "fn k() {}"),
            ("grid = 1, block = 1, arch = 90", "fn k() {}"),
            ("grid = 1, block = 1", "struct S;"),
            ("grid = 1, block = 1", "fn k<T>(a: T) -> u32 { 0 }"),
            ("grid = 1, block = 1", "fn k(self) {}"),
            ("grid = 1, block = 1", "fn k((a, b): (u32, u32)) {}"),
            ("grid = 1, block = 1", "fn k(a: Tensor<f32>) {}"),
            ("grid = 1, block = 1", "fn k(a: Tensor<f32, {1 / 0}>) {}"),
            ("grid = 1, block = 1", "fn k(a: Tensor<f32, {-3}>) {}"),
            (
                "grid = 1, block = 1",
                "fn k(a: Tensor<f32, 340282366920938463463374607431768211455>) {}",
            ),
            (
                "grid = 1, block = 1",
                "fn k(r#type: u32, device: u32) { apply(ptx[\"\"], r#type); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local::<f32>([0]); apply(ptx[\"mov.b32\"], t, t); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local::<f32>([99999999999999999999]); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { apply(ptx[\"...\"]); apply(ptx[1]); apply(); apply(ptx[\"x\"], pred = 1 + 2); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local::<f32>([4]); apply(ptx[\"mov.f32\"], t.slice(s![i64::MAX..;-1]), t[-9]); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local::<u8>([4]); apply(ptx[\"mov.b32\"], t.view::<u64>(), t.reshape([-1, -1])); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { async {}; loop {}; while true {}; if x {} else {} }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local::<f32>([1]); apply(ptx[\"add.f32\"], t, 1e400, -0.0); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local::<f32>([1]); apply(ptx[\"add.f32\"], t, 1e39, -0.0); }",
            ),
        ];
        for (args, item) in cases {
            let args: TokenStream = args.parse().expect("args parse");
            let out = expand_text(args, item);
            assert!(
                out.contains("compile_error"),
                "expected an error for `{item}`, got:\n{out}"
            );
        }
    }
}
