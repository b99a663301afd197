//! Surface text: kernels printed as the Rust a user would write, for
//! failure messages.

use super::*;

/// An expression as the kernel's source would spell it (fully
/// parenthesized).
pub(crate) fn show_expr(e: &Expr) -> String {
    match e {
        Expr::Int(v, _) => v.to_string(),
        Expr::Bool(b, _) => b.to_string(),
        Expr::Name(n, _) => n.clone(),
        Expr::Call { func, args, .. } => format!(
            "{func}({})",
            args.iter().map(show_expr).collect::<Vec<_>>().join(", ")
        ),
        Expr::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", show_expr(lhs), op.symbol(), show_expr(rhs))
        }
        Expr::Unary { op, expr, .. } => format!(
            "{}{}",
            if *op == UnOp::Neg { "-" } else { "!" },
            show_expr(expr)
        ),
        Expr::View(p) => show_place(p),
        Expr::Other(t, _) => t.clone(),
    }
}

pub(crate) fn show_place(p: &PlaceExpr) -> String {
    let mut s = p.base.clone();
    for v in &p.views {
        match &v.kind {
            ViewKind::Slice(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| match i {
                        SliceItem::Index { index, .. } => show_expr(index),
                        SliceItem::Range {
                            start, end, step, ..
                        } => format!(
                            "{}..{}{}",
                            start.as_ref().map(show_expr).unwrap_or_default(),
                            end.as_ref().map(show_expr).unwrap_or_default(),
                            if *step == 1 {
                                String::new()
                            } else {
                                format!(";{step}")
                            }
                        ),
                    })
                    .collect();
                s += &format!(".slice(s![{}])", items.join(", "));
            }
            ViewKind::View(d) => s += &format!(".view::<{d}>()"),
            ViewKind::Reshape(d) => s += &format!(".reshape({d:?})"),
            ViewKind::Unsqueeze(a) => s += &format!(".unsqueeze({a})"),
            ViewKind::Permute(order) => s += &format!(".permute({order:?})"),
            ViewKind::Broadcast(d) => s += &format!(".broadcast({d:?})"),
            ViewKind::InCta(rank) => s += &format!(".in_cta({})", show_expr(rank)),
        }
    }
    s
}

pub(crate) fn show_stmts(stmts: &[Stmt], indent: usize, out: &mut String) {
    let pad = "    ".repeat(indent);
    for stmt in stmts {
        match stmt {
            Stmt::AllocLocal(a) => {
                // A shared extent's form in braces: `{2 * N}`.
                let shape: Vec<String> = a
                    .shape
                    .iter()
                    .map(|d| match &d.expr {
                        Expr::Binary { .. } if a.space == AllocSpace::Shared => {
                            let text = show_expr(&d.expr);
                            format!("{{{}}}", &text[1..text.len() - 1])
                        }
                        expr => show_expr(expr),
                    })
                    .collect();
                let f = if a.space == AllocSpace::Shared {
                    "alloc_shared"
                } else {
                    "alloc_local"
                };
                let scope = a
                    .scope
                    .as_ref()
                    .map(|(s, _)| format!(", scope = \"{s}\""))
                    .unwrap_or_default();
                *out += &format!(
                    "{pad}let {} = {f}::<{}>([{}]{scope});\n",
                    a.name,
                    a.dtype,
                    shape.join(", ")
                );
            }
            Stmt::Apply(a) => {
                let mut ops: Vec<String> = vec![format!("ptx[\"{}\"]", a.opcode)];
                for o in &a.operands {
                    ops.push(match o {
                        Operand::Place(p) => show_place(p),
                        Operand::Literal(l) => match l.value {
                            LiteralValue::Int(v) => v.to_string(),
                            LiteralValue::Float(v) if v.is_nan() => "f64::NAN".to_string(),
                            LiteralValue::Float(v) if v == f64::INFINITY => {
                                "f64::INFINITY".to_string()
                            }
                            LiteralValue::Float(v) if v == f64::NEG_INFINITY => {
                                "f64::NEG_INFINITY".to_string()
                            }
                            LiteralValue::Float(v) => format!("{v:?}"),
                            LiteralValue::Bool(v) => v.to_string(),
                        },
                        Operand::Special { name, .. } => format!("sreg(\"{name}\")"),
                        Operand::Value(e) => show_expr(e),
                    });
                }
                if let Some((s, _)) = &a.scope {
                    ops.push(format!("scope = \"{s}\""));
                }
                if let Some(p) = &a.pred {
                    ops.push(format!("pred = {}", show_expr(p)));
                }
                if let Some((v, _)) = a.preserve_dst {
                    ops.push(format!("preserve_dst = {v}"));
                }
                *out += &format!("{pad}apply({});\n", ops.join(", "));
            }
            Stmt::Let(l) => *out += &format!("{pad}let {} = {};\n", l.name, show_expr(&l.value)),
            Stmt::For(f) => {
                let step = f
                    .step
                    .as_ref()
                    .map(|s| format!(".step_by({})", show_expr(s)))
                    .unwrap_or_default();
                *out += &format!(
                    "{pad}for {} in ({}..{}){step} {{\n",
                    f.var,
                    show_expr(&f.start),
                    show_expr(&f.end)
                );
                show_stmts(&f.body, indent + 1, out);
                *out += &format!("{pad}}}\n");
            }
            Stmt::If(i) => {
                *out += &format!("{pad}if {} {{\n", show_expr(&i.cond));
                show_stmts(&i.then, indent + 1, out);
                if !i.otherwise.is_empty() {
                    *out += &format!("{pad}}} else {{\n");
                    show_stmts(&i.otherwise, indent + 1, out);
                }
                *out += &format!("{pad}}}\n");
            }
            Stmt::Invalid(i) => *out += &format!("{pad}<invalid {i:?}>\n"),
            // Not generated by the fuzzers: shown as their syntax tree.
            Stmt::Ewise(e) => *out += &format!("{pad}<ewise {e:?}>\n"),
            Stmt::Function(f) => *out += &format!("{pad}<function {f:?}>\n"),
            Stmt::KernelFunction(f) => *out += &format!("{pad}<kernel function {f:?}>\n"),
            Stmt::Call(c) => *out += &format!("{pad}<call {c:?}>\n"),
        }
    }
}

/// `k` as (approximately) the source text the macro would have read, for
/// failure messages: a fault's kernel is easier to read than its tree.
pub(crate) fn surface(k: &Kernel) -> String {
    let grid: Vec<String> = k.launch.grid.iter().map(show_expr).collect();
    let params: Vec<String> = k
        .params
        .iter()
        .map(|p| match &p.ty {
            ParamType::Tensor { dtype, dims } => format!(
                "{}: Tensor<{dtype}, {}>",
                p.name,
                dims.iter()
                    .map(|d| show_expr(&d.expr))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ParamType::Scalar(d) => format!("{}: {d}", p.name),
            ParamType::Unparsed => format!("{}: ?", p.name),
        })
        .collect();
    let mut out = format!(
        "#[tile_kernel(grid = [{}], block = {:?})]\nfn {}({}) {{\n",
        grid.join(", "),
        k.launch.block,
        k.name,
        params.join(", ")
    );
    show_stmts(&k.body, 1, &mut out);
    out += "}\n";
    out
}
