//! A fast path for the statements most kernels are made of: `let` bindings
//! and expression statements over names, literals, calls, method calls
//! (with turbofish), indexing, macro calls, arrays, parentheses, ranges,
//! unary and binary operators and `key = value` arguments, `for name in
//! expr { .. }` and `if expr { .. } else if .. else { .. }` over such
//! statements, and for the items of `s![..]`. It builds exactly the syntax
//! tree `syn` would (the same nodes, the tokens' own spans) without `syn`'s
//! parser, which is most of the macro's parsing time in a build without
//! optimizations (each atom of an expression peeks for every keyword and
//! operator).
//!
//! It mirrors `syn`'s grammar (syn 3: `Block::parse_within`, `parse_stmt`,
//! `ambiguous_expr`, `parse_expr`, `parse_binop_rhs`, `parse_range_end`,
//! `unary_expr`, `trailer_helper`, `atom_expr`, expression-style paths,
//! `ExprForLoop::parse`, `ExprIf::parse`, `Block::parse`) for that subset
//! and gives up (`None`) on everything else: any other token, keyword or
//! form (casts, closures, blocks as expressions, `while`, `loop`, `match`,
//! labels, patterns other than a name, `if let`, references, `?`,
//! fields, tuples, struct literals, attributes, invisible groups, compound
//! assignment) and every input `syn` rejects. Then the
//! caller parses the tokens with `syn`, as it always did. `None` is never
//! wrong; `Some` must equal `syn`'s parse: the tests compare the two on
//! every shipped kernel and on their one-token mutants.

use proc_macro2::{Delimiter, Group, Punct, Spacing, Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::{
    AngleBracketedGenericArguments, AttrStyle, Attribute, BinOp, Block, Expr, ExprArray,
    ExprAssign, ExprBinary, ExprBlock, ExprCall, ExprForLoop, ExprGroup, ExprIf, ExprIndex,
    ExprLit, ExprMacro, ExprMethodCall, ExprParen, ExprPath, ExprRange, ExprUnary, FnArg,
    FnModifiers, GenericArgument, Generics, Item, ItemFn, Lit, LitBool, Local, LocalInit, Macro,
    MacroDelimiter, Meta, MetaNameValue, Pat, PatIdent, PatType, Path, PathArguments, PathSegment,
    RangeLimits, ReturnType, Safety, Signature, Stmt, Type, TypeGroup, TypePath, UnOp, Visibility,
    token,
};

/// The words `syn` does not accept as an identifier (its `Ident` parser),
/// sorted (for [`is_keyword`]'s binary search).
pub(crate) const KEYWORDS: &[&str] = &[
    "Self", "_", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Whether `syn` rejects `text` as an identifier.
pub(crate) fn is_keyword(text: &str) -> bool {
    KEYWORDS.binary_search(&text).is_ok()
}

/// Identifiers that start an item or a special form in some positions
/// (`union U`, `auto trait`, `default impl`, `builtin #`, `&raw`): a
/// statement, atom or type argument spelled so is left to `syn`. And an
/// editor's placeholder (`__ra_fixup`), which the caller removes first:
/// whatever the fast path parses holds none.
const CONTEXTUAL: &[&str] = &[
    "auto",
    "builtin",
    "default",
    "macro_rules",
    "raw",
    "safe",
    "union",
    "__ra_fixup",
];

/// Whether `tokens` hold an editor placeholder, at any depth.
fn has_placeholder(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == "__ra_fixup",
        TokenTree::Group(group) => has_placeholder(group.stream()),
        _ => false,
    })
}

/// Whether the fast path leaves an identifier spelled `text` to `syn`.
fn reserved(text: &str) -> bool {
    is_keyword(text) || CONTEXTUAL.contains(&text)
}

/// The statements of a block whose tokens are `trees`, as
/// `syn::Block::parse_within` parses them; `None` when they do not parse
/// or hold an editor placeholder at any depth. A statement outside the
/// fast path's grammar goes to `syn` with the tokens up to the next `;`
/// outside delimiters (which always ends a statement of a block), or the
/// rest: `parse_within` parses statement after statement, so its parse of
/// the whole is the fast path's statements before it, `syn`'s of that
/// part, and whatever follows.
pub(crate) fn statements(trees: &[TokenTree]) -> Option<Vec<Stmt>> {
    let mut input = Tokens::new(trees);
    let mut stmts = Vec::new();
    while !input.is_empty() {
        let start = input.pos;
        if let Some(stmt) = statement(&mut input) {
            stmts.push(stmt);
            continue;
        }
        let end = trees[start..]
            .iter()
            .position(|tree| matches!(tree, TokenTree::Punct(p) if p.as_char() == ';'))
            .map_or(trees.len(), |semi| start + semi + 1);
        stmts.extend(syn_statements(&trees[start..end])?);
        input.pos = end;
    }
    Some(stmts)
}

/// `syn`'s statements of `trees` (`Block::parse_within`); `None` when they
/// do not parse or hold an editor placeholder.
fn syn_statements(trees: &[TokenTree]) -> Option<Vec<Stmt>> {
    use syn::parse::Parser;
    let tokens: TokenStream = trees.iter().cloned().collect();
    if has_placeholder(tokens.clone()) {
        return None;
    }
    Block::parse_within.parse2(tokens).ok()
}

/// The items of `s![..]` (`tokens`, the macro's input) as its parser in
/// `parse::KernelParser::slice_macro` reads them: expressions separated
/// by commas, each with an optional `;step` expression.
pub(crate) fn slice_items(tokens: &TokenStream) -> Option<Vec<(Expr, Option<Expr>)>> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut input = Tokens::new(&trees);
    let mut items = Vec::new();
    while !input.is_empty() {
        let item = expr(&mut input)?;
        let step = if input.punct_char(0) == Some(';') {
            input.pos += 1;
            Some(expr(&mut input)?)
        } else {
            None
        };
        items.push((item, step));
        if input.is_empty() {
            break;
        }
        input.comma()?;
    }
    Some(items)
}

/// A kernel fn's head (everything before its body) as `kernel_item`
/// parses it with `syn` (`Attribute::parse_outer`, `Visibility`,
/// `Signature`), for the common heads: `#[doc = ".."]` attributes, no
/// visibility or `pub`, `fn name(param: Type, ..)` with no generics, return
/// type or qualifiers, and each type a name or `Name<args>` whose arguments
/// are names, literals or `{ .. }` blocks of the fast path's statements.
pub(crate) fn kernel_head(trees: &[TokenTree]) -> Option<(Vec<Attribute>, Visibility, Signature)> {
    let mut input = Tokens::new(trees);
    let mut attrs = Vec::new();
    while input.punct_char(0) == Some('#') {
        attrs.push(doc_attribute(&mut input)?);
    }
    let vis = match input.peek(0)? {
        TokenTree::Ident(ident) if ident == "pub" => {
            input.pos += 1;
            // `pub(crate)` and the like are left to `syn`.
            if input.group(Delimiter::Parenthesis).is_some() {
                return None;
            }
            Visibility::Public(token::Pub { span: ident.span() })
        }
        _ => Visibility::Inherited,
    };
    let sig = signature(&mut input)?;
    // A return type, a `where` clause: left to `syn`.
    if !input.is_empty() || sig.output != ReturnType::Default {
        return None;
    }
    Some((attrs, vis, sig))
}

/// `fn name(param: Type, ..)` with an optional `-> Type` (`syn`'s
/// `Signature` without qualifiers, generics or a `where` clause), each
/// type as [`param_type`] reads it.
fn signature(input: &mut Tokens) -> Option<Signature> {
    let TokenTree::Ident(fn_ident) = input.next()? else {
        return None;
    };
    if fn_ident != "fn" {
        return None;
    }
    let TokenTree::Ident(name) = input.next()? else {
        return None;
    };
    if is_keyword(&name.to_string()) {
        return None;
    }
    let group = input.group(Delimiter::Parenthesis)?;
    input.pos += 1;
    let trees = inside(group);
    let mut content = Tokens::new(&trees);
    let mut inputs = Punctuated::new();
    while !content.is_empty() {
        inputs.push_value(FnArg::Typed(param(&mut content)?));
        if content.is_empty() {
            break;
        }
        inputs.push_punct(content.comma()?);
    }
    let output = if input.peek_punct("->") {
        let spans = input.puncts::<2>()?;
        ReturnType::Type(token::RArrow { spans }, Box::new(param_type(input)?))
    } else {
        ReturnType::Default
    };
    Some(Signature {
        constness: None,
        asyncness: None,
        safety: Safety::Default,
        abi: None,
        fn_token: token::Fn {
            span: fn_ident.span(),
        },
        ident: name.clone(),
        generics: Generics::default(),
        paren_token: token::Paren(group.delim_span()),
        inputs,
        variadic: None,
        output,
    })
}

/// A kernel function defined in a block, `fn name(param: Type, ..) [->
/// Type] { .. }` (`syn`'s item statement, with no attributes, visibility,
/// qualifiers or generics), its body through the fast path.
fn fn_item(input: &mut Tokens) -> Option<Stmt> {
    let sig = signature(input)?;
    let body = input.group(Delimiter::Brace)?;
    input.pos += 1;
    let stmts = statements(&inside(body))?;
    Some(Stmt::Item(Item::Fn(ItemFn {
        attrs: Vec::new(),
        vis: Visibility::Inherited,
        modifiers: FnModifiers::default(),
        sig,
        block: Box::new(Block {
            brace_token: token::Brace(body.delim_span()),
            stmts,
        }),
    })))
}

/// `#[doc = ".."]` (`Attribute::parse_outer` with a name-value meta whose
/// value is one literal).
fn doc_attribute(input: &mut Tokens) -> Option<Attribute> {
    let [pound] = input.puncts::<1>()?;
    let group = input.group(Delimiter::Bracket)?;
    input.pos += 1;
    let trees = inside(group);
    let [
        TokenTree::Ident(doc),
        TokenTree::Punct(eq),
        TokenTree::Literal(literal),
    ] = &trees[..]
    else {
        return None;
    };
    if doc != "doc" || eq.as_char() != '=' || eq.spacing() == Spacing::Joint {
        return None;
    }
    Some(Attribute {
        pound_token: token::Pound { spans: [pound] },
        style: AttrStyle::Outer,
        bracket_token: token::Bracket(group.delim_span()),
        meta: Meta::NameValue(MetaNameValue {
            path: Path::from(doc.clone()),
            eq_token: token::Eq { spans: [eq.span()] },
            value: Expr::Lit(ExprLit {
                attrs: Vec::new(),
                lit: Lit::new(literal.clone()),
            }),
        }),
    })
}

/// `name: Type` (`parse_fn_arg_or_variadic` for a plain name).
fn param(input: &mut Tokens) -> Option<PatType> {
    let TokenTree::Ident(name) = input.next()? else {
        return None;
    };
    if is_keyword(&name.to_string()) {
        return None;
    }
    let colon = input.punct(0)?;
    if colon.as_char() != ':' || colon.spacing() == Spacing::Joint {
        return None;
    }
    input.pos += 1;
    let ty = param_type(input)?;
    // The type ends the parameter.
    if !(input.is_empty() || input.punct_char(0) == Some(',')) {
        return None;
    }
    Some(PatType {
        attrs: Vec::new(),
        pat: Box::new(Pat::Ident(PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident: name.clone(),
            subpat: None,
        })),
        colon_token: token::Colon {
            spans: [colon.span()],
        },
        ty: Box::new(ty),
    })
}

/// A type that is one name, optionally with `<args>`: names (types),
/// literals and `{ .. }` blocks (constants).
fn param_type(input: &mut Tokens) -> Option<Type> {
    let TokenTree::Ident(name) = input.next()? else {
        return None;
    };
    if reserved(&name.to_string()) {
        return None;
    }
    let arguments = match input.punct(0) {
        Some(lt) if lt.as_char() == '<' => {
            if lt.spacing() == Spacing::Joint {
                return None;
            }
            input.pos += 1;
            let mut args = Punctuated::new();
            loop {
                if input.punct_char(0) == Some('>') {
                    break;
                }
                args.push_value(type_argument(input)?);
                if input.punct_char(0) == Some('>') {
                    break;
                }
                args.push_punct(input.comma()?);
            }
            let gt = input.punct(0)?;
            if gt.spacing() == Spacing::Joint {
                return None;
            }
            input.pos += 1;
            PathArguments::AngleBracketed(AngleBracketedGenericArguments {
                colon2_token: None,
                lt_token: token::Lt { spans: [lt.span()] },
                args,
                gt_token: token::Gt { spans: [gt.span()] },
            })
        }
        _ => PathArguments::None,
    };
    let mut segments = Punctuated::new();
    segments.push_value(PathSegment {
        ident: name.clone(),
        arguments,
    });
    Some(Type::Path(TypePath {
        attrs: Vec::new(),
        qself: None,
        path: Path {
            leading_colon: None,
            segments,
        },
    }))
}

/// One generic argument (`GenericArgument::parse`): a name (a type), a
/// literal or a block (constants), followed by `,` or `>`.
fn type_argument(input: &mut Tokens) -> Option<GenericArgument> {
    let argument = match input.next()? {
        TokenTree::Ident(name) => {
            if reserved(&name.to_string()) {
                return None;
            }
            GenericArgument::Type(Type::Path(TypePath {
                attrs: Vec::new(),
                qself: None,
                path: Path::from(name.clone()),
            }))
        }
        TokenTree::Literal(literal) => GenericArgument::Const(Expr::Lit(ExprLit {
            attrs: Vec::new(),
            lit: Lit::new(literal.clone()),
        })),
        TokenTree::Group(group) if group.delimiter() == Delimiter::None => {
            GenericArgument::Type(grouped_type(group)?)
        }
        TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
            let trees = inside(group);
            GenericArgument::Const(Expr::Block(ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: Block {
                    brace_token: token::Brace(group.delim_span()),
                    stmts: statements(&trees)?,
                },
            }))
        }
        _ => return None,
    };
    if !matches!(input.punct_char(0), Some(',' | '>')) {
        return None;
    }
    Some(argument)
}

/// An expression a `macro_rules!` fragment (`$e:expr`) passed in: the
/// whole of an invisible group, as `syn`'s `expr_group` parses it (a
/// lifetime alone is left to `syn`, which reads it otherwise).
fn grouped_expr(group: &Group) -> Option<Expr> {
    let trees = inside(group);
    if let [TokenTree::Punct(quote), TokenTree::Ident(_)] = &trees[..]
        && quote.as_char() == '\''
    {
        return None;
    }
    let mut content = Tokens::new(&trees);
    let inner = expr(&mut content)?;
    content.is_empty().then_some(inner)
}

/// A type a `macro_rules!` fragment (`$t:ty`) passed in: an invisible
/// group holding one [`param_type`], as `syn` reads it where a generic
/// argument starts (`Type::Group`; its peeks for a lifetime, a literal or
/// a block look inside the group, and a type name starts none of them).
/// The caller checks that `,` or `>` follows (a `<` or `::` after the
/// group would extend its path).
fn grouped_type(group: &Group) -> Option<Type> {
    let trees = inside(group);
    let elem = match &trees[..] {
        // A fragment passed on by another macro: a group in a group.
        [TokenTree::Group(inner)] if inner.delimiter() == Delimiter::None => grouped_type(inner)?,
        _ => {
            let mut content = Tokens::new(&trees);
            let elem = param_type(&mut content)?;
            if !content.is_empty() {
                return None;
            }
            elem
        }
    };
    Some(Type::Group(TypeGroup {
        attrs: Vec::new(),
        group_token: token::Group(group.span()),
        elem: Box::new(elem),
    }))
}

/// Binding strength, in `syn`'s order (`syn::precedence::Precedence`
/// without the printing-only levels).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    Jump,
    Assign,
    Range,
    Or,
    And,
    Compare,
    BitOr,
    BitXor,
    BitAnd,
    Shift,
    Sum,
    Product,
    Cast,
}

/// A cursor over a sequence of token trees.
struct Tokens<'a> {
    trees: &'a [TokenTree],
    pos: usize,
    /// Whether a `{` after a path starts a struct literal (`syn`'s
    /// `AllowStruct`): not in the head of an `if` or a `for`, where it
    /// starts the block (and then ends a range `a..`).
    structs: bool,
}

impl<'a> Tokens<'a> {
    fn new(trees: &'a [TokenTree]) -> Tokens<'a> {
        Tokens {
            trees,
            pos: 0,
            structs: true,
        }
    }

    fn is_empty(&self) -> bool {
        self.pos >= self.trees.len()
    }

    fn peek(&self, n: usize) -> Option<&'a TokenTree> {
        self.trees.get(self.pos + n)
    }

    fn next(&mut self) -> Option<&'a TokenTree> {
        let tree = self.trees.get(self.pos)?;
        self.pos += 1;
        Some(tree)
    }

    fn punct(&self, n: usize) -> Option<&'a Punct> {
        match self.trees.get(self.pos + n)? {
            TokenTree::Punct(p) => Some(p),
            _ => None,
        }
    }

    fn punct_char(&self, n: usize) -> Option<char> {
        self.punct(n).map(Punct::as_char)
    }

    /// Whether the tokens `n` ahead start with the punctuation `text`, as
    /// `syn` peeks it: its characters in order, each but the last joint
    /// to the next.
    fn peek_punct_at(&self, n: usize, text: &str) -> bool {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match self.punct(n + i) {
                Some(p)
                    if p.as_char() == char::from(bytes[i])
                        && (i + 1 == bytes.len() || p.spacing() == Spacing::Joint) => {}
                _ => return false,
            }
            i += 1;
        }
        true
    }

    fn peek_punct(&self, text: &str) -> bool {
        self.peek_punct_at(0, text)
    }

    /// The spans of the next `N` punctuation tokens, consumed.
    fn puncts<const N: usize>(&mut self) -> Option<[Span; N]> {
        let mut spans = [Span::call_site(); N];
        for span in &mut spans {
            match self.next()? {
                TokenTree::Punct(p) => *span = p.span(),
                _ => return None,
            }
        }
        Some(spans)
    }

    /// Consumes a `,`.
    fn comma(&mut self) -> Option<token::Comma> {
        let p = self.punct(0)?;
        if p.as_char() != ',' {
            return None;
        }
        self.pos += 1;
        Some(token::Comma { spans: [p.span()] })
    }

    /// The next token as a group with delimiter `delimiter`.
    fn group(&self, delimiter: Delimiter) -> Option<&'a Group> {
        match self.peek(0)? {
            TokenTree::Group(g) if g.delimiter() == delimiter => Some(g),
            _ => None,
        }
    }

    /// Whether the next token is the identifier `word`.
    fn peek_word(&self, word: &str) -> bool {
        matches!(self.peek(0), Some(TokenTree::Ident(i)) if i == word)
    }
}

/// The trees inside `group`.
fn inside(group: &Group) -> Vec<TokenTree> {
    group.stream().into_iter().collect()
}

fn statement(input: &mut Tokens) -> Option<Stmt> {
    match input.peek(0)? {
        TokenTree::Ident(first) => {
            if first == "let" {
                return local(input).map(Stmt::Local);
            }
            if first == "for" || first == "if" {
                return compound(input);
            }
            if first == "fn" {
                return fn_item(input);
            }
            if reserved(&first.to_string()) {
                return None;
            }
            // `path!` starts a macro statement (`Stmt::Macro` or an item
            // macro).
            let mut at = 1;
            while input.peek_punct_at(at, "::") {
                at += 3;
            }
            if matches!(input.peek(at - 1), Some(TokenTree::Ident(_)))
                && input.punct_char(at) == Some('!')
            {
                return None;
            }
        }
        // An expression statement (`{ 8 * K }`, a const argument's block).
        TokenTree::Literal(_) => {}
        // One that starts with a fragment (`{ $e * K }`): `syn` ends the
        // statement after the group where it holds a block-like expression,
        // which [`grouped_expr`] never gives (the fast path parses no `if`,
        // loop or block inside an expression), and otherwise goes on as
        // after any operand, as here.
        TokenTree::Group(group) if group.delimiter() == Delimiter::None => {}
        _ => return None,
    }
    let expr = expr(input)?;
    if matches!(expr, Expr::Macro(_)) {
        return None;
    }
    match input.peek(0) {
        None => Some(Stmt::Expr(expr, None)),
        Some(TokenTree::Punct(p)) if p.as_char() == ';' => {
            input.pos += 1;
            Some(Stmt::Expr(expr, Some(token::Semi { spans: [p.span()] })))
        }
        Some(_) => None,
    }
}

/// A `for` or `if` statement (`syn`'s `stmt_expr` over a block-like
/// expression): it ends after its last block, with an optional `;`. A
/// method call or `?` on it is left to `syn`.
fn compound(input: &mut Tokens) -> Option<Stmt> {
    let expr = if input.peek_word("for") {
        Expr::ForLoop(for_loop(input)?)
    } else {
        Expr::If(if_expr(input)?)
    };
    if input.peek_punct(".") && !input.peek_punct("..") || input.punct_char(0) == Some('?') {
        return None;
    }
    match input.punct(0) {
        Some(p) if p.as_char() == ';' => {
            input.pos += 1;
            Some(Stmt::Expr(expr, Some(token::Semi { spans: [p.span()] })))
        }
        _ => Some(Stmt::Expr(expr, None)),
    }
}

/// `for name in expr { .. }` (`ExprForLoop::parse` with no label and an
/// identifier pattern).
fn for_loop(input: &mut Tokens) -> Option<ExprForLoop> {
    let TokenTree::Ident(for_ident) = input.next()? else {
        return None;
    };
    let TokenTree::Ident(name) = input.next()? else {
        return None;
    };
    if reserved(&name.to_string()) {
        return None;
    }
    let TokenTree::Ident(in_ident) = input.next()? else {
        return None;
    };
    if in_ident != "in" {
        return None;
    }
    let iterated = head_expr(input)?;
    Some(ExprForLoop {
        attrs: Vec::new(),
        label: None,
        for_token: token::For {
            span: for_ident.span(),
        },
        pat: Box::new(Pat::Ident(PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident: name.clone(),
            subpat: None,
        })),
        in_token: token::In {
            span: in_ident.span(),
        },
        expr: Box::new(iterated),
        body: block(input)?,
    })
}

/// `if cond { .. }` with `else if` and `else` branches (`ExprIf::parse`).
fn if_expr(input: &mut Tokens) -> Option<ExprIf> {
    let TokenTree::Ident(if_ident) = input.next()? else {
        return None;
    };
    let cond = head_expr(input)?;
    let then_branch = block(input)?;
    let else_branch = match input.peek(0) {
        Some(TokenTree::Ident(else_ident)) if else_ident == "else" => {
            input.pos += 1;
            let branch = if input.peek_word("if") {
                Expr::If(if_expr(input)?)
            } else {
                Expr::Block(ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: block(input)?,
                })
            };
            Some((
                token::Else {
                    span: else_ident.span(),
                },
                Box::new(branch),
            ))
        }
        _ => None,
    };
    Some(ExprIf {
        attrs: Vec::new(),
        if_token: token::If {
            span: if_ident.span(),
        },
        cond: Box::new(cond),
        then_branch,
        else_branch,
    })
}

/// The expression in the head of a `for` or `if`
/// (`Expr::parse_without_eager_brace`): a `{` ends it.
fn head_expr(input: &mut Tokens) -> Option<Expr> {
    input.structs = false;
    let head = expr(input);
    input.structs = true;
    head
}

/// A `{ .. }` block of the fast path's statements (`Block::parse`).
fn block(input: &mut Tokens) -> Option<Block> {
    let group = input.group(Delimiter::Brace)?;
    input.pos += 1;
    Some(Block {
        brace_token: token::Brace(group.delim_span()),
        stmts: statements(&inside(group))?,
    })
}

/// `let name = expr;` (`syn`'s `stmt_local` with `Pat::parse_single`'s
/// identifier pattern).
fn local(input: &mut Tokens) -> Option<Local> {
    let TokenTree::Ident(let_ident) = input.next()? else {
        return None;
    };
    let TokenTree::Ident(name) = input.next()? else {
        return None;
    };
    if reserved(&name.to_string()) {
        return None;
    }
    let TokenTree::Punct(eq) = input.next()? else {
        return None;
    };
    if eq.as_char() != '=' || eq.spacing() == Spacing::Joint {
        return None;
    }
    let init = expr(input)?;
    let TokenTree::Punct(semi) = input.next()? else {
        return None;
    };
    if semi.as_char() != ';' {
        return None;
    }
    Some(Local {
        attrs: Vec::new(),
        let_token: token::Let {
            span: let_ident.span(),
        },
        modifiers: Default::default(),
        pat: Pat::Ident(PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident: name.clone(),
            subpat: None,
        }),
        init: Some(LocalInit {
            eq_token: token::Eq { spans: [eq.span()] },
            expr: Box::new(init),
            diverge: None,
        }),
        semi_token: token::Semi {
            spans: [semi.span()],
        },
    })
}

/// `Expr::parse` (`ambiguous_expr`: structs allowed).
fn expr(input: &mut Tokens) -> Option<Expr> {
    let lhs = unary(input)?;
    binary(input, lhs, Precedence::Jump)
}

/// A binary operator at the cursor, as `BinOp::parse` tries them (compound
/// assignments first, then the two-character operators, then the single
/// ones): its precedence and width in tokens; `Err` for a compound
/// assignment (not in the fast path).
fn peek_binop(input: &Tokens) -> Option<Result<(Precedence, usize), ()>> {
    let first = input.punct(0)?;
    let c1 = first.as_char();
    let second = match (first.spacing(), input.punct(1)) {
        (Spacing::Joint, Some(p)) => Some(p),
        _ => None,
    };
    if let Some(second) = second {
        let c2 = second.as_char();
        // `+=` .. `|=`, `<<=`, `>>=`.
        if c2 == '=' && matches!(c1, '+' | '-' | '*' | '/' | '%' | '^' | '&' | '|')
            || matches!((c1, c2), ('<', '<') | ('>', '>'))
                && second.spacing() == Spacing::Joint
                && input.punct_char(2) == Some('=')
        {
            return Some(Err(()));
        }
        let precedence = match (c1, c2) {
            ('&', '&') => Some(Precedence::And),
            ('|', '|') => Some(Precedence::Or),
            ('<', '<') | ('>', '>') => Some(Precedence::Shift),
            ('=', '=') | ('<', '=') | ('!', '=') | ('>', '=') => Some(Precedence::Compare),
            _ => None,
        };
        if let Some(precedence) = precedence {
            return Some(Ok((precedence, 2)));
        }
    }
    let arrow = |next: char| second.is_some_and(|p| p.as_char() == next);
    let precedence = match c1 {
        '+' => Precedence::Sum,
        '-' if !arrow('>') => Precedence::Sum,
        '*' | '/' | '%' => Precedence::Product,
        '^' => Precedence::BitXor,
        '&' => Precedence::BitAnd,
        '|' => Precedence::BitOr,
        '<' if !arrow('-') => Precedence::Compare,
        '>' => Precedence::Compare,
        _ => return None,
    };
    Some(Ok((precedence, 1)))
}

/// Consumes the binary operator [`peek_binop`] found.
fn binop(input: &mut Tokens, width: usize) -> Option<BinOp> {
    let c1 = input.punct_char(0)?;
    if width == 2 {
        let c2 = input.punct_char(1)?;
        let spans = input.puncts::<2>()?;
        return Some(match (c1, c2) {
            ('&', '&') => BinOp::And(token::AndAnd { spans }),
            ('|', '|') => BinOp::Or(token::OrOr { spans }),
            ('<', '<') => BinOp::Shl(token::Shl { spans }),
            ('>', '>') => BinOp::Shr(token::Shr { spans }),
            ('=', '=') => BinOp::Eq(token::EqEq { spans }),
            ('<', '=') => BinOp::Le(token::Le { spans }),
            ('!', '=') => BinOp::Ne(token::Ne { spans }),
            ('>', '=') => BinOp::Ge(token::Ge { spans }),
            _ => return None,
        });
    }
    let spans = input.puncts::<1>()?;
    Some(match c1 {
        '+' => BinOp::Add(token::Plus { spans }),
        '-' => BinOp::Sub(token::Minus { spans }),
        '*' => BinOp::Mul(token::Star { spans }),
        '/' => BinOp::Div(token::Slash { spans }),
        '%' => BinOp::Rem(token::Percent { spans }),
        '^' => BinOp::BitXor(token::Caret { spans }),
        '&' => BinOp::BitAnd(token::And { spans }),
        '|' => BinOp::BitOr(token::Or { spans }),
        '<' => BinOp::Lt(token::Lt { spans }),
        '>' => BinOp::Gt(token::Gt { spans }),
        _ => return None,
    })
}

fn is_compare(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Ne(_) | BinOp::Ge(_) | BinOp::Gt(_)
    )
}

/// `syn`'s `parse_expr`: operators binding at least as strongly as `base`
/// after `lhs`.
fn binary(input: &mut Tokens, mut lhs: Expr, base: Precedence) -> Option<Expr> {
    loop {
        // A range cannot be the left-hand side of another operator.
        if matches!(lhs, Expr::Range(_)) {
            break;
        }
        match peek_binop(input) {
            Some(Err(())) => return None,
            Some(Ok((precedence, width))) => {
                if precedence < base {
                    break;
                }
                if precedence == Precedence::Compare
                    && matches!(&lhs, Expr::Binary(b) if is_compare(&b.op))
                {
                    // "comparison operators cannot be chained"
                    return None;
                }
                let op = binop(input, width)?;
                let right = binop_rhs(input, precedence)?;
                lhs = Expr::Binary(ExprBinary {
                    attrs: Vec::new(),
                    left: Box::new(lhs),
                    op,
                    right,
                });
            }
            None => {
                if Precedence::Assign >= base
                    && input.punct_char(0) == Some('=')
                    && !input.peek_punct("=>")
                {
                    let [span] = input.puncts::<1>()?;
                    let right = binop_rhs(input, Precedence::Assign)?;
                    lhs = Expr::Assign(ExprAssign {
                        attrs: Vec::new(),
                        left: Box::new(lhs),
                        eq_token: token::Eq { spans: [span] },
                        right,
                    });
                } else if Precedence::Range >= base && input.peek_punct("..") {
                    let limits = range_limits(input)?;
                    let end = range_end(input, &limits)?;
                    lhs = Expr::Range(ExprRange {
                        attrs: Vec::new(),
                        start: Some(Box::new(lhs)),
                        limits,
                        end,
                    });
                } else if Precedence::Cast >= base && input.peek_word("as")
                    || input.peek_punct("<-")
                {
                    return None;
                } else {
                    break;
                }
            }
        }
    }
    Some(lhs)
}

/// `syn`'s `peek_precedence`.
fn peek_precedence(input: &Tokens) -> Precedence {
    match peek_binop(input) {
        Some(Ok((precedence, _))) => precedence,
        Some(Err(())) => Precedence::Assign,
        None if input.punct_char(0) == Some('=') && !input.peek_punct("=>") => Precedence::Assign,
        None if input.peek_punct("..") => Precedence::Range,
        None if input.peek_word("as") => Precedence::Cast,
        None => Precedence::Jump,
    }
}

/// `syn`'s `parse_binop_rhs`.
fn binop_rhs(input: &mut Tokens, precedence: Precedence) -> Option<Box<Expr>> {
    let mut rhs = unary(input)?;
    loop {
        let next = peek_precedence(input);
        if next > precedence || next == precedence && precedence == Precedence::Assign {
            let before = input.pos;
            rhs = binary(input, rhs, next)?;
            if before == input.pos {
                break;
            }
        } else {
            break;
        }
    }
    Some(Box::new(rhs))
}

/// `RangeLimits::parse`: `..=` or `..` (not `...`).
fn range_limits(input: &mut Tokens) -> Option<RangeLimits> {
    if input.peek_punct("..=") {
        let spans = input.puncts::<3>()?;
        Some(RangeLimits::Closed(token::DotDotEq { spans }))
    } else if input.peek_punct("..") && !input.peek_punct("...") {
        let spans = input.puncts::<2>()?;
        Some(RangeLimits::HalfOpen(token::DotDot { spans }))
    } else {
        None
    }
}

/// `syn`'s `parse_range_end`: `..` ends before these tokens (and before a
/// block where structs are not allowed); otherwise an operand follows.
fn range_end(input: &mut Tokens, limits: &RangeLimits) -> Option<Option<Box<Expr>>> {
    let ends = input.is_empty()
        || !input.structs && input.group(Delimiter::Brace).is_some()
        || matches!(
            input.punct_char(0),
            Some(',' | ';' | '?' | '=' | '+' | '/' | '%' | '^' | '>')
        )
        || input.peek_punct(".") && !input.peek_punct("..")
        || ["<=", "!=", "-=", "*=", "&=", "|=", "<<="]
            .iter()
            .any(|op| input.peek_punct(op))
        || input.peek_word("as");
    if matches!(limits, RangeLimits::HalfOpen(_)) && ends {
        return Some(None);
    }
    binop_rhs(input, Precedence::Range).map(Some)
}

/// `syn`'s `unary_expr`: `!`, `-` and `*` prefixes (no references).
fn unary(input: &mut Tokens) -> Option<Expr> {
    if let TokenTree::Punct(p) = input.peek(0)? {
        let op = match p.as_char() {
            '*' => UnOp::Deref(token::Star { spans: [p.span()] }),
            '!' => UnOp::Not(token::Not { spans: [p.span()] }),
            '-' => UnOp::Neg(token::Minus { spans: [p.span()] }),
            // `..` and `..=` are atoms.
            '.' => return trailer(input),
            _ => return None,
        };
        if p.spacing() == Spacing::Joint {
            return None;
        }
        input.pos += 1;
        return Some(Expr::Unary(ExprUnary {
            attrs: Vec::new(),
            op,
            expr: Box::new(unary(input)?),
        }));
    }
    trailer(input)
}

/// `syn`'s `trailer_expr`: calls, method calls and indexing after an atom.
fn trailer(input: &mut Tokens) -> Option<Expr> {
    let mut e = atom(input)?;
    loop {
        if let Some(group) = input.group(Delimiter::Parenthesis) {
            input.pos += 1;
            e = Expr::Call(ExprCall {
                attrs: Vec::new(),
                func: Box::new(e),
                paren_token: token::Paren(group.delim_span()),
                args: terminated(group)?,
            });
        } else if input.peek_punct(".") && !input.peek_punct("..") && !matches!(e, Expr::Range(_)) {
            let [dot] = input.puncts::<1>()?;
            let TokenTree::Ident(method) = input.next()? else {
                return None;
            };
            if reserved(&method.to_string()) {
                return None;
            }
            let turbofish = if input.peek_punct("::") {
                Some(angle_arguments(input)?)
            } else {
                None
            };
            // Without arguments it is a field (not in the fast path).
            let group = input.group(Delimiter::Parenthesis)?;
            input.pos += 1;
            e = Expr::MethodCall(ExprMethodCall {
                attrs: Vec::new(),
                receiver: Box::new(e),
                dot_token: token::Dot { spans: [dot] },
                method: method.clone(),
                turbofish,
                paren_token: token::Paren(group.delim_span()),
                args: terminated(group)?,
            });
        } else if let Some(group) = input.group(Delimiter::Bracket) {
            input.pos += 1;
            let trees = inside(group);
            let mut content = Tokens::new(&trees);
            let index = expr(&mut content)?;
            if !content.is_empty() {
                return None;
            }
            e = Expr::Index(ExprIndex {
                attrs: Vec::new(),
                expr: Box::new(e),
                bracket_token: token::Bracket(group.delim_span()),
                index: Box::new(index),
            });
        } else if input.punct_char(0) == Some('?') && !matches!(e, Expr::Range(_)) {
            return None;
        } else {
            break;
        }
    }
    Some(e)
}

/// `content.parse_terminated(Expr::parse, Token![,])` over a group's
/// tokens: expressions separated by commas, a trailing one allowed.
fn terminated(group: &Group) -> Option<Punctuated<Expr, token::Comma>> {
    let trees = inside(group);
    let mut content = Tokens::new(&trees);
    let mut out = Punctuated::new();
    while !content.is_empty() {
        out.push_value(expr(&mut content)?);
        if content.is_empty() {
            break;
        }
        out.push_punct(content.comma()?);
    }
    Some(out)
}

/// `syn`'s `atom_expr` for literals, paths, macro calls, parentheses,
/// arrays and ranges without a start.
fn atom(input: &mut Tokens) -> Option<Expr> {
    match input.peek(0)? {
        TokenTree::Literal(literal) => {
            input.pos += 1;
            Some(Expr::Lit(ExprLit {
                attrs: Vec::new(),
                lit: Lit::new(literal.clone()),
            }))
        }
        TokenTree::Ident(ident) => {
            let text = ident.to_string();
            if text == "true" || text == "false" {
                input.pos += 1;
                return Some(Expr::Lit(ExprLit {
                    attrs: Vec::new(),
                    lit: Lit::Bool(LitBool {
                        value: text == "true",
                        span: ident.span(),
                    }),
                }));
            }
            if reserved(&text) {
                return None;
            }
            path_or_macro(input)
        }
        TokenTree::Group(group) if group.delimiter() == Delimiter::None => {
            let inner = grouped_expr(group)?;
            input.pos += 1;
            // `syn` goes on with a path that came in a group where a `::`,
            // a `!` or a struct literal's `{` follows: only what cannot
            // continue it is taken here.
            if matches!(inner, Expr::Path(_)) {
                let ends = match input.peek(0) {
                    None => true,
                    Some(TokenTree::Punct(p)) => !matches!(p.as_char(), ':' | '!'),
                    Some(TokenTree::Group(g)) => match g.delimiter() {
                        Delimiter::Parenthesis | Delimiter::Bracket => true,
                        Delimiter::Brace => !input.structs,
                        Delimiter::None => false,
                    },
                    Some(_) => false,
                };
                if !ends {
                    return None;
                }
            }
            Some(Expr::Group(ExprGroup {
                attrs: Vec::new(),
                group_token: token::Group(group.span()),
                expr: Box::new(inner),
            }))
        }
        TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis => {
            input.pos += 1;
            let trees = inside(group);
            let mut content = Tokens::new(&trees);
            // `()` and tuples are not in the fast path.
            let inner = expr(&mut content)?;
            if !content.is_empty() {
                return None;
            }
            Some(Expr::Paren(ExprParen {
                attrs: Vec::new(),
                paren_token: token::Paren(group.delim_span()),
                expr: Box::new(inner),
            }))
        }
        TokenTree::Group(group) if group.delimiter() == Delimiter::Bracket => {
            input.pos += 1;
            // `[x; n]` stops at the `;` (not a comma): not in the fast path.
            Some(Expr::Array(ExprArray {
                attrs: Vec::new(),
                bracket_token: token::Bracket(group.delim_span()),
                elems: terminated(group)?,
            }))
        }
        TokenTree::Punct(p) if p.as_char() == '.' => {
            let limits = range_limits(input)?;
            let end = range_end(input, &limits)?;
            Some(Expr::Range(ExprRange {
                attrs: Vec::new(),
                start: None,
                limits,
                end,
            }))
        }
        _ => None,
    }
}

/// `syn`'s `path_or_macro_or_struct` without a qualified self type or a
/// struct literal.
fn path_or_macro(input: &mut Tokens) -> Option<Expr> {
    let path = expr_path(input)?;
    if input.punct_char(0) == Some('!') && !input.peek_punct("!=") {
        if path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let [bang] = input.puncts::<1>()?;
        let TokenTree::Group(group) = input.next()? else {
            return None;
        };
        if has_placeholder(group.stream()) {
            return None;
        }
        let span = group.delim_span();
        let delimiter = match group.delimiter() {
            Delimiter::Parenthesis => MacroDelimiter::Paren(token::Paren(span)),
            Delimiter::Brace => MacroDelimiter::Brace(token::Brace(span)),
            Delimiter::Bracket => MacroDelimiter::Bracket(token::Bracket(span)),
            Delimiter::None => return None,
        };
        return Some(Expr::Macro(ExprMacro {
            attrs: Vec::new(),
            mac: Macro {
                path,
                bang_token: token::Not { spans: [bang] },
                delimiter,
                tokens: group.stream(),
            },
        }));
    }
    // A struct literal (`Path { .. }`) is not in the fast path.
    if input.structs && input.group(Delimiter::Brace).is_some() {
        return None;
    }
    Some(Expr::Path(ExprPath {
        attrs: Vec::new(),
        qself: None,
        path,
    }))
}

/// An expression-style path (`Path::parse_helper` with `expr_style`): no
/// leading `::`, segments of plain identifiers, each with optional
/// `::<..>` arguments.
fn expr_path(input: &mut Tokens) -> Option<Path> {
    let mut segments = Punctuated::new();
    segments.push_value(segment(input)?);
    while input.peek_punct("::")
        && !matches!(input.peek(2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
    {
        let spans = input.puncts::<2>()?;
        segments.push_punct(token::PathSep { spans });
        segments.push_value(segment(input)?);
    }
    Some(Path {
        leading_colon: None,
        segments,
    })
}

fn segment(input: &mut Tokens) -> Option<PathSegment> {
    let TokenTree::Ident(ident) = input.next()? else {
        return None;
    };
    if reserved(&ident.to_string()) {
        return None;
    }
    let arguments = if input.peek_punct("::") && input.punct_char(2) == Some('<') {
        PathArguments::AngleBracketed(angle_arguments(input)?)
    } else {
        PathArguments::None
    };
    Some(PathSegment {
        ident: ident.clone(),
        arguments,
    })
}

/// `::<T, U>` with plain type names as arguments
/// (`AngleBracketedGenericArguments::parse_turbofish`).
fn angle_arguments(input: &mut Tokens) -> Option<AngleBracketedGenericArguments> {
    let colon2 = input.puncts::<2>()?;
    let lt = input.punct(0)?;
    if lt.as_char() != '<' || lt.spacing() == Spacing::Joint {
        return None;
    }
    input.pos += 1;
    let mut args = Punctuated::new();
    loop {
        if input.punct_char(0) == Some('>') {
            break;
        }
        let argument = match input.next()? {
            TokenTree::Ident(name) => {
                if reserved(&name.to_string()) {
                    return None;
                }
                Type::Path(TypePath {
                    attrs: Vec::new(),
                    qself: None,
                    path: Path::from(name.clone()),
                })
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::None => grouped_type(group)?,
            _ => return None,
        };
        // Only a type followed by `,` or `>` is a plain type argument.
        if !matches!(input.punct_char(0), Some(',' | '>')) {
            return None;
        }
        args.push_value(GenericArgument::Type(argument));
        if input.punct_char(0) == Some('>') {
            break;
        }
        args.push_punct(input.comma()?);
    }
    let gt = input.punct(0)?;
    if gt.spacing() == Spacing::Joint {
        return None;
    }
    input.pos += 1;
    Some(AngleBracketedGenericArguments {
        colon2_token: Some(token::PathSep { spans: colon2 }),
        lt_token: token::Lt { spans: [lt.span()] },
        args,
        gt_token: token::Gt { spans: [gt.span()] },
    })
}

#[cfg(test)]
mod tests {
    //! Wherever the fast path answers, its statements are `syn`'s: for
    //! every statement of every shipped kernel, and for each of them with
    //! one token deleted, repeated or replaced (most of which `syn`
    //! rejects or parses otherwise).

    use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
    use quote::ToTokens;

    fn syn_statements(trees: &[TokenTree]) -> syn::Result<Vec<syn::Stmt>> {
        let group = Group::new(Delimiter::Brace, trees.iter().cloned().collect());
        syn::parse2::<syn::Block>(TokenTree::Group(group).into()).map(|block| block.stmts)
    }

    /// Checks the items of one `s![..]`; returns whether the fast path
    /// answered.
    fn slice_agrees(tokens: &TokenStream, what: &str) -> bool {
        use syn::parse::Parser;
        let Some(fast) = super::slice_items(tokens) else {
            return false;
        };
        match crate::parse::slice_items.parse2(tokens.clone()) {
            Ok(slow) => assert!(
                slow == fast,
                "{what}: `s![{tokens}]`:\nfast {fast:#?}\nsyn {slow:#?}"
            ),
            Err(error) => panic!(
                "{what}: `s![{tokens}]`: syn rejects it ({error}), the fast path parsed {fast:#?}"
            ),
        }
        true
    }

    /// The token streams of the `s![..]` macros in `stream`, at any depth.
    fn slices(stream: TokenStream, out: &mut Vec<TokenStream>) {
        let trees: Vec<TokenTree> = stream.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            if let TokenTree::Group(group) = tree {
                let after_s = i >= 2
                    && matches!(&trees[i - 2], TokenTree::Ident(s) if s == "s")
                    && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!');
                if after_s {
                    out.push(group.stream());
                }
                slices(group.stream(), out);
            }
        }
    }

    /// The keyword list is sorted (binary search) and is `syn`'s.
    #[test]
    fn keywords_are_sorted_and_rejected_by_syn() {
        assert!(super::KEYWORDS.windows(2).all(|w| w[0] < w[1]));
        for word in super::KEYWORDS {
            assert!(syn::parse_str::<syn::Ident>(word).is_err(), "{word}");
            assert!(super::is_keyword(word));
        }
        for word in [
            "union", "auto", "default", "raw", "x", "gen", "r#type", "Self_",
        ] {
            assert_eq!(
                syn::parse_str::<syn::Ident>(word).is_err(),
                super::is_keyword(word),
                "{word}"
            );
        }
    }

    /// Checks one chunk; returns whether the fast path answered.
    fn agrees(trees: &[TokenTree], what: &str) -> bool {
        let Some(fast) = super::statements(trees) else {
            return false;
        };
        let text: TokenStream = trees.iter().cloned().collect();
        match syn_statements(trees) {
            Ok(slow) => assert!(
                slow == fast,
                "{what}: `{text}`:\nfast {fast:#?}\nsyn {slow:#?}"
            ),
            Err(error) => {
                panic!("{what}: `{text}`: syn rejects it ({error}), the fast path parsed {fast:#?}")
            }
        }
        true
    }

    /// `template`'s tokens with each identifier `__G__` (at any depth)
    /// replaced by an invisible group of `content`: what a `macro_rules!`
    /// fragment such as `$t:ty` passes to the attribute.
    fn with_invisible_group(template: &str, content: &str) -> Vec<TokenTree> {
        fn replace(stream: TokenStream, content: &TokenStream) -> TokenStream {
            stream
                .into_iter()
                .map(|tree| match tree {
                    TokenTree::Ident(ident) if ident == "__G__" => {
                        TokenTree::Group(Group::new(Delimiter::None, content.clone()))
                    }
                    TokenTree::Group(group) => {
                        let mut inner =
                            Group::new(group.delimiter(), replace(group.stream(), content));
                        inner.set_span(group.span());
                        TokenTree::Group(inner)
                    }
                    other => other,
                })
                .collect()
        }
        // `nested:x`: a group of a group of `x` (a fragment passed on by
        // another macro).
        let content: TokenStream = match content.strip_prefix("nested:") {
            Some(inner) => {
                let inner: TokenStream = inner.parse().expect("content lexes");
                TokenTree::Group(Group::new(Delimiter::None, inner)).into()
            }
            None => content.parse().expect("content lexes"),
        };
        let template: TokenStream = template.parse().expect("template lexes");
        replace(template, &content).into_iter().collect()
    }

    /// Each of `templates` with each of `contents` in an invisible group
    /// ([`with_invisible_group`]) parses as `syn` parses it wherever the
    /// fast path answers ([`agrees`]), and the fast path answers each of
    /// `answers` (a template's index and a content).
    fn agrees_with_groups(templates: &[&str], contents: &[&str], answers: &[(usize, &str)]) {
        let mut answered = Vec::new();
        for (index, template) in templates.iter().enumerate() {
            for &content in contents {
                let trees = with_invisible_group(template, content);
                if agrees(&trees, &format!("{template} with `{content}`")) {
                    answered.push((index, content));
                }
            }
        }
        for &(index, content) in answers {
            assert!(
                answered.contains(&(index, content)),
                "`{}` with `{content}` left to syn",
                templates[index]
            );
        }
    }

    #[test]
    fn invisible_type_groups_parse_as_syn_does() {
        let templates = [
            "let s = alloc_shared::<__G__>([4, 128], layout = \"swizzle_128\");",
            "let s = alloc_shared::<__G__, u32>([4]);",
            "fn f(a: Shared<__G__>, b: usize) { apply(ptx[\"mov.b32\"], a, b); }",
            "fn f(a: Tile<__G__, 4>) {}",
            "fn f(a: Shared<__G__>) -> __G__ {}",
            "let x = f::<__G__::<u8>>();",
            "fn f(a: Shared<__G__<u8>>) {}",
            "fn f(a: Shared<__G__ = u8>) {}",
            "fn f(a: Shared<__G__: Copy>) {}",
            "fn f(a: Tile<f32, { 8 * __G__ }>) { 8 * __G__ }",
        ];
        let contents = [
            "bf16",
            "Tile<f32>",
            "Tile<f32, 4>",
            "u8",
            "true",
            "'a",
            "4",
            "{ 4 }",
            "a::b",
            "bf16 u8",
            "",
            "Self",
            "r#type",
            ">",
            ",",
            "nested:bf16",
            "nested:Tile<f32>",
        ];
        // The macro-made kernels' cases take the fast path.
        agrees_with_groups(
            &templates,
            &contents,
            &[
                (0, "bf16"),
                (1, "bf16"),
                (2, "bf16"),
                (2, "Tile<f32>"),
                (3, "u8"),
                (2, "nested:bf16"),
                (9, "4"),
            ],
        );
    }

    #[test]
    fn invisible_expression_groups_parse_as_syn_does() {
        let templates = [
            "let stage = k % __G__;",
            "let n = 8 * __G__ + 1;",
            "let n = __G__ - 1;",
            "let z = __G__ != 1;",
            "for s in 0..__G__ { apply(ptx[\"mov.b32\"], s); }",
            "if t == __G__ { apply(ptx[\"mov.b32\"], t); }",
            "if __G__ { apply(ptx[\"mov.b32\"], t); }",
            "let y = __G__::X;",
            "let y = __G__!(1);",
            "let y = __G__ { a: 1 };",
            "let y = __G__(1);",
            "let y = __G__[0];",
            "let y = __G__.f();",
            "apply(ptx[\"mov.b32\"], a.slice(s![__G__..__G__ + 1]), __G__);",
            "let r = 0..__G__;",
            "let a = [__G__, 2];",
            "__G__ * KC",
            "__G__.f(1);",
            "__G__;",
        ];
        let contents = [
            "4",
            "K8",
            "-1",
            "(1)",
            "x + 1",
            "'a",
            "true",
            "f(1)",
            "{ 1 }",
            "a::b",
            "..5",
            "",
            "if a { 1 } else { 2 }",
            "for i in 0..2 { f(i); }",
            "1 2",
            "a.b",
            "x < y",
            "nested:4",
            "nested:K8",
            "nested:x + 1",
        ];
        // The macro-made kernels' cases take the fast path.
        agrees_with_groups(
            &templates,
            &contents,
            &[
                (0, "4"),
                (1, "K8"),
                (4, "4"),
                (5, "K8"),
                (13, "4"),
                (13, "K8"),
                (13, "nested:K8"),
                (1, "nested:4"),
                (16, "4"),
                (16, "nested:4"),
            ],
        );
    }

    /// Leaves (group delimiters apart), joint punctuation glued to the next.
    fn leaves(stream: TokenStream, out: &mut Vec<String>) {
        for tree in stream {
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
                TokenTree::Punct(punct) if punct.spacing() == Spacing::Joint => {
                    out.push(format!("{}\u{0}", punct.as_char()));
                }
                other => out.push(other.to_string()),
            }
        }
    }

    const REPLACEMENTS: &[&str] = &[
        "x",
        "1",
        "-",
        "!",
        "=",
        "==",
        ",",
        ";",
        ".",
        "..",
        "::",
        "<",
        ">",
        "(",
        ")",
        "[",
        "]",
        "true",
        "let",
        "as",
        "&",
        "?",
        "#",
        "+=",
        "<-",
        "=>",
        "{",
        "}",
        "s!",
        "r#type",
        "1.5",
        "Self",
        "_",
        "'a",
        "|",
        "::<",
        "&&",
        "*",
        "..=",
        "...",
        "..",
        "-=",
        "<=",
        ">>=",
        "N",
        "pub",
        "fn",
        "doc",
        ":",
        "{N}",
        "Tensor",
        "f32",
        "<f32>",
        "pub(crate)",
        "->",
        "-> f64",
    ];

    #[test]
    fn the_fast_path_parses_as_syn_does() {
        let join = |leaves: &[String]| leaves.join(" ").replace("\u{0} ", "");
        let (mut chunks, mut fast, mut mutants, mut fast_mutants) = (0, 0, 0, 0);
        for kernel in crate::pass_cases::shipped_kernels() {
            let what = format!("{}: {}", kernel.file, kernel.name);
            let body = kernel.item.block.to_token_stream();
            let Some(TokenTree::Group(body)) = body.into_iter().next() else {
                continue;
            };
            for chunk in crate::parse::split_statements(body.stream()) {
                chunks += 1;
                fast += usize::from(agrees(&chunk, &what));
                let mut all = Vec::new();
                leaves(chunk.iter().cloned().collect(), &mut all);
                for i in 0..all.len() {
                    let mut variants = Vec::new();
                    let mut deleted = all.clone();
                    deleted.remove(i);
                    variants.push(deleted);
                    let mut repeated = all.clone();
                    repeated.insert(i, all[i].clone());
                    variants.push(repeated);
                    for k in 0..3 {
                        let mut replaced = all.clone();
                        replaced[i] =
                            REPLACEMENTS[(i * 7 + k * 13) % REPLACEMENTS.len()].to_string();
                        variants.push(replaced);
                    }
                    for variant in variants {
                        let Ok(tokens) = join(&variant).parse::<TokenStream>() else {
                            continue;
                        };
                        let trees: Vec<TokenTree> = tokens.into_iter().collect();
                        mutants += 1;
                        fast_mutants += usize::from(agrees(&trees, &what));
                    }
                }
            }
        }
        println!(
            "fast path: {fast} of {chunks} shipped statements, {fast_mutants} of {mutants} mutants"
        );
        assert!(chunks > 500 && fast * 2 > chunks, "{fast} of {chunks}");
        assert!(fast_mutants > 1000, "{fast_mutants} of {mutants}");
    }

    /// Checks one kernel head; returns whether the fast path answered.
    fn head_agrees(trees: &[TokenTree], what: &str) -> bool {
        use syn::parse::{ParseStream, Parser};
        let Some(fast) = super::kernel_head(trees) else {
            return false;
        };
        let head = |input: ParseStream| {
            let attrs = input.call(syn::Attribute::parse_outer)?;
            let vis: syn::Visibility = input.parse()?;
            let sig: syn::Signature = input.parse()?;
            Ok((attrs, vis, sig))
        };
        let text: TokenStream = trees.iter().cloned().collect();
        match head.parse2(text.clone()) {
            Ok(slow) => assert!(
                slow == fast,
                "{what}: `{text}`:\nfast {fast:#?}\nsyn {slow:#?}"
            ),
            Err(error) => {
                panic!("{what}: `{text}`: syn rejects it ({error}), the fast path parsed {fast:#?}")
            }
        }
        true
    }

    #[test]
    fn the_fast_path_parses_kernel_heads_as_syn_does() {
        let join = |leaves: &[String]| leaves.join(" ").replace("\u{0} ", "");
        let (mut count, mut fast, mut mutants, mut fast_mutants) = (0, 0, 0, 0);
        for kernel in crate::pass_cases::shipped_kernels() {
            let what = format!("{}: {}", kernel.file, kernel.name);
            let mut trees: Vec<TokenTree> = kernel.item.to_token_stream().into_iter().collect();
            trees.pop();
            count += 1;
            fast += usize::from(head_agrees(&trees, &what));
            let mut all = Vec::new();
            leaves(trees.iter().cloned().collect(), &mut all);
            for i in 0..all.len() {
                let mut variants = Vec::new();
                let mut deleted = all.clone();
                deleted.remove(i);
                variants.push(deleted);
                let mut repeated = all.clone();
                repeated.insert(i, all[i].clone());
                variants.push(repeated);
                for k in 0..4 {
                    let mut replaced = all.clone();
                    replaced[i] = REPLACEMENTS[(i * 5 + k * 11) % REPLACEMENTS.len()].to_string();
                    variants.push(replaced);
                }
                for variant in variants {
                    let Ok(tokens) = join(&variant).parse::<TokenStream>() else {
                        continue;
                    };
                    let trees: Vec<TokenTree> = tokens.into_iter().collect();
                    mutants += 1;
                    fast_mutants += usize::from(head_agrees(&trees, &what));
                }
            }
        }
        println!("fast path: {fast} of {count} kernel heads, {fast_mutants} of {mutants} mutants");
        assert!(count > 100 && fast * 10 > count * 9, "{fast} of {count}");
        assert!(fast_mutants > 1000, "{fast_mutants} of {mutants}");
    }

    #[test]
    fn the_fast_path_parses_slices_as_syn_does() {
        let join = |leaves: &[String]| leaves.join(" ").replace("\u{0} ", "");
        let (mut count, mut fast, mut mutants, mut fast_mutants) = (0, 0, 0, 0);
        let mut all_slices = Vec::new();
        for kernel in crate::pass_cases::shipped_kernels() {
            let what = format!("{}: {}", kernel.file, kernel.name);
            let mut found = Vec::new();
            slices(kernel.item.block.to_token_stream(), &mut found);
            all_slices.extend(found.into_iter().map(|s| (what.clone(), s)));
        }
        // Each distinct slice once (kernels repeat them).
        all_slices.sort_by_key(|(_, s)| s.to_string());
        all_slices.dedup_by_key(|(_, s)| s.to_string());
        for (what, tokens) in &all_slices {
            count += 1;
            fast += usize::from(slice_agrees(tokens, what));
            let mut all = Vec::new();
            leaves(tokens.clone(), &mut all);
            for i in 0..all.len() {
                let mut variants = Vec::new();
                let mut deleted = all.clone();
                deleted.remove(i);
                variants.push(deleted);
                let mut repeated = all.clone();
                repeated.insert(i, all[i].clone());
                variants.push(repeated);
                for replacement in REPLACEMENTS {
                    let mut replaced = all.clone();
                    replaced[i] = replacement.to_string();
                    variants.push(replaced);
                }
                for variant in variants {
                    let Ok(tokens) = join(&variant).parse::<TokenStream>() else {
                        continue;
                    };
                    mutants += 1;
                    fast_mutants += usize::from(slice_agrees(&tokens, what));
                }
            }
        }
        println!(
            "fast path: {fast} of {count} distinct slices, {fast_mutants} of {mutants} mutants"
        );
        assert!(count > 100 && fast * 10 > count * 9, "{fast} of {count}");
        assert!(fast_mutants > 1000, "{fast_mutants} of {mutants}");
    }
}
