//! Maps lowering's opaque [`SpanId`]s back to real token spans, and builds
//! the macro's own errors: every error carries its catalogue [`Code`] at the
//! start of its message (`TK0013: ..`) and is spanned at the offending
//! tokens, so it reaches the user (and rust-analyzer) as a spanned
//! `compile_error!`.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use tile_kernel_lowering::SpanId;
use tile_kernel_lowering::diag::Code;

/// Every source node that a diagnostic may point at, by id.
#[derive(Default)]
pub struct SpanTable {
    nodes: Vec<TokenStream>,
}

impl SpanTable {
    /// The span of the first token of a recorded node.
    pub fn first_span(&self, id: SpanId) -> proc_macro2::Span {
        self.nodes
            .get(id.0 as usize)
            .and_then(|tokens| tokens.clone().into_iter().next())
            .map_or_else(proc_macro2::Span::call_site, |tree| tree.span())
    }

    /// Records a node; errors at the returned id underline all of its tokens.
    pub fn id(&mut self, node: &impl ToTokens) -> SpanId {
        self.nodes.push(written_extent(node.to_token_stream()));
        SpanId(self.nodes.len() as u32 - 1)
    }

    /// A spanned error at a recorded node; `message` already starts with
    /// its code (lowering's [`Diagnostic::rendered`]).
    ///
    /// [`Diagnostic::rendered`]: tile_kernel_lowering::Diagnostic::rendered
    pub fn error(&self, id: SpanId, message: impl std::fmt::Display) -> syn::Error {
        match self.nodes.get(id.0 as usize) {
            Some(tokens) => syn::Error::new_spanned(tokens, message),
            None => syn::Error::new(proc_macro2::Span::call_site(), message),
        }
    }
}

/// An error with catalogue code `code`, underlining all tokens of `node`.
pub fn error(code: Code, node: &impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(written_extent(node.to_token_stream()), code.tag(message))
}

/// A node's tokens without a final `;`: an error spans from the first to the
/// last token, and a statement's `;` may be one an editor inserted to repair
/// the input (rust-analyzer ends an unfinished `let` with one, and drops
/// every output token carrying its span, which would leave a
/// `compile_error!` without its message).
fn written_extent(tokens: TokenStream) -> TokenStream {
    let mut trees: Vec<TokenTree> = tokens.into_iter().collect();
    while trees.len() > 1 && matches!(trees.last(), Some(TokenTree::Punct(p)) if p.as_char() == ';')
    {
        trees.pop();
    }
    trees.into_iter().collect()
}

/// Tags every message of an error that came from elsewhere (a syn parse
/// error) with `code`, keeping each message's span.
pub fn coded(code: Code, error: syn::Error) -> syn::Error {
    retag(error, |text| code.tag(text))
}

/// Rewrites each message of `error` that has no code yet with `tag`, which
/// must start it with a code (`Code::tag`).
pub fn retag(error: syn::Error, tag: impl Fn(&str) -> String) -> syn::Error {
    let whole = error.clone();
    let mut out: Option<syn::Error> = None;
    for part in error {
        let text = part.to_string();
        let part = if has_code(&text) {
            part
        } else {
            syn::Error::new(part.span(), tag(&text))
        };
        match &mut out {
            Some(all) => all.combine(part),
            None => out = Some(part),
        }
    }
    // A syn::Error always holds at least one message.
    out.unwrap_or(whole)
}

/// Whether a message already starts with `TKnnnn: `.
fn has_code(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 8
        && text.starts_with("TK")
        && bytes[2..6].iter().all(u8::is_ascii_digit)
        && text[6..].starts_with(": ")
}

/// Ends the message of every top-level `compile_error!` in `expansion`
/// that starts with a code by a line naming where that code is explained:
/// the rustdoc module `tile_kernel::errors` (generated from
/// `docs/errors.md`), which has one anchor per code. Spans are kept.
pub fn point_to_catalogue(expansion: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = expansion.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (i, tree) in trees.iter().enumerate() {
        let after_macro = i >= 2
            && matches!(&trees[i - 2], TokenTree::Ident(name) if name == "compile_error")
            && matches!(&trees[i - 1], TokenTree::Punct(bang) if bang.as_char() == '!');
        match tree {
            TokenTree::Group(group) if after_macro => {
                let inner: TokenStream = group
                    .stream()
                    .into_iter()
                    .map(|tree| match tree {
                        TokenTree::Literal(literal) => TokenTree::Literal(with_pointer(literal)),
                        other => other,
                    })
                    .collect();
                let mut pointed = proc_macro2::Group::new(group.delimiter(), inner);
                pointed.set_span(group.span());
                out.push(TokenTree::Group(pointed));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// A message literal followed by its catalogue line, at the same span.
fn with_pointer(literal: proc_macro2::Literal) -> proc_macro2::Literal {
    let Ok(text) = syn::parse2::<syn::LitStr>(TokenTree::Literal(literal.clone()).into()) else {
        return literal;
    };
    let text = text.value();
    if !has_code(&text) {
        return literal;
    }
    let anchor = text[..6].to_ascii_lowercase();
    let mut pointed = proc_macro2::Literal::string(&format!(
        "{text}\n  = note: explained at tile_kernel::errors#{anchor}"
    ));
    pointed.set_span(literal.span());
    pointed
}
