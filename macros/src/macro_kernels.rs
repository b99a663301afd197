//! The kernels a `macro_rules!` of a shipped file generates, for the
//! expansion benchmark (`pass_cases::expansion_times`): their tokens only
//! exist after macro expansion, so the file scan of `pass_cases` does not
//! see them (`examples/gemm_sm80.rs`, `scale_rows_async.rs`'s rings, the
//! softmax, norm and quantize examples, `tests/tensor_cores.rs`).
//!
//! A small `macro_rules!` expander, enough for the shipped definitions:
//! every arm is tried in order; a matcher is literal tokens, delimited
//! groups and `$name:fragment`s, with `$( .. ) sep? *|+|?` repetitions;
//! `ident`, `lifetime` and `tt` fragments are one token tree (a `literal`
//! one, or two with a leading `-`), the others run to the next token the
//! pattern expects. As in rustc, a fragment other than `ident`,
//! `lifetime` and `tt` is substituted in an invisible (`None`-delimited)
//! group. Invocations are found as items (at the top level, in inline
//! modules, in fn bodies) and their expansions searched again (nested
//! macros), each kernel found by `pass_cases::collect`.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// One arm: its matcher and its transcriber.
type Arm = (Vec<TokenTree>, TokenStream);

/// What a metavariable matched.
#[derive(Debug, Clone)]
enum Binding {
    One(TokenStream),
    Seq(Vec<Binding>),
}

/// Every `macro_rules!` definition among `items` and below (by name).
fn definitions(items: &[syn::Item], out: &mut HashMap<String, Vec<Arm>>) {
    for item in items {
        match item {
            syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                if let Some(ident) = &m.ident {
                    out.insert(ident.to_string(), arms(m.mac.tokens.clone()));
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    definitions(items, out);
                }
            }
            syn::Item::Fn(f) => definitions(&fn_items(f), out),
            _ => {}
        }
    }
}

/// The items of a fn body (statement macros as item macros).
fn fn_items(f: &syn::ItemFn) -> Vec<syn::Item> {
    f.block
        .stmts
        .iter()
        .filter_map(|s| match s {
            syn::Stmt::Item(i) => Some(i.clone()),
            syn::Stmt::Macro(m) => Some(syn::Item::Macro(syn::ItemMacro {
                attrs: m.attrs.clone(),
                ident: None,
                mac: m.mac.clone(),
                semi_token: m.semi_token,
            })),
            _ => None,
        })
        .collect()
}

/// `(matcher) => {transcriber};` ..
fn arms(tokens: TokenStream) -> Vec<Arm> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut arms = Vec::new();
    let mut i = 0;
    while i + 3 < trees.len() + 1 {
        let (TokenTree::Group(matcher), Some(TokenTree::Punct(eq)), Some(TokenTree::Punct(gt))) =
            (&trees[i], trees.get(i + 1), trees.get(i + 2))
        else {
            break;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            break;
        }
        let Some(TokenTree::Group(body)) = trees.get(i + 3) else {
            break;
        };
        arms.push((matcher.stream().into_iter().collect(), body.stream()));
        i += 4;
        if matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    arms
}

/// A pattern element.
enum Pattern<'a> {
    Token(&'a TokenTree),
    Group(Delimiter, Vec<TokenTree>),
    Var(String, String),
    Repeat(Vec<TokenTree>, Option<char>, char),
}

/// The matcher's elements, from `trees[i..]`: the element and the index
/// after it.
fn element(trees: &[TokenTree], i: usize) -> (Pattern<'_>, usize) {
    match &trees[i] {
        TokenTree::Punct(p) if p.as_char() == '$' => match (trees.get(i + 1), trees.get(i + 2)) {
            (Some(TokenTree::Ident(name)), Some(TokenTree::Punct(colon)))
                if colon.as_char() == ':' =>
            {
                let kind = trees
                    .get(i + 3)
                    .map(ToString::to_string)
                    .unwrap_or_default();
                (Pattern::Var(name.to_string(), kind), i + 4)
            }
            (Some(TokenTree::Group(g)), _) if g.delimiter() == Delimiter::Parenthesis => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let op = |t: Option<&TokenTree>| match t {
                    Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?') => {
                        Some(p.as_char())
                    }
                    _ => None,
                };
                if let Some(kind) = op(trees.get(i + 2)) {
                    (Pattern::Repeat(inner, None, kind), i + 3)
                } else {
                    let sep = match trees.get(i + 2) {
                        Some(TokenTree::Punct(p)) => Some(p.as_char()),
                        _ => None,
                    };
                    let kind = op(trees.get(i + 3)).unwrap_or('*');
                    (Pattern::Repeat(inner, sep, kind), i + 4)
                }
            }
            _ => (Pattern::Token(&trees[i]), i + 1),
        },
        TokenTree::Group(g) => (
            Pattern::Group(g.delimiter(), g.stream().into_iter().collect()),
            i + 1,
        ),
        tree => (Pattern::Token(tree), i + 1),
    }
}

fn same_token(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == b.as_char(),
        (TokenTree::Literal(a), TokenTree::Literal(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// Whether input tree `tree` can begin what `pattern[i..]` expects next
/// (the end of a greedy fragment).
fn stops(pattern: &[TokenTree], i: usize, tree: &TokenTree) -> bool {
    match pattern.get(i) {
        Some(TokenTree::Punct(p)) if p.as_char() == '$' => false,
        Some(TokenTree::Group(g)) => {
            matches!(tree, TokenTree::Group(t) if t.delimiter() == g.delimiter())
        }
        Some(expected) => same_token(expected, tree),
        None => false,
    }
}

/// Matches all of `input` against all of `pattern`.
fn matches(pattern: &[TokenTree], input: &[TokenTree], out: &mut HashMap<String, Binding>) -> bool {
    match match_prefix(pattern, input, out) {
        Some(used) => used == input.len(),
        None => false,
    }
}

/// Matches `pattern` against a prefix of `input`: how many trees it used.
fn match_prefix(
    pattern: &[TokenTree],
    input: &[TokenTree],
    out: &mut HashMap<String, Binding>,
) -> Option<usize> {
    let (mut i, mut at) = (0, 0);
    while i < pattern.len() {
        let (element, next) = element(pattern, i);
        match element {
            Pattern::Token(expected) => {
                if !same_token(expected, input.get(at)?) {
                    return None;
                }
                at += 1;
            }
            Pattern::Group(delimiter, inner) => {
                let TokenTree::Group(g) = input.get(at)? else {
                    return None;
                };
                let trees: Vec<TokenTree> = g.stream().into_iter().collect();
                if g.delimiter() != delimiter || !matches(&inner, &trees, out) {
                    return None;
                }
                at += 1;
            }
            Pattern::Var(name, kind) => {
                let taken = match kind.as_str() {
                    "ident" | "tt" => 1,
                    "lifetime" => 2,
                    "literal" => match input.get(at)? {
                        TokenTree::Punct(p) if p.as_char() == '-' => 2,
                        _ => 1,
                    },
                    _ => {
                        let mut n = 0;
                        while at + n < input.len() && !stops(pattern, next, &input[at + n]) {
                            n += 1;
                        }
                        n
                    }
                };
                if taken == 0 || at + taken > input.len() {
                    return None;
                }
                let tokens: TokenStream = input[at..at + taken].iter().cloned().collect();
                let tokens = if matches!(kind.as_str(), "ident" | "tt" | "lifetime") {
                    tokens
                } else {
                    TokenTree::Group(Group::new(Delimiter::None, tokens)).into()
                };
                out.insert(name, Binding::One(tokens));
                at += taken;
            }
            Pattern::Repeat(inner, sep, kind) => {
                let mut rounds: Vec<HashMap<String, Binding>> = Vec::new();
                loop {
                    let mut start = at;
                    if !rounds.is_empty()
                        && let Some(sep) = sep
                    {
                        match input.get(start) {
                            Some(TokenTree::Punct(p)) if p.as_char() == sep => start += 1,
                            _ => break,
                        }
                    }
                    let mut round = HashMap::new();
                    match match_prefix(&inner, &input[start.min(input.len())..], &mut round) {
                        Some(used) if used > 0 => {
                            rounds.push(round);
                            at = start + used;
                        }
                        _ => break,
                    }
                    if kind == '?' {
                        break;
                    }
                }
                if kind == '+' && rounds.is_empty() {
                    return None;
                }
                let mut names: Vec<String> = Vec::new();
                vars(&inner, &mut names);
                for name in names {
                    let seq = rounds
                        .iter()
                        .map(|r| r.get(&name).cloned().unwrap_or(Binding::Seq(Vec::new())))
                        .collect();
                    out.insert(name, Binding::Seq(seq));
                }
            }
        }
        i = next;
    }
    Some(at)
}

/// The metavariables `$name` a pattern or transcriber names.
fn vars(trees: &[TokenTree], out: &mut Vec<String>) {
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '$' => {
                if let Some(TokenTree::Ident(name)) = trees.get(i + 1)
                    && !out.contains(&name.to_string())
                {
                    out.push(name.to_string());
                }
            }
            TokenTree::Group(g) => vars(&g.stream().into_iter().collect::<Vec<_>>(), out),
            _ => {}
        }
    }
}

/// The transcriber with the bindings substituted.
fn transcribe(body: TokenStream, bindings: &HashMap<String, Binding>) -> Option<TokenStream> {
    let trees: Vec<TokenTree> = body.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Punct(p) if p.as_char() == '$' => match trees.get(i + 1) {
                Some(TokenTree::Ident(name)) if name == "crate" => {
                    out.extend([trees[i + 1].clone()]);
                    i += 2;
                }
                Some(TokenTree::Ident(name)) => match bindings.get(&name.to_string())? {
                    Binding::One(tokens) => {
                        out.extend(tokens.clone());
                        i += 2;
                    }
                    Binding::Seq(_) => return None,
                },
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    let (sep, skip) = match (trees.get(i + 2), trees.get(i + 3)) {
                        (Some(TokenTree::Punct(op)), _)
                            if matches!(op.as_char(), '*' | '+' | '?') =>
                        {
                            (None, 3)
                        }
                        (Some(sep), Some(TokenTree::Punct(op)))
                            if matches!(op.as_char(), '*' | '+' | '?') =>
                        {
                            (Some(sep.clone()), 4)
                        }
                        _ => return None,
                    };
                    let mut names = Vec::new();
                    vars(&g.stream().into_iter().collect::<Vec<_>>(), &mut names);
                    let rounds = names
                        .iter()
                        .filter_map(|n| match bindings.get(n) {
                            Some(Binding::Seq(seq)) => Some(seq.len()),
                            _ => None,
                        })
                        .max()?;
                    for round in 0..rounds {
                        let mut inner = bindings.clone();
                        for name in &names {
                            if let Some(Binding::Seq(seq)) = bindings.get(name) {
                                inner.insert(name.clone(), seq.get(round)?.clone());
                            }
                        }
                        if round > 0
                            && let Some(sep) = &sep
                        {
                            out.extend([sep.clone()]);
                        }
                        out.extend(transcribe(g.stream(), &inner)?);
                    }
                    i += skip;
                }
                _ => {
                    out.extend([trees[i].clone()]);
                    i += 1;
                }
            },
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), transcribe(g.stream(), bindings)?);
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
                i += 1;
            }
            tree => {
                out.extend([tree.clone()]);
                i += 1;
            }
        }
    }
    Some(out)
}

/// The expansion of `name!(tokens)` by the first arm that matches.
fn expand(arms: &[Arm], tokens: TokenStream) -> Option<TokenStream> {
    let input: Vec<TokenTree> = tokens.into_iter().collect();
    arms.iter().find_map(|(matcher, body)| {
        let mut bindings = HashMap::new();
        matches(matcher, &input, &mut bindings)
            .then(|| transcribe(body.clone(), &bindings))
            .flatten()
    })
}

/// The invocations of the definitions among `items` and below, expanded
/// (and their expansions' invocations, to `depth`), kernels collected.
fn invocations(
    file: &str,
    items: &[syn::Item],
    defs: &HashMap<String, Vec<Arm>>,
    depth: u32,
    out: &mut Vec<super::pass_cases::Kernel>,
) {
    for item in items {
        match item {
            syn::Item::Macro(m) if !m.mac.path.is_ident("macro_rules") => {
                let Some(arms) = m
                    .mac
                    .path
                    .get_ident()
                    .and_then(|i| defs.get(&i.to_string()))
                else {
                    continue;
                };
                let Some(expansion) = expand(arms, m.mac.tokens.clone()) else {
                    continue;
                };
                let Ok(expanded) = syn::parse2::<syn::File>(expansion) else {
                    continue;
                };
                super::pass_cases::collect(file, &expanded.items, out);
                if depth > 0 {
                    invocations(file, &expanded.items, defs, depth - 1, out);
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    invocations(file, items, defs, depth, out);
                }
            }
            syn::Item::Fn(f) => invocations(file, &fn_items(f), defs, depth, out),
            _ => {}
        }
    }
}

/// The kernels the `macro_rules!` definitions of `items` generate where
/// the same items invoke them.
pub(crate) fn generated(file: &str, items: &[syn::Item]) -> Vec<super::pass_cases::Kernel> {
    let mut defs = HashMap::new();
    definitions(items, &mut defs);
    let mut out = Vec::new();
    if !defs.is_empty() {
        invocations(file, items, &defs, 4, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn expand_text(def: TokenStream, call: TokenStream) -> String {
        let arms = arms(def);
        expand(&arms, call).expect("an arm matches").to_string()
    }

    #[test]
    fn fragments_and_repetitions_expand() {
        let def = quote! {
            ($name:ident, n = $n:tt, e = $e:expr) => { fn $name() { let x = $n * $e; } };
        };
        let text = expand_text(def, quote! { f, n = 4, e = a + b });
        // `expr` is an invisible group (printed without delimiters).
        assert_eq!(text, "fn f () { let x = 4 * a + b ; }");
        let def = quote! {
            ($($name:ident: $op:literal;)*) => { $(k!($name, $op);)* };
        };
        let text = expand_text(def, quote! { a: "x"; b: "y"; });
        assert_eq!(text, "k ! (a , \"x\") ; k ! (b , \"y\") ;");
        // The first matching arm wins; a mismatch tries the next.
        let def = quote! {
            (one $x:tt) => { 1 };
            ($x:tt) => { 2 };
        };
        assert_eq!(expand_text(def.clone(), quote! { one 5 }), "1");
        assert_eq!(expand_text(def, quote! { 5 }), "2");
    }

    #[test]
    fn generated_kernels_are_found() {
        let file: syn::File = syn::parse_quote! {
            macro_rules! kernel {
                ($name:ident, n = $n:literal) => {
                    #[tile_kernel(grid = 1, block = $n)]
                    fn $name(x: Tensor<f32, 4>) {}
                };
            }
            kernel!(first, n = 32);
            fn host() {
                kernel!(second, n = 64);
            }
        };
        let names: Vec<String> = generated("f.rs", &file.items)
            .into_iter()
            .map(|k| k.name)
            .collect();
        assert_eq!(names, ["first", "second"]);
    }
}
