//! Kernel functions: `fn name(t: Tile, n: usize) { statements }` and the
//! calls `name(args..);` that inline them.
//!
//! **Input**: a definition (in the kernel's body, or prepended to it by
//! `#[tile_kernel::function]`'s callback, `docs/language.md`) and its calls.
//! **Output**: nothing of its own: a call binds each parameter to its
//! argument (a view, as `let p = arg;` would; a runtime integer) in a new
//! scope and checks the body there, so the body's statements are checked
//! exactly like statements written at the call, and their errors point at
//! the function's tokens with a note naming the function.
//!
//! Guarantees: a body names only its parameters, its own bindings and the
//! kernel's functions (a kernel function is kernel-agnostic, like a Rust
//! `fn`); arguments have their parameters' kinds (and element types, where
//! declared); calls do not recurse (a cycle is an error, and the call
//! depth is bounded).

use std::rc::Rc;

use crate::ast::{self, KernelParamKind, LiteralValue, Operand};
use crate::diag::{Code, Diagnostic};
use crate::memory::MemorySpace;
use crate::sym::Poly;

use super::{Binding, Checker, ViewBase};

/// The deepest chain of calls inside calls.
pub(super) const MAX_CALL_DEPTH: usize = 32;

impl Checker<'_> {
    pub(super) fn kernel_function_def(&mut self, def: &ast::KernelFunction) {
        let mut seen: Vec<&str> = Vec::new();
        for param in &def.params {
            if seen.contains(&param.name.as_str()) {
                self.diags.error(
                    Code::NAME_CLASH,
                    param.name_span,
                    format!("parameter `{}` is declared more than once", param.name),
                );
            }
            seen.push(&param.name);
        }
        self.bind(&def.name, Binding::KernelFunction(Rc::new(def.clone())));
    }

    pub(super) fn call(&mut self, call: &ast::Call) {
        let def = match self.lookup(&call.name).cloned() {
            Some(Binding::KernelFunction(def)) => def,
            Some(Binding::Failed | Binding::Unparsed) => return,
            Some(Binding::Function(_)) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::UNKNOWN_FUNCTION,
                        call.name_span,
                        format!(
                            "`{}` is a scalar function, not a kernel function",
                            call.name
                        ),
                    )
                    .with_help(format!(
                        "run a scalar function on tiles with `ewise({}, dst, inputs..)`",
                        call.name
                    )),
                );
                return;
            }
            _ => {
                self.diags.push(
                    Diagnostic::new(
                        Code::UNKNOWN_FUNCTION,
                        call.name_span,
                        format!("cannot find kernel function `{}`", call.name),
                    )
                    .with_help("define it in the kernel's body (`fn name(t: Tile) { .. }`) or with `#[tile_kernel::function]` before the kernel"),
                );
                return;
            }
        };
        if let Some(first) = self.inlining.iter().position(|name| *name == call.name) {
            let through: Vec<String> = self.inlining[first + 1..]
                .iter()
                .map(|name| format!("`{name}`"))
                .collect();
            let message = if through.is_empty() {
                format!("`{}` calls itself", call.name)
            } else {
                format!(
                    "`{}` calls itself through {}",
                    call.name,
                    through.join(", ")
                )
            };
            self.diags.push(
                Diagnostic::new(Code::RECURSIVE_CALL, call.name_span, message)
                    .with_note("a call is inlined, so a kernel function cannot recurse"),
            );
            return;
        }
        if self.inlining.len() >= MAX_CALL_DEPTH {
            self.diags.push(Diagnostic::new(
                Code::NESTING_LIMIT,
                call.span,
                format!("this call is nested more than {MAX_CALL_DEPTH} calls deep"),
            ));
            return;
        }
        if def.params.len() != call.args.len() {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            self.diags.push(Diagnostic::new(
                Code::CALL_ARITY,
                call.name_span,
                format!(
                    "`{}` takes {} argument{}, but {} were given",
                    call.name,
                    def.params.len(),
                    plural(def.params.len()),
                    call.args.len()
                ),
            ));
            return;
        }
        let mut bindings = Vec::new();
        for (param, arg) in def.params.iter().zip(&call.args) {
            match self.argument(param, arg) {
                Some(binding) => bindings.push((param.name.clone(), binding)),
                None => return,
            }
        }
        // The body, in a scope of its own that sees only its parameters.
        let floor = self.scopes.depth();
        self.scopes.open();
        for (name, binding) in bindings {
            self.scopes.bind(&name, binding);
        }
        self.index_reads.push(Default::default());
        let outer_floor = self.lookup_floor.replace(floor);
        self.inlining.push(call.name.clone());
        let errors = self.diags.len();
        self.as_statement(std::ptr::from_ref(call).cast(), |c| c.block(&def.body));
        self.diags.note_from(
            errors,
            &format!(
                "in kernel function `{}`, inlined at its call in `{}`",
                call.name, self.kernel.name
            ),
        );
        self.inlining.pop();
        self.lookup_floor = outer_floor;
        self.index_reads.pop();
        self.scopes.close();
    }

    /// What parameter `param` is bound to for argument `arg`, or `None`
    /// after an error.
    fn argument(&mut self, param: &ast::KernelParam, arg: &Operand) -> Option<Binding> {
        let wrong = |what: &str| {
            Diagnostic::new(
                Code::CALL_ARGUMENT,
                arg.span(),
                format!(
                    "parameter `{}` is a `{}`, but this argument is {what}",
                    param.name,
                    param.kind.rust_name()
                ),
            )
        };
        if param.kind == KernelParamKind::Index {
            let poly = match arg {
                Operand::Literal(ast::Literal {
                    value: LiteralValue::Int(v),
                    ..
                }) => Poly::constant(*v),
                Operand::Value(expr) => self.eval_int(expr)?,
                Operand::Place(place) if place.views.is_empty() => match self.lookup(&place.base) {
                    Some(Binding::Int(poly) | Binding::Symbol(poly)) => poly.clone(),
                    Some(Binding::Failed | Binding::Unparsed) => return None,
                    _ => {
                        self.diags.push(wrong("not a runtime integer"));
                        return None;
                    }
                },
                _ => {
                    self.diags.push(wrong("not a runtime integer"));
                    return None;
                }
            };
            return Some(Binding::Int(poly));
        }
        let Operand::Place(place) = arg else {
            self.diags.push(wrong("a value"));
            return None;
        };
        let mut view = self.view(place)?;
        let kind = match view.base {
            ViewBase::Tile(_) => KernelParamKind::Tile,
            ViewBase::Memory(buffer) => match buffer.space {
                MemorySpace::Global => KernelParamKind::Tensor,
                MemorySpace::Shared => KernelParamKind::Shared,
            },
        };
        if kind != param.kind {
            let what = match kind {
                KernelParamKind::Tile => "a register tile",
                KernelParamKind::Tensor => "a global tensor",
                _ => "a shared buffer",
            };
            let message = format!("{what} (`{}`)", view.name);
            self.diags.push(wrong(&message));
            return None;
        }
        if let Some(dtype) = param.dtype
            && view.layout.dtype != dtype
        {
            self.diags.push(Diagnostic::new(
                Code::CALL_ARGUMENT,
                arg.span(),
                format!(
                    "parameter `{}` is a `{}<{dtype}>`, but `{}` holds `{}`",
                    param.name,
                    param.kind.rust_name(),
                    view.name,
                    view.layout.dtype
                ),
            ));
            return None;
        }
        // Inside the function, messages name the parameter.
        view.name = param.name.clone();
        Some(Binding::View(view))
    }
}
