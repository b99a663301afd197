//! Kernel variants the launcher chooses between at launch.
//!
//! A vector access to a row of `[M, N]` is aligned only when `N` is a
//! multiple of the vector's width, which the alignment proof turns into a
//! launch requirement (`N % 4 == 0`). With `fallback = "scalar"`, the macro
//! also compiles the kernel's **scalar twin** ([`scalar_twin`]): the same
//! statements with every vector memory access split into scalar accesses
//! of one element each, which need no such requirement. The launcher runs
//! the kernel when its requirements hold and the twin otherwise; both are
//! checked and proven like any kernel.

use crate::ast::{self, Operand, Stmt, ViewKind, ViewOp};
use crate::ptx::{Effect, resolve};

/// The entry name of `kernel`'s scalar twin.
pub fn scalar_twin_name(kernel: &str) -> String {
    format!("{kernel}_scalar")
}

/// `kernel` with each `apply` of a vector memory form (`ld.global.v4.f32`,
/// `st.shared.v2.b32`, `red.global.add.v4.f32`, ..) rewritten to its
/// scalar form (the `.vN` token removed) over one more repeat axis: every
/// tile or tensor operand gets a register axis of 1 (`.unsqueeze(-1)`), so
/// the vector's lanes become repeat coordinates, in the same order. Other
/// statements are unchanged; kernel functions are rewritten too.
pub fn scalar_twin(kernel: &ast::Kernel) -> ast::Kernel {
    let mut twin = kernel.clone();
    twin.name = scalar_twin_name(&kernel.name);
    rewrite(&mut twin.body);
    twin
}

fn rewrite(body: &mut [Stmt]) {
    for stmt in body {
        match stmt {
            Stmt::Apply(apply) => {
                if let Some(scalar) = scalar_opcode(&apply.opcode) {
                    apply.opcode = scalar;
                    for operand in &mut apply.operands {
                        if let Operand::Place(place) = operand {
                            place.views.push(ViewOp {
                                kind: ViewKind::Unsqueeze(-1),
                                span: place.span,
                            });
                        }
                    }
                }
            }
            Stmt::For(for_loop) => rewrite(&mut for_loop.body),
            Stmt::If(branch) => {
                rewrite(&mut branch.then);
                rewrite(&mut branch.otherwise);
            }
            Stmt::KernelFunction(def) => rewrite(&mut def.body),
            Stmt::AllocLocal(_)
            | Stmt::Let(_)
            | Stmt::Ewise(_)
            | Stmt::Function(_)
            | Stmt::Call(_)
            | Stmt::Invalid(_) => {}
        }
    }
}

/// The scalar spelling of a vector memory opcode, if `opcode` is one and
/// the scalar spelling names a form.
fn scalar_opcode(opcode: &str) -> Option<String> {
    let tokens: Vec<&str> = opcode.split('.').collect();
    let vector = tokens
        .iter()
        .position(|t| matches!(*t, "v2" | "v4" | "v8"))?;
    let forms = resolve(opcode).ok()?;
    let touches_memory = forms.iter().any(|m| {
        matches!(
            m.effect(),
            Effect::Load { .. } | Effect::Store | Effect::Atomic { .. }
        )
    });
    if !touches_memory {
        return None;
    }
    let mut scalar = tokens;
    scalar.remove(vector);
    let scalar = scalar.join(".");
    resolve(&scalar).is_ok().then_some(scalar)
}

#[cfg(test)]
mod tests {
    use super::scalar_opcode;

    #[test]
    fn vector_memory_opcodes_lose_their_vector_token() {
        assert_eq!(
            scalar_opcode("ld.global.v4.f32").as_deref(),
            Some("ld.global.f32")
        );
        assert_eq!(
            scalar_opcode("st.global.v2.b32").as_deref(),
            Some("st.global.b32")
        );
        assert_eq!(
            scalar_opcode("ld.global.nc.v4.u32").as_deref(),
            Some("ld.global.nc.u32")
        );
        assert_eq!(scalar_opcode("ld.global.f32"), None);
        assert_eq!(scalar_opcode("cvt.rn.f16x2.f32"), None);
        assert_eq!(scalar_opcode("mov.b32"), None);
    }
}
