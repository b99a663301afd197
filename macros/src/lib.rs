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
//! - `fast_parse`: the common statements' syn syntax trees without syn's
//!   parser (the same trees; anything else is left to syn).
//! - `spans`: lowering's span ids -> real spans for `compile_error!`, and
//!   the macro's own errors, each tagged with its catalogue code
//!   (`tile_kernel_lowering::diag::Code`, `docs/errors.md`).
//! - `expand`: the generated items (also on error, so callers type-check).
//!
//! All semantics live in `tile-kernel-lowering`; this crate only converts.

#![forbid(unsafe_code)]

mod attr;
mod expand;
mod fast_parse;
mod functions;
#[cfg(test)]
mod macro_kernels;
mod parse;
#[cfg(test)]
mod pass_cases;
mod scalar_fn;
mod spans;

use proc_macro::TokenStream;

/// Compiles a tile-language function to PTX at build time and replaces it by
/// a safe launcher `fn NAME(device, tensors.., scalars..)` plus a module
/// `NAME` holding `PTX` and the kernel spec. See the `tile-kernel` crate docs.
#[proc_macro_attribute]
pub fn tile_kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tile_kernel(args.into(), item.into()).into()
}

/// Makes a kernel function (`fn name(t: Tile, n: usize) { .. }`) or a
/// scalar function (`fn name(x: f32) -> f32 { .. }`) usable by every
/// `#[tile_kernel]` after it: a kernel that calls it gets its definition,
/// checked where it is inlined. See `docs/language.md`.
#[proc_macro_attribute]
pub fn function(args: TokenStream, item: TokenStream) -> TokenStream {
    spans::point_to_catalogue(functions::function(args.into(), item.into())).into()
}

#[cfg(test)]
mod tests {
    //! Every error the expansion emits is a `compile_error!` whose message
    //! starts with a registered catalogue code, for hand-picked inputs and
    //! for a seed kernel with each token deleted in turn.

    use proc_macro2::{TokenStream, TokenTree};
    use tile_kernel_lowering::diag::Code;

    /// The messages of every `compile_error!` in `stream`.
    fn compile_errors(stream: TokenStream, out: &mut Vec<String>) {
        let trees: Vec<TokenTree> = stream.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(ident) if ident == "compile_error" => {
                    if let Some(TokenTree::Group(group)) = trees.get(i + 2)
                        && let Ok(text) = syn::parse2::<syn::LitStr>(group.stream())
                    {
                        out.push(text.value());
                    }
                }
                TokenTree::Group(group) => compile_errors(group.stream(), out),
                _ => {}
            }
        }
    }

    fn assert_coded(args: &str, item: &str) -> Vec<String> {
        let (Ok(args), Ok(tokens)) = (args.parse::<TokenStream>(), item.parse::<TokenStream>())
        else {
            return Vec::new();
        };
        let mut messages = Vec::new();
        compile_errors(crate::expand::tile_kernel(args, tokens), &mut messages);
        for message in &messages {
            let code = message
                .strip_prefix("TK")
                .and_then(|rest| rest.get(..4))
                .and_then(|digits| digits.parse::<u16>().ok())
                .and_then(Code::from_number);
            assert!(
                code.is_some() && message.get(6..8) == Some(": "),
                "error without a registered code for `{item}`: {message}"
            );
        }
        messages
    }

    #[test]
    fn odd_inputs_give_coded_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "fn k() {}"),
            ("grid = 1", "fn k() {}"),
            ("grid = 1 block = 1", "fn k() {}"),
            ("grid = 1, block = 1, block = 2, threads = 3", "fn k() {}"),
            ("grid(1), block = [1, 2, 3, 4], arch = 90", "fn k() {}"),
            ("grid = 1, block = 1, arch = \"sm_1\"", "fn k() {}"),
            ("grid = 1, block = 1, crate = \"a b\"", "fn k() {}"),
            ("grid = 1, block = 1", "struct S;"),
            (
                "grid = 1, block = 1",
                "const unsafe extern \"C\" fn k<T>(self, (a, b): u32, device: u8) -> u32 { 0 }",
            ),
            (
                "grid = 1, block = 1",
                "fn k(a: Tensor<usize, {1 / 0}>, b: Tensor<f32>, c: Vec<u8>) { let x: u32 = 1; let y; }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { 'a: for (i, j) in 0.. {} apply(); apply(1); apply(ptx[x]); m!(); struct S; }",
            ),
            (
                "grid = 1, block = 1",
                "fn k() { let t = alloc_local([1]); let u = alloc_local::<f32, u8>(1); let v = alloc_local::<f32>([-1]); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k(a: Tensor<f32, 4>) { apply(ptx[\"mov.b32\"], pred = 1, a, x.y = 1, scope = 1, preserve_dst = p, mask = 1); }",
            ),
            (
                "grid = 1, block = 1",
                "fn k(a: Tensor<f32, 4>) { apply(ptx[\"mov.b32\"], -a, \"s\", 1e999, a.t(), a.slice(1), a.view(), a.reshape(1), a.unsqueeze(), a.slice::<u8>(s![..]), a.slice(s![0;2]), a.slice(s![..=])); }",
            ),
        ];
        let mut total = 0;
        for (args, item) in cases {
            let count = assert_coded(args, item).len();
            assert!(count > 0, "expected errors for `{args}` / `{item}`");
            total += count;
        }
        assert!(total > 30, "only {total} errors");
    }

    #[test]
    fn deleting_any_token_of_a_kernel_gives_coded_errors() {
        const SEED: &str = r#"
            fn k(a: Tensor<f32, N, 2>, out: Tensor<u32, N, 1>, p: bool) {
                let i = cta_id(0) * 64 + thread_id(0);
                let r = alloc_local::<f32>([1, 2]);
                let d = alloc_local::<u32>([1, 1]);
                if i < N {
                    apply(ptx["ld.global.v2.f32"], r, a.slice(s![i..i + 1, ..]));
                    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
                    for k in 0..1 {
                        apply(ptx["st.global.b32"], out.slice(s![i + k..i + k + 1, ..]), d.reshape([1, 1]).view::<u32>(), pred = p);
                    }
                }
            }
        "#;
        // Leaves plus group delimiters, so tokens at any depth can go.
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
                    // `..` and `::` are joint punctuation: no space inside.
                    TokenTree::Punct(punct) if punct.spacing() == proc_macro2::Spacing::Joint => {
                        out.push(format!("{}\u{0}", punct.as_char()));
                    }
                    other => out.push(other.to_string()),
                }
            }
        }
        let join = |tokens: &[String]| tokens.join(" ").replace("\u{0} ", "");
        for seed in [SEED, FUNCTIONS_SEED] {
            let mut tokens = Vec::new();
            leaves(seed.parse().expect("the seed parses"), &mut tokens);
            let args = "grid = ceil_div(N, 64), block = 64";
            assert_eq!(
                assert_coded(args, &join(&tokens)),
                Vec::<String>::new(),
                "the seed compiles"
            );
            let mut errors = 0;
            for i in 0..tokens.len() {
                let mut deleted = tokens.clone();
                deleted.remove(i);
                errors += assert_coded(args, &join(&deleted)).len();
            }
            assert!(errors > tokens.len() / 2, "only {errors} errors");
        }
    }

    /// `ewise` with a closure, a scalar `fn` item, a `let`-bound closure and
    /// a kernel function with its call.
    const FUNCTIONS_SEED: &str = r#"
        fn k(a: Tensor<f32, N, 2>, out: Tensor<f32, N, 2>, s: f32) {
            fn sigmoid(v: f32) -> f32 {
                rcp_approx(1.0 + ex2_approx(-v * 1.4426950408889634))
            }
            fn store(t: Tile<f32>, dst: Tensor<f32>, n: usize) {
                apply(ptx["st.global.v2.f32"], dst.slice(s![n..n + 1, ..]), t);
            }
            let scaled = |v: f32| if v > 0.0 { v * s } else { (v as f64 * 0.5) as f32 };
            let i = cta_id(0) * 64 + thread_id(0);
            let r = alloc_local::<f32>([1, 2]);
            if i < N {
                apply(ptx["ld.global.v2.f32"], r, a.slice(s![i..i + 1, ..]));
                ewise(|v: f32, w: f32| fma(v, w, sigmoid(v)), r, r, 2.0);
                ewise(scaled, r, r);
                store(r, out, i);
            }
        }
    "#;
}
