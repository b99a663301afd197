//! The alignment obligation (SPEC §4 rule 10 and §6): every memory access
//! is aligned to its size, proven from its byte offset or made so by a
//! launch-time requirement on a size symbol.
//!
//! **Input**: one checked `apply`: per repeat coordinate, each memory
//! operand's byte offset (a polynomial over atoms) and access size; the
//! buffers start at their space's base alignment
//! ([`crate::memory::MemorySpace::base_alignment`]), which the access size
//! must divide (accesses move at most 128 bits). **Output**: the launch requirements that make the offsets aligned
//! (`K % 4 == 0` for a row of `K` floats), and diagnostics (TK0402 for a
//! constant offset that is misaligned, TK0403 for an offset that cannot be
//! proven aligned), at most one per operand.
//!
//! Guarantee: when nothing is reported and the launcher checks the
//! requirements, every access's address is a multiple of its size.

use crate::checked::{Apply, Value, operand_access};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::dtype::DType;
use crate::layout::{index_text, storage_index};
use crate::memory::MemorySpace;
use crate::program::{DimSpec, ParamKind, ProgramParam};
use crate::sema::limits::poly_text;
use crate::shared_layout::SharedLayout;
use crate::sym::{AtomKind, Atoms, Poly, gcd};

/// What a kernel's alignment proofs read.
pub(crate) struct Context<'a> {
    pub atoms: &'a Atoms,
    pub params: &'a [ProgramParam],
    /// The element type of shared buffer `i` as declared.
    pub shared_dtype: &'a dyn Fn(usize) -> DType,
    /// The alignment of shared buffer `i`'s first byte.
    pub shared_alignment: &'a dyn Fn(usize) -> usize,
    /// The layout of shared buffer `i`.
    pub shared_layout: &'a dyn Fn(usize) -> SharedLayout,
}

/// A launch-time requirement: the user's value of size symbol `symbol`
/// must be a multiple of `multiple` elements of the symbol's divisor (the
/// kernel sees value / divisor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Requirement {
    pub symbol: usize,
    pub missing: i128,
}

/// The outcome for one apply.
#[derive(Debug, Default)]
pub(crate) struct Proof {
    pub requirements: Vec<Requirement>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The alignment of every memory access of `apply`.
pub(crate) fn prove(apply: &Apply, cx: &Context<'_>) -> Proof {
    let mut proof = Proof::default();
    let mut reported = vec![false; apply.operands.len()];
    for index in apply.indices() {
        for (i, operand) in apply.operands.iter().enumerate() {
            let Value::Memory {
                buffer, name, view, ..
            } = &operand.value
            else {
                continue;
            };
            if reported[i] {
                continue;
            }
            let (full, offset, _, size) = operand_access(&operand.slot, view, &index);
            // A tensor copy meets a swizzled buffer in whole atoms: the
            // hardware's swizzle is a function of the address, the
            // buffer's of the offset from its atom-aligned start.
            let atom = match buffer.space {
                MemorySpace::Shared if operand.slot.whole => {
                    match (cx.shared_layout)(buffer.index) {
                        layout @ SharedLayout::Swizzle { .. } => Some(layout.alignment()),
                        _ => None,
                    }
                }
                _ => None,
            }
            .filter(|atom| *atom > size);
            let size = atom.unwrap_or(size);
            // A multiple of the size is aligned only when the size divides
            // the buffer's own alignment.
            let base = match buffer.space {
                MemorySpace::Shared => (cx.shared_alignment)(buffer.index),
                MemorySpace::Global => buffer.space.base_alignment(),
            };
            let divides_base = base % size == 0;
            let need = if atom.is_some() {
                format!("the {size}-byte swizzle atom a tensor copy of a swizzled buffer starts on")
            } else if operand.slot.whole_alignment == crate::memory::TENSOR_COPY_SHARED_ALIGNMENT {
                format!("the {size} bytes a tensor copy's shared address is aligned to")
            } else if operand.slot.whole {
                format!("the {size} bytes a bulk copy's addresses are aligned to")
            } else {
                format!("the {size}-byte access size")
            };
            match requirements(&offset, size, cx.atoms).filter(|_| divides_base) {
                Some(requirements) => proof.requirements.extend(requirements),
                None => {
                    reported[i] = true;
                    let mut diag = match buffer.space {
                        MemorySpace::Global => global_error(
                            cx,
                            buffer.index,
                            name,
                            &offset,
                            &full,
                            (&need, operand.slot.whole),
                            operand.span,
                            &apply.opcode,
                        ),
                        MemorySpace::Shared => shared_error(
                            cx,
                            buffer.index,
                            name,
                            &offset,
                            (
                                size,
                                &if operand.slot.whole {
                                    format!("needs an address that is a multiple of {need}")
                                } else {
                                    format!(
                                        "moves {size} bytes, so its address must be a multiple of {size}"
                                    )
                                },
                            ),
                            operand.span,
                            &apply.opcode,
                        ),
                    };
                    if !divides_base && buffer.space == MemorySpace::Shared {
                        diag = diag.with_note(format!(
                            "shared buffer `{name}` is only {base}-byte aligned: the dynamic buffer starts the CTA's dynamic shared memory; static buffers (constant dims) are {}-byte aligned",
                            crate::memory::STATIC_SHARED_ALIGNMENT
                        ));
                    }
                    proof.diagnostics.push(diag);
                }
            }
        }
    }
    proof
}

/// The launch requirements under which `offset` is a multiple of `size`
/// (none needed: empty), or `None` when no requirement on a symbol makes
/// it one.
fn requirements(offset: &Poly, size: usize, atoms: &Atoms) -> Option<Vec<Requirement>> {
    let size = size as i128;
    let mut requirements = Vec::new();
    for (monomial, coef) in offset.terms() {
        if coef % size == 0 {
            continue;
        }
        // A symbol in the monomial can carry the missing factor.
        let symbol = monomial.iter().find_map(|a| match atoms.get(*a).kind {
            AtomKind::Symbol(index) => Some(index),
            _ => None,
        })?;
        requirements.push(Requirement {
            symbol,
            missing: size / gcd(coef, size),
        });
    }
    Some(requirements)
}

/// A shared access whose offset is not provably a multiple of its size.
fn shared_error(
    cx: &Context<'_>,
    buffer: usize,
    name: &str,
    offset: &Poly,
    (size, need): (usize, &str),
    span: SpanId,
    opcode: &str,
) -> Diagnostic {
    Diagnostic::new(
        Code::ALIGNMENT_UNPROVEN,
        span,
        format!(
            "`{opcode}` {need}, but its byte offset `{}` into shared buffer `{name}` is not provably one",
            poly_text(offset, cx.atoms)
        ),
    )
    .with_help(format!(
        "start the slice at a multiple of {} elements",
        size / (cx.shared_dtype)(buffer).size_bytes().max(1)
    ))
}

/// A global access at a misaligned constant offset, or at an offset that
/// is not provably aligned.
#[allow(clippy::too_many_arguments)]
fn global_error(
    cx: &Context<'_>,
    param: usize,
    name: &str,
    offset: &Poly,
    full: &[usize],
    (need, bulk): (&str, bool),
    span: SpanId,
    opcode: &str,
) -> Diagnostic {
    let rule = if bulk {
        "PTX requires a bulk copy's addresses and size to be multiples of 16 bytes"
    } else {
        "PTX memory accesses must be aligned to their total size"
    };
    if let Some(constant) = offset.as_const() {
        let constant = usize::try_from(constant).unwrap_or(0);
        let element = match &cx.params[param].kind {
            ParamKind::Tensor { dtype, dims, .. } => {
                let shape: Option<Vec<usize>> = dims
                    .iter()
                    .map(|d| match d {
                        DimSpec::Const(v) => usize::try_from(*v).ok(),
                        _ => None,
                    })
                    .collect();
                match shape {
                    Some(shape) => storage_index(&shape, dtype.size_bytes(), constant),
                    None => index_text(full),
                }
            }
            ParamKind::Scalar(_) => index_text(full),
        };
        return Diagnostic::new(
            Code::MISALIGNED,
            span,
            format!(
                "`{opcode}` accesses `{name}{element}` at byte offset {constant}, which is not aligned to {need}",
            ),
        )
        .with_note(rule);
    }
    Diagnostic::new(
        Code::ALIGNMENT_UNPROVEN,
        span,
        format!(
            "`{opcode}` accesses `{name}` at byte offset `{}`, which is not provably a multiple of {need}",
            poly_text(offset, cx.atoms)
        ),
    )
    .with_note("PTX memory accesses must be aligned to their total size; tensor bases are 16-byte aligned")
    .with_help("make the element offset a multiple of the elements one access moves, e.g. `thread_id(0) * 4` for `.v4`")
}
