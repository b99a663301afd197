//! `zero_fill = true`: a `cp.async` whose source may run past the end of
//! its tensor copies the bytes inside and zero-fills the rest, through the
//! form's `src-size` twin (`cp.async.cg.shared.global [dst], [src], 16,
//! src-size`) whose `src-size` the compiler computes from the source's
//! bounds (`crate::prove::bounds`). A `src-size` the user writes is an
//! error: its bytes could not be proven to lie in the tensor.
//!
//! Guarantee: an apply that leaves here with a `src-size` slot has exactly
//! one repeat coordinate and a [`Value::SourceBytes`] placeholder in that
//! slot, for the bounds proof to fill in.

use crate::ast;
use crate::diag::{Code, Diagnostic, SpanId};
use crate::program::Cond;
use crate::ptx::Effect;
use crate::ptx::Modifiers;
use crate::sym::Poly;

use super::{Checker, Value};

/// The name of the `src-size` slot.
const SRC_SIZE: &str = "src-size";

/// The compiler's `src-size` operand: its slot, its placeholder value and
/// the span of the `zero_fill` keyword that asked for it.
pub(super) type SourceBytesSlot = (usize, Value, SpanId);

impl Checker<'_> {
    /// The form the apply runs with and, under `zero_fill`, the slot of the
    /// compiler's `src-size` with its placeholder and the keyword's span:
    /// `form` itself, or its `src-size` twin. `None`: an error was reported.
    pub(super) fn zero_fill_form(
        &mut self,
        apply: &ast::Apply,
        form: Modifiers,
        values: &[Value],
    ) -> Option<(Modifiers, Option<SourceBytesSlot>)> {
        let given = form.form.operands.iter().position(|o| o.name == SRC_SIZE);
        if let Some(position) = given {
            let span = apply
                .operands
                .get(position)
                .map_or(apply.span, ast::Operand::span);
            self.diags.push(
                Diagnostic::new(
                    Code::SRC_SIZE_GIVEN,
                    span,
                    format!(
                        "the `src-size` of `{}` is the compiler's: it must count only bytes inside the source tensor",
                        apply.opcode
                    ),
                )
                .with_help("remove this operand and add `zero_fill = true`: the copy then takes the source's bytes inside its tensor and zero-fills the rest"),
            );
            return None;
        }
        let Some(span) = apply.zero_fill else {
            return Some((form, None));
        };
        let twin = (form.effect() == Effect::AsyncCopy)
            .then(|| self.src_size_twin(&form))
            .flatten();
        let Some((twin, position)) = twin else {
            self.diags.push(
                Diagnostic::new(
                    Code::ZERO_FILL_FORM,
                    span,
                    format!(
                        "`zero_fill` needs an asynchronous copy with a `src-size` form (`cp.async`), but `{}` has none",
                        apply.opcode
                    ),
                )
                .with_help("remove `zero_fill`: the compiler's guard skips an access out of bounds"),
            );
            return None;
        };
        let repeats = values
            .iter()
            .find_map(|v| {
                v.layout()
                    .map(|l| l.shape[..l.shape.len() - 1].iter().product::<usize>())
            })
            .unwrap_or(1);
        if repeats != 1 {
            self.diags.push(
                Diagnostic::new(
                    Code::ZERO_FILL_REPEAT,
                    span,
                    format!(
                        "`zero_fill` computes one `src-size` per `apply`, but this one issues {repeats} copies"
                    ),
                )
                .with_help("write one `apply` per copy (an unrolled `for` loop over the vectors)"),
            );
            return None;
        }
        let size = twin
            .operands()
            .iter()
            .find_map(|o| match (o.name, o.kind) {
                ("cp-size", crate::ptx::OperandKind::Immediate { max, .. }) => {
                    Some(i128::from(max))
                }
                _ => None,
            })
            .unwrap_or(0);
        let placeholder = Value::SourceBytes {
            in_bounds: Cond::Const(true),
            remaining: Poly::constant(size),
            size,
        };
        Some((twin, Some((position, placeholder, span))))
    }

    /// The variant of `form`'s opcode that takes `form`'s operands (the
    /// same copy size) with a `src-size` after `cp-size`, and that slot's
    /// position.
    fn src_size_twin(&mut self, form: &Modifiers) -> Option<(Modifiers, usize)> {
        let own = form.operands();
        let after = own.iter().position(|o| o.name == "cp-size")? + 1;
        let candidates = self.resolved(&form.opcode_text()).clone().ok()?;
        candidates
            .into_iter()
            .find(|m| {
                let mut theirs = m.operands();
                theirs.len() == own.len() + 1 && theirs[after].name == SRC_SIZE && {
                    theirs.remove(after);
                    theirs == own
                }
            })
            .map(|m| (m, after))
    }
}
