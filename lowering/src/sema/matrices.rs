//! `wgmma` operands (`docs/tensor-cores.md`): the shared matrices its
//! descriptors describe, its transpose immediates and `scale-d`.
//!
//! A descriptor operand (`a-desc`, `b-desc`) is written as a view of a
//! shared buffer with a wgmma layout (`crate::shared_layout`): `[rows,
//! k]`, `rows` the operand's M (A: 64) or N (B), `k` one instruction's 32
//! bytes of K, cut from whole rows of the buffer (row stride = the
//! buffer's row), starting on the first row of an 8-row group and on a
//! 16-byte column. The compiler encodes the descriptor
//! ([`crate::shared_layout::MatrixOperand`]); the user never writes its
//! bits. Operands are K-major (`imm-trans-a`/`-b` are 0); MN-major
//! operands are not supported yet.
//!
//! Guarantee: a descriptor operand that passes names exactly the bytes of
//! its view, in the order the instruction reads A (`M x K`, row `m` =
//! view row `m`) or B (`K x N`, column `n` = view row `n`); its start is
//! proven on an 8-row group and 16-byte column for every value of the
//! atoms in it. That the start is the same for every thread of the
//! warpgroup is checked where the apply is added (`WARPGROUP_OPERAND`).

use crate::checked::Value;
use crate::diag::{Code, Diagnostic, SpanId};
use crate::dtype::DType;
use crate::memory::MemorySpace;
use crate::ptx::form::ResolvedOperand;
use crate::ptx::{Modifiers, Slot};
use crate::shared_layout::{MATRIX_K_BYTES, MatrixOperand, SharedLayout};

use super::Checker;

/// The rows (M of A, N of B) a `wgmma` descriptor operand has.
pub(crate) fn operand_rows(form: &Modifiers, slot: &str) -> Option<u32> {
    let shape = form.get(Slot::Shape)?;
    let n = shape
        .strip_prefix("m64n")?
        .split('k')
        .next()?
        .parse()
        .ok()?;
    Some(if slot == "a-desc" { 64 } else { n })
}

/// The element bits and the dtype that carries them for a `wgmma` input
/// type token: halves, tf32 (32-bit registers), 8-bit floats and integers.
fn element(token: &str) -> Option<(u32, DType)> {
    Some(match token {
        "f16" => (16, DType::F16),
        "bf16" => (16, DType::Bf16),
        "tf32" => (32, DType::F32),
        "e4m3" | "e5m2" | "u8" => (8, DType::U8),
        "s8" => (8, DType::I8),
        _ => return None,
    })
}

impl Checker<'_> {
    /// The layout of a descriptor operand, or the reason it has none (a
    /// message for `MATRIX_OPERAND` at the operand).
    pub(crate) fn matrix_operand(
        &self,
        form: &Modifiers,
        slot: &ResolvedOperand,
        value: &Value,
    ) -> Result<MatrixOperand, String> {
        let Value::Memory {
            buffer,
            name,
            layout,
            view,
            ..
        } = value
        else {
            return Err(format!(
                "operand `{}` is a matrix in shared memory: pass a view of a shared buffer, not {}",
                slot.name,
                value.describe()
            ));
        };
        if buffer.space != MemorySpace::Shared {
            return Err(format!(
                "operand `{}` is a matrix in shared memory, but `{name}` is a global tensor: copy the tile into a shared buffer with a wgmma layout first",
                slot.name
            ));
        }
        let shared = &self.shared[buffer.index].buffer;
        let buffer_name = &shared.name;
        let row_bytes = match shared.layout {
            SharedLayout::Linear => {
                return Err(format!(
                    "`{buffer_name}` is row-major, but `wgmma` reads shared matrices through a descriptor, which needs a wgmma layout: allocate it with `layout = \"swizzle_128\"` (or \"swizzle_64\", \"swizzle_32\", \"core_matrices\")"
                ));
            }
            SharedLayout::CoreMatrices { row_bytes } => row_bytes,
            SharedLayout::Swizzle { span } => span,
        };
        let operand = if slot.name == "a-desc" { "A" } else { "B" };
        let token = form
            .get(if slot.name == "a-desc" {
                Slot::Atype
            } else {
                Slot::Btype
            })
            .unwrap_or("?");
        let (bits, carrier) = element(token).unwrap_or((0, DType::U8));
        let dtype = shared.dtype;
        let natural = !matches!(dtype, DType::F16 | DType::Bf16 | DType::F32 | DType::F64)
            || dtype == carrier;
        if dtype.bits() as u32 != bits || !natural {
            return Err(format!(
                "`{name}` holds {dtype}, but {operand} of `{}` is .{token} ({bits}-bit elements): use a buffer of {}",
                form.opcode_text(),
                carrier
            ));
        }
        let rows = operand_rows(form, slot.name).unwrap_or(0);
        let k = MATRIX_K_BYTES / (bits / 8);
        let element = u64::from(bits / 8);
        let expected = format!("[{rows}, {k}]");
        if layout.shape != [rows as usize, k as usize] {
            return Err(format!(
                "{operand} of `{}` is {rows} rows of {k} elements of K, so `{name}` must be a {expected} view, but it is {}",
                form.opcode_text(),
                crate::layout::shape_text(&layout.shape)
            ));
        }
        let row_stride = view.strides[0].as_const();
        let k_stride = view.strides[1].as_const();
        if k_stride != Some(element as i128) || row_stride != Some(i128::from(row_bytes)) {
            return Err(format!(
                "`{name}` must be whole rows of `{buffer_name}` (rows {row_bytes} bytes apart, K contiguous), as a slice `{buffer_name}.slice(s![.., r..r + {rows}, k..k + {k}])` cuts them"
            ));
        }
        // The start: on row 0 of an 8-row group and a 16-byte column, for
        // every value of the atoms in it.
        let period = 8 * i128::from(row_bytes);
        let start = &view.offset;
        let varying_ok = start
            .terms()
            .filter(|(monomial, _)| !monomial.is_empty())
            .all(|(_, coefficient)| coefficient % period == 0);
        let constant = start.constant_term().rem_euclid(period);
        let column = constant % i128::from(row_bytes);
        if !varying_ok || constant >= i128::from(row_bytes) || column % 16 != 0 {
            return Err(format!(
                "`{name}` must start on the first row of a group of 8 rows of `{buffer_name}` and at a multiple of 16 bytes in its row: slice rows from a multiple of 8"
            ));
        }
        if column + i128::from(MATRIX_K_BYTES) > i128::from(row_bytes) {
            return Err(format!(
                "`{name}` runs past the end of the {row_bytes}-byte rows of `{buffer_name}`"
            ));
        }
        Ok(MatrixOperand {
            layout: shared.layout,
            rows,
            row_bytes,
        })
    }

    /// The errors of a `wgmma` descriptor operand (at most one).
    pub(super) fn descriptor_errors(
        &self,
        form: &Modifiers,
        slot: &ResolvedOperand,
        value: &Value,
        span: SpanId,
    ) -> Option<Diagnostic> {
        let message = self.matrix_operand(form, slot, value).err()?;
        Some(
            Diagnostic::new(Code::MATRIX_OPERAND, span, message)
                .with_note("`docs/tensor-cores.md` shows the layouts a wgmma operand may have"),
        )
    }
}

/// A `wgmma` immediate the compiler decides: `imm-trans-a`/`-b` must be 0
/// (K-major operands). `Some(message)` when the value contradicts it.
pub(super) fn transpose_error(slot: &ResolvedOperand, value: &Value) -> Option<String> {
    if !slot.name.starts_with("imm-trans-") {
        return None;
    }
    match value {
        Value::Literal(crate::ast::LiteralValue::Int(0)) => None,
        _ => Some(format!(
            "operand `{}` must be 0: the shared operands of a kernel's `wgmma` are K-major (MN-major operands are not supported yet)",
            slot.name
        )),
    }
}

/// Whether `value` may be `wgmma`'s `scale-d`: a literal 0 or 1 (or a
/// `bool`), or a runtime integer (non-zero: accumulate into D).
pub(super) fn scale_d_value(value: &Value) -> bool {
    matches!(
        value,
        Value::Literal(crate::ast::LiteralValue::Int(0 | 1) | crate::ast::LiteralValue::Bool(_))
            | Value::Index { .. }
    )
}
