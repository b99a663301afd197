//! Operand checks for one `apply` against one candidate form: rules 2-7
//! and the shape part of rule 10, plus the diagnostics they produce.

use crate::ast::{self, LiteralValue, Operand};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::dtype::DType;
use crate::layout::{StaticLayout as Layout, shape_text};
use crate::ptx::form::{Access, Effect, OperandKind, ResolvedOperand, Space};
use crate::ptx::types::literal_bits;
use crate::ptx::{Modifiers, PtxType, Slot};

use super::{Checker, TileState, Value};
use crate::checked::advance;
use crate::memory::MemorySpace;
use crate::shared_layout::SharedLayout;

impl Checker<'_> {
    /// Rules 2-7 and 10 (shape parts) for one candidate form.
    pub(super) fn operand_errors(
        &self,
        apply: &ast::Apply,
        form: &Modifiers,
        values: &[Value],
    ) -> Vec<Diagnostic> {
        let slots = form.operands();
        let opcode = form.opcode_text();
        let signature = || {
            let ops = crate::emit::operand_list(
                slots
                    .iter()
                    .map(|s| (s.syntax(), crate::emit::Join::of(s.braced, s.after_pipe))),
            );
            format!("the form is `{opcode} {ops}`")
        };
        let mut errors = Vec::new();
        // Rule 2.
        if slots.len() != values.len() {
            let names: Vec<&str> = slots.iter().map(|s| s.name).collect();
            let span = apply
                .operands
                .get(slots.len())
                .map(Operand::span)
                .unwrap_or(apply.opcode_span);
            errors.push(
                Diagnostic::new(
                    Code::OPERAND_COUNT,
                    span,
                    format!(
                        "`{}` takes {} operand{} ({}), but {} {} given",
                        apply.opcode,
                        slots.len(),
                        if slots.len() == 1 { "" } else { "s" },
                        names.join(", "),
                        values.len(),
                        if values.len() == 1 { "was" } else { "were" }
                    ),
                )
                .with_note(signature()),
            );
            return errors;
        }
        let mut repeat: Option<(Vec<usize>, &str, SpanId)> = None;
        let tensor_copy = slots.iter().any(|s| s.kind == OperandKind::TensorCoords);
        let mut whole_type_reported = false;
        for ((slot, value), operand) in slots.iter().zip(values).zip(&apply.operands) {
            let span = operand.span();
            let role = if slot.access == Access::Write {
                "destination"
            } else {
                "source"
            };
            let before = errors.len();
            // A broadcast view reads one element at several repeat
            // coordinates: writing it would write that element several
            // times, in an order the program does not fix.
            if slot.access == Access::Write
                && let Some(name) = broadcast_name(value)
            {
                errors.push(
                    Diagnostic::new(
                        Code::BROADCAST_DESTINATION,
                        span,
                        format!(
                            "`{name}` is broadcast here, so operand `{}` of `{}` would write one element at several repeat coordinates",
                            slot.name, apply.opcode
                        ),
                    )
                    .with_note("a broadcast view is read-only: its repeat axes of stride 0 read one element everywhere")
                    .with_help("write into a view whose every coordinate is its own element, and broadcast it where it is read"),
                );
                continue;
            }
            // Another CTA's buffer (`.in_cta`): only a `.shared::cluster`
            // load, store or atomic maps its address (`mapa`).
            if let Value::Memory {
                cta: Some(_), name, ..
            } = value
                && let Some(diag) = remote_form_error(form, slot, name, &opcode, span)
            {
                errors.push(diag);
                continue;
            }
            // Mbarrier objects: reached by the forms' barrier operands
            // only, which are nothing else.
            if let (OperandKind::Address, Value::Memory { buffer, name, .. }) = (slot.kind, value) {
                let is_barrier = buffer.space == MemorySpace::Shared
                    && self
                        .shared
                        .get(buffer.index)
                        .is_some_and(|s| s.buffer.mbarrier);
                let wants_barrier = slot.mbarrier;
                if is_barrier != wants_barrier {
                    errors.push(if wants_barrier {
                        Diagnostic::new(
                            Code::MBARRIER_OPERAND,
                            span,
                            format!(
                                "operand `{}` of `{opcode}` is an mbarrier object, but `{name}` is a {} of {}",
                                slot.name,
                                buffer.space.noun(),
                                value.layout().map_or("?".into(), |l| l.dtype.to_string())
                            ),
                        )
                        .with_help("allocate the barriers with `alloc_shared::<Mbarrier>([n])` and pass one of them: `bars.slice(s![i..i + 1])`")
                    } else {
                        Diagnostic::new(
                            Code::MBARRIER_ACCESS,
                            span,
                            format!(
                                "`{name}` holds mbarrier objects, which only the `mbarrier` forms may reach, not `{opcode}`"
                            ),
                        )
                        .with_note("an mbarrier's word is opaque: PTX leaves any other access to it undefined")
                    });
                    continue;
                }
            }
            // `wgmma`: shared matrices through descriptors, and the
            // immediates the layout decides.
            if slot.descriptor {
                errors.extend(self.descriptor_errors(form, slot, value, span));
                continue;
            }
            if let Some(message) = super::matrices::transpose_error(slot, value) {
                errors.push(Diagnostic::new(Code::MATRIX_OPERAND, span, message));
                continue;
            }
            if slot.name == "scale-d" && super::matrices::scale_d_value(value) {
                continue;
            }
            // A bulk or tensor copy moves runs longer than one 16-byte
            // chunk, which a laid-out buffer does not keep in order; a
            // tensor copy with a swizzled map follows a swizzled buffer
            // (its box rows are checked below, with the other operands).
            if slot.whole
                && let Value::Memory { buffer, name, .. } = value
                && buffer.space == MemorySpace::Shared
                && let Some(layout) = self
                    .shared
                    .get(buffer.index)
                    .map(|s| s.buffer.layout)
                    .filter(|l| *l != SharedLayout::Linear)
                && !(tensor_copy && matches!(layout, SharedLayout::Swizzle { .. }))
            {
                errors.push(Diagnostic::new(
                    Code::LAYOUT_COPY,
                    span,
                    format!(
                        "`{opcode}` copies `{name}` as runs of bytes in row-major order, but its buffer has layout `\"{}\"`, which places every 16 bytes elsewhere",
                        layout.name()
                    ),
                ).with_help("copy into a laid-out buffer with `cp.async` (16 bytes at a time) or `st.shared`, or with a tensor copy into a `swizzle_*` buffer"));
                continue;
            }
            match (slot.kind, value) {
                // The compiler's own destinations, never the user's.
                (_, Value::SourceBytes { .. }) => {}
                (kind, Value::Implicit(implicit)) => {
                    let fits = match implicit {
                        crate::checked::Implicit::Sink | crate::checked::Implicit::Discard => {
                            kind == OperandKind::Register && slot.access == Access::Write
                        }
                        crate::checked::Implicit::RetryUntilDone => kind == OperandKind::Predicate,
                    };
                    if !fits {
                        errors.push(Diagnostic::new(
                            Code::OPERAND_COUNT,
                            apply.opcode_span,
                            format!("`{opcode}` needs its operand `{}` written", slot.name),
                        ));
                    }
                }
                // Rule 3.
                (kind, Value::Memory { buffer, name, .. })
                    if kind == OperandKind::Register
                        || (kind == OperandKind::Predicate && buffer.space == MemorySpace::Shared) =>
                {
                    let (noun, short, token) =
                        (buffer.space.noun(), buffer.space.short_noun(), buffer.space.ptx_token());
                    errors.push(
                        Diagnostic::new(
                            Code::OPERAND_KIND,
                            span,
                            format!("`{name}` is a {noun}, but operand `{}` of `{opcode}` is a register {role}", slot.name),
                        )
                        .with_help(if slot.access == Access::Write {
                            format!("write into a local tile (`alloc_local`) and store it with `st.{token}`")
                        } else {
                            format!("load the {short} into a local tile (`alloc_local`) with `ld.{token}` first")
                        }),
                    );
                }
                // The state space of the form and of the operand agree.
                (OperandKind::Address, Value::Memory { buffer, name, .. })
                    if !buffer.space.addressed_by(form.operand_space(slot.name)) =>
                {
                    let help = match buffer.space {
                        // A copy's source space is fixed by its family.
                        MemorySpace::Shared if form.get(Slot::Src).is_some() => format!(
                            "`{opcode}` copies from global memory: its `{}` is a tensor parameter",
                            slot.name
                        ),
                        MemorySpace::Shared => {
                            format!("use the `.shared` form: `{}`", shared_spelling(&opcode))
                        }
                        MemorySpace::Global => "shared forms take a buffer of `alloc_shared::<T>([..])`; use the `.global` form for a tensor".to_string(),
                    };
                    errors.push(
                        Diagnostic::new(
                            Code::MEMORY_SPACE,
                            span,
                            format!(
                                "`{name}` is a {}, but `{opcode}` addresses {} memory",
                                buffer.space.noun(),
                                space_name(form.operand_space(slot.name))
                            ),
                        )
                        .with_help(help),
                    );
                }
                // A bulk copy's run of bytes: the whole view, contiguous.
                (OperandKind::Address, Value::Memory { layout, name, .. }) if slot.whole => {
                    // A bulk reduction's runs are elements of its `.type`
                    // (a bulk copy's are bytes of any dtype).
                    // One `.type` for both runs: a mismatch is one
                    // mistake, reported at the first operand it shows in.
                    if slot.ty != PtxType::B8 && !slot.ty.accepts(layout.dtype) {
                        if !whole_type_reported {
                            errors.push(dtype_error(slot, layout, span, &opcode));
                        }
                        whole_type_reported = true;
                    } else if let Some(axis) = gap_axis(layout) {
                        errors.push(
                            Diagnostic::new(
                                Code::MEMORY_NOT_CONTIGUOUS,
                                span,
                                format!(
                                    "operand `{}` of `{opcode}` moves the whole view as one run of bytes, but `{name}` {} is not contiguous at axis {axis}",
                                    slot.name,
                                    shape_text(&layout.shape)
                                ),
                            )
                            .with_help("copy a contiguous part (whole rows of a row-major buffer, or a slice of one row), one `apply` per run"),
                        );
                    }
                }
                (OperandKind::Address, Value::Local { name, .. }) => errors.push(
                    Diagnostic::new(
                        Code::OPERAND_KIND,
                        span,
                        format!(
                            "`{name}` is a local tile, but operand `{}` of `{opcode}` is a memory address; memory operands are global tensors (kernel parameters) or shared buffers (`alloc_shared`)",
                            slot.name
                        ),
                    ),
                ),
                (OperandKind::Address, other @ (Value::Scalar { .. } | Value::Literal(_) | Value::Index { .. })) => errors.push(Diagnostic::new(
                    Code::OPERAND_KIND,
                    span,
                    format!(
                        "operand `{}` of `{opcode}` is a memory address, but a {} was given",
                        slot.name,
                        other.describe()
                    ),
                )),
                // Immediate-only operands: a literal in range, nothing else.
                (OperandKind::Immediate { min, max }, Value::Literal(literal)) => {
                    match literal {
                        LiteralValue::Int(v) if (min as i128..=max as i128).contains(v) => {}
                        LiteralValue::Int(v) => errors.push(Diagnostic::new(
                            Code::IMMEDIATE_RANGE,
                            span,
                            format!(
                                "operand `{}` of `{opcode}` must be in {min}..={max}, but `{v}` is not",
                                slot.name
                            ),
                        )),
                        other => errors.push(Diagnostic::new(
                            Code::IMMEDIATE_REQUIRED,
                            span,
                            format!(
                                "operand `{}` of `{opcode}` is an integer constant in {min}..={max}, but a {} was given",
                                slot.name,
                                Value::Literal(*other).describe()
                            ),
                        )),
                    }
                }
                (OperandKind::Immediate { min, max }, other) => errors.push(
                    Diagnostic::new(
                        Code::IMMEDIATE_REQUIRED,
                        span,
                        format!(
                            "operand `{}` of `{opcode}` is an integer constant in {min}..={max}, but {} was given",
                            slot.name,
                            match other {
                                Value::Local { name, .. } => format!("the local tile `{name}`"),
                                Value::Memory { buffer, name, .. } => {
                                    format!("the {} `{name}`", buffer.space.noun())
                                }
                                other => format!("a {}", other.describe()),
                            }
                        ),
                    )
                    .with_help("write the value as an integer literal: PTX encodes it in the instruction"),
                ),
                // Special registers: `sreg("%name")` with a name the form reads.
                (OperandKind::Special(names), Value::Special(name)) => {
                    if !names.contains(&name.as_str()) {
                        let mut diag = Diagnostic::new(
                            Code::UNKNOWN_SPECIAL_REGISTER,
                            span,
                            format!(
                                "`{name}` is not a special register `{opcode}` reads; it reads {}",
                                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                            ),
                        );
                        if let Some(near) = crate::ptx::resolve::nearest(name, names.iter().copied()) {
                            diag = diag.with_help(format!("did you mean `{near}`?"));
                        }
                        errors.push(diag);
                    }
                }
                (OperandKind::Special(_), other) => errors.push(
                    Diagnostic::new(
                        Code::OPERAND_KIND,
                        span,
                        format!(
                            "operand `{}` of `{opcode}` is a special register, but a {} was given",
                            slot.name,
                            other.describe()
                        ),
                    )
                    .with_help("write it as `sreg(\"%laneid\")`"),
                ),
                (_, Value::Special(name)) => errors.push(
                    Diagnostic::new(
                        Code::OPERAND_KIND,
                        span,
                        format!(
                            "`{name}` is a special register, but operand `{}` of `{opcode}` is not: special registers are read with `mov`",
                            slot.name
                        ),
                    )
                    .with_help(format!("read it into a tile first: `apply(ptx[\"mov.u32\"], t, sreg(\"{name}\"))`")),
                ),
                // A tensor map's box: a slice of a tensor parameter.
                (OperandKind::TensorCoords, value) => {
                    errors.extend(self.tensor_box_error(slot, value, span, &opcode));
                }
                // Predicate registers live in `bool` tiles (the generic arm
                // below checks a tile's extent and repeat shape).
                (OperandKind::Predicate, Value::Memory { name, .. }) => errors.push(
                    Diagnostic::new(
                        Code::OPERAND_KIND,
                        span,
                        format!("`{name}` is a global tensor, but operand `{}` of `{opcode}` is a predicate register {role}", slot.name),
                    )
                    .with_help("predicates live in `bool` tiles: `let p = alloc_local::<bool>([1]);`"),
                ),
                (OperandKind::Predicate, scalar @ (Value::Scalar { .. } | Value::Literal(_) | Value::Index { .. })) => errors.push(
                    Diagnostic::new(
                        if slot.access == Access::Write {
                            Code::SCALAR_DESTINATION
                        } else {
                            Code::OPERAND_KIND
                        },
                        span,
                        format!(
                            "operand `{}` of `{opcode}` is a predicate register {role}, but a {} was given",
                            slot.name,
                            scalar.describe()
                        ),
                    )
                    .with_help("predicates live in `bool` tiles: `let p = alloc_local::<bool>([1]);`"),
                ),
                // Rule 7.
                (OperandKind::Register, scalar @ (Value::Scalar { .. } | Value::Literal(_) | Value::Index { .. })) => {
                    if slot.access == Access::Write {
                        errors.push(Diagnostic::new(
                            Code::SCALAR_DESTINATION,
                            span,
                            format!(
                                "operand `{}` of `{opcode}` is a destination, but a {} cannot be written",
                                slot.name,
                                scalar.describe()
                            ),
                        ).with_help("write into a local tile (`alloc_local`)"));
                    } else if slot.lanes > 1 {
                        errors.push(Diagnostic::new(
                            Code::SCALAR_IN_GROUP,
                            span,
                            format!(
                                "operand `{}` of `{opcode}` is a group of {} registers, but a {} fills only one; scalars broadcast only into single-register sources",
                                slot.name,
                                slot.lanes,
                                scalar.describe()
                            ),
                        ));
                    } else if let Some(diag) = scalar_type_error(slot, scalar, span, &opcode) {
                        errors.push(diag);
                    }
                }
                (
                    _,
                    Value::Local { layout, .. } | Value::Memory { layout, .. },
                ) => {
                    let is_memory = slot.kind == OperandKind::Address;
                    // A wrong carrier width whose final axis holds exactly the
                    // operand's bits is one mistake (rule 6, fixed by a view),
                    // not also a wrong extent.
                    let carrier = slot.ty.carrier_bits();
                    let view_fixes_extent = !slot.ty.accepts(layout.dtype)
                        && layout.dtype.bits() != carrier
                        && layout.shape.last().is_some_and(|e| {
                            e.checked_mul(layout.dtype.bits())
                                == Some(slot.lanes as usize * carrier)
                        });
                    // Rule 5 / rule 10 (extent of one access).
                    let mut extent_ok = true;
                    match layout.shape.last() {
                        None => {
                            extent_ok = false;
                            errors.push(Diagnostic::new(
                                Code::REGISTER_EXTENT,
                                span,
                                format!("operand `{}` needs a register axis, but this view has no axes", slot.name),
                            ));
                        }
                        Some(&extent) if extent != slot.lanes as usize && !view_fixes_extent => {
                            extent_ok = false;
                            errors.push(extent_error(slot, layout, span, &opcode, is_memory, value));
                        }
                        Some(_) => {}
                    }
                    // Rule 6.
                    if !slot.ty.accepts(layout.dtype) {
                        errors.push(dtype_error(slot, layout, span, &opcode));
                    }
                    if errors.len() == before {
                        if is_memory {
                            // Rule 10: the moved elements are contiguous.
                            if slot.lanes > 1 && layout.strides.last() != Some(&layout.dtype.size_bytes()) {
                                errors.push(Diagnostic::new(
                                    Code::MEMORY_NOT_CONTIGUOUS,
                                    span,
                                    format!(
                                        "memory operand `{}` must be contiguous in its final axis: one `{opcode}` moves {} adjacent elements",
                                        slot.name, slot.lanes
                                    ),
                                ));
                            }
                        } else if let Some(diag) = register_split_error(&self.tiles, value, span) {
                            errors.push(diag);
                        }
                    }
                    // Rule 4 (only once the register axis is right: with a
                    // wrong final axis the repeat axes are unknown, and the
                    // extent error's help already fixes both).
                    if let Some((_, rest)) = layout.shape.split_last().filter(|_| extent_ok) {
                        let name = value.name();
                        match &repeat {
                            None => repeat = Some((rest.to_vec(), name, span)),
                            Some((shape, first, _)) if shape.as_slice() != rest => errors.push(
                                Diagnostic::new(
                                    Code::REPEAT_SHAPE,
                                    span,
                                    format!(
                                        "repeat shape {} of `{name}` does not match repeat shape {} of `{first}`",
                                        shape_text(rest),
                                        shape_text(shape)
                                    ),
                                )
                                .with_note("all tensor operands of one `apply` share their repeat axes (every axis but the last)"),
                            ),
                            Some(_) => {}
                        }
                    }
                }
            }
            if errors.len() > before
                && errors[before..].iter().all(|d| d.notes.is_empty())
                && let Some(first) = errors.get_mut(before)
            {
                first.notes.push(signature());
            }
        }
        if errors.is_empty() {
            errors.extend(bulk_size_error(apply, &opcode, slots.as_slice(), values));
        }
        if errors.is_empty() && tensor_copy {
            errors.extend(self.swizzled_box_error(apply, &opcode, slots.as_slice(), values));
        }
        errors
    }

    /// A tensor copy meeting a `swizzle_S` buffer: its map swizzles each
    /// box row as the buffer swizzles its rows only when the two are one
    /// row, so the box's innermost row must be the buffer's `S` bytes.
    /// (Its shared view starting on a swizzle atom is the alignment
    /// proof's.)
    fn swizzled_box_error(
        &self,
        apply: &ast::Apply,
        opcode: &str,
        slots: &[ResolvedOperand],
        values: &[Value],
    ) -> Option<Diagnostic> {
        let (span, buffer_name) =
            slots
                .iter()
                .zip(values)
                .find_map(|(slot, value)| match value {
                    Value::Memory { buffer, name, .. }
                        if slot.whole && buffer.space == MemorySpace::Shared =>
                    {
                        match self.shared.get(buffer.index)?.buffer.layout {
                            SharedLayout::Swizzle { span } => Some((span, name.as_str())),
                            _ => None,
                        }
                    }
                    _ => None,
                })?;
        let (index, (layout, box_name)) =
            slots
                .iter()
                .zip(values)
                .enumerate()
                .find_map(|(i, (slot, value))| match value {
                    Value::Memory { layout, name, .. }
                        if slot.kind == OperandKind::TensorCoords =>
                    {
                        Some((i, (layout, name.as_str())))
                    }
                    _ => None,
                })?;
        let element = layout.dtype.size_bytes();
        let row = layout.shape.last().copied().unwrap_or(0) * element;
        if row == span as usize {
            return None;
        }
        Some(
            Diagnostic::new(
                Code::LAYOUT_COPY,
                apply.operands.get(index)?.span(),
                format!(
                    "the box of `{box_name}` has rows of {row} bytes, but `{opcode}` meets `{buffer_name}`, whose layout `\"swizzle_{span}\"` swizzles rows of {span} bytes"
                ),
            )
            .with_note("the tensor map swizzles each box row in the buffer's pattern, so a box row must be one buffer row")
            .with_help(format!(
                "make the box's last extent {} elements; a wider tile is several boxes, one per {span}-byte column",
                span as usize / element.max(1)
            )),
        )
    }
}

/// The first axis (from the last) where `layout` leaves a gap: its
/// elements are not one row-major run of bytes. Axes of extent 1 have no
/// neighbours to be apart from.
fn gap_axis(layout: &Layout) -> Option<usize> {
    let mut run = layout.dtype.size_bytes();
    for axis in (0..layout.shape.len()).rev() {
        let extent = layout.shape[axis];
        if extent == 1 {
            continue;
        }
        if layout.strides[axis] != run {
            return Some(axis);
        }
        run = run.saturating_mul(extent);
    }
    None
}

/// The bytes a whole-view operand moves.
fn view_bytes(layout: &Layout) -> usize {
    layout
        .shape
        .iter()
        .fold(layout.dtype.size_bytes(), |acc, e| acc.saturating_mul(*e))
}

/// A bulk copy's `size`: a constant equal to the bytes of each of its
/// views, a non-zero multiple of 16 (PTX: `size` is a multiple of 16).
fn bulk_size_error(
    apply: &ast::Apply,
    opcode: &str,
    slots: &[ResolvedOperand],
    values: &[Value],
) -> Option<Diagnostic> {
    let mut views = slots
        .iter()
        .zip(values)
        .zip(&apply.operands)
        .filter(|((slot, _), _)| slot.whole)
        .filter_map(|((slot, value), operand)| match value {
            Value::Memory { layout, name, .. } => Some((
                view_bytes(layout),
                name.as_str(),
                operand.span(),
                slot.kind == OperandKind::TensorCoords,
            )),
            _ => None,
        });
    let (bytes, first, first_span, first_is_box) = views.next()?;
    // One instruction: the other memory operands (its mbarrier) name one
    // element.
    if let Some((value, operand)) = slots
        .iter()
        .zip(values)
        .zip(&apply.operands)
        .find(|((slot, value), _)| {
            !slot.whole
                && value
                    .layout()
                    .is_some_and(|l| l.shape.iter().product::<usize>() != 1)
        })
        .map(|((_, value), operand)| (value, operand))
    {
        return Some(Diagnostic::new(
            Code::REPEAT_SHAPE,
            operand.span(),
            format!(
                "`{opcode}` is one copy of its whole views, so `{}` must name one object, not {}",
                value.name(),
                value
                    .layout()
                    .map_or(String::new(), |l| shape_text(&l.shape))
            ),
        ));
    }
    let tensor_copy = slots.iter().any(|s| s.kind == OperandKind::TensorCoords);
    if let Some((other, name, span, _)) = views.find(|(b, _, _, _)| *b != bytes) {
        return Some(Diagnostic::new(
            Code::BULK_SIZE,
            span,
            if first_is_box {
                format!(
                    "`{name}` holds {other} bytes, but the box of `{first}` holds {bytes}: `{opcode}` stores its shared view into the box"
                )
            } else if tensor_copy {
                format!(
                    "the box of `{name}` holds {other} bytes, but `{first}` holds {bytes}: `{opcode}` fills its shared view with the box"
                )
            } else {
                format!(
                    "`{name}` holds {other} bytes, but `{first}` holds {bytes}: `{opcode}` copies one run of bytes between views of one size"
                )
            },
        ));
    }
    if bytes == 0 || bytes % 16 != 0 {
        return Some(Diagnostic::new(
            Code::BULK_SIZE,
            first_span,
            format!(
                "`{first}` holds {bytes} bytes, but `{opcode}` copies a non-zero multiple of 16 bytes"
            ),
        ));
    }
    let (index, _) = slots.iter().enumerate().find(|(_, s)| s.name == "size")?;
    let span = apply.operands.get(index)?.span();
    let size = match values.get(index)? {
        Value::Literal(LiteralValue::Int(v)) => Some(*v),
        Value::Index { value, .. } => value.as_const(),
        _ => None,
    };
    match size {
        Some(size) if size == bytes as i128 => None,
        Some(size) => Some(
            Diagnostic::new(
                Code::BULK_SIZE,
                span,
                format!("`size` is {size}, but the views of this `{opcode}` hold {bytes} bytes"),
            )
            .with_help(format!("pass `{bytes}`")),
        ),
        None => Some(
            Diagnostic::new(
                Code::BULK_SIZE,
                span,
                format!(
                    "`size` of `{opcode}` must be the constant byte count of its views, {bytes}"
                ),
            )
            .with_help(format!("pass `{bytes}`")),
        ),
    }
}

/// Rule 5 (registers) / rule 10 (memory): the final axis must hold exactly
/// the operand's registers / the elements one access moves.
fn extent_error(
    slot: &ResolvedOperand,
    layout: &Layout,
    span: SpanId,
    opcode: &str,
    is_memory: bool,
    value: &Value,
) -> Diagnostic {
    let extent = *layout.shape.last().unwrap_or(&0);
    let name = value.name();
    if is_memory {
        let bytes = slot.lanes as usize * slot.ty.carrier_bits() / 8;
        let mut diag = Diagnostic::new(
            Code::MEMORY_EXTENT,
            span,
            format!(
                "memory operand `{}` of `{opcode}` moves {} element{} ({bytes} bytes) per access, but the final axis of `{name}` has extent {extent}",
                slot.name,
                slot.lanes,
                if slot.lanes == 1 { "" } else { "s" }
            ),
        );
        if extent.checked_mul(layout.dtype.size_bytes()) == Some(bytes)
            && bytes.is_multiple_of(layout.dtype.size_bytes())
            && let Some(bits) = DType::ALL
                .into_iter()
                .find(|d| d.size_bytes() * slot.lanes as usize == bytes && *d == d.bit_container())
        {
            diag = diag.with_help(format!(
                "view the bytes as the access type with `.view::<{bits}>()`"
            ));
        }
        return diag;
    }
    let mut diag = Diagnostic::new(
        Code::REGISTER_EXTENT,
        span,
        format!(
            "operand `{}` of `{opcode}` takes {} register{}, but the register axis (final axis) of `{name}` has extent {extent}",
            slot.name,
            slot.lanes,
            if slot.lanes == 1 { "" } else { "s" }
        ),
    );
    if slot.lanes == 1 && extent > 1 {
        diag = diag.with_help(format!(
            "add a singleton register axis with `.unsqueeze(-1)` so each of the {extent} elements becomes its own repeat"
        ));
    } else if extent > 0 && (slot.lanes as usize).is_multiple_of(extent) && slot.lanes > 1 {
        diag = diag.with_help(format!(
            "the final axis must hold the {} registers of one `{{..}}` group; reshape the tile so its last extent is {}",
            slot.lanes, slot.lanes
        ));
    }
    diag
}

/// Rule 6: the dtype must be the PTX type or its equal-width bit container.
fn dtype_error(slot: &ResolvedOperand, layout: &Layout, span: SpanId, opcode: &str) -> Diagnostic {
    let accepted: Vec<String> = slot
        .ty
        .accepted_dtypes()
        .iter()
        .map(|d| format!("`{d}`"))
        .collect();
    let dtype = layout.dtype;
    let carrier = slot.ty.carrier_bits();
    // Predicates and data registers never convert into each other by a view.
    if dtype == DType::Bool || slot.ty == PtxType::Pred {
        let (what, help) = if dtype == DType::Bool {
            (
                format!("`{dtype}` tiles hold predicate registers"),
                "turn a predicate into a value with `selp` (e.g. `selp.u32 d, 1, 0, p`)",
            )
        } else {
            (
                format!("`{dtype}` elements are data registers"),
                "predicates live in `bool` tiles (`alloc_local::<bool>([..])`); compute one with `setp`",
            )
        };
        return Diagnostic::new(
            Code::OPERAND_TYPE,
            span,
            format!(
                "operand `{}` of `{opcode}` is `{}`, but {what}",
                slot.name, slot.ty
            ),
        )
        .with_help(help);
    }
    let mut diag = if dtype.bits() != carrier {
        Diagnostic::new(
            Code::OPERAND_TYPE,
            span,
            format!(
                "operand `{}` of `{opcode}` is `{}` with a {carrier}-bit carrier, but this operand's dtype `{dtype}` is {}-bit",
                slot.name,
                slot.ty,
                dtype.bits()
            ),
        )
    } else {
        Diagnostic::new(
            Code::OPERAND_TYPE,
            span,
            format!(
                "operand `{}` of `{opcode}` is `{}`, which `{dtype}` does not carry",
                slot.name, slot.ty
            ),
        )
    };
    diag = diag.with_note(format!(
        "`{}` accepts {}",
        slot.ty,
        join_alternatives(&accepted)
    ));
    // A view fixes it when the final axis holds exactly the operand's bits.
    let extent = *layout.shape.last().unwrap_or(&0);
    // Saturating: an extent may be as large as a tensor dim.
    let bits = extent.saturating_mul(dtype.bits());
    if let Some(target) = slot
        .ty
        .accepted_dtypes()
        .into_iter()
        .find(|d| *d == d.bit_container())
    {
        if bits == slot.lanes as usize * carrier
            && (layout.strides.last() == Some(&dtype.size_bytes()) || extent == 1)
        {
            if dtype.bits() == carrier {
                // Same width, other meaning (`i32` for `.f32`): a view would
                // pass the bits unconverted, which is rarely what was meant.
                diag = diag.with_help(format!(
                    "if these `{dtype}` elements already hold `{}` bit patterns, reinterpret them with `.view::<{target}>()`; a view never converts values",
                    slot.ty
                ));
            } else {
                diag = diag.with_help(format!("reinterpret the bits with `.view::<{target}>()`"));
            }
        } else if dtype.bits() != carrier && bits.is_multiple_of(carrier) && extent > 0 {
            diag = diag.with_help(format!(
                "`.view::<{target}>()` would regroup the bits into {}-bit registers; adjust the final axis to {} register{}",
                carrier,
                slot.lanes,
                if slot.lanes == 1 { "" } else { "s" }
            ));
        }
    }
    diag
}

/// The name of `value` when its view is a broadcast (an axis of stride 0
/// and extent above 1).
fn broadcast_name(value: &Value) -> Option<&str> {
    match value {
        Value::Local { name, layout, .. } => layout
            .shape
            .iter()
            .zip(&layout.strides)
            .any(|(d, s)| *s == 0 && *d > 1)
            .then_some(name.as_str()),
        Value::Memory { name, view, .. } => view.is_broadcast().then_some(name.as_str()),
        _ => None,
    }
}

/// Rule 7 / 6 for scalars: the literal or parameter must fit the operand type.
fn scalar_type_error(
    slot: &ResolvedOperand,
    value: &Value,
    span: SpanId,
    opcode: &str,
) -> Option<Diagnostic> {
    match value {
        Value::Scalar { name, dtype, .. } => (!slot.ty.accepts(*dtype)).then(|| {
            let accepted: Vec<String> = slot
                .ty
                .accepted_dtypes()
                .iter()
                .map(|d| format!("`{d}`"))
                .collect();
            Diagnostic::new(
                Code::OPERAND_TYPE,
                span,
                format!(
                    "operand `{}` of `{opcode}` is `{}`, but parameter `{name}` is `{dtype}`",
                    slot.name, slot.ty
                ),
            )
            .with_note(format!(
                "`{}` accepts {}",
                slot.ty,
                join_alternatives(&accepted)
            ))
        }),
        Value::Literal(literal) => literal_bits(*literal, slot.ty).err().map(|message| {
            Diagnostic::new(
                Code::LITERAL_TYPE,
                span,
                format!("operand `{}` of `{opcode}`: {message}", slot.name),
            )
        }),
        Value::Index { text, range, .. } => index_type_error(slot, text, *range, span, opcode),
        _ => None,
    }
}

/// Rule 7 for a runtime integer: the operand takes integers, and every
/// value the integer may take (`range`) fits its type.
fn index_type_error(
    slot: &ResolvedOperand,
    text: &str,
    (lo, hi): (i128, i128),
    span: SpanId,
    opcode: &str,
) -> Option<Diagnostic> {
    let ty = slot.ty;
    let Some((min, max)) = ty.integer_range() else {
        return Some(
            Diagnostic::new(
                Code::OPERAND_TYPE,
                span,
                format!(
                    "operand `{}` of `{opcode}` is `{ty}`, but `{text}` is a runtime integer",
                    slot.name
                ),
            )
            .with_help(format!(
                "convert it first, into a tile of the type this operand takes: `apply(ptx[\"cvt.rn{ty}.s64\"], t, {text});`"
            )),
        );
    };
    if lo >= min && hi <= max {
        return None;
    }
    let wider = match ty.carrier_bits() {
        bits if bits < 64 && ty.is_signed_int() => " (`.s64`)".to_string(),
        bits if bits < 64 => " (`.u64`, or `.s64`)".to_string(),
        _ => String::new(),
    };
    Some(
        Diagnostic::new(
            Code::INDEX_OPERAND_RANGE,
            span,
            format!(
                "`{text}` may be any value in {lo}..={hi}, which does not fit operand `{}` of `{opcode}` (`{ty}` holds {min}..={max})",
                slot.name
            ),
        )
        .with_note("a runtime integer's range comes from what the launcher admits: size symbols are at most 2^40 - 1, thread and CTA ids below the launch's extents")
        .with_help(if wider.is_empty() {
            "use a form whose type holds every value".to_string()
        } else {
            format!("use the 64-bit form of the instruction{wider}")
        }),
    )
}

/// A register lane must be one whole register, an aligned part of one
/// register (at most 4 parts: `mov` unpacks into 2 or 4 lanes), or 2/4 whole
/// registers; anything else would need shifts, which views never emit.
fn register_split_error(tiles: &[TileState], value: &Value, span: SpanId) -> Option<Diagnostic> {
    let Value::Local {
        tile, name, layout, ..
    } = value
    else {
        return None;
    };
    let register = tiles[*tile].tile.dtype.size_bytes();
    let element = layout.dtype.size_bytes();
    let ratio_ok = if element <= register {
        register / element <= 4
    } else {
        element / register <= 4
    };
    let mut misaligned = false;
    let mut index = vec![0usize; layout.shape.len()];
    for _ in 0..layout.len() {
        let offset = layout.byte_offset(&index);
        if offset % element.min(register) != 0 || (element > register && offset % register != 0) {
            misaligned = true;
            break;
        }
        if element < register && offset / register != (offset + element - 1) / register {
            misaligned = true;
            break;
        }
        advance(&mut index, &layout.shape);
    }
    if ratio_ok && !misaligned {
        return None;
    }
    let base = tiles[*tile].tile.dtype;
    Some(
        Diagnostic::new(
            Code::UNEVEN_REGISTER_SPLIT,
            span,
            format!("this `{}` view of `{name}` (registers of `{base}`) does not split its registers evenly", layout.dtype),
        )
        .with_note("sub-register views are realised with `mov` pack/unpack: an element must be 1/2 or 1/4 of a register, or 2 or 4 whole registers"),
    )
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
pub(super) fn join_alternatives(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The state space a memory form addresses, for messages.
fn space_name(space: crate::ptx::Space) -> &'static str {
    match space {
        crate::ptx::Space::Generic => "generic (global)",
        crate::ptx::Space::Global => "global",
        crate::ptx::Space::Shared { cluster: true } => "cluster shared",
        crate::ptx::Space::Shared { cluster: false } => "shared",
        crate::ptx::Space::Local => "local",
        crate::ptx::Space::Const => "constant",
        crate::ptx::Space::Param => "parameter",
    }
}

/// `opcode` with its state space spelled `.shared` (for a help line).
/// Why operand `slot` of `form` cannot be `name`, a view of another CTA's
/// shared buffer (`None`: it can).
fn remote_form_error(
    form: &Modifiers,
    slot: &ResolvedOperand,
    name: &str,
    opcode: &str,
    span: SpanId,
) -> Option<Diagnostic> {
    let plain = matches!(
        form.effect(),
        Effect::Load {
            non_coherent: false
        } | Effect::Store
            | Effect::Atomic { .. }
    ) && slot.kind == OperandKind::Address
        && !slot.mbarrier
        && !slot.descriptor
        && !slot.whole;
    if plain && form.operand_space(slot.name) == (Space::Shared { cluster: true }) {
        return None;
    }
    // An arrive on another CTA's mbarrier: the ring proof follows it
    // (`crate::prove::cluster_rings`).
    if form.form.id == crate::prove::cluster_rings::REMOTE_ARRIVE_FORM && slot.mbarrier {
        return None;
    }
    let diag = if plain {
        Diagnostic::new(
            Code::REMOTE_SHARED_FORM,
            span,
            format!(
                "`{name}` is another CTA's shared buffer, but `{opcode}` addresses the executing CTA's shared memory"
            ),
        )
        .with_help(format!(
            "use the `.shared::cluster` form: `{}`",
            cluster_spelling(opcode)
        ))
    } else {
        Diagnostic::new(
            Code::REMOTE_SHARED_FORM,
            span,
            format!("`{opcode}` cannot reach another CTA's shared buffer (`{name}`)"),
        )
        .with_note("another CTA's shared memory is reached by `.shared::cluster` loads, stores and atomics (`ld`, `st`, `atom`, `red`)")
    };
    Some(diag)
}

/// `opcode` with its state space `.shared::cluster`.
fn cluster_spelling(opcode: &str) -> String {
    let mut parts: Vec<&str> = opcode.split('.').collect();
    match parts
        .iter()
        .position(|p| matches!(*p, "global" | "shared" | "shared::cta"))
    {
        Some(i) => parts[i] = "shared::cluster",
        None => parts.insert(1, "shared::cluster"),
    }
    parts.join(".")
}

fn shared_spelling(opcode: &str) -> String {
    let mut parts: Vec<&str> = opcode.split('.').collect();
    match parts
        .iter()
        .position(|p| *p == "global" || *p == "shared::cluster")
    {
        Some(i) => parts[i] = "shared",
        None => parts.insert(1, "shared"),
    }
    parts.join(".")
}
