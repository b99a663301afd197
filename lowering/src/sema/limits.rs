//! Compile-time budgets: whatever the input, checking a kernel takes
//! bounded stack, time and memory (`docs/robustness.md` states the limits
//! and measured worst cases).
//!
//! - Nesting: the checker, the prover and the emitter recurse over
//!   expressions, conditions and blocks. `nesting_errors` measures every
//!   expression and block *iteratively* before anything else runs, so an
//!   input nested deeper than [`MAX_EXPR_DEPTH`] / [`MAX_BLOCK_DEPTH`] is an
//!   error (TK0609) instead of a stack overflow.
//! - Size: a runtime value is a polynomial, a condition a tree; products and
//!   `let` chains can make them grow exponentially (`let b = a * a;`,
//!   `let q = p && p;`), so [`MAX_POLY_TERMS`], [`MAX_POLY_DEGREE`] and
//!   [`MAX_COND_NODES`] cap them (TK0610).
//! - Work: unrolling multiplies statements; [`MAX_CHECKED_STATEMENTS`]
//!   bounds the statements and unrolled iterations checked (TK0515), next
//!   to the instruction, tile and unroll limits of `sema`.
//! - Text: an expression quoted in a message is cut at [`MAX_TEXT`]
//!   characters, so messages (and computed values' names) stay small.

use std::fmt::{self, Write as _};

use crate::ast::{
    EwiseFunction, Expr, Kernel, Operand, PlaceExpr, SliceItem, Stmt, ViewKind, scalar,
};
use crate::diag::{Code, Diagnostic};
use crate::program::Cond;
use crate::sym::{Atoms, Poly};

/// The deepest expression (operators, calls, unary `-`/`!`, views with
/// runtime bounds) the compiler accepts.
pub const MAX_EXPR_DEPTH: usize = 256;
/// The deepest nesting of `for` and `if` blocks the compiler accepts.
pub const MAX_BLOCK_DEPTH: usize = 128;
/// The most terms a runtime value's polynomial may have.
pub const MAX_POLY_TERMS: usize = 1024;
/// The highest degree of a runtime value's polynomial (`i * i * i` has 3).
pub const MAX_POLY_DEGREE: usize = 64;
/// The most nodes (`&&`, `||`, `!`, comparisons) of one runtime condition.
pub const MAX_COND_NODES: usize = 256;
/// The most statements and unrolled iterations checked in one kernel, after
/// unrolling constant-bound loops.
pub const MAX_CHECKED_STATEMENTS: usize = 1 << 20;
/// The most characters of an expression quoted in a message.
pub const MAX_TEXT: usize = 160;

/// TK0609 for every expression or block nested too deeply. Iterative: it
/// runs before any recursive pass and cannot overflow the stack itself.
pub(super) fn nesting_errors(kernel: &Kernel) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for expr in &kernel.launch.grid {
        expr_depth(expr, &mut errors);
    }
    for param in &kernel.params {
        if let crate::ast::ParamType::Tensor { dims, .. } = &param.ty {
            for dim in dims {
                expr_depth(&dim.expr, &mut errors);
            }
        }
    }
    let mut blocks: Vec<(&[Stmt], usize)> = vec![(&kernel.body, 0)];
    while let Some((stmts, depth)) = blocks.pop() {
        for stmt in stmts {
            match stmt {
                Stmt::AllocLocal(alloc) => {
                    for dim in &alloc.shape {
                        expr_depth(&dim.expr, &mut errors);
                    }
                }
                Stmt::Apply(apply) => {
                    for operand in &apply.operands {
                        if let Operand::Place(place) = operand {
                            place_depth(place, &mut errors);
                        }
                    }
                    if let Some(pred) = &apply.pred {
                        expr_depth(pred, &mut errors);
                    }
                }
                Stmt::Let(binding) => expr_depth(&binding.value, &mut errors),
                Stmt::For(for_loop) => {
                    expr_depth(&for_loop.start, &mut errors);
                    expr_depth(&for_loop.end, &mut errors);
                    if let Some(step) = &for_loop.step {
                        expr_depth(step, &mut errors);
                    }
                    if depth + 1 > MAX_BLOCK_DEPTH {
                        errors.push(block_error(for_loop.span));
                    } else {
                        blocks.push((&for_loop.body, depth + 1));
                    }
                }
                Stmt::If(branch) => {
                    expr_depth(&branch.cond, &mut errors);
                    if depth + 1 > MAX_BLOCK_DEPTH {
                        errors.push(block_error(branch.span));
                    } else {
                        blocks.push((&branch.then, depth + 1));
                        blocks.push((&branch.otherwise, depth + 1));
                    }
                }
                Stmt::Ewise(ewise) => {
                    place_depth(&ewise.dst, &mut errors);
                    for operand in &ewise.inputs {
                        if let Operand::Place(place) = operand {
                            place_depth(place, &mut errors);
                        }
                    }
                    if let EwiseFunction::Inline(function) = &ewise.function {
                        scalar_depth(function, &mut errors);
                    }
                }
                Stmt::Function(def) => scalar_depth(&def.function, &mut errors),
                Stmt::KernelFunction(def) => {
                    if depth + 1 > MAX_BLOCK_DEPTH {
                        errors.push(block_error(def.span));
                    } else {
                        blocks.push((&def.body, depth + 1));
                    }
                }
                Stmt::Call(call) => {
                    for operand in &call.args {
                        match operand {
                            Operand::Place(place) => place_depth(place, &mut errors),
                            Operand::Value(expr) => expr_depth(expr, &mut errors),
                            _ => {}
                        }
                    }
                }
                Stmt::Invalid(_) => {}
            }
        }
    }
    errors
}

/// Pushes TK0609 at a scalar function nested deeper than
/// [`MAX_EXPR_DEPTH`] (expressions, blocks and `if`s each add a level).
fn scalar_depth(function: &scalar::Function, errors: &mut Vec<Diagnostic>) {
    let mut stack: Vec<(&scalar::Expr, usize)> = function.body.exprs().map(|e| (e, 2)).collect();
    while let Some((expr, depth)) = stack.pop() {
        if depth > MAX_EXPR_DEPTH {
            errors.push(expr_error(expr.span()));
            return;
        }
        let next = depth + 1;
        match expr {
            scalar::Expr::Name(..)
            | scalar::Expr::Int { .. }
            | scalar::Expr::Float { .. }
            | scalar::Expr::Bool(..)
            | scalar::Expr::Invalid(_) => {}
            scalar::Expr::Binary { lhs, rhs, .. } => {
                stack.push((lhs, next));
                stack.push((rhs, next));
            }
            scalar::Expr::Unary { expr, .. } | scalar::Expr::Cast { expr, .. } => {
                stack.push((expr, next));
            }
            scalar::Expr::Call { args, .. } | scalar::Expr::Ptx { args, .. } => {
                stack.extend(args.iter().map(|a| (a, next)));
            }
            scalar::Expr::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                stack.push((cond, next));
                stack.extend(then.exprs().map(|e| (e, next)));
                stack.extend(otherwise.exprs().map(|e| (e, next)));
            }
            scalar::Expr::Block(block) => stack.extend(block.exprs().map(|e| (e, next))),
        }
    }
}

fn block_error(span: crate::diag::SpanId) -> Diagnostic {
    Diagnostic::new(
        Code::NESTING_LIMIT,
        span,
        format!("this block is nested more than {MAX_BLOCK_DEPTH} `for`/`if` blocks deep"),
    )
    .with_note("the compiler bounds nesting so that checking a kernel cannot exhaust its stack")
    .with_help("flatten the nesting: combine conditions with `&&`, or merge loops")
}

/// The sub-expressions one level below `expr` (slice bounds of a view count
/// as one level below the view).
fn children(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Int(..) | Expr::Bool(..) | Expr::Name(..) | Expr::Other(..) => Vec::new(),
        Expr::Call { args, .. } => args.iter().collect(),
        Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        Expr::Unary { expr, .. } => vec![expr],
        Expr::View(place) => place_children(place),
    }
}

fn place_children(place: &PlaceExpr) -> Vec<&Expr> {
    let mut out = Vec::new();
    for view in &place.views {
        match &view.kind {
            ViewKind::Slice(items) => {
                for item in items {
                    match item {
                        SliceItem::Index { index, .. } => out.push(index),
                        SliceItem::Range { start, end, .. } => {
                            out.extend(start.iter());
                            out.extend(end.iter());
                        }
                    }
                }
            }
            ViewKind::InCta(rank) => out.push(rank),
            _ => {}
        }
    }
    out
}

/// Pushes TK0609 at `root` when it nests deeper than [`MAX_EXPR_DEPTH`].
fn expr_depth(root: &Expr, errors: &mut Vec<Diagnostic>) {
    let mut stack: Vec<(&Expr, usize)> = vec![(root, 1)];
    while let Some((expr, depth)) = stack.pop() {
        if depth > MAX_EXPR_DEPTH {
            errors.push(expr_error(root.span()));
            return;
        }
        stack.extend(children(expr).into_iter().map(|c| (c, depth + 1)));
    }
}

/// An operand's views: each slice bound is an expression one level down.
fn place_depth(place: &PlaceExpr, errors: &mut Vec<Diagnostic>) {
    let mut stack: Vec<(&Expr, usize)> =
        place_children(place).into_iter().map(|e| (e, 2)).collect();
    while let Some((expr, depth)) = stack.pop() {
        if depth > MAX_EXPR_DEPTH {
            errors.push(expr_error(place.span));
            return;
        }
        stack.extend(children(expr).into_iter().map(|c| (c, depth + 1)));
    }
}

fn expr_error(span: crate::diag::SpanId) -> Diagnostic {
    Diagnostic::new(
        Code::NESTING_LIMIT,
        span,
        format!("this expression is nested more than {MAX_EXPR_DEPTH} levels deep"),
    )
    .with_note("every operator, call, unary `-`/`!` and slice bound adds a level; the compiler bounds nesting so that checking a kernel cannot exhaust its stack")
    .with_help("split it into `let` bindings")
}

/// The number of nodes of `cond`, counting at most `limit + 1` (iterative).
pub(super) fn cond_nodes(cond: &Cond, limit: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![cond];
    while let Some(c) = stack.pop() {
        count += 1;
        if count > limit {
            break;
        }
        match c {
            Cond::Not(inner) => stack.push(inner),
            Cond::And(a, b) | Cond::Or(a, b) => {
                stack.push(a);
                stack.push(b);
            }
            Cond::Const(_) | Cond::Cmp(..) | Cond::Param(_) | Cond::Register { .. } => {}
        }
    }
    count
}

/// Whether `poly` is within [`MAX_POLY_TERMS`] and [`MAX_POLY_DEGREE`].
pub(super) fn poly_fits(poly: &Poly) -> bool {
    let mut terms = 0;
    for (monomial, _) in poly.terms() {
        terms += 1;
        if terms > MAX_POLY_TERMS || monomial.len() > MAX_POLY_DEGREE {
            return false;
        }
    }
    true
}

/// Whether the product of `a` and `b` could exceed the size caps; checked
/// before multiplying, so no oversized product is ever built.
pub(super) fn product_may_exceed(a: &Poly, b: &Poly) -> bool {
    let degree = |p: &Poly| p.terms().map(|(m, _)| m.len()).max().unwrap_or(0);
    let (ta, tb) = (a.terms().count(), b.terms().count());
    ta.saturating_mul(tb) > MAX_POLY_TERMS * 64 || degree(a) + degree(b) > MAX_POLY_DEGREE
}

/// A writer that keeps the first [`MAX_TEXT`] characters and then stops
/// the formatter, so quoting a huge value costs bounded time.
struct Bounded {
    text: String,
    chars: usize,
    cut: bool,
}

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if self.chars == MAX_TEXT {
                self.cut = true;
                return Err(fmt::Error);
            }
            self.text.push(c);
            self.chars += 1;
        }
        Ok(())
    }
}

/// `value`'s display, cut at [`MAX_TEXT`] characters (ending in `…`).
pub(super) fn bounded(value: impl fmt::Display) -> String {
    let mut out = Bounded {
        text: String::new(),
        chars: 0,
        cut: false,
    };
    let _ = write!(out, "{value}");
    if out.cut {
        out.text.push('…');
    }
    out.text
}

/// A polynomial as text for a message or an atom name, cut at
/// [`MAX_TEXT`] characters.
pub(crate) fn poly_text(poly: &Poly, atoms: &Atoms) -> String {
    bounded(poly.display(atoms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_text_is_cut_with_an_ellipsis() {
        let long = "x".repeat(MAX_TEXT * 3);
        let text = bounded(&long);
        assert_eq!(text.chars().count(), MAX_TEXT + 1);
        assert!(text.ends_with('…'));
        assert_eq!(bounded("short"), "short");
        let exact = "é".repeat(MAX_TEXT);
        assert_eq!(bounded(&exact), exact);
    }

    #[test]
    fn cond_nodes_stop_counting_past_the_limit() {
        let mut cond = Cond::Param(0);
        for _ in 0..1000 {
            cond = Cond::And(Box::new(cond), Box::new(Cond::Param(1)));
        }
        assert_eq!(cond_nodes(&cond, 10), 11);
        assert_eq!(cond_nodes(&Cond::Param(0), 10), 1);
    }
}
