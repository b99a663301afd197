//! The `#[tile_kernel]` attribute.
//!
//! ```text
//! Rust tokens --parse--> lowering::ast --lowering::compile--> PTX + diagnostics
//!                                                                  |
//!              launcher fn + PTX const + spec  <--expand-----------+
//! ```
//!
//! - `attr`: the attribute's arguments (darling).
//! - `parse`: syn syntax -> `tile_kernel_lowering::ast`, collecting errors.
//! - `spans`: lowering's span ids -> real spans for `compile_error!`.
//! - `expand`: the generated items (also on error, so callers type-check).
//!
//! All semantics live in `tile-kernel-lowering`; this crate only converts.

mod attr;
mod expand;
mod parse;
mod spans;

use proc_macro::TokenStream;

/// Compiles a tile-language function to PTX at build time and replaces it by
/// a safe launcher `fn NAME(device, tensors.., scalars..)` plus a module
/// `NAME` holding `PTX` and the kernel spec. See the `tile-kernel` crate docs.
#[proc_macro_attribute]
pub fn tile_kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tile_kernel(args.into(), item.into()).into()
}
