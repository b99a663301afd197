//! Expansion: the PTX const, the kernel's runtime spec and the safe launcher.
//!
//! On errors the same public surface is emitted (with an empty PTX string) next
//! to the `compile_error!`s, so code that calls the launcher sees no cascade of
//! follow-up errors (thiserror's fallback idea).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use tile_kernel_lowering::ast::{self, LaunchDims, Param, ParamType};
use tile_kernel_lowering::{DType, Target};

use crate::attr::{self, KernelArgs};
use crate::parse::KernelParser;
use crate::spans::SpanTable;

/// Entry point of `#[tile_kernel]`.
pub fn tile_kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item) {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
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
            errors.push(syn::Error::new_spanned(
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
    let launch = args
        .as_ref()
        .map(|a: &KernelArgs| LaunchDims {
            grid: a.grid.map_or([1, 1, 1], |g| g.0),
            block: a.block.map_or([1, 1, 1], |b| b.0),
        })
        .unwrap_or_default();

    let mut spans = SpanTable::default();
    let mut parser = KernelParser {
        spans: &mut spans,
        errors: Vec::new(),
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
    let surface = public_surface(&item, &kernel, &compilation.param_writes, ptx.as_deref());
    let compile_errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        #(#compile_errors)*
        #surface
    }
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
fn element_type(dtype: DType) -> TokenStream {
    match dtype {
        DType::F16 => quote!(::tile_kernel::f16),
        DType::Bf16 => quote!(::tile_kernel::bf16),
        other => {
            let ident = format_ident!("{}", other.rust_name());
            quote!(#ident)
        }
    }
}

fn dtype_path(dtype: DType) -> TokenStream {
    let variant = format_ident!("{}", format!("{dtype:?}"));
    quote!(::tile_kernel::__private::DType::#variant)
}

/// The module `NAME` (PTX, spec) and the launcher fn `NAME`.
fn public_surface(
    item: &syn::ItemFn,
    kernel: &ast::Kernel,
    writes: &[bool],
    ptx: Option<&str>,
) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let entry = kernel_name(name);
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let [gx, gy, gz] = kernel.launch.grid;
    let [bx, by, bz] = kernel.launch.block;
    let arch = kernel.target.to_string();

    let mut specs = Vec::new();
    let mut inputs = Vec::new();
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
            ParamType::Tensor { dtype, dims } => {
                let elem = element_type(*dtype);
                let dtype = dtype_path(*dtype);
                let dims: Vec<usize> = dims.iter().map(|d| d.value as usize).collect();
                let access = if written { quote!(Write) } else { quote!(Read) };
                specs.push(quote! {
                    ::tile_kernel::__private::ParamSpec {
                        name: #pname,
                        kind: ::tile_kernel::__private::ParamKind::Tensor {
                            dtype: #dtype,
                            shape: &[#(#dims),*],
                            access: ::tile_kernel::__private::Access::#access,
                        },
                    }
                });
                if written {
                    inputs.push(
                        quote_spanned!(span=> #ident: &mut ::tile_kernel::DeviceTensor<#elem>),
                    );
                    pushes.push(quote!(.tensor_mut(#ident)?));
                } else {
                    inputs.push(quote_spanned!(span=> #ident: &::tile_kernel::DeviceTensor<#elem>));
                    pushes.push(quote!(.tensor(#ident)?));
                }
            }
            ParamType::Unparsed => {
                // The type was reported as an error: accept anything so
                // callers get no follow-up type errors.
                inputs.push(quote_spanned!(span=> #ident: impl ::core::marker::Sized));
            }
            ParamType::Scalar(dtype) => {
                let elem = if *dtype == DType::Bool {
                    quote!(bool)
                } else {
                    element_type(*dtype)
                };
                let dtype = dtype_path(*dtype);
                specs.push(quote! {
                    ::tile_kernel::__private::ParamSpec {
                        name: #pname,
                        kind: ::tile_kernel::__private::ParamKind::Scalar { dtype: #dtype },
                    }
                });
                inputs.push(quote_spanned!(span=> #ident: #elem));
                pushes.push(quote!(.scalar(&#ident)?));
            }
        }
    }
    // Without PTX (the kernel has errors) the launcher keeps its signature
    // but never runs: `compile_error!` already stops the build.
    let body = match ptx {
        Some(_) => quote!(#name::KERNEL.launch(device)? #(#pushes)* .run()),
        None => {
            let idents = kernel.params.iter().map(|p| rust_ident(&p.name));
            quote! {
                let _ = (device, #(#idents),*);
                ::core::unreachable!("this tile kernel failed to compile")
            }
        }
    };
    let ptx = ptx.unwrap_or_default();
    let launch_doc = format!(
        "Launches the `{entry}` tile kernel on `device`'s stream (grid [{gx}, {gy}, {gz}], block [{bx}, {by}, {bz}], {arch}).\n\n\
         Checks every tensor's shape and device first; loads the module once per CUDA context. \
         The PTX text is [`{entry}::PTX`](mod@{entry})."
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
            /// The compiled kernel: spec plus per-context module cache.
            pub static KERNEL: ::tile_kernel::__private::Kernel =
                ::tile_kernel::__private::Kernel::new(::tile_kernel::__private::KernelSpec {
                    name: #entry,
                    ptx: PTX,
                    grid: [#gx, #gy, #gz],
                    block: [#bx, #by, #bz],
                    shared_mem_bytes: 0,
                    params: &[#(#specs),*],
                });
        }

        #(#docs)*
        #[doc = #launch_doc]
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis fn #name(device: &::tile_kernel::Device, #(#inputs),*) -> ::core::result::Result<(), ::tile_kernel::Error> {
            #body
        }
    }
}
