//! Maps lowering's opaque [`SpanId`]s back to real token spans.

use proc_macro2::TokenStream;
use quote::ToTokens;
use tile_kernel_lowering::SpanId;

/// Every source node that a diagnostic may point at, by id.
#[derive(Default)]
pub struct SpanTable {
    nodes: Vec<TokenStream>,
}

impl SpanTable {
    /// Records a node; errors at the returned id underline all of its tokens.
    pub fn id(&mut self, node: &impl ToTokens) -> SpanId {
        self.nodes.push(node.to_token_stream());
        SpanId(self.nodes.len() as u32 - 1)
    }

    /// A spanned error at a recorded node.
    pub fn error(&self, id: SpanId, message: impl std::fmt::Display) -> syn::Error {
        match self.nodes.get(id.0 as usize) {
            Some(tokens) => syn::Error::new_spanned(tokens, message),
            None => syn::Error::new(proc_macro2::Span::call_site(), message),
        }
    }
}
