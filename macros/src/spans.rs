//! Maps lowering's opaque [`SpanId`]s back to real token spans, and builds
//! the macro's own errors: every error carries its catalogue [`Code`] at the
//! start of its message (`TK0013: ..`) and is spanned at the offending
//! tokens, so it reaches the user (and rust-analyzer) as a spanned
//! `compile_error!`.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use tile_kernel_lowering::SpanId;
use tile_kernel_lowering::diag::Code;

/// Every source node that a diagnostic may point at, by id: the spans of
/// its first and last written tokens (all that [`syn::Error::new_spanned`]
/// keeps of a node).
#[derive(Default)]
pub struct SpanTable {
    nodes: Vec<Extent>,
}

/// The first and last span of a node's written tokens ([`written_extent`]).
#[derive(Clone, Copy)]
struct Extent {
    first: Span,
    last: Span,
}

impl Extent {
    /// The extent of `tokens` without a final `;` (see [`written_extent`]);
    /// `None` for no tokens.
    fn of(tokens: TokenStream) -> Option<Extent> {
        let (first, last) = ends(
            tokens
                .into_iter()
                .map(|tree| (tree.span(), is_semicolon(&tree))),
        )?;
        Some(Extent { first, last })
    }

    /// An error from the first to the last span, as `new_spanned` of the
    /// node's written tokens makes it.
    fn error(self, message: impl std::fmt::Display) -> syn::Error {
        let [first, last] = [self.first, self.last].map(|span| {
            let mut punct = proc_macro2::Punct::new(';', proc_macro2::Spacing::Alone);
            punct.set_span(span);
            TokenTree::Punct(punct)
        });
        syn::Error::new_spanned(TokenStream::from_iter([first, last]), message)
    }
}

impl SpanTable {
    /// The span of the first token of a recorded node.
    pub fn first_span(&self, id: SpanId) -> proc_macro2::Span {
        self.nodes
            .get(id.0 as usize)
            .map_or_else(Span::call_site, |extent| extent.first)
    }

    /// Records a node; errors at the returned id underline all of its tokens.
    pub fn id<T: ToTokens + 'static>(&mut self, node: &T) -> SpanId {
        // The common nodes' ends come from their syntax tree, without
        // printing the tokens between them.
        let edges = node_edges(node);
        let extent = match edges {
            Some((first, last)) => Some(Extent {
                first: first.span(),
                last: last.span(),
            }),
            None => Extent::of(node.to_token_stream()),
        }
        .unwrap_or(Extent {
            first: Span::call_site(),
            last: Span::call_site(),
        });
        self.nodes.push(extent);
        SpanId(self.nodes.len() as u32 - 1)
    }

    /// A spanned error at a recorded node; `message` already starts with
    /// its code (lowering's [`Diagnostic::rendered`]).
    ///
    /// [`Diagnostic::rendered`]: tile_kernel_lowering::Diagnostic::rendered
    pub fn error(&self, id: SpanId, message: impl std::fmt::Display) -> syn::Error {
        match self.nodes.get(id.0 as usize) {
            Some(extent) => extent.error(message),
            None => syn::Error::new(proc_macro2::Span::call_site(), message),
        }
    }
}

/// The first or the last token of an expression's tokens, read from its
/// syntax tree: an identifier, a literal, or a delimited group (its spans,
/// delimiter and contents). The characters, delimiters and contents say
/// which token an edge is; only the tests read them.
#[cfg_attr(not(test), allow(dead_code))]
enum Edge<'a> {
    Ident(&'a proc_macro2::Ident),
    /// One character of an operator (`..` prints as two).
    Punct(Span, char),
    Lit(&'a syn::Lit),
    Group(
        &'a proc_macro2::extra::DelimSpan,
        proc_macro2::Delimiter,
        &'a dyn ToTokens,
    ),
    /// A keyword token (`let`).
    Keyword(Span, &'static str),
    /// A node that prints as one token (a string literal, a block).
    Whole(Span, &'a dyn ToTokens),
}

impl Edge<'_> {
    /// The span the token has in the expression's printed tokens (a
    /// group's: its whole extent).
    fn span(&self) -> Span {
        match self {
            Edge::Ident(ident) => ident.span(),
            Edge::Punct(span, _) | Edge::Keyword(span, _) | Edge::Whole(span, _) => *span,
            Edge::Lit(lit) => lit.span(),
            Edge::Group(spans, _, _) => spans.join(),
        }
    }
}

/// The first and last tokens of `node`'s printed tokens (without final
/// `;`s, as [`Extent::of`] reads them) for the nodes the parser records
/// most: expressions, identifiers, string literals, name patterns, `let`
/// statements and tensor dims (`None`: print them).
fn node_edges(node: &dyn std::any::Any) -> Option<(Edge<'_>, Edge<'_>)> {
    if let Some(expr) = node.downcast_ref::<syn::Expr>() {
        return Some((first_edge(expr)?, last_edge(expr)?));
    }
    if let Some(ident) = node.downcast_ref::<proc_macro2::Ident>() {
        return Some((Edge::Ident(ident), Edge::Ident(ident)));
    }
    if let Some(lit) = node.downcast_ref::<syn::LitStr>() {
        return Some((Edge::Whole(lit.span(), lit), Edge::Whole(lit.span(), lit)));
    }
    if let Some(pat) = node.downcast_ref::<syn::Pat>() {
        return match pat {
            syn::Pat::Ident(p)
                if p.attrs.is_empty()
                    && p.by_ref.is_none()
                    && p.mutability.is_none()
                    && p.subpat.is_none() =>
            {
                Some((Edge::Ident(&p.ident), Edge::Ident(&p.ident)))
            }
            _ => None,
        };
    }
    if let Some(local) = node.downcast_ref::<syn::Local>() {
        let init = local.init.as_ref()?;
        if !local.attrs.is_empty() || init.diverge.is_some() {
            return None;
        }
        let first = Edge::Keyword(local.let_token.span, "let");
        return Some((first, last_edge(&init.expr)?));
    }
    if let Some(arg) = node.downcast_ref::<syn::GenericArgument>() {
        return match arg {
            syn::GenericArgument::Type(syn::Type::Path(ty))
                if ty.attrs.is_empty() && ty.qself.is_none() =>
            {
                let ident = ty.path.get_ident()?;
                Some((Edge::Ident(ident), Edge::Ident(ident)))
            }
            // A negative literal prints as two tokens.
            syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                attrs,
                lit: lit @ syn::Lit::Int(int),
            })) if attrs.is_empty() && !int.base10_digits().starts_with('-') => {
                Some((Edge::Lit(lit), Edge::Lit(lit)))
            }
            syn::GenericArgument::Const(syn::Expr::Block(block))
                if block.attrs.is_empty() && block.label.is_none() =>
            {
                let span = block.block.brace_token.span.join();
                Some((Edge::Whole(span, block), Edge::Whole(span, block)))
            }
            _ => None,
        };
    }
    None
}

/// Whether `expr` prints without parentheses added around it as the
/// receiver, callee or indexed expression of a larger one (and is one
/// [`first_edge`] reads).
fn unambiguous(expr: &syn::Expr) -> bool {
    matches!(
        expr,
        syn::Expr::Path(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Call(_)
            | syn::Expr::Index(_)
            | syn::Expr::Macro(_)
            | syn::Expr::Paren(_)
    )
}

/// Whether `expr` prints without parentheses as an operand of a binary
/// operator or a range bound: the [`unambiguous`] forms and literals.
fn operand(expr: &syn::Expr) -> bool {
    unambiguous(expr) || matches!(expr, syn::Expr::Lit(l) if l.attrs.is_empty())
}

/// The first token of `expr`'s printed tokens, for the common forms
/// without attributes (`None`: print them).
fn first_edge(expr: &syn::Expr) -> Option<Edge<'_>> {
    use syn::Expr;
    match expr {
        Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => {
            p.path.leading_colon.is_none().then_some(())?;
            Some(Edge::Ident(&p.path.segments.first()?.ident))
        }
        Expr::MethodCall(m) if m.attrs.is_empty() && unambiguous(&m.receiver) => {
            first_edge(&m.receiver)
        }
        Expr::Call(c) if c.attrs.is_empty() && unambiguous(&c.func) => first_edge(&c.func),
        Expr::Index(i) if i.attrs.is_empty() && unambiguous(&i.expr) => first_edge(&i.expr),
        Expr::Macro(m) if m.attrs.is_empty() && m.mac.path.leading_colon.is_none() => {
            Some(Edge::Ident(&m.mac.path.segments.first()?.ident))
        }
        Expr::Paren(p) if p.attrs.is_empty() => Some(Edge::Group(
            &p.paren_token.span,
            proc_macro2::Delimiter::Parenthesis,
            &*p.expr,
        )),
        Expr::Lit(l) if l.attrs.is_empty() => Some(Edge::Lit(&l.lit)),
        Expr::Binary(b) if b.attrs.is_empty() && operand(&b.left) => first_edge(&b.left),
        Expr::Range(r) if r.attrs.is_empty() => match &r.start {
            Some(start) if operand(start) => first_edge(start),
            Some(_) => None,
            None => Some(match &r.limits {
                syn::RangeLimits::HalfOpen(dots) => Edge::Punct(dots.spans[0], '.'),
                syn::RangeLimits::Closed(dots) => Edge::Punct(dots.spans[0], '.'),
            }),
        },
        _ => None,
    }
}

/// The last token of `expr`'s printed tokens, as [`first_edge`].
fn last_edge(expr: &syn::Expr) -> Option<Edge<'_>> {
    use proc_macro2::Delimiter;
    use syn::{Expr, MacroDelimiter};
    match expr {
        Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => {
            let last = p.path.segments.last()?;
            last.arguments.is_none().then_some(())?;
            Some(Edge::Ident(&last.ident))
        }
        Expr::MethodCall(m) if m.attrs.is_empty() => Some(Edge::Group(
            &m.paren_token.span,
            Delimiter::Parenthesis,
            &m.args,
        )),
        Expr::Call(c) if c.attrs.is_empty() => Some(Edge::Group(
            &c.paren_token.span,
            Delimiter::Parenthesis,
            &c.args,
        )),
        Expr::Index(i) if i.attrs.is_empty() => Some(Edge::Group(
            &i.bracket_token.span,
            Delimiter::Bracket,
            &*i.index,
        )),
        Expr::Macro(m) if m.attrs.is_empty() => Some(match &m.mac.delimiter {
            MacroDelimiter::Paren(d) => Edge::Group(&d.span, Delimiter::Parenthesis, &m.mac.tokens),
            MacroDelimiter::Bracket(d) => Edge::Group(&d.span, Delimiter::Bracket, &m.mac.tokens),
            MacroDelimiter::Brace(d) => Edge::Group(&d.span, Delimiter::Brace, &m.mac.tokens),
        }),
        Expr::Paren(p) if p.attrs.is_empty() => Some(Edge::Group(
            &p.paren_token.span,
            Delimiter::Parenthesis,
            &*p.expr,
        )),
        Expr::Lit(l) if l.attrs.is_empty() => Some(Edge::Lit(&l.lit)),
        Expr::Binary(b) if b.attrs.is_empty() && operand(&b.right) => last_edge(&b.right),
        Expr::Range(r) if r.attrs.is_empty() => match &r.end {
            Some(end) if operand(end) => last_edge(end),
            Some(_) => None,
            None => Some(match &r.limits {
                syn::RangeLimits::HalfOpen(dots) => Edge::Punct(dots.spans[1], '.'),
                syn::RangeLimits::Closed(dots) => Edge::Punct(dots.spans[2], '='),
            }),
        },
        _ => None,
    }
}

/// An error with catalogue code `code`, underlining all tokens of `node`.
pub fn error(code: Code, node: &impl ToTokens, message: impl std::fmt::Display) -> syn::Error {
    let message = code.tag(message);
    match Extent::of(node.to_token_stream()) {
        Some(extent) => extent.error(message),
        None => syn::Error::new_spanned(TokenStream::new(), message),
    }
}

/// The first and the last item of a node's tokens (each with whether it
/// is a `;`) once its final `;`s are dropped, the first always kept: the
/// ends of [`written_extent`].
fn ends<T>(items: impl Iterator<Item = (T, bool)>) -> Option<(T, T)>
where
    T: Clone,
{
    let mut out: Option<(T, T)> = None;
    for (item, semicolon) in items {
        match &mut out {
            None => out = Some((item.clone(), item)),
            Some((_, last)) if !semicolon => *last = item,
            Some(_) => {}
        }
    }
    out
}

fn is_semicolon(tree: &TokenTree) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == ';')
}

/// A node's tokens without a final `;`: an error spans from the first to the
/// last token, and a statement's `;` may be one an editor inserted to repair
/// the input (rust-analyzer ends an unfinished `let` with one, and drops
/// every output token carrying its span, which would leave a
/// `compile_error!` without its message). [`Extent::of`] keeps only its
/// first and last spans; the tests compare the two.
#[cfg(test)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An edge as text: what the printed token it stands for prints as.
    fn edge_text(edge: &Edge<'_>) -> String {
        match edge {
            Edge::Ident(ident) => ident.to_string(),
            Edge::Punct(_, c) => c.to_string(),
            Edge::Lit(lit) => lit.to_token_stream().to_string(),
            Edge::Group(_, delimiter, inner) => {
                proc_macro2::Group::new(*delimiter, inner.to_token_stream()).to_string()
            }
            Edge::Keyword(_, word) => word.to_string(),
            Edge::Whole(_, node) => node.to_token_stream().to_string(),
        }
    }

    /// The edges [`node_edges`] reads of the other nodes it knows are the
    /// ends of their written extents too.
    #[test]
    fn node_edges_are_the_printed_ends() {
        use syn::parse::Parser;
        fn check<T: ToTokens + 'static>(node: &T, text: &str) -> bool {
            let written: Vec<String> = written_extent(node.to_token_stream())
                .into_iter()
                .map(|t| t.to_string())
                .collect();
            let expected = written.first().cloned().zip(written.last().cloned());
            match node_edges(node) {
                Some((first, last)) => {
                    assert_eq!(
                        Some((edge_text(&first), edge_text(&last))),
                        expected,
                        "{text}"
                    );
                    true
                }
                None => false,
            }
        }
        let mut fast = 0;
        for text in [
            "let a = b;",
            "let r = alloc_local::<f32>([4, 2]);",
            "let i = cta_id(0) * 64 + thread_id(0);",
            "let v = x.slice(s![i..i + 1]);",
            "let h = r.reshape([4, 2]).slice(s![.., 1..=1]);",
            "let q = i < N;",
            "let s = (a + b);",
            "let t = f(x)[k];",
            "let u = m![a; b];",
            "let w = 1.5;",
            "let x = a..;",
            "let y = ..=n;",
            "let z = a as u32;",
            "let a = b else { return; };",
            "let a: u32 = 1;",
            "let (a, b) = c;",
            "let mut a = b;",
        ] {
            let stmt: syn::Stmt = syn::parse_str(text).expect(text);
            let syn::Stmt::Local(local) = stmt else {
                panic!("{text}");
            };
            fast += usize::from(check(&local, text));
            fast += usize::from(check(&local.pat, text));
        }
        for text in ["a", "r#type", "(a, b)", "mut a", "ref a", "a @ 1..=2", "_"] {
            let pat = syn::Pat::parse_single.parse_str(text).expect(text);
            fast += usize::from(check(&pat, text));
        }
        let ty: syn::Type = syn::parse_str(
            "T<f32, 4, N, {N / 2}, {2 * N + 1}, 'a, Vec<u8>, ::x, -1, K = u8, \"s\", {-3}>",
        )
        .expect("a type");
        let syn::Type::Path(path) = &ty else {
            panic!("a path")
        };
        let syn::PathArguments::AngleBracketed(args) = &path.path.segments[0].arguments else {
            panic!("arguments")
        };
        for arg in &args.args {
            fast += usize::from(check(arg, &arg.to_token_stream().to_string()));
        }
        for text in ["\"ld.global.f32\"", "r\"raw\"", "\"a \\\" b\""] {
            let lit: syn::LitStr = syn::parse_str(text).expect(text);
            fast += usize::from(check(&lit, text));
        }
        let ident: proc_macro2::Ident = syn::parse_str("narrow_pairs").expect("an ident");
        fast += usize::from(check(&ident, "narrow_pairs"));
        assert!(fast >= 34, "{fast}");
    }

    /// The edges read from the syntax tree are the first and last tokens
    /// of the printed expression's written extent (the same token, so the
    /// same span): every form the kernels write, nested in each other, and
    /// those that take the printing path (`None`).
    #[test]
    fn expression_edges_are_the_printed_ends() {
        let leaves = [
            "x",
            "N",
            "7",
            "1.5",
            "\"ld.global.f32\"",
            "ptx[\"st.global.b32\"]",
            "s![.., 0..1]",
            "s![base + k..base + k + 1]",
            "thread_id(0)",
            "(a + b)",
            "f::<u32>(a, b)",
            "T::new",
            "Vec::<u32>::new",
            "::core::f",
            "-1",
            "&x",
            "a * b",
            "0..4",
            "#[cfg(x)] y",
            "<T as Tr>::f",
            "match x { _ => 1 }",
            "0..1",
            "..",
            "a..",
            "..b",
            "0..=3",
            "..=n",
            "base + k..base + k + 1",
            "a + b * c",
            "a * b + c",
            "x..y.z()",
            "a - -b",
            "(a..b)..c",
            "a..(b..c)",
            "x as u32 + 1",
            "a == b && c",
        ];
        let wraps = [
            "{}",
            "{}.slice(s![.., 1..2])",
            "{}.view::<u32>().reshape([1, 4])",
            "{}[k]",
            "({})",
            "f({})",
            "{}(a)",
            "{}.m()",
            "g({}, 2)[0]",
        ];
        let (mut fast, mut printed) = (0, 0);
        for leaf in leaves {
            for outer in wraps {
                for inner in wraps {
                    let text = outer.replace("{}", &inner.replace("{}", leaf));
                    let Ok(expr) = syn::parse_str::<syn::Expr>(&text) else {
                        continue;
                    };
                    let written: Vec<String> = written_extent(expr.to_token_stream())
                        .into_iter()
                        .map(|t| t.to_string())
                        .collect();
                    let expected = written.first().cloned().zip(written.last().cloned());
                    match (first_edge(&expr), last_edge(&expr)) {
                        (Some(first), Some(last)) => {
                            fast += 1;
                            assert_eq!(
                                Some((edge_text(&first), edge_text(&last))),
                                expected,
                                "{text}"
                            );
                        }
                        (first, last) => {
                            printed += 1;
                            // Each edge found alone is still the right one.
                            if let Some(first) = first {
                                assert_eq!(
                                    Some(edge_text(&first)),
                                    written.first().cloned(),
                                    "{text}"
                                );
                            }
                            if let Some(last) = last {
                                assert_eq!(
                                    Some(edge_text(&last)),
                                    written.last().cloned(),
                                    "{text}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(fast > 800 && printed > 50, "{fast} / {printed}");
    }

    /// The ends the span table keeps are the first and last tokens of the
    /// node's written extent, for every sequence of `;` and other tokens.
    #[test]
    fn ends_are_those_of_the_written_extent() {
        for length in 0..7u32 {
            for mask in 0..1u32 << length {
                // Token `i` is `;` where bit `i` is set, else the ident `t{i}`.
                let text: Vec<String> = (0..length)
                    .map(|i| {
                        if mask & (1 << i) != 0 {
                            ";".to_string()
                        } else {
                            format!("t{i}")
                        }
                    })
                    .collect();
                let tokens: TokenStream = text.join(" ").parse().expect("lexes");
                let written: Vec<String> = written_extent(tokens.clone())
                    .into_iter()
                    .map(|t| t.to_string())
                    .collect();
                let expected = written.first().cloned().zip(written.last().cloned());
                let got = ends(
                    tokens
                        .into_iter()
                        .map(|t| (t.to_string(), is_semicolon(&t))),
                );
                assert_eq!(got, expected, "{text:?}");
            }
        }
    }
}
