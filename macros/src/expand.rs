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
    DimSpec, LaunchFormula, LaunchOp, ParamKind, Program, Symbol, formula_text,
};
use tile_kernel_lowering::{DType, Target};

use crate::attr;
use crate::parse::KernelParser;
use crate::spans::{self, SpanTable};

/// The kernel as the macro read it: its item (with an empty block), the
/// attribute's arguments, the lowering's syntax tree and the errors so far.
pub struct ReadKernel {
    pub item: syn::ItemFn,
    pub args: Option<attr::KernelArgs>,
    pub kernel: ast::Kernel,
    pub spans: SpanTable,
    pub errors: Vec<syn::Error>,
    /// Placeholders of an editor stood for tokens the macro never saw.
    pub incomplete: bool,
}

/// Entry point of `#[tile_kernel]`: every error it emits ends with where its
/// code is explained.
pub fn tile_kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    spans::point_to_catalogue(expand(args, item))
}

/// The expansion: the generated items and the `compile_error!`s.
fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let (original_args, original_item) = (args.clone(), item.clone());
    let ReadKernel {
        item,
        args,
        kernel,
        spans,
        mut errors,
        incomplete,
    } = match read_kernel(args, item) {
        Ok(read) => read,
        Err(tokens) => return tokens,
    };
    // A function the kernel uses but does not define: ask its macro
    // (`#[tile_kernel::function]`) for the definition first.
    if let Some((name, span)) = crate::functions::first_missing(&kernel) {
        let krate = match args.as_ref().and_then(|a| a.krate.as_ref()) {
            Some(path) => match path.parse::<syn::Path>() {
                Ok(path) => quote!(#path),
                Err(_) => quote!(::tile_kernel),
            },
            None => quote!(::tile_kernel),
        };
        return crate::functions::callback(
            &name,
            spans.first_span(span),
            &krate,
            &original_args,
            &original_item,
        );
    }
    // Semantic checks run even after syntax errors, so every independent
    // mistake shows up in one compile.
    let (compilation, program_bytes) = tile_kernel_lowering::compile_embedded(&kernel);
    // Lints (a dead tile) are findings about an otherwise legal kernel: an
    // attribute, signature or syntax error of the macro's own may be what
    // they miss, so they are dropped after one.
    let macro_errors = !errors.is_empty() || incomplete;
    // Without a readable `block` (reported) the checker assumed one
    // thread, so whether a scope fits the block is unknown: no follow-up.
    let block_unknown = args.as_ref().is_none_or(|a| a.block.is_none());
    for diagnostic in &compilation.diagnostics {
        if macro_errors && diagnostic.code.is_lint() {
            continue;
        }
        if block_unknown && diagnostic.code == Code::PARTIAL_SCOPE {
            continue;
        }
        errors.push(spans.error(diagnostic.span, diagnostic.rendered()));
    }
    let ptx = compilation.ptx.filter(|_| errors.is_empty() && !incomplete);
    let program = compilation.program.as_ref().filter(|_| ptx.is_some());
    let program_bytes = program_bytes
        .as_deref()
        .filter(|_| program.is_some())
        .unwrap_or_default();
    let twin = scalar_twin(args.as_ref(), &kernel, program, &spans, &mut errors);
    let ptx = ptx.filter(|_| errors.is_empty());
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
        Outputs {
            ptx: ptx.as_deref(),
            program,
            program_bytes,
            twin: twin
                .as_ref()
                .map(|(ptx, program, bytes)| (ptx.as_str(), program, bytes.as_slice())),
        },
    );
    let compile_errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        #(#compile_errors)*
        #surface
    }
}

/// What the compilation produced, for the generated items: the PTX, the
/// program and its bytes (none, and no bytes, after an error) and the
/// scalar twin's (`fallback`).
struct Outputs<'a> {
    ptx: Option<&'a str>,
    program: Option<&'a Program>,
    program_bytes: &'a [u8],
    twin: Option<(&'a str, &'a Program, &'a [u8])>,
}

/// With `fallback = "scalar"` and a kernel whose vector accesses need a
/// launch-time alignment requirement: its scalar twin's PTX, program and
/// program bytes (`tile_kernel_lowering::variants`). Errors go to
/// `errors`: a `fallback` other than `"scalar"`, or a twin that does not
/// compile (its messages point at the same tokens, with a note).
fn scalar_twin(
    args: Option<&attr::KernelArgs>,
    kernel: &ast::Kernel,
    program: Option<&Program>,
    spans: &SpanTable,
    errors: &mut Vec<syn::Error>,
) -> Option<(String, Program, Vec<u8>)> {
    let fallback = args?.fallback.as_ref()?;
    if fallback.value() != "scalar" {
        errors.push(spans::error(
            Code::ATTRIBUTE_VALUE_KIND,
            fallback,
            format!(
                "`fallback` takes \"scalar\" (a twin with scalar accesses), not \"{}\"",
                fallback.value()
            ),
        ));
        return None;
    }
    // No requirement to fall back from: the kernel runs for every size.
    if !program?.symbols.iter().any(|s| s.multiple_of > 1) {
        return None;
    }
    let twin = tile_kernel_lowering::variants::scalar_twin(kernel);
    let (compilation, bytes) = tile_kernel_lowering::compile_embedded(&twin);
    for diagnostic in &compilation.diagnostics {
        let mut diagnostic = diagnostic.clone();
        diagnostic
            .notes
            .push("in the kernel's scalar twin (`fallback = \"scalar\"`): its vector accesses split into scalar ones".to_string());
        errors.push(spans.error(diagnostic.span, diagnostic.rendered()));
    }
    Some((compilation.ptx?, compilation.program?, bytes?))
}

/// Reads the attribute and the fn into the lowering's syntax tree. Only
/// the fn's head must parse: the body is parsed statement by statement, so
/// a statement being typed leaves the launcher and the others' checks.
/// `Err` holds the only output when there is no fn to speak of.
pub fn read_kernel(args: TokenStream, item: TokenStream) -> Result<ReadKernel, TokenStream> {
    let (item, body_tokens) = crate::parse::kernel_item(item).map_err(|e| e.to_compile_error())?;
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
        deferred: Vec::new(),
        incomplete: false,
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
            let (cluster, cluster_span) = match &a.cluster {
                Some(c) => (c.0, parser.spans.id(&c.1)),
                None => ([1, 1, 1], span),
            };
            LaunchDims {
                grid,
                block: a.block.map_or([1, 1, 1], |b| b.0),
                span,
                cluster,
                cluster_span,
            }
        }
        None => LaunchDims::default(),
    };

    let signature = parser.signature(&item);
    let body = parser.body_group(&body_tokens);
    let parse_errors = std::mem::take(&mut parser.errors);
    let incomplete = parser.incomplete;
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
    Ok(ReadKernel {
        item,
        args,
        kernel,
        spans,
        errors,
        incomplete,
    })
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

/// A string literal of `text`, raw (`r#"..."#`) unless `text` is empty
/// (`""`, the PTX of a kernel with errors) or has a carriage return: the
/// same value as [`proc_macro2::Literal::string`] without escaping it
/// character by character (the PTX text, the docs), here or when the
/// compiler reads it back.
fn str_literal(text: &str) -> proc_macro2::Literal {
    if !text.is_empty() && !text.contains('\r') {
        // One `#` more than the longest run of them after a `"` (none
        // without a `"`, the PTX's case).
        let mut hashes = 0;
        if text.contains('"') {
            for after in text.split('"').skip(1) {
                let run = after.len() - after.trim_start_matches('#').len();
                hashes = hashes.max(run + 1);
            }
        }
        let fence = "#".repeat(hashes);
        if let Ok(literal) = format!("r{fence}\"{text}\"{fence}").parse() {
            return literal;
        }
    }
    proc_macro2::Literal::string(text)
}

/// A parameter name as a Rust identifier; keywords (from `r#type`) stay raw.
/// The names are those of identifiers the kernel wrote (unraw) or
/// `__param{index}`, so only a keyword needs the raw form.
fn rust_ident(name: &str) -> syn::Ident {
    let span = proc_macro2::Span::call_site();
    if crate::fast_parse::is_keyword(name) {
        syn::Ident::new_raw(name, span)
    } else {
        syn::Ident::new(name, span)
    }
}

/// The PTX entry name: the fn name without a raw-identifier prefix.
fn kernel_name(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_string).unwrap_or(text)
}

/// The size symbols as the module template reads them:
/// `[("N" divisor multiple_of) ..]`.
fn symbols_tokens(symbols: &[Symbol]) -> TokenStream {
    let symbols = symbols.iter().map(|s| {
        let (name, divisor, multiple_of) = (&s.name, s.divisor, s.multiple_of);
        quote!((#name #divisor #multiple_of))
    });
    quote!([#(#symbols)*])
}

/// The tensor maps as the module template reads them:
/// `[(param [box extents] swizzle) ..]`.
fn maps_tokens(maps: &[tile_kernel_lowering::program::TensorMap]) -> TokenStream {
    let maps = maps.iter().map(|m| {
        let param = m.param;
        let extents = &m.box_dims;
        let swizzle = m.swizzle;
        quote!((#param [#(#extents)*] #swizzle))
    });
    quote!([#(#maps)*])
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

/// The `DType` variant's name.
fn dtype_variant(dtype: DType) -> syn::Ident {
    syn::Ident::new(&format!("{dtype:?}"), proc_macro2::Span::call_site())
}

/// A launch formula as the module template reads it: `[Symbol(0u16)
/// Const(64u64) CeilDiv]`, `LaunchOp` variants in order.
fn formula_tokens(formula: &LaunchFormula) -> TokenStream {
    let ops = formula.0.iter().map(|op| match op {
        LaunchOp::Const(v) => quote!(Const(#v)),
        LaunchOp::Symbol(s) => quote!(Symbol(#s)),
        LaunchOp::Add => quote!(Add),
        LaunchOp::Sub => quote!(Sub),
        LaunchOp::Mul => quote!(Mul),
        LaunchOp::Div => quote!(Div),
        LaunchOp::CeilDiv => quote!(CeilDiv),
        LaunchOp::Min => quote!(Min),
        LaunchOp::Max => quote!(Max),
    });
    quote!([#(#ops)*])
}

/// A tensor dim as the module template reads it: `Const(4u64)` or
/// `Symbolic(symbol mul div add)`.
fn dim_tokens(dim: &DimSpec) -> TokenStream {
    match *dim {
        DimSpec::Const(v) => quote!(Const(#v)),
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } => quote!(Symbolic(#symbol #mul #div #add)),
    }
}

/// The module `NAME` (PTX, spec), written by the facade's
/// `__kernel_module!` template from a compact description, and the
/// launcher fn `NAME`.
fn public_surface(
    krate: &TokenStream,
    inner: &TokenStream,
    item: &syn::ItemFn,
    kernel: &ast::Kernel,
    writes: &[bool],
    outputs: Outputs<'_>,
) -> TokenStream {
    let Outputs {
        ptx,
        program,
        program_bytes,
        twin,
    } = outputs;
    let vis = &item.vis;
    let name = &item.sig.ident;
    let entry = kernel_name(name);
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let [bx, by, bz] = kernel.launch.block;
    let [cx, cy, cz] = kernel.launch.cluster;
    let arch = kernel.target.to_string();
    let (target_sm, target_specific) = (kernel.target.sm, kernel.target.arch_specific);
    let symbol_names: Vec<String> = program
        .map(|p| p.symbols.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let grid_formulas: Vec<LaunchFormula> = match program {
        Some(p) => p.launch.grid.to_vec(),
        None => vec![LaunchFormula::constant(1); 3],
    };
    let grid_tokens = grid_formulas.iter().map(formula_tokens);
    let shared_formula =
        program.map_or_else(|| LaunchFormula::constant(0), Program::dynamic_shared_bytes);
    let shared_tokens = formula_tokens(&shared_formula);
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
    let symbol_tokens = symbols_tokens(&symbol_specs);
    let map_tokens = maps_tokens(&program.map(|p| p.tensor_maps.clone()).unwrap_or_default());

    let mut specs = Vec::new();
    let mut inputs = Vec::new();
    // `push_tensor(a)`: the template's launcher calls each on its launch
    // builder (a local of the template's, which no parameter can shadow).
    let mut pushes = Vec::new();
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
                // `bool` tensors are an error already reported (TK0109); the
                // fallback launcher takes bytes so rustc adds no second one.
                let elem = if *dtype == DType::Bool {
                    element_type(krate, DType::U8)
                } else {
                    element_type(krate, *dtype)
                };
                let variant = dtype_variant(*dtype);
                let dims: Vec<TokenStream> = match program.map(|p| &p.params[index].kind) {
                    Some(ParamKind::Tensor { dims, .. }) => dims.iter().map(dim_tokens).collect(),
                    _ => Vec::new(),
                };
                let borrow = if written {
                    quote!(Exclusive)
                } else {
                    quote!(Shared)
                };
                specs.push(quote!((#pname Tensor #variant [#(#dims)*] #borrow)));
                if written {
                    // The bound carries the parameter's span, so a wrong
                    // argument's "required by this bound" points at it.
                    let krate = respan(krate, span);
                    inputs.push(quote_spanned!(span=>
                        #ident: &mut (impl #krate::TensorArgMut<#elem> + ?::core::marker::Sized)
                    ));
                    pushes.push(quote!(push_tensor_mut(#ident)));
                } else {
                    let krate = respan(krate, span);
                    inputs.push(quote_spanned!(span=>
                        #ident: &(impl #krate::TensorArg<#elem> + ?::core::marker::Sized)
                    ));
                    pushes.push(quote!(push_tensor(#ident)));
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
                let variant = dtype_variant(*dtype);
                specs.push(quote!((#pname Scalar #variant)));
                inputs.push(quote_spanned!(span=> #ident: #elem));
                pushes.push(quote!(push_scalar(&#ident)));
            }
        }
    }
    // Without PTX (the kernel has errors) the launcher keeps its signature
    // but never runs: `compile_error!` already stops the build. With a
    // scalar twin it runs the twin where the vector accesses' alignment
    // fails (`misaligned` launches nothing).
    let body = match (ptx, twin) {
        (Some(_), Some(_)) => quote!(twin device [#(#pushes)*]),
        (Some(_), None) => quote!(run device [#(#pushes)*]),
        (None, _) => {
            let idents = kernel.params.iter().map(|p| rust_ident(&p.name));
            quote!(failed device [#(#idents)*])
        }
    };
    let ptx = str_literal(ptx.unwrap_or_default());
    // The IR for the CPU interpreter, as a byte string (empty without a
    // program: the kernel has errors and never launches).
    let program = proc_macro2::Literal::byte_string(program_bytes);
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
            if s.multiple_of > 1 && twin.is_none() {
                lines.push(format!(
                    "`{} % {} == 0` (the kernel's vector accesses are aligned only then)",
                    s.name, s.multiple_of
                ));
            }
            lines
        })
        .chain((shared_formula.as_const() != Some(0)).then(|| {
            format!(
                "`{}` bytes of dynamic shared memory at most what the device allows a block",
                formula_text(&shared_formula.0, |s| {
                    symbol_names
                        .get(usize::from(s))
                        .cloned()
                        .unwrap_or_default()
                })
            )
        }))
        .collect();
    let requirement_doc = if requirements.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nLaunch-time requirements (an `Err` otherwise): {}.",
            requirements.join(", ")
        )
    };
    let fallback_doc = match twin {
        None => String::new(),
        Some(_) => {
            let aligned: Vec<String> = symbol_specs
                .iter()
                .filter(|s| s.multiple_of > 1)
                .map(|s| format!("`{} % {} == 0`", s.name, s.multiple_of))
                .collect();
            format!(
                "\n\nIts vector accesses are aligned when {}; for other sizes the launcher runs the \
                 kernel's scalar twin `{}` (`{entry}::SCALAR_PTX`), the same statements with every \
                 vector memory access split into scalar ones.",
                aligned.join(" and "),
                tile_kernel_lowering::variants::scalar_twin_name(&entry)
            )
        }
    };
    let launch_doc = format!(
        "Launches the `{entry}` tile kernel on `device`'s stream (grid `[{}]`, block `[{bx}, {by}, {bz}]`, {arch}).\n\n\
         Checks every tensor's dtype, shape and device first, binds the size symbols from the shapes \
         (every parameter must agree), and launches nothing for empty work. Loads the module once per CUDA context. \
         The PTX text is `{entry}::PTX`.{requirement_doc}{fallback_doc}",
        grid_text.join(", ")
    );
    let launch_doc = str_literal(&launch_doc);
    let twin_items = match twin {
        None => quote!(),
        Some((twin_ptx, twin_program, twin_bytes)) => {
            let twin_entry = tile_kernel_lowering::variants::scalar_twin_name(&entry);
            let twin_ptx = str_literal(twin_ptx);
            let twin_bytes = proc_macro2::Literal::byte_string(twin_bytes);
            let twin_grid = twin_program.launch.grid.iter().map(formula_tokens);
            let twin_shared = formula_tokens(&twin_program.dynamic_shared_bytes());
            let twin_symbols = symbols_tokens(&twin_program.symbols);
            let twin_maps = maps_tokens(&twin_program.tensor_maps);
            quote! {
                twin #twin_entry ptx #twin_ptx program #twin_bytes
                grid [#(#twin_grid)*] shared #twin_shared symbols #twin_symbols
                maps #twin_maps
                // SAFETY: as for KERNEL: the #[tile_kernel] compiler
                // produced SCALAR_SPEC and SCALAR_PTX from one kernel
                // definition (the twin of this kernel), with the same
                // parameters, and proved every access in bounds,
                // aligned and race-free for every launch that passes
                // the spec's checks.
                kernel unsafe { #inner::__private::Kernel::new(SCALAR_SPEC) };
            }
        }
    };
    // The module's items, the launcher's return type and body, and their
    // docs are the facade's `__kernel_module!` template (one macro_rules
    // expansion in rustc instead of the ~800 tokens of the items written
    // out here); the launcher's parameters are written here, so they keep
    // the spans of the kernel's.
    quote! {
        #krate::__kernel_module! {
            #vis #name #entry ptx #ptx program #program
            target #target_sm #target_specific
            grid [#(#grid_tokens)*] block [#bx #by #bz] cluster [#cx #cy #cz] shared #shared_tokens
            params [#(#specs)*] symbols #symbol_tokens maps #map_tokens
            #twin_items
            // SAFETY: the #[tile_kernel] compiler produced SPEC and PTX
            // from one kernel definition: the entry's parameters are
            // exactly `params` (in order) followed by one `.u64` per
            // symbol, and the compiler proved every memory access in
            // bounds, aligned and race-free for every launch whose
            // arguments pass the spec's launch-time checks.
            kernel unsafe { #inner::__private::Kernel::new(SPEC) };
            launcher [#(#docs)* #[doc = #launch_doc]]
            (device: &#krate::Device, #(#inputs),*) #body
        }
    }
}

#[cfg(test)]
mod tests {
    //! The macro must never panic or hang: every input yields tokens (items
    //! and/or `compile_error!`s). These run the expansion outside of rustc:
    //!
    //! - on seed kernels with each token deleted or duplicated in turn (a
    //!   multi-character operator such as `..`, `::<`, `..=` or `&&` is one
    //!   token, so mutants stay close to real programs and most of them
    //!   reach the tile-language parser);
    //! - on kernels generated from the surface grammar (every syntax form:
    //!   inclusive ranges, `;step`, `t[i]`, huge, negative, suffixed, hex
    //!   and float literals, non-ASCII and raw identifiers, nested views,
    //!   `let`/`for`/`if`/`else if`, `pred`/`scope`/`preserve_dst`, symbolic
    //!   dims, grid formulas and arrays), `TILE_KERNEL_FUZZ_CASES` of them
    //!   (a small tier by default, like `lowering/tests/no_panic/`);
    //! - on hand-picked odd inputs.

    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::time::{Duration, Instant};

    use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
    use quote::quote;
    use tile_kernel_testkit::Rng;

    use super::{str_literal, tile_kernel};

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

    /// Runtime values, `if`/`else if`, an inclusive unrolled loop, `let`
    /// predicates, a symbolic `{N / 2}` dim and a grid formula.
    const SEED_SCALE: &str = r#"
        fn to_half(x: Tensor<f32, N>, y: Tensor<u16, N>, pairs: Tensor<u32, {N / 2}>, n: u32) {
            let base = (cta_id(0) * 256 + thread_id(0)) * 8;
            let r = alloc_local::<f32>([2, 4]);
            let d = alloc_local::<u32>([1, 4]);
            let v = alloc_local::<f32>([8, 1]);
            let h = alloc_local::<f16>([8, 1]);
            if base + 8 <= N {
                apply(ptx["ld.global.v4.f32"], r, x.slice(s![base..base + 8]).reshape([2, 4]));
                let halves = r.reshape([4, 2]);
                apply(ptx["cvt.rn.f16x2.f32"], d.reshape([4, 1]), halves.slice(s![.., 1..=1]), halves.slice(s![.., 0..1;1]));
                apply(ptx["st.global.v4.b32"], y.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]), d);
            } else if base < N && n >= 0 {
                for k in 0..=7 {
                    let i = base + k;
                    let q = i < N;
                    apply(ptx["ld.global.f32"], v[k], x.slice(s![i..i + 1]), pred = q);
                    apply(ptx["cvt.rn.f16.f32"], h[k], v[k], pred = q);
                    apply(ptx["st.global.b16"], y.slice(s![i..i + 1]), h[k], pred = q);
                }
            }
        }
    "#;

    /// A grid-stride runtime loop with `step_by`.
    const SEED_LOOP: &str = r#"
        fn scale(x: Tensor<f32, N>, y: Tensor<f32, N>, s: f32) {
            let t = alloc_local::<f32>([1]);
            for i in (cta_id(0) * block_dim(0) + thread_id(0)..N).step_by(grid_dim(0) * block_dim(0)) {
                apply(ptx["ld.global.f32"], t, x.slice(s![i..i + 1]));
                apply(ptx["mul.f32"], t, t, s);
                apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), t);
            }
        }
    "#;

    /// A ring of `cp.async` copies completing on mbarriers, read across
    /// threads after a parity wait, refilled after an "empty" wait.
    const SEED_RING: &str = r#"
        fn ring(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
            let t = thread_id(0);
            let row = cta_id(0);
            let ring = alloc_shared::<f32>([2, 128]);
            let full = alloc_shared::<Mbarrier>([2]);
            let empty = alloc_shared::<Mbarrier>([2]);
            let v = alloc_local::<f32>([1, 4]);
            if t == 0 {
                apply(ptx["mbarrier.init.shared::cta.b64"], full.slice(s![0..2]).reshape([2, 1]), 32);
                apply(ptx["mbarrier.init.shared::cta.b64"], empty.slice(s![0..2]).reshape([2, 1]), 32);
            }
            apply(ptx["bar.sync"], 0, scope = "cta");
            apply(ptx["cp.async.cg.shared.global"], ring.slice(s![0..1, 4 * t..4 * t + 4]), x.slice(s![row..row + 1, 4 * t..4 * t + 4]), 16);
            apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![0..1]));
            for j in 0..N / 128 {
                let stage = j % 2;
                apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], full.slice(s![stage..stage + 1]), (j / 2) % 2);
                apply(ptx["ld.shared.v4.f32"], v, ring.slice(s![stage..stage + 1, 124 - 4 * t..128 - 4 * t]));
                apply(ptx["mbarrier.arrive.shared::cta.b64"], empty.slice(s![stage..stage + 1]));
                let refill = (j + 1) % 2;
                apply(ptx["mbarrier.try_wait.parity.shared::cta.b64"], empty.slice(s![refill..refill + 1]), ((j + 1) / 2 + 1) % 2);
                let next = (j + 1) * 128 + 4 * t;
                apply(ptx["cp.async.cg.shared.global"], ring.slice(s![refill..refill + 1, 4 * t..4 * t + 4]), x.slice(s![row..row + 1, next..next + 4]), 16);
                apply(ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"], full.slice(s![refill..refill + 1]));
                let c = j * 128 + 4 * t;
                apply(ptx["st.global.v4.f32"], y.slice(s![row..row + 1, c..c + 4]), v);
            }
            apply(ptx["cp.async.wait_all"]);
        }
    "#;

    /// `(attribute arguments, item)` of each seed.
    fn seeds() -> [(&'static str, &'static str); 4] {
        [
            ("grid = 1, block = 1", SEED),
            (
                "grid = [ceil_div(N, 2048), 1, 1], block = 256, arch = \"sm_90\"",
                SEED_SCALE,
            ),
            ("grid = 4, block = [32, 1, 1]", SEED_LOOP),
            (
                "grid = [M, 1, 1], block = [32, 1, 1], arch = \"sm_90\"",
                SEED_RING,
            ),
        ]
    }

    /// Flattens a token stream into leaves plus group delimiters, so single
    /// tokens can be removed or repeated at any depth. Joint punctuation
    /// (`..`, `::`, `..=`, `&&`, `<=`) stays one leaf: printed apart it
    /// would be other tokens, and nearly every mutant would fail to parse
    /// as a function before reaching the tile-language parser.
    fn leaves(stream: TokenStream, out: &mut Vec<String>) {
        let mut joint = String::new();
        for tree in stream {
            if let TokenTree::Punct(punct) = &tree {
                joint.push(punct.as_char());
                if punct.spacing() == Spacing::Alone {
                    out.push(std::mem::take(&mut joint));
                }
                continue;
            }
            if !joint.is_empty() {
                out.push(std::mem::take(&mut joint));
            }
            match tree {
                TokenTree::Group(group) => {
                    let (open, close) = match group.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    out.push(open.to_string());
                    leaves(group.stream(), out);
                    out.push(close.to_string());
                }
                other => out.push(other.to_string()),
            }
        }
        if !joint.is_empty() {
            out.push(joint);
        }
    }

    /// The expansion of `text`, or `None` for text that does not lex
    /// (unbalanced delimiters never reach a macro). Panics name the input.
    fn expand_text(args: &TokenStream, text: &str) -> Option<String> {
        let item = text.parse::<TokenStream>().ok()?;
        let args = args.clone();
        let start = Instant::now();
        let out = catch_unwind(AssertUnwindSafe(|| tile_kernel(args, item).to_string()))
            .unwrap_or_else(|_| panic!("the macro panicked on:\n{text}"));
        let elapsed = start.elapsed();
        assert!(
            elapsed < CASE_TIME_LIMIT,
            "the macro took {elapsed:?} on:\n{text}"
        );
        Some(out)
    }

    /// The time one expansion may take in these tests (debug builds).
    const CASE_TIME_LIMIT: Duration = Duration::from_secs(20);

    /// `TILE_KERNEL_FUZZ_CASES`, else `small`.
    fn cases(small: usize) -> usize {
        std::env::var("TILE_KERNEL_FUZZ_CASES")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(small)
    }

    /// The raw string literals hold the values that `Literal::string`
    /// would.
    #[test]
    fn literals_hold_their_values() {
        let texts = [
            String::new(),
            "plain".to_string(),
            "//\n// PTX\n.version 8.0\n\tmov.b32 %r1, 0;\n".to_string(),
            "a \"quote\" and \"# and \"## hash runs\"###".to_string(),
            "\"#".to_string(),
            "trailing quote\"".to_string(),
            "carriage\r\nreturn".to_string(),
            "nul \0 and \\ backslash, unicode \u{e9}\u{1f600} and \u{301}".to_string(),
        ];
        for text in &texts {
            let literal = str_literal(text);
            let parsed: syn::LitStr = syn::parse2(quote!(#literal)).expect("a string");
            assert_eq!(&parsed.value(), text);
        }
    }

    /// `rust_ident` writes a name raw exactly where `syn` does not accept
    /// it as an identifier.
    #[test]
    fn raw_identifiers_are_those_syn_rejects() {
        let names = crate::fast_parse::KEYWORDS
            .iter()
            .copied()
            .filter(|k| !["_", "self", "Self", "super", "crate"].contains(k))
            .chain([
                "a", "out", "é", "type_", "__param0", "union", "gen", "dyn", "auto",
            ]);
        for name in names {
            let expected = match syn::parse_str::<syn::Ident>(name) {
                Ok(ident) => ident.to_string(),
                Err(_) => format!("r#{name}"),
            };
            assert_eq!(super::rust_ident(name).to_string(), expected, "{name}");
        }
    }

    #[test]
    fn the_seeds_expand_without_errors() {
        for (args, seed) in seeds() {
            let args: TokenStream = args.parse().expect("args parse");
            let out = expand_text(&args, seed).expect("seed lexes");
            assert!(!out.contains("compile_error"), "{out}");
            // Printed leaf by leaf, each seed is still the same program.
            let mut tokens = Vec::new();
            leaves(seed.parse().expect("seed parses"), &mut tokens);
            let out = expand_text(&args, &tokens.join(" ")).expect("rejoined seed lexes");
            assert!(!out.contains("compile_error"), "rejoined: {out}");
        }
    }

    /// What replaces a leaf in the third kind of mutant: another token of
    /// its class, so the program keeps its shape.
    fn replacement(leaf: &str, i: usize) -> String {
        let pick = |options: &[&str]| options[i % options.len()].to_string();
        let first = leaf.chars().next().unwrap_or(' ');
        if leaf.starts_with('"') {
            pick(&[
                "\"ld.global.f32\"",
                "\"cvt.rn.f16.f32\"",
                "\"\"",
                "\"mov.b32.é\"",
            ])
        } else if first.is_ascii_digit() {
            pick(&[
                "0",
                "9223372036854775808",
                "4097",
                "340282366920938463463374607431768211456",
                "1e400",
                "7",
            ])
        } else if first.is_alphabetic() || first == '_' {
            pick(&["x", "é", "N", "thread_id", "k", "f16", "r#type", "i64"])
        } else if "()[]{}".contains(leaf) {
            leaf.to_string()
        } else {
            pick(&["+", "..", "..=", "*", "-", "&&", "<", "::"])
        }
    }

    #[test]
    fn deleting_repeating_or_replacing_any_token_never_panics() {
        // One thread per seed; a panic names its input and fails the test.
        let counts: Vec<(usize, usize)> = std::thread::scope(|scope| {
            let workers: Vec<_> = seeds()
                .into_iter()
                .map(|(args, seed)| {
                    scope.spawn(move || mutate(&args.parse().expect("args parse"), seed))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("a mutant panicked the macro"))
                .collect()
        });
        let lexed: usize = counts.iter().map(|c| c.0).sum();
        let functions: usize = counts.iter().map(|c| c.1).sum();
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "macro mutants: {lexed} lexed, {functions} of them still functions (reaching the tile-language parser); 0 panics"
        );
        // Many mutants must still be functions, so they exercise the
        // tile-language parser and the checker, not only `syn` (about half
        // are; printed apart, joint punctuation made nearly none).
        assert!(
            functions * 5 >= lexed * 2,
            "only {functions} of {lexed} mutants parse as a function"
        );
    }

    /// Every one-token deletion, repetition and replacement of `seed`:
    /// `(mutants that lex, mutants that parse as a function)`.
    fn mutate(args: &TokenStream, seed: &str) -> (usize, usize) {
        let (mut lexed, mut functions) = (0, 0);
        let mut tokens = Vec::new();
        leaves(seed.parse().expect("seed parses"), &mut tokens);
        for i in 0..tokens.len() {
            let mut deleted = tokens.clone();
            deleted.remove(i);
            let mut repeated = tokens.clone();
            repeated.insert(i, tokens[i].clone());
            let mut replaced = tokens.clone();
            replaced[i] = replacement(&tokens[i], i);
            for text in [deleted.join(" "), repeated.join(" "), replaced.join(" ")] {
                if expand_text(args, &text).is_none() {
                    continue; // unbalanced: never reaches a macro
                }
                lexed += 1;
                if syn::parse_str::<syn::ItemFn>(&text).is_ok() {
                    functions += 1;
                }
            }
        }
        (lexed, functions)
    }

    // ------------------------------------------------ grammar generator

    const DTYPES: &[&str] = &[
        "f16",
        "bf16",
        "f32",
        "f64",
        "u8",
        "u16",
        "u32",
        "u64",
        "i8",
        "i16",
        "i32",
        "i64",
        "bool",
        "half::f16",
        "usize",
        "String",
    ];

    const INTS: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "4",
        "7",
        "8",
        "32",
        "256",
        "1024",
        "4096",
        "4097",
        "65536",
        "4294967295",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "170141183460469231731687303715884105727",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
        "0x10",
        "0b101",
        "1_000",
        "4u32",
        "7i64",
        "i64::MAX",
        "u64::MAX",
    ];

    const FLOATS: &[&str] = &[
        "0.5", "1.0", "-0.0", "1e400", "1e39", "65504.0", "1e-320", "2f32", "1.5f64",
    ];

    const NAMES: &[&str] = &[
        "a", "b", "x", "y", "t", "u", "v", "i", "k", "n", "p", "s", "N", "M", "é", "数", "r#type",
        "device", "zz", "_",
    ];

    const OPCODES: &[&str] = &[
        "ld.global.f32",
        "ld.global.v2.f32",
        "ld.global.v4.f32",
        "ld.global.nc.f32",
        "st.global.f32",
        "st.global.b32",
        "st.global.v4.b32",
        "cvt.rn.f16x2.f32",
        "cvt.rn.f16.f32",
        "cvt.f32.f16",
        "mov.b32",
        "mov.f32",
        "add.f32",
        "mul.lo.u32",
        "fma.rn.f32",
        "cvt.rn.satfinite.e4m3x2.f32",
        "ld.global.L1::evict_last.f32",
        "cvt",
        "",
        "...",
        "ld.global.v8.f32",
        "é.f32",
    ];

    const BINOPS: &[&str] = &[
        "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=", "&&",
        "||",
    ];

    /// Text from the surface grammar; `depth` bounds nesting.
    struct Gen {
        rng: Rng,
    }

    impl Gen {
        fn int(&mut self) -> String {
            if self.rng.chance(70) {
                self.rng.below(9).to_string()
            } else {
                self.rng.pick(INTS).to_string()
            }
        }

        fn expr(&mut self, depth: usize) -> String {
            if depth == 0 || self.rng.chance(35) {
                return match self.rng.below(6) {
                    0 | 1 => self.int(),
                    2 | 3 => self.rng.pick(NAMES).to_string(),
                    4 => format!(
                        "{}({})",
                        self.rng.pick(&[
                            "thread_id",
                            "cta_id",
                            "block_dim",
                            "grid_dim",
                            "cluster_ctaid",
                            "cluster_id"
                        ]),
                        self.rng.pick(&["0", "1", "2", "3", "", "0, 1", "x"])
                    ),
                    _ => self
                        .rng
                        .pick(&[
                            "lane_id()",
                            "warp_id()",
                            "true",
                            "false",
                            "nope(1)",
                            "x.len()",
                        ])
                        .to_string(),
                };
            }
            match self.rng.below(7) {
                0..=2 => format!(
                    "{} {} {}",
                    self.expr(depth - 1),
                    self.rng.pick(BINOPS),
                    self.expr(depth - 1)
                ),
                3 => format!("({})", self.expr(depth - 1)),
                4 => format!(
                    "{}{}",
                    self.rng.pick(&["-", "!", "- -"]),
                    self.expr(depth - 1)
                ),
                5 => format!(
                    "{}({}, {})",
                    self.rng.pick(&["min", "max", "ceil_div"]),
                    self.expr(depth - 1),
                    self.expr(depth - 1)
                ),
                _ => format!("{{ {} }}", self.expr(depth - 1)),
            }
        }

        fn slice_item(&mut self) -> String {
            let bound = |g: &mut Gen| {
                if g.rng.chance(70) { g.int() } else { g.expr(2) }
            };
            match self.rng.below(9) {
                0 => bound(self),
                1 => format!("-{}", self.int()),
                2 => format!("{}..{}", bound(self), bound(self)),
                3 => format!("{}..={}", bound(self), bound(self)),
                4 => format!("{}..", bound(self)),
                5 => format!("..{}", bound(self)),
                6 => "..".to_string(),
                7 => format!(
                    "{}..{};{}",
                    bound(self),
                    bound(self),
                    self.rng.pick(&["1", "2", "0", "-1", "x"])
                ),
                _ => self
                    .rng
                    .pick(&[
                        "..=-1",
                        "..=",
                        "i64::MAX..",
                        "0..=9223372036854775807",
                        "...",
                        ";",
                    ])
                    .to_string(),
            }
        }

        /// A name with a chain of views, up to `views` of them.
        fn place(&mut self, views: usize) -> String {
            let mut text = self.rng.pick(NAMES).to_string();
            let count = self.rng.below(views + 1);
            for _ in 0..count {
                text += &match self.rng.below(8) {
                    0 | 1 => {
                        let items: Vec<String> =
                            (0..self.rng.below(4)).map(|_| self.slice_item()).collect();
                        format!(".slice(s![{}])", items.join(", "))
                    }
                    2 => format!("[{}]", self.slice_item()),
                    3 => format!(".view::<{}>()", self.rng.pick(DTYPES)),
                    4 => {
                        let dims: Vec<String> = (0..self.rng.below(4))
                            .map(|_| {
                                if self.rng.chance(20) {
                                    "-1".to_string()
                                } else {
                                    self.int()
                                }
                            })
                            .collect();
                        format!(".reshape([{}])", dims.join(", "))
                    }
                    5 => format!(
                        ".unsqueeze({})",
                        self.rng.pick(&["0", "1", "-1", "-2", "9", "x"])
                    ),
                    6 => ".slice(s![.., 0..1])".to_string(),
                    _ => self
                        .rng
                        .pick(&[".len()", ".slice()", ".view()", ".reshape(4)", "[]"])
                        .to_string(),
                };
            }
            text
        }

        fn operand(&mut self) -> String {
            match self.rng.below(10) {
                0 => self.int(),
                1 => self.rng.pick(FLOATS).to_string(),
                2 => format!("-{}", self.int()),
                3 => self.rng.pick(&["true", "-s", "&a", "a + 1"]).to_string(),
                4 => self.place(12),
                _ => self.place(3),
            }
        }

        fn apply(&mut self) -> String {
            let mut args = vec![format!("ptx[\"{}\"]", self.rng.pick(OPCODES))];
            for _ in 0..self.rng.below(5) {
                args.push(self.operand());
            }
            if self.rng.chance(30) {
                args.push(format!("pred = {}", self.expr(3)));
            }
            if self.rng.chance(15) {
                args.push(format!(
                    "preserve_dst = {}",
                    self.rng.pick(&["true", "false", "p", "1"])
                ));
            }
            if self.rng.chance(10) {
                args.push(format!(
                    "scope = {}",
                    self.rng
                        .pick(&["\"thread\"", "\"warp\"", "\"cta\"", "\"x\"", "thread"])
                ));
            }
            if self.rng.chance(5) {
                args.push("bogus = 1".to_string());
            }
            format!("apply({});", args.join(", "))
        }

        fn stmt(&mut self, depth: usize) -> String {
            let compound = depth > 0 && self.rng.chance(30);
            if !compound {
                return match self.rng.below(8) {
                    0 | 1 => {
                        let dims: Vec<String> =
                            (0..self.rng.below(4)).map(|_| self.int()).collect();
                        format!(
                            "let {} = alloc_local::<{}>([{}]);",
                            self.rng.pick(&["t", "u", "é", "v"]),
                            self.rng.pick(DTYPES),
                            dims.join(", ")
                        )
                    }
                    2..=4 => self.apply(),
                    5 => format!("let {} = {};", self.rng.pick(NAMES), self.expr(4)),
                    6 => format!("let {} = {};", self.rng.pick(NAMES), self.place(6)),
                    _ => self
                        .rng
                        .pick(&[
                            "loop {}",
                            "return;",
                            "x += 1;",
                            "let (a, b) = (1, 2);",
                            "t;",
                            "while p {}",
                        ])
                        .to_string(),
                };
            }
            let body = |g: &mut Gen| {
                let stmts: Vec<String> = (0..g.rng.below(4)).map(|_| g.stmt(depth - 1)).collect();
                stmts.join("\n")
            };
            match self.rng.below(5) {
                0 => format!(
                    "for {} in {}..{} {{ {} }}",
                    self.rng.pick(&["k", "i", "é", "_"]),
                    self.expr(1),
                    self.expr(2),
                    body(self)
                ),
                1 => format!(
                    "for {} in {}..={} {{ {} }}",
                    self.rng.pick(&["k", "i"]),
                    self.int(),
                    self.int(),
                    body(self)
                ),
                2 => format!(
                    "for i in ({}..{}).step_by({}) {{ {} }}",
                    self.expr(2),
                    self.expr(1),
                    self.expr(2),
                    body(self)
                ),
                3 => format!("if {} {{ {} }}", self.expr(3), body(self)),
                _ => format!(
                    "if {} {{ {} }} else if {} {{ {} }} else {{ {} }}",
                    self.expr(3),
                    body(self),
                    self.expr(2),
                    body(self),
                    body(self)
                ),
            }
        }

        fn dim(&mut self) -> String {
            match self.rng.below(6) {
                0..=2 => self.int(),
                3 => self.rng.pick(&["N", "M", "é"]).to_string(),
                _ => format!(
                    "{{{}}}",
                    self.rng.pick(&[
                        "2 * N",
                        "N / 2",
                        "N + 1",
                        "8 / 2",
                        "N * N",
                        "N / 0",
                        "-3",
                        "N - 1",
                        "4 * M + 2"
                    ])
                ),
            }
        }

        fn param(&mut self) -> String {
            let name = self.rng.pick(NAMES);
            let ty = match self.rng.below(6) {
                0..=2 => {
                    let dims: Vec<String> = (0..self.rng.below(4)).map(|_| self.dim()).collect();
                    let mut inner = vec![self.rng.pick(DTYPES).to_string()];
                    inner.extend(dims);
                    format!("Tensor<{}>", inner.join(", "))
                }
                3 | 4 => self.rng.pick(DTYPES).to_string(),
                _ => self
                    .rng
                    .pick(&["&[f32]", "Vec<u8>", "(u32, u32)", "impl Fn()"])
                    .to_string(),
            };
            format!("{name}: {ty}")
        }

        fn grid(&mut self) -> String {
            let one = |g: &mut Gen| match g.rng.below(6) {
                0 | 1 => g.int(),
                2 => format!("ceil_div(N, {})", g.int()),
                3 => format!("min(N, {}) + max(M, 1)", g.int()),
                4 => format!("N / {} + 1", g.int()),
                _ => g.expr(2),
            };
            if self.rng.chance(25) {
                format!("[{}, {}, {}]", one(self), one(self), one(self))
            } else {
                one(self)
            }
        }

        /// `(attribute arguments, item)`.
        fn kernel(&mut self) -> (String, String) {
            let block = if self.rng.chance(25) {
                format!("[{}, {}, {}]", self.int(), self.int(), self.int())
            } else {
                self.rng
                    .pick(&["1", "32", "256", "1024", "0", "2048"])
                    .to_string()
            };
            let mut args = format!("grid = {}, block = {block}", self.grid());
            if self.rng.chance(20) {
                args += &format!(
                    ", arch = \"{}\"",
                    self.rng.pick(&[
                        "sm_70", "sm_80", "sm_89", "sm_90a", "sm_100a", "sm_120", "sm_91", ""
                    ])
                );
            }
            let params: Vec<String> = (0..self.rng.below(5)).map(|_| self.param()).collect();
            let stmts: Vec<String> = (0..self.rng.below(8)).map(|_| self.stmt(3)).collect();
            let name = self.rng.pick(&["k", "ké", "r#fn", "kernel"]);
            (
                args,
                format!(
                    "fn {name}({}) {{\n{}\n}}",
                    params.join(", "),
                    stmts.join("\n")
                ),
            )
        }
    }

    #[test]
    fn generated_kernels_never_panic() {
        let count = cases(300);
        let start = Instant::now();
        let (mut lexed, mut clean, mut slowest) = (0usize, 0usize, Duration::ZERO);
        for case in 0..count {
            let mut generator = Gen {
                rng: Rng::new(case as u64 + 1),
            };
            let (args, item) = generator.kernel();
            let Ok(args) = args.parse::<TokenStream>() else {
                continue;
            };
            let t = Instant::now();
            if let Some(out) = expand_text(&args, &item) {
                lexed += 1;
                if !out.contains("compile_error") {
                    clean += 1;
                }
            }
            slowest = slowest.max(t.elapsed());
        }
        // To the real stderr: libtest captures `eprintln!` of passing tests.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "macro fuzz: {count} generated kernels ({lexed} lexed, {clean} expanded without errors) in {:.1?}, slowest {slowest:.1?}; 0 panics",
            start.elapsed()
        );
        assert!(
            lexed * 10 >= count * 9,
            "only {lexed} of {count} kernels lexed"
        );
    }

    #[test]
    fn odd_inputs_give_errors_not_panics() {
        let cases: &[(&str, &str)] = &[
            ("", "fn k() {}"),
            ("grid = 1", "fn k() {}"),
            ("grid = [1, 2, 3, 4], block = 0", "fn k() {}"),
            ("grid = 99999999999, block = 1", "fn k() {}"),
            ("grid = 1, block = 1, arch = 90", "fn k() {}"),
            ("grid = 1, block = [4294967295, 4294967295, 2]", "fn k() {}"),
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
                "fn k(a: Tensor<f32, {170141183460469231731687303715884105727 * N}>) {}",
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
                "fn k() { let t = alloc_local::<f32>([4]); apply(ptx[\"mov.f32\"], t.slice(s![0..=9223372036854775807, ..]), t); }",
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
            (
                "grid = 1, block = 1",
                "fn k(n: u32) { for k in -4611686018427387904 * 4611686018427387904..4611686018427387904 * 4611686018427387904 {} }",
            ),
            (
                "grid = 1, block = 1",
                "fn k(n: u32) { let v = (4611686018427387904 * 4611686018427387904 * 4) % 8; }",
            ),
            (
                "grid = 1, block = 1",
                "fn k(n: u32) { for a in 0..4096 { for b in 0..4096 { for c in 0..4096 {} } } }",
            ),
            (
                "grid = 1, block = [2, 2, 2]",
                "fn k() { let a = thread_id(0) + thread_id(1) + thread_id(2); let b = a * a; let c = b * b; let d = c * c; let e = d * d; let f = e * e; let g = f * f; }",
            ),
            (
                "grid = 1, block = 1",
                "fn k(x: Tensor<f32, 4>, y: Tensor<f32, 4>) { let t = alloc_local::<f32>([4]); apply(ptx[\"ld.global.f32\"], t, x); }",
            ),
        ];
        for (args, item) in cases {
            let args: TokenStream = args.parse().expect("args parse");
            let out = expand_text(&args, item).expect("lexes");
            assert!(
                out.contains("compile_error"),
                "expected an error for `{item}`, got:\n{out}"
            );
        }
    }

    /// The launcher's parameter list in an expansion (`device: .., a: ..`,
    /// after `launcher` and its docs in the module template's input).
    fn launcher_signature(expansion: &str, name: &str) -> Option<String> {
        let module = expansion.find(&format!("__kernel_module ! {{ {name} "))?;
        let launcher = module + expansion[module..].find(" launcher ")?;
        let start = launcher + expansion[launcher..].find("(device")?;
        let end = start
            + expansion[start..]
                .find(") failed device")
                .or_else(|| expansion[start..].find(") run device"))?;
        Some(expansion[start..end].to_string())
    }

    /// The messages of the `compile_error!`s of an expansion.
    fn error_messages(expansion: &str) -> Vec<String> {
        expansion
            .match_indices("compile_error !")
            .map(|(at, _)| {
                let rest = &expansion[at..];
                let open = rest.find('"').map_or(0, |i| i + 1);
                let close = rest[open..].find("\" }").map_or(rest.len(), |i| open + i);
                rest[open..close].to_string()
            })
            .collect()
    }

    const HALF_TYPED_KERNEL: &str = r#"
        fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>) {
            let r = alloc_local::<f32>([4, 1]);
            let d = alloc_local::<u32>([4, 1]);
            apply(ptx["ld.global.f32"], r, a);
            apply(ptx["cvt.rzi.u32.f32"], d, r);
            STORE
        }
    "#;

    /// Statements as they are typed, and as rust-analyzer hands them to the
    /// macro after repairing them (`__ra_fixup` placeholders, a `;` added).
    const HALF_TYPED: &[&str] = &[
        "let v =",
        "let v = ;",
        "apply(ptx[\"st.global.b32\"], out, d.)",
        "apply(ptx[\"st.global.b32\"], out, d.__ra_fixup)",
        "apply(ptx[\"st.global.b32\"], out, d.__ra_fixup);",
        "apply(ptx[\"st.global.b32\"], out,);",
        "apply(ptx[\"st.global.b32\"], out, d, pred = );",
        "apply(ptx[\"st.global.b32\"], out.slice(s![0..]), d) let v =",
        "__ra_fixup;",
        "for k in 0..2 { apply(ptx[\"st.global.b32\"], out, d.); }",
        "if true { let v = } else { apply(ptx[\"st.global.b32\"], out, d); }",
        "let o = out; apply(ptx[\"st.global.b32\"], o, d.)",
        "apply(ptx[\"st.globl.b32\"], out, d);",
        "apply(ptx[\"st.global.b32\"] out, d);",
        // `let x = 1 +` typed above the store: Rust reads one statement.
        "let x = 1 + apply(ptx[\"st.global.b32\"], out, d);",
        // `} else` typed before the block: the store joins the `if`.
        "if true { apply(ptx[\"mov.b32\"], d, d); } else apply(ptx[\"st.global.b32\"], out, d);",
    ];

    #[test]
    fn a_half_typed_statement_keeps_the_launcher_and_its_signature() {
        let args = quote!(grid = 1, block = 1);
        let complete =
            HALF_TYPED_KERNEL.replace("STORE", "apply(ptx[\"st.global.b32\"], out, d); STORE");
        let out = expand_text(&args, &complete.replace("STORE", "")).expect("lexes");
        assert!(!out.contains("compile_error"), "{out}");
        let expected = launcher_signature(&out, "k").expect("a launcher");
        assert!(expected.contains("out : & mut"), "{expected}");
        for statement in HALF_TYPED {
            // A broken store replaces the store; other statements come after it.
            let text = if statement.contains("st.") {
                HALF_TYPED_KERNEL.replace("STORE", statement)
            } else {
                complete.replace("STORE", statement)
            };
            let out = expand_text(&args, &text).expect("lexes");
            let errors = error_messages(&out);
            // A statement the editor replaced whole is its own error to
            // report (at tokens the macro never sees).
            let count = usize::from(!statement.starts_with("__ra_fixup"));
            assert_eq!(errors.len(), count, "`{statement}`: {errors:?}");
            assert!(
                errors.iter().all(|e| e.starts_with("TK0")),
                "`{statement}`: {errors:?}"
            );
            assert!(
                out.contains("ptx \"\" program"),
                "`{statement}`: PTX emitted"
            );
            assert!(
                out.contains("__kernel_module ! { k \"k\""),
                "`{statement}`: no module"
            );
            assert_eq!(
                launcher_signature(&out, "k").as_ref(),
                Some(&expected),
                "`{statement}` changed the launcher"
            );
        }
    }

    #[test]
    fn a_body_the_editor_replaced_keeps_the_launcher_without_an_error() {
        // rust-analyzer hands `fn k(..) __ra_fixup` to the macro for a body
        // it could not repair (`let x = ;` among other statements).
        let args = quote!(grid = 1, block = 1);
        let text = "fn k(a: Tensor<f32, 4, 1>, out: Tensor<u32, 4, 1>, n: u32) __ra_fixup";
        let out = expand_text(&args, text).expect("lexes");
        assert_eq!(error_messages(&out), Vec::<String>::new(), "{out}");
        assert!(out.contains("ptx \"\" program"), "PTX emitted: {out}");
        let launcher = launcher_signature(&out, "k").expect("a launcher");
        assert!(launcher.contains("a : &"), "{launcher}");
        assert!(launcher.contains("out : &"), "{launcher}");
        assert!(
            launcher.contains("n : :: core :: primitive :: u32"),
            "{launcher}"
        );
    }

    #[test]
    fn tokens_the_editor_replaced_count_as_writing_every_tile() {
        // `let v = alloc_local::<` typed above the statement that writes
        // `d`: rust-analyzer replaces the value, with the line it swallowed,
        // by its placeholder, so the macro never sees `d` written.
        let args = quote!(grid = 1, block = 1);
        let text = HALF_TYPED_KERNEL
            .replace(
                "apply(ptx[\"cvt.rzi.u32.f32\"], d, r);",
                "let v = __ra_fixup;",
            )
            .replace("STORE", "apply(ptx[\"st.global.b32\"], out, d);");
        let errors = error_messages(&expand_text(&args, &text).expect("lexes"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("TK0026: "), "{errors:?}");
    }

    /// Loops at the edges of what the rolled check follows
    /// (`tile_kernel_lowering::sema::rolled`): each is checked the same
    /// way rolled as unrolled, program for program and error for error,
    /// whether the trial takes it or refuses it; those marked `true` take
    /// it. The kernel reads every tile, so a legal body has a program to
    /// compare.
    #[test]
    fn rolled_and_unrolled_checks_agree_at_their_edges() {
        let bodies = [
            // Views moving the other way, and two tiles moving apart.
            (
                true,
                "for k in 0..4 { apply(ptx[\"mov.b32\"], d.slice(s![3 - k..4 - k]), e.slice(s![k..k + 1])); }",
            ),
            // Two views of one tile moving differently in one statement.
            (
                false,
                "for k in 0..2 { apply(ptx[\"add.u32\"], d.slice(s![k..k + 1]), d.slice(s![2 * k..2 * k + 1]), e.slice(s![0..1])); }",
            ),
            // The last iteration out of the tile.
            (
                false,
                "for k in 0..5 { apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 0); }",
            ),
            // Byte views of 16-bit registers, an odd move per iteration.
            (
                true,
                "for k in 0..8 { apply(ptx[\"st.global.b8\"], out.view::<u8>().slice(s![t * 16 + k..t * 16 + k + 1]), h.view::<u8>().slice(s![k..k + 1])); }",
            ),
            // A predicate per iteration, read after the loop.
            (
                true,
                "for k in 0..4 { apply(ptx[\"setp.lt.u32\"], p.slice(s![k..k + 1]), e.slice(s![k..k + 1]), 3); } apply(ptx[\"st.global.b32\"], out.slice(s![t * 4..t * 4 + 1]), d.slice(s![0..1]), pred = p[2]);",
            ),
            // A value defined where a predicate holds, the predicate
            // rewritten by the loop: the store's guard is another value.
            (
                true,
                "let g = alloc_local::<u32>([1]); apply(ptx[\"setp.lt.u32\"], p.slice(s![2..3]), e.slice(s![0..1]), 3); apply(ptx[\"mov.b32\"], g, 5, pred = p[2]); for k in 0..4 { apply(ptx[\"setp.lt.u32\"], p.slice(s![k..k + 1]), e.slice(s![k..k + 1]), 4); } apply(ptx[\"st.global.b32\"], out.slice(s![t * 4..t * 4 + 1]), g, pred = p[2]);",
            ),
            // A predicate read inside the loop.
            (
                false,
                "for k in 0..4 { apply(ptx[\"setp.lt.u32\"], p.slice(s![k..k + 1]), e.slice(s![k..k + 1]), 3); apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 1, pred = p[k]); }",
            ),
            // A guard that folds in each iteration.
            (
                false,
                "for k in 0..4 { apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 7, pred = k < 2); }",
            ),
            // A memory access the last iterations may leave (guarded).
            (
                false,
                "for k in 0..4 { apply(ptx[\"ld.global.b32\"], d.slice(s![k..k + 1]), a.slice(s![t * 8 + k * 2 + 2..t * 8 + k * 2 + 3])); }",
            ),
            // Nested constant loops and a computed index.
            (
                true,
                "for i in 0..2 { for j in 0..2 { let c = 2 * i + j; apply(ptx[\"mov.b32\"], d.slice(s![c..c + 1]), e.slice(s![c..c + 1])); } }",
            ),
            (
                false,
                "for k in 0..4 { let c = k / 2; apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), e.slice(s![c..c + 1])); }",
            ),
            // A loop variable as an operand, and as a shift.
            (
                false,
                "for k in 0..4 { apply(ptx[\"add.u32\"], d.slice(s![k..k + 1]), e.slice(s![k..k + 1]), k); }",
            ),
            (
                false,
                "for k in 0..4 { apply(ptx[\"shl.b32\"], d.slice(s![k..k + 1]), e.slice(s![k..k + 1]), k); }",
            ),
            // Stores that race across iterations and threads.
            (
                true,
                "for k in 0..4 { apply(ptx[\"st.global.b32\"], out.slice(s![k..k + 1]), d.slice(s![k..k + 1])); }",
            ),
            // Stores that each thread owns, one element per iteration.
            (
                true,
                "for k in 0..4 { apply(ptx[\"st.global.b32\"], out.slice(s![t * 4 + k..t * 4 + k + 1]), e.slice(s![k..k + 1])); }",
            ),
            // A runtime `if` in k, a load or a default per iteration.
            (
                true,
                "for k in 0..4 { if t * 4 + k < 100 { apply(ptx[\"ld.global.b32\"], d.slice(s![k..k + 1]), a.slice(s![t * 4 + k..t * 4 + k + 1])); } else { apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 0); } }",
            ),
            // An `if` that folds in each iteration.
            (
                false,
                "for k in 0..4 { if k == 1 { apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 1); } }",
            ),
            // Predicates written in an arm, one read after the loop: the
            // merge after each `if` gives it a new version.
            (
                true,
                "apply(ptx[\"setp.lt.u32\"], p.unsqueeze(-1), e.unsqueeze(-1), 2); for k in 0..4 { if t < 16 { apply(ptx[\"setp.lt.u32\"], p.slice(s![k..k + 1]), e.slice(s![k..k + 1]), 3); } } apply(ptx[\"st.global.b32\"], out.slice(s![t * 4..t * 4 + 1]), d.slice(s![0..1]), pred = p[2]);",
            ),
            // An `if` on a predicate register in the loop.
            (
                false,
                "apply(ptx[\"setp.lt.u32\"], p.unsqueeze(-1), e.unsqueeze(-1), 3); for k in 0..4 { if p[k] { apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 2); } }",
            ),
            // A loop in an `if` in a loop, and an `if` without `else`.
            (
                true,
                "for k in 0..2 { if t < 8 { for j in 0..2 { apply(ptx[\"mov.b32\"], d.slice(s![2 * k + j..2 * k + j + 1]), e.slice(s![j..j + 1])); } } }",
            ),
            // A tile or a shared buffer allocated in an inner loop: one
            // per iteration unrolled.
            (
                false,
                "for k in 0..2 { for j in 0..2 { let s = alloc_shared::<u32>([32]); apply(ptx[\"st.shared.b32\"], s.slice(s![t..t + 1]), d.slice(s![0..1])); apply(ptx[\"bar.sync\"], 0, scope = \"cta\"); } }",
            ),
            (
                false,
                "for k in 0..2 { for j in 0..2 { let s = alloc_shared::<u32>([32]); apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 1); } }",
            ),
            (
                false,
                "for k in 0..2 { for j in 0..2 { let x = alloc_local::<u32>([1]); apply(ptx[\"mov.b32\"], x, 1); apply(ptx[\"add.u32\"], d.slice(s![k..k + 1]), d.slice(s![k..k + 1]), x); } }",
            ),
            // An `if` whose arm leaves the tile in the last iteration.
            (
                false,
                "for k in 0..5 { if t < 8 { apply(ptx[\"mov.b32\"], d.slice(s![k..k + 1]), 0); } }",
            ),
            // Values computed from the loop variable alone, in memory
            // indices, guards and `if` conditions: constants in each copy.
            (
                true,
                "for k in 0..4 { let col = t * 8 + 2 * (k % 2) + k / 2; apply(ptx[\"st.global.b32\"], out.slice(s![col..col + 1]), e.slice(s![k..k + 1]), pred = t + k / 2 < 31); }",
            ),
            (
                true,
                "for k in 0..8 { let h = k % 4 / 2; let c = t * 8 + 4 * h + min(k, 3); if t * 4 + h < 100 { apply(ptx[\"ld.global.b32\"], d.slice(s![1..2]), a.slice(s![c..c + 1])); } }",
            ),
            // A value computed from the loop variable and a thread's
            // index: each iteration has its own atom.
            (
                false,
                "for k in 0..4 { let col = (t + k) % 32 * 8 + k; apply(ptx[\"st.global.b32\"], out.slice(s![col..col + 1]), e.slice(s![k..k + 1])); }",
            ),
            // A computed value of the loop variable as an operand.
            (
                false,
                "for k in 0..4 { apply(ptx[\"add.u32\"], d.slice(s![k..k + 1]), e.slice(s![k..k + 1]), k % 2); }",
            ),
        ];
        let args = quote!(grid = 1, block = 32);
        for (rolls, body) in bodies {
            let text = format!(
                r#"fn k(a: Tensor<u32, {{32 * 8}}>, out: Tensor<u32, {{32 * 8}}>) {{
                    let t = thread_id(0);
                    let d = alloc_local::<u32>([4]);
                    let e = alloc_local::<u32>([4]);
                    let h = alloc_local::<u16>([8]);
                    let p = alloc_local::<bool>([4]);
                    apply(ptx["ld.global.v4.b32"], e, a.slice(s![t * 4..t * 4 + 4]));
                    apply(ptx["mov.b32"], d.unsqueeze(-1), 0);
                    apply(ptx["mov.b16"], h.unsqueeze(-1), 0);
                    {body}
                    // Every tile read, so a legal body has a program.
                    apply(ptx["add.u32"], d.slice(s![0..1]), d.slice(s![0..1]), e.slice(s![0..1]));
                    apply(ptx["cvt.u32.u16"], d.slice(s![1..2]), h.slice(s![0..1]));
                    apply(ptx["st.global.v4.b32"], out.slice(s![t * 4 + 128..t * 4 + 132]), d);
                }}"#
            );
            let item: TokenStream = text.parse().expect("lexes");
            let read = crate::expand::read_kernel(args.clone(), item).expect("reads");
            let before = tile_kernel_lowering::sema::loops_rolled();
            let rolled = tile_kernel_lowering::sema::check(&read.kernel);
            let rolled_now = tile_kernel_lowering::sema::loops_rolled() > before;
            let unrolled = tile_kernel_lowering::sema::check_unrolled(&read.kernel);
            assert_eq!(rolled.diagnostics, unrolled.diagnostics, "{body}");
            assert!(
                rolled.program == unrolled.program,
                "{body}: the programs differ"
            );
            assert_eq!(rolled.param_writes, unrolled.param_writes, "{body}");
            // The count is the process's, and other tests may roll loops
            // meanwhile: only that a loop rolled can be asserted.
            if rolls {
                assert!(rolled_now, "{body}: not rolled");
            }
        }
    }

    #[test]
    fn an_error_reported_once_survives_the_rolled_trial_of_its_loop() {
        // TK0611 is reported at the first use of the scope only. The loop
        // is first checked once in `k` (`sema::rolled`); that trial's
        // report is undone, and the unrolled check must report it again.
        let args = quote!(grid = 1, block = 48);
        let text = r#"fn k(a: Tensor<u32, 48, 1>, out: Tensor<u32, 48, 1>) {
            let x = alloc_local::<u32>([1]);
            apply(ptx["ld.global.u32"], x, a.slice(s![thread_id(0), ..]));
            for k in 0..2 {
                apply(ptx["shfl.sync.bfly.b32"], x, x, 1, 0x1f, scope = "warp");
            }
            apply(ptx["st.global.u32"], out.slice(s![thread_id(0), ..]), x);
        }"#;
        let errors = error_messages(&expand_text(&args, text).expect("lexes"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("TK0611: "), "{errors:?}");
    }

    #[test]
    fn what_a_broken_if_writes_counts_as_written() {
        // `} else` typed before its block, as rust-analyzer hands it over
        // (a `;` added): the `if` does not parse, and its block was the only
        // write of `d`.
        let args = quote!(grid = 1, block = 1);
        let text = HALF_TYPED_KERNEL.replace(
            "apply(ptx[\"cvt.rzi.u32.f32\"], d, r);",
            "if true { apply(ptx[\"cvt.rzi.u32.f32\"], d, r); } else;",
        );
        let text = text.replace("STORE", "apply(ptx[\"st.global.b32\"], out, d);");
        let errors = error_messages(&expand_text(&args, &text).expect("lexes"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("TK0026: "), "{errors:?}");
    }

    #[test]
    fn a_syntax_error_names_the_token_where_parsing_stopped() {
        let args = quote!(grid = 1, block = 1);
        let text = HALF_TYPED_KERNEL.replace("STORE", "let v = ;");
        let out = expand_text(&args, &text).expect("lexes");
        assert_eq!(
            error_messages(&out),
            [
                "TK0026: unexpected end of input, expected an expression\\n  = note: explained at tile_kernel::errors#tk0026"
            ]
        );
        // Every statement is still checked: an unknown opcode before the
        // broken one is reported too.
        let text = HALF_TYPED_KERNEL.replace("STORE", "apply(ptx[\"mov.b33\"], d, d); let v =");
        let errors = error_messages(&expand_text(&args, &text).expect("lexes"));
        assert_eq!(errors.len(), 2, "{errors:?}");
        // A broken signature is an error of the same code, not TK0009.
        let out = expand_text(&args, "fn k(a: Tensor<f32, 4>, b: ) {}").expect("lexes");
        let errors = error_messages(&out);
        assert!(
            errors.len() == 1 && errors[0].starts_with("TK0026"),
            "{errors:?}"
        );
        let out = expand_text(&args, "struct K;").expect("lexes");
        assert!(error_messages(&out)[0].starts_with("TK0009"), "{out}");
    }

    #[test]
    fn deep_nesting_gives_an_error_not_a_stack_overflow() {
        // `let v = n + n + .. + n;` with 300 terms: 300 levels (TK0609),
        // on a thread with rustc's 8 MiB stack.
        let sum = vec!["n"; 300].join(" + ");
        let item = format!("fn k(n: u32) {{ let v = {sum}; }}");
        let out = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || expand_text(&quote!(grid = 1, block = 1), &item))
            .expect("spawn")
            .join()
            .expect("no overflow")
            .expect("lexes");
        assert!(out.contains("TK0609"), "{out}");
    }
}
