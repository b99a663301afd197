//! `#[tile_kernel(grid = .., block = .., arch = "..")]` arguments (darling).

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use syn::{Expr, ExprArray, ExprLit, Lit, LitStr};
use tile_kernel_lowering::diag::Code;

use crate::spans;

/// The attribute's arguments. Unknown keys are errors (darling's default).
#[derive(Debug, FromMeta)]
pub struct KernelArgs {
    /// Optional here only so a missing one gets our own message (see [`parse`]).
    pub grid: Option<GridExprs>,
    pub block: Option<Extent3>,
    /// `cluster = [x, y, z]`: the CTAs of one thread-block cluster (sm_90).
    pub cluster: Option<ClusterExtent>,
    pub arch: Option<LitStr>,
    /// `crate = "path"`: where the generated code finds `tile_kernel`, for
    /// use through a re-export (default `::tile_kernel`).
    #[darling(rename = "crate")]
    pub krate: Option<LitStr>,
    /// `fallback = "scalar"`: also compile the kernel's scalar twin, which
    /// the launcher runs when the vector accesses' alignment requirement
    /// fails (`tile_kernel_lowering::variants`).
    pub fallback: Option<LitStr>,
}

/// `ceil_div(N, 256)` or `[x, y]` or `[x, y, z]`: grid extents are
/// expressions over size symbols (checked by lowering); missing trailing
/// extents are 1.
#[derive(Debug, Clone)]
pub struct GridExprs(pub Vec<Expr>);

impl FromMeta for GridExprs {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let expr = unwrapped(expr);
        match expr {
            Expr::Array(ExprArray { elems, .. }) if (1..=3).contains(&elems.len()) => {
                Ok(GridExprs(elems.iter().cloned().collect()))
            }
            Expr::Array(other) => Err(darling::Error::custom(
                Code::LAUNCH_EXTENT_SYNTAX.tag("expected 1 to 3 grid extents, like `[64, 2]`"),
            )
            .with_span(other)),
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => {
                extent(int)?;
                Ok(GridExprs(vec![expr.clone()]))
            }
            other => Ok(GridExprs(vec![other.clone()])),
        }
    }
}

/// `1` or `[x, y]` or `[x, y, z]`; missing trailing extents are 1.
#[derive(Debug, Clone, Copy)]
pub struct Extent3(pub [u32; 3]);

/// `expr` without the invisible groups `macro_rules!` fragments arrive in
/// (`$n:literal`, `$e:expr`).
fn unwrapped(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => unwrapped(&group.expr),
        other => other,
    }
}

impl FromMeta for Extent3 {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match unwrapped(expr) {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => Ok(Extent3([extent(int)?, 1, 1])),
            Expr::Array(ExprArray { elems, .. }) if (1..=3).contains(&elems.len()) => {
                let mut out = [1u32; 3];
                for (slot, elem) in out.iter_mut().zip(elems) {
                    match unwrapped(elem) {
                        Expr::Lit(ExprLit {
                            lit: Lit::Int(int), ..
                        }) => *slot = extent(int)?,
                        other => {
                            return Err(darling::Error::custom(
                                Code::LAUNCH_EXTENT_SYNTAX.tag("expected an integer extent"),
                            )
                            .with_span(other));
                        }
                    }
                }
                Ok(Extent3(out))
            }
            other => Err(darling::Error::custom(Code::LAUNCH_EXTENT_SYNTAX.tag(
                "expected an integer or an array of 1 to 3 integers, like `256` or `[32, 4, 1]`",
            ))
            .with_span(other)),
        }
    }
}

/// `cluster = 2` or `[2, 1, 1]`: [`Extent3`] and where it is written.
#[derive(Debug, Clone)]
pub struct ClusterExtent(pub [u32; 3], pub Expr);

impl FromMeta for ClusterExtent {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(ClusterExtent(Extent3::from_expr(expr)?.0, expr.clone()))
    }
}

fn extent(int: &syn::LitInt) -> darling::Result<u32> {
    int.base10_parse::<u32>().map_err(|_| {
        darling::Error::custom(Code::LAUNCH_EXTENT_SYNTAX.tag("extent must fit in u32"))
            .with_span(int)
    })
}

/// Parses the arguments; `grid` and `block` are required.
pub fn parse(tokens: TokenStream) -> Result<KernelArgs, syn::Error> {
    let metas = NestedMeta::parse_meta_list(tokens.clone())
        .map_err(|e| spans::coded(Code::ATTRIBUTE_SYNTAX, e))?;
    let args = KernelArgs::from_list(&metas).map_err(darling_error)?;
    let missing: Vec<&str> = [
        ("grid", args.grid.is_none()),
        ("block", args.block.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, absent)| absent.then_some(name))
    .collect();
    if !missing.is_empty() {
        let message = format!(
            "#[tile_kernel] needs {}: the launch size in blocks and threads per block, like `#[tile_kernel(grid = 1, block = 256)]` or `block = [32, 4, 1]`",
            missing
                .iter()
                .map(|m| format!("`{m} = ..`"))
                .collect::<Vec<_>>()
                .join(" and ")
        );
        // Without arguments there is no token to point at but the
        // attribute itself (the code is documented as call-site).
        return Err(if tokens.is_empty() {
            syn::Error::new(
                proc_macro2::Span::call_site(),
                Code::MISSING_LAUNCH_SHAPE.tag(message),
            )
        } else {
            spans::error(Code::MISSING_LAUNCH_SHAPE, &tokens, message)
        });
    }
    Ok(args)
}

/// darling's errors, each tagged with its code: ours already carry one;
/// darling's own are told apart by their text (its error kinds are private).
fn darling_error(error: darling::Error) -> syn::Error {
    spans::retag(syn::Error::from(error), |text| {
        if text.starts_with("Unknown field") {
            Code::UNKNOWN_ATTRIBUTE.tag(text)
        } else if text.starts_with("Duplicate field") {
            Code::DUPLICATE_ATTRIBUTE.tag(text)
        } else {
            // darling says only "Unexpected type `int`": name the legal kinds.
            Code::ATTRIBUTE_VALUE_KIND.tag(format!(
                "{text}\n  = help: write `key = value`: `grid = ceil_div(N, 256)` or `grid = [x, y, z]`, \
                 `block = 256` or `block = [32, 4, 1]`, `cluster = [2, 1, 1]`, `arch = \"sm_90\"`, `crate = \"my_engine::tile_kernel\"`"
            ))
        }
    })
}
