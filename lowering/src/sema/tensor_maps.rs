//! Tensor-map operands (`cp.async.bulk.tensor`, TMA): the kernel writes a
//! slice of a tensor parameter; its constant extents are the *box* the
//! launcher encodes into a tensor map (`cuTensorMapEncodeTiled`), its
//! starts the coordinates the instruction passes. The kernel never sees
//! the map, so it cannot fabricate one.
//!
//! Guarantee: an operand accepted here is a plain slice of tensor
//! parameter `p` (no reshape, dtype view or step) with one extent per
//! tensor axis, each in `1..=256`, whose innermost row is a multiple of 16
//! bytes (what the hardware and `cuTensorMapEncodeTiled` take). It needs
//! no bounds: the hardware clips every box to the map's dims (the whole
//! tensor) and zero-fills a load's elements outside them, so any
//! coordinates are safe, a box partly or wholly outside the tensor
//! included (`crate::emit` clamps them into the `.s32` range).

use crate::checked::Value;
use crate::diag::{Code, Diagnostic, SpanId};
use crate::layout::shape_text;
use crate::memory::MemorySpace;
use crate::program::ParamKind;
use crate::ptx::form::ResolvedOperand;
use crate::sym::Poly;

use super::Checker;

/// The largest box extent of a tensor map (`boxDim[i] <= 256`).
pub(crate) const MAX_BOX_EXTENT: usize = 256;
/// A box's innermost row is a multiple of this many bytes.
pub(crate) const BOX_ROW_BYTES: usize = 16;

impl Checker<'_> {
    /// Why `value` cannot be the box of tensor-map operand `slot`, if it
    /// cannot.
    pub(super) fn tensor_box_error(
        &self,
        slot: &ResolvedOperand,
        value: &Value,
        span: SpanId,
        opcode: &str,
    ) -> Option<Diagnostic> {
        let box_help = "pass a slice of a tensor parameter whose extents are the box: `x.slice(s![r..r + 64, c..c + 64])`";
        let Value::Memory {
            buffer,
            name,
            layout,
            view,
            ..
        } = value
        else {
            return Some(
                Diagnostic::new(
                    Code::OPERAND_KIND,
                    span,
                    format!(
                        "operand `{}` of `{opcode}` is a tensor map with coordinates, but a {} was given",
                        slot.name,
                        value.describe()
                    ),
                )
                .with_help(box_help),
            );
        };
        let tensor = (buffer.space == MemorySpace::Global)
            .then(|| self.params.get(buffer.index))
            .flatten()
            .and_then(|p| match &p.kind {
                ParamKind::Tensor { dtype, dims, .. } => Some((*dtype, dims.len())),
                ParamKind::Scalar(_) => None,
            });
        let Some((dtype, rank)) = tensor else {
            return Some(
                Diagnostic::new(
                    Code::MEMORY_SPACE,
                    span,
                    format!(
                        "`{name}` is a {}, but operand `{}` of `{opcode}` is a box of a tensor in global memory",
                        buffer.space.noun(),
                        slot.name
                    ),
                )
                .with_help(box_help),
            );
        };
        let box_error = |message: String| {
            Some(Diagnostic::new(Code::TENSOR_BOX, span, message).with_note(
                "the launcher builds the tensor map from the tensor and this box; the instruction passes the slice's starts as coordinates",
            ))
        };
        let region = &view.region;
        let identity: Vec<usize> = (0..rank).collect();
        let plain = view.dtype == dtype
            && region.axes.as_deref() == Some(identity.as_slice())
            && region.steps.iter().all(|s| *s == 1)
            && view.shape == region.counts;
        if !plain {
            return box_error(format!(
                "`{name}` is not a plain slice of the tensor: operand `{}` of `{opcode}` takes a box of it, one extent per tensor axis, without a step, reshape or dtype view",
                slot.name
            ));
        }
        if usize::from(slot.lanes) != rank {
            return box_error(format!(
                "`{opcode}` copies a {}-dimensional box, but `{name}` is a slice of a {rank}-dimensional tensor",
                slot.lanes
            ));
        }
        if layout.shape.len() != rank || !view.shape.iter().all(|e| e.as_const().is_some()) {
            return box_error(format!(
                "the box of `{name}` needs constant extents, but it is {}",
                slice_text(&view.shape)
            ));
        }
        if let Some(extent) = layout
            .shape
            .iter()
            .find(|e| !(1..=MAX_BOX_EXTENT).contains(*e))
        {
            return box_error(format!(
                "the box of `{name}` is {}, but a tensor map's box extents are 1 to {MAX_BOX_EXTENT}, not {extent}",
                shape_text(&layout.shape)
            ));
        }
        let row = layout.shape[rank - 1] * dtype.size_bytes();
        if !row.is_multiple_of(BOX_ROW_BYTES) {
            return box_error(format!(
                "the box of `{name}` is {}: its innermost row is {row} bytes, but a tensor map's is a multiple of {BOX_ROW_BYTES}",
                shape_text(&layout.shape)
            ));
        }
        None
    }
}

/// `[64, N]`-like text of a view's extents (`?` for one that is not a
/// constant).
fn slice_text(shape: &[Poly]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|e| e.as_const().map_or("?".to_string(), |v| v.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}
