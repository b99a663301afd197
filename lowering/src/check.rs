//! Legality checking: turns an [`ast::Kernel`] into a [`Program`] or a list of
//! diagnostics (all of them, not just the first).
//!
//! Rule numbers in comments refer to the legality rules of SPEC §4:
//! 1 opcode, 2 operand count, 3 register vs memory, 4 repeat shapes,
//! 5 register axis, 6 dtype/carrier, 7 scalars, 8 overlapping destinations,
//! 9 pred/preserve_dst/uninitialised reads, 10 memory contiguity/alignment.

use std::collections::{HashMap, HashSet};

use crate::ast::{self, LiteralValue, Operand, PredExpr, Stmt, ViewKind};
use crate::diag::{Diagnostic, Diagnostics, SpanId};
use crate::dtype::DType;
use crate::layout::{Layout, shape_text};
use crate::program::{
    Guard, Instruction, Lane, OperandValue, ParamKind, Program, ProgramParam, Statement, Tile,
};
use crate::ptx::form::{Access, OperandKind, ResolvedOperand};
use crate::ptx::resolve::nearest;
use crate::ptx::table::FORMS;
use crate::ptx::types::TypeClass;
use crate::ptx::{Modifiers, PtxType, resolve};
use crate::target::Requirement;

/// Upper bound on a tile's elements and on a kernel's expanded instructions,
/// so a typo like `alloc_local::<f32>([1 << 30])` fails fast instead of
/// exhausting the compiler.
pub const MAX_TILE_ELEMENTS: usize = 1 << 16;
pub const MAX_INSTRUCTIONS: usize = 1 << 20;

/// Output of [`check`].
#[derive(Debug)]
pub struct Checked {
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
    /// Per parameter: does the kernel store into it (launcher takes `&mut`)?
    pub param_writes: Vec<bool>,
}

/// Checks a kernel, collecting every diagnostic.
pub fn check(kernel: &ast::Kernel) -> Checked {
    let mut checker = Checker::new(kernel);
    checker.check_signature();
    for stmt in &kernel.body {
        match stmt {
            Stmt::AllocLocal(alloc) => checker.alloc(alloc),
            Stmt::Apply(apply) => checker.apply(apply),
        }
    }
    checker.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    Param(usize),
    Tile(usize),
    /// A parameter whose type was unreadable: uses are skipped silently.
    Unparsed,
}

struct TileState {
    tile: Tile,
    /// Which bytes of the tile some earlier statement wrote.
    written: Vec<bool>,
}

/// An operand after name resolution and views.
#[derive(Debug, Clone)]
enum Value {
    Local {
        tile: usize,
        name: String,
        layout: Layout,
    },
    Global {
        param: usize,
        name: String,
        layout: Layout,
    },
    Scalar {
        param: usize,
        name: String,
        dtype: DType,
    },
    Literal(LiteralValue),
}

impl Value {
    fn layout(&self) -> Option<&Layout> {
        match self {
            Value::Local { layout, .. } | Value::Global { layout, .. } => Some(layout),
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Value::Local { name, layout, .. } => {
                format!(
                    "local tile `{name}` ({} {})",
                    layout.dtype,
                    shape_text(&layout.shape)
                )
            }
            Value::Global { name, layout, .. } => {
                format!(
                    "global tensor `{name}` ({} {})",
                    layout.dtype,
                    shape_text(&layout.shape)
                )
            }
            Value::Scalar { name, dtype, .. } => format!("scalar parameter `{name}: {dtype}`"),
            Value::Literal(LiteralValue::Int(v)) => format!("integer literal `{v}`"),
            Value::Literal(LiteralValue::Float(v)) => format!("float literal `{v:?}`"),
            Value::Literal(LiteralValue::Bool(v)) => format!("bool literal `{v}`"),
        }
    }
}

struct Checker<'k> {
    kernel: &'k ast::Kernel,
    diags: Diagnostics,
    params: Vec<ProgramParam>,
    names: HashMap<String, Binding>,
    tiles: Vec<TileState>,
    statements: Vec<Statement>,
    requirement: Requirement,
    instruction_count: usize,
    /// Some parameter type was unreadable (reported by the parser).
    unparsed_params: bool,
}

impl<'k> Checker<'k> {
    fn new(kernel: &'k ast::Kernel) -> Self {
        Checker {
            kernel,
            diags: Diagnostics::default(),
            params: Vec::new(),
            names: HashMap::new(),
            tiles: Vec::new(),
            statements: Vec::new(),
            requirement: Requirement::new(0, 0, 0),
            instruction_count: 0,
            unparsed_params: false,
        }
    }

    fn check_signature(&mut self) {
        if !self.kernel.name.is_ascii() {
            self.diags.error(
                self.kernel.name_span,
                format!(
                    "the kernel name `{}` becomes the PTX entry name, which must be ASCII",
                    self.kernel.name
                ),
            );
        }
        let launch = self.kernel.launch;
        let threads: u64 = launch.block.iter().map(|d| u64::from(*d)).product();
        if launch.grid.contains(&0) || launch.block.contains(&0) {
            self.diags.error(
                self.kernel.name_span,
                "grid and block extents must be at least 1",
            );
        } else if threads > 1024 {
            self.diags.error(
                self.kernel.name_span,
                format!(
                    "a block may hold at most 1024 threads, but block = {:?} has {threads}",
                    launch.block
                ),
            );
        }
        for (index, param) in self.kernel.params.iter().enumerate() {
            if self.names.contains_key(&param.name) {
                self.diags.error(
                    param.span,
                    format!("parameter `{}` is declared more than once", param.name),
                );
            }
            self.names.insert(param.name.clone(), Binding::Param(index));
            let kind = match &param.ty {
                ast::ParamType::Tensor { dtype, dims } => {
                    if !dtype.is_tile_element() {
                        self.diags.error(
                            param.span,
                            format!(
                                "tensors of `{dtype}` are not supported; use `u8` for byte flags"
                            ),
                        );
                    }
                    if dims.is_empty() {
                        self.diags
                            .error(param.span, "a tensor needs at least one dimension");
                    }
                    let shape: Vec<usize> = dims.iter().map(|d| d.value as usize).collect();
                    let bytes = shape
                        .iter()
                        .try_fold(dtype.size_bytes(), |acc, d| acc.checked_mul(*d))
                        .filter(|b| *b <= (1usize << 40));
                    if bytes.is_none() {
                        self.diags
                            .error(param.span, "this tensor is larger than 1 TiB");
                    }
                    ParamKind::Tensor {
                        dtype: *dtype,
                        shape,
                        written: false,
                    }
                }
                ast::ParamType::Scalar(dtype) => ParamKind::Scalar(*dtype),
                ast::ParamType::Unparsed => {
                    self.unparsed_params = true;
                    self.names.insert(param.name.clone(), Binding::Unparsed);
                    // Placeholder keeping parameter indices aligned; no
                    // program is produced for this kernel.
                    ParamKind::Scalar(DType::U8)
                }
            };
            self.params.push(ProgramParam {
                name: param.name.clone(),
                kind,
            });
        }
    }

    fn alloc(&mut self, alloc: &ast::AllocLocal) {
        if !alloc.dtype.is_tile_element() {
            self.diags.error(
                alloc.dtype_span,
                format!(
                    "local tiles of `{}` are not supported; predicates come from `bool` parameters",
                    alloc.dtype
                ),
            );
            return;
        }
        if alloc.shape.is_empty() {
            self.diags.push(
                Diagnostic::new(
                    alloc.span,
                    "a local tile needs at least one axis (its register axis)",
                )
                .with_help("write `alloc_local::<T>([1])` for a single register"),
            );
            return;
        }
        let shape: Vec<usize> = alloc.shape.iter().map(|d| d.value as usize).collect();
        let elements = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d));
        if elements.is_none_or(|n| n > MAX_TILE_ELEMENTS) {
            self.diags.error(
                alloc.span,
                format!(
                    "local tile `{}` would hold more than {MAX_TILE_ELEMENTS} registers",
                    alloc.name
                ),
            );
            return;
        }
        let tile = Tile {
            name: alloc.name.clone(),
            dtype: alloc.dtype,
            shape,
        };
        let bytes = tile.registers() * alloc.dtype.size_bytes();
        self.names
            .insert(alloc.name.clone(), Binding::Tile(self.tiles.len()));
        self.tiles.push(TileState {
            tile,
            written: vec![false; bytes],
        });
    }

    /// Resolves a name and applies its views.
    fn value(&mut self, operand: &Operand) -> Option<Value> {
        let place = match operand {
            Operand::Literal(literal) => return Some(Value::Literal(literal.value)),
            Operand::Place(place) => place,
        };
        let Some(binding) = self.names.get(&place.base).copied() else {
            let mut diag = Diagnostic::new(
                place.base_span,
                format!(
                    "cannot find tile or parameter `{}` in this kernel",
                    place.base
                ),
            );
            if let Some(near) = nearest(&place.base, self.names.keys().map(String::as_str)) {
                diag = diag.with_help(format!(
                    "a tile or parameter with a similar name exists: `{near}`"
                ));
            }
            self.diags.push(diag);
            return None;
        };
        let (mut layout, make): (Layout, Box<dyn Fn(Layout) -> Value>) = match binding {
            Binding::Unparsed => return None,
            Binding::Tile(tile) => {
                let t = &self.tiles[tile].tile;
                let name = t.name.clone();
                (
                    Layout::row_major(t.dtype, &t.shape),
                    Box::new(move |layout| Value::Local {
                        tile,
                        name: name.clone(),
                        layout,
                    }),
                )
            }
            Binding::Param(param) => {
                match &self.params[param].kind {
                    ParamKind::Scalar(dtype) => {
                        if let Some(view) = place.views.first() {
                            self.diags.error(
                            view.span,
                            format!("`{}` is a scalar parameter; views apply only to tiles and tensors", place.base),
                        );
                            return None;
                        }
                        return Some(Value::Scalar {
                            param,
                            name: place.base.clone(),
                            dtype: *dtype,
                        });
                    }
                    ParamKind::Tensor { dtype, shape, .. } => {
                        let name = place.base.clone();
                        (
                            Layout::row_major(*dtype, shape),
                            Box::new(move |layout| Value::Global {
                                param,
                                name: name.clone(),
                                layout,
                            }),
                        )
                    }
                }
            }
        };
        for view in &place.views {
            let result = match &view.kind {
                ViewKind::Slice(items) => layout.slice(items, view.span),
                ViewKind::View(dtype) => layout.view(*dtype, view.span),
                ViewKind::Reshape(dims) => layout.reshape(dims, view.span),
                ViewKind::Unsqueeze(axis) => layout.unsqueeze(*axis, view.span),
            };
            match result {
                Ok(next) => layout = next,
                Err(err) => {
                    let mut diag = Diagnostic::new(err.span, err.message);
                    if let Some(help) = err.help {
                        diag = diag.with_help(help);
                    }
                    self.diags.push(diag);
                    return None;
                }
            }
        }
        Some(make(layout))
    }

    fn apply(&mut self, apply: &ast::Apply) {
        // Resolve operands first so name and view errors are reported even
        // when the opcode is wrong.
        let values: Vec<Option<Value>> = apply.operands.iter().map(|op| self.value(op)).collect();
        let guard = self.guard(apply);

        if let Some((scope, span)) = &apply.scope {
            match scope.as_str() {
                "thread" => {}
                "warp" | "warpgroup" | "cta" => self.diags.push(
                    Diagnostic::new(*span, format!("`scope = \"{scope}\"` is not yet supported"))
                        .with_note("this version issues every instruction per thread; use `scope = \"thread\"` (the default)"),
                ),
                other => self.diags.push(
                    Diagnostic::new(*span, format!("unknown scope `\"{other}\"`"))
                        .with_help("the scopes are \"thread\", \"warp\", \"warpgroup\" and \"cta\""),
                ),
            }
        }

        // Rule 1: the opcode names legal forms.
        let candidates = match resolve(&apply.opcode) {
            Ok(candidates) => candidates,
            Err(err) => {
                let mut diag = Diagnostic::new(apply.opcode_span, err.message);
                diag.help = err.help;
                diag.notes = err.notes;
                self.diags.push(diag);
                self.note_guessed_memory_writes(&apply.opcode, &values);
                self.mark_destinations_written_best_effort(values.iter().flatten());
                return;
            }
        };
        if values.iter().any(Option::is_none) || guard.is_none() {
            self.mark_destinations_written_best_effort(values.iter().flatten());
            return;
        }
        let values: Vec<Value> = values.into_iter().flatten().collect();
        let Some(guard) = guard else { return };

        // Rules 2-7: pick the form whose operand shapes fit (the table keeps
        // them unambiguous); report the errors of the closest one otherwise.
        let mut best: Option<(Modifiers, Vec<Diagnostic>)> = None;
        for candidate in candidates {
            let errors = self.operand_errors(apply, &candidate, &values);
            let better = best.as_ref().is_none_or(|(_, e)| errors.len() < e.len());
            if better {
                best = Some((candidate, errors));
            }
            if best.as_ref().is_some_and(|(_, e)| e.is_empty()) {
                break;
            }
        }
        let Some((form, errors)) = best else { return };
        let slots = form.operands();
        self.note_memory_writes(&slots, &values);
        if !errors.is_empty() {
            for diag in errors {
                self.diags.push(diag);
            }
            self.mark_destinations_written_best_effort(&values);
            return;
        }

        // Target requirement of this variant.
        let requirement = form.requirement(self.kernel.target);
        if !requirement.is_met_by(self.kernel.target) {
            self.diags.push(
                Diagnostic::new(
                    apply.opcode_span,
                    format!(
                        "`{}` requires sm_{} or newer (PTX ISA {}), but this kernel targets {}",
                        apply.opcode, requirement.sm, requirement.ptx, self.kernel.target
                    ),
                )
                .with_help(format!(
                    "raise the target with `#[tile_kernel(arch = \"sm_{}\", ..)]`",
                    requirement.sm
                )),
            );
            // Rule 11: no "never written" follow-ups from this statement.
            self.mark_destinations_written_best_effort(&values);
            return;
        }
        self.requirement = self.requirement.max(requirement);

        self.check_preserve_dst(apply, &slots, &values);
        self.expand(apply, &form, &slots, &values, guard);
    }

    /// Resolves `pred = ..` to a guard; `None` after reporting an error.
    fn guard(&mut self, apply: &ast::Apply) -> Option<Guard> {
        let Some(pred) = &apply.pred else {
            return Some(Guard::Always);
        };
        self.pred_guard(pred, false)
    }

    fn pred_guard(&mut self, pred: &PredExpr, negated: bool) -> Option<Guard> {
        match pred {
            PredExpr::Literal(value, _) => Some(if *value != negated {
                Guard::Always
            } else {
                Guard::Never
            }),
            PredExpr::Not(inner, _) => self.pred_guard(inner, !negated),
            PredExpr::Name(name, span) => match self.names.get(name).copied() {
                Some(Binding::Param(param)) => {
                    match &self.params[param].kind {
                        ParamKind::Scalar(DType::Bool) => Some(Guard::Param { param, negated }),
                        ParamKind::Scalar(dtype) => {
                            self.diags.push(
                            Diagnostic::new(*span, format!("`pred` must be a bool expression, but `{name}` is `{dtype}`"))
                                .with_help("declare the parameter as `bool`"),
                        );
                            None
                        }
                        ParamKind::Tensor { .. } => {
                            self.diags.error(
                                *span,
                                format!(
                                    "`pred` must be a bool expression, but `{name}` is a tensor"
                                ),
                            );
                            None
                        }
                    }
                }
                Some(Binding::Unparsed) => None,
                Some(Binding::Tile(_)) => {
                    self.diags.error(
                        *span,
                        format!("`pred` must be a bool expression, but `{name}` is a local tile"),
                    );
                    None
                }
                None => {
                    self.diags
                        .error(*span, format!("cannot find `{name}` in this kernel"));
                    None
                }
            },
            PredExpr::Other(text, span) => {
                self.diags.push(
                    Diagnostic::new(
                        *span,
                        format!("`pred` must be a bool expression, found `{text}`"),
                    )
                    .with_help("write a `bool` parameter, its negation `!p`, or `true`/`false`"),
                );
                None
            }
        }
    }

    /// Rules 2-7 and 10 (shape parts) for one candidate form.
    fn operand_errors(
        &self,
        apply: &ast::Apply,
        form: &Modifiers,
        values: &[Value],
    ) -> Vec<Diagnostic> {
        let slots = form.operands();
        let opcode = form.opcode_text();
        let signature = || {
            let ops: Vec<String> = slots.iter().map(ResolvedOperand::syntax).collect();
            format!("the form is `{opcode} {}`", ops.join(", "))
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
        for ((slot, value), operand) in slots.iter().zip(values).zip(&apply.operands) {
            let span = operand.span();
            let role = if slot.access == Access::Write {
                "destination"
            } else {
                "source"
            };
            let before = errors.len();
            match (slot.kind, value) {
                // Rule 3.
                (OperandKind::Register, Value::Global { name, .. }) => errors.push(
                    Diagnostic::new(
                        span,
                        format!("`{name}` is a global tensor, but operand `{}` of `{opcode}` is a register {role}", slot.name),
                    )
                    .with_help(if slot.access == Access::Write {
                        "write into a local tile (`alloc_local`) and store it with `st.global`".to_string()
                    } else {
                        "load the tensor into a local tile (`alloc_local`) with `ld.global` first".to_string()
                    }),
                ),
                (OperandKind::Address, Value::Local { name, .. }) => errors.push(
                    Diagnostic::new(
                        span,
                        format!(
                            "`{name}` is a local tile, but operand `{}` of `{opcode}` is a memory address; memory operands must be global tensors (kernel parameters)",
                            slot.name
                        ),
                    ),
                ),
                (OperandKind::Address, other @ (Value::Scalar { .. } | Value::Literal(_))) => errors.push(Diagnostic::new(
                    span,
                    format!(
                        "operand `{}` of `{opcode}` is a memory address, but a {} was given",
                        slot.name,
                        other.describe()
                    ),
                )),
                // Rule 7.
                (OperandKind::Register, scalar @ (Value::Scalar { .. } | Value::Literal(_))) => {
                    if slot.access == Access::Write {
                        errors.push(Diagnostic::new(
                            span,
                            format!(
                                "operand `{}` of `{opcode}` is a destination, but a {} cannot be written",
                                slot.name,
                                scalar.describe()
                            ),
                        ).with_help("write into a local tile (`alloc_local`)"));
                    } else if slot.lanes > 1 {
                        errors.push(Diagnostic::new(
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
                (_, Value::Local { layout, .. } | Value::Global { layout, .. }) => {
                    let is_memory = slot.kind == OperandKind::Address;
                    // A wrong carrier width whose final axis holds exactly the
                    // operand's bits is one mistake (rule 6, fixed by a view),
                    // not also a wrong extent.
                    let carrier = slot.ty.carrier_bits();
                    let view_fixes_extent = !slot.ty.accepts(layout.dtype)
                        && layout.dtype.bits() != carrier
                        && layout.shape.last().is_some_and(|e| {
                            e * layout.dtype.bits() == slot.lanes as usize * carrier
                        });
                    // Rule 5 / rule 10 (extent of one access).
                    let mut extent_ok = true;
                    match layout.shape.last() {
                        None => {
                            extent_ok = false;
                            errors.push(Diagnostic::new(
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
                        let name = value_name(value);
                        match &repeat {
                            None => repeat = Some((rest.to_vec(), name, span)),
                            Some((shape, first, _)) if shape.as_slice() != rest => errors.push(
                                Diagnostic::new(
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
        errors
    }

    /// Rule 9: `preserve_dst = true` keeps an old value, so it needs `pred`
    /// and a register destination that was written before.
    fn check_preserve_dst(
        &mut self,
        apply: &ast::Apply,
        slots: &[ResolvedOperand],
        values: &[Value],
    ) {
        let Some((true, span)) = apply.preserve_dst else {
            return;
        };
        if apply.pred.is_none() {
            self.diags.push(
                Diagnostic::new(span, "`preserve_dst = true` needs `pred = ..`: without a predicate the destination is always written")
                    .with_help("add `pred = <bool parameter>` or remove `preserve_dst`"),
            );
            return;
        }
        let destination = slots
            .iter()
            .zip(values)
            .find(|(slot, _)| slot.access == Access::Write && slot.kind == OperandKind::Register);
        let Some((_, Value::Local { tile, name, layout })) = destination else {
            self.diags.error(span, format!("`preserve_dst = true` needs a register destination, but `{}` writes only memory", apply.opcode));
            return;
        };
        let state = &self.tiles[*tile];
        if let Some(index) = first_unwritten(layout, &state.written) {
            let element = storage_index(
                &state.tile.shape,
                state.tile.dtype.size_bytes(),
                layout.byte_offset(&index),
            );
            self.diags.push(
                Diagnostic::new(
                    span,
                    format!(
                        "`preserve_dst = true` keeps the old value of `{name}` where `pred` is false, but `{name}{element}` was never written before",
                    ),
                )
                .with_help("initialise the destination first, or drop `preserve_dst` if its old value does not matter"),
            );
        }
    }

    /// Records which tensor parameters the kernel stores into.
    fn note_memory_writes(&mut self, slots: &[ResolvedOperand], values: &[Value]) {
        for (slot, value) in slots.iter().zip(values) {
            if let (Access::Write, Value::Global { param, .. }) = (slot.access, value)
                && let ParamKind::Tensor { written, .. } = &mut self.params[*param].kind
            {
                *written = true;
            }
        }
    }

    /// For a misspelled opcode, still mark the tensors its mnemonic would
    /// store into (every form of `st` writes operand 0), so the fallback
    /// launcher keeps `&mut` there and correct callers see no type errors.
    fn note_guessed_memory_writes(&mut self, opcode: &str, values: &[Option<Value>]) {
        let mnemonic = opcode.split('.').next().unwrap_or_default();
        let forms: Vec<_> = FORMS.iter().filter(|f| f.mnemonic == mnemonic).collect();
        if forms.is_empty() {
            return;
        }
        for (position, value) in values.iter().enumerate() {
            let always_stored = forms.iter().all(|f| {
                f.operands
                    .get(position)
                    .is_some_and(|o| o.access == Access::Write && o.kind == OperandKind::Address)
            });
            if let (true, Some(Value::Global { param, .. })) = (always_stored, value)
                && let ParamKind::Tensor { written, .. } = &mut self.params[*param].kind
            {
                *written = true;
            }
        }
    }

    /// After an erroneous statement, treat every local operand as written so
    /// one mistake does not cascade into "never written" errors later.
    fn mark_destinations_written_best_effort<'v>(
        &mut self,
        values: impl IntoIterator<Item = &'v Value>,
    ) {
        for value in values {
            if let Value::Local { tile, layout, .. } = value {
                for_each_byte(layout, |byte| {
                    if let Some(w) = self.tiles[*tile].written.get_mut(byte) {
                        *w = true;
                    }
                });
            }
        }
    }

    /// Rules 8, 9 (reads) and 10 (alignment) per repeat coordinate, then the
    /// instructions themselves.
    fn expand(
        &mut self,
        apply: &ast::Apply,
        form: &Modifiers,
        slots: &[ResolvedOperand],
        values: &[Value],
        guard: Guard,
    ) {
        let repeat: Vec<usize> = values
            .iter()
            .find_map(|v| v.layout().map(|l| l.shape[..l.shape.len() - 1].to_vec()))
            .unwrap_or_default();
        let count = repeat.iter().fold(1usize, |acc, d| acc.saturating_mul(*d));
        if self.instruction_count.saturating_add(count) > MAX_INSTRUCTIONS {
            self.diags.error(
                apply.span,
                format!("this kernel would expand to more than {MAX_INSTRUCTIONS} instructions"),
            );
            return;
        }
        self.instruction_count += count;
        let opcode = form.opcode_text();
        let mut instructions = Vec::with_capacity(count);
        let mut reported = vec![false; values.len()];
        let mut written_now: HashSet<(usize, usize)> = HashSet::new();
        let mut writes: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut failed = false;
        let mut index = vec![0usize; repeat.len()];
        for _ in 0..count {
            let mut operands = Vec::with_capacity(values.len());
            for (i, ((slot, value), operand)) in
                slots.iter().zip(values).zip(&apply.operands).enumerate()
            {
                let span = operand.span();
                match value {
                    Value::Local { tile, name, layout } => {
                        let element_size = layout.dtype.size_bytes();
                        let mut lanes = Vec::with_capacity(slot.lanes as usize);
                        for lane in 0..slot.lanes as usize {
                            let mut full = index.clone();
                            full.push(lane);
                            let offset = layout.byte_offset(&full);
                            lanes.push(Lane {
                                tile: *tile,
                                byte_offset: offset,
                                bytes: element_size,
                            });
                            let bytes: Vec<usize> = (offset..offset + element_size).collect();
                            // Named in the tile's own coordinates, built only on error.
                            let element = |tiles: &[TileState]| {
                                let t = &tiles[*tile].tile;
                                storage_index(&t.shape, t.dtype.size_bytes(), offset)
                            };
                            if slot.access == Access::Read {
                                let state = &self.tiles[*tile].written;
                                if !reported[i] && bytes.iter().any(|b| !state[*b]) {
                                    reported[i] = true;
                                    failed = true;
                                    let element = element(&self.tiles);
                                    self.diags.push(
                                        Diagnostic::new(
                                            span,
                                            format!(
                                                "`{opcode}` reads `{name}{element}`, which no earlier statement wrote",
                                            ),
                                        )
                                        .with_help(format!("write `{name}` (for example with `ld.global` or `mov`) before reading it")),
                                    );
                                }
                            } else {
                                // Rule 8.
                                let overlap =
                                    bytes.iter().any(|b| !written_now.insert((*tile, *b)));
                                if overlap && !reported[i] {
                                    reported[i] = true;
                                    failed = true;
                                    let element = element(&self.tiles);
                                    self.diags.push(
                                        Diagnostic::new(
                                            span,
                                            format!(
                                                "destination `{name}{element}` is written more than once by this `apply`",
                                            ),
                                        )
                                        .with_note("no register may be written twice by one `apply`: destination operands must not overlap"),
                                    );
                                }
                                writes.push((*tile, bytes));
                            }
                        }
                        operands.push(OperandValue::Registers {
                            lanes,
                            write: slot.access == Access::Write,
                            braced: slot.braced,
                        });
                    }
                    Value::Global {
                        param,
                        name,
                        layout,
                    } => {
                        let mut full = index.clone();
                        full.push(0);
                        let offset = layout.byte_offset(&full);
                        let size = slot.lanes as usize * layout.dtype.size_bytes();
                        if offset % size != 0 && !reported[i] {
                            reported[i] = true;
                            failed = true;
                            let element = match &self.params[*param].kind {
                                ParamKind::Tensor { dtype, shape, .. } => {
                                    storage_index(shape, dtype.size_bytes(), offset)
                                }
                                ParamKind::Scalar(_) => index_text(&full),
                            };
                            self.diags.push(
                                Diagnostic::new(
                                    span,
                                    format!(
                                        "`{opcode}` accesses `{name}{element}` at byte offset {offset}, which is not aligned to the {size}-byte access size",
                                    ),
                                )
                                .with_note("PTX memory accesses must be aligned to their total size"),
                            );
                        }
                        operands.push(OperandValue::Memory {
                            param: *param,
                            offset,
                        });
                    }
                    Value::Scalar { param, dtype, .. } => {
                        operands.push(OperandValue::Param {
                            param: *param,
                            bits: dtype.bits(),
                        });
                    }
                    Value::Literal(literal) => {
                        let value = literal_bits(*literal, slot.ty).unwrap_or(0);
                        operands.push(OperandValue::Constant {
                            value,
                            bits: slot.ty.carrier_bits(),
                        });
                    }
                }
            }
            instructions.push(Instruction {
                opcode: opcode.clone(),
                guard,
                operands,
            });
            advance(&mut index, &repeat);
        }
        for (tile, bytes) in writes {
            for byte in bytes {
                self.tiles[tile].written[byte] = true;
            }
        }
        if !failed {
            self.statements.push(Statement {
                opcode,
                instructions,
            });
        }
    }

    fn finish(self) -> Checked {
        let param_writes = self
            .params
            .iter()
            .map(|p| matches!(p.kind, ParamKind::Tensor { written: true, .. }))
            .collect();
        if !self.diags.is_empty() || self.unparsed_params {
            return Checked {
                program: None,
                diagnostics: self.diags.into_vec(),
                param_writes,
            };
        }
        let target = self.kernel.target;
        let base = target
            .min_ptx_version()
            .unwrap_or(crate::target::PtxVersion::new(7, 8));
        let program = Program {
            name: self.kernel.name.clone(),
            target,
            ptx_version: base.max(self.requirement.ptx),
            launch: self.kernel.launch,
            params: self.params,
            tiles: self.tiles.into_iter().map(|t| t.tile).collect(),
            statements: self.statements,
        };
        Checked {
            program: Some(program),
            diagnostics: Vec::new(),
            param_writes,
        }
    }
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
fn join_alternatives(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn value_name(value: &Value) -> &str {
    match value {
        Value::Local { name, .. } | Value::Global { name, .. } | Value::Scalar { name, .. } => name,
        Value::Literal(_) => "literal",
    }
}

/// Advances a row-major multi-index.
fn advance(index: &mut [usize], shape: &[usize]) {
    for axis in (0..index.len()).rev() {
        index[axis] += 1;
        if index[axis] < shape[axis] {
            return;
        }
        index[axis] = 0;
    }
}

fn index_text(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// The index, in the tile's or tensor's own shape, of the element holding
/// `offset`: diagnostics name elements as the user declared them, not in the
/// coordinates of a view.
fn storage_index(shape: &[usize], element: usize, offset: usize) -> String {
    let mut flat = offset / element.max(1);
    let mut index = vec![0usize; shape.len()];
    for axis in (0..shape.len()).rev() {
        let extent = shape[axis].max(1);
        index[axis] = flat % extent;
        flat /= extent;
    }
    index_text(&index)
}

fn for_each_byte(layout: &Layout, mut f: impl FnMut(usize)) {
    let size = layout.dtype.size_bytes();
    let mut index = vec![0usize; layout.shape.len()];
    for _ in 0..layout.len() {
        let offset = layout.byte_offset(&index);
        for byte in offset..offset + size {
            f(byte);
        }
        advance(&mut index, &layout.shape);
    }
}

fn first_unwritten(layout: &Layout, written: &[bool]) -> Option<Vec<usize>> {
    let size = layout.dtype.size_bytes();
    let mut index = vec![0usize; layout.shape.len()];
    for _ in 0..layout.len() {
        let offset = layout.byte_offset(&index);
        if (offset..offset + size).any(|b| !written.get(b).copied().unwrap_or(false)) {
            return Some(index);
        }
        advance(&mut index, &layout.shape);
    }
    None
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
    let name = value_name(value);
    if is_memory {
        let bytes = slot.lanes as usize * slot.ty.carrier_bits() / 8;
        let mut diag = Diagnostic::new(
            span,
            format!(
                "memory operand `{}` of `{opcode}` moves {} element{} ({bytes} bytes) per access, but the final axis of `{name}` has extent {extent}",
                slot.name,
                slot.lanes,
                if slot.lanes == 1 { "" } else { "s" }
            ),
        );
        if extent * layout.dtype.size_bytes() == bytes
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
    let mut diag = if dtype.bits() != carrier {
        Diagnostic::new(
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
    let bits = extent * dtype.bits();
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
        } else if dtype.bits() != carrier
            && (extent * dtype.bits()).is_multiple_of(carrier)
            && extent > 0
        {
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
                span,
                format!("operand `{}` of `{opcode}`: {message}", slot.name),
            )
        }),
        _ => None,
    }
}

/// The bits of a literal for an operand of type `ty`, or why it does not fit.
fn literal_bits(literal: LiteralValue, ty: PtxType) -> Result<u64, String> {
    let bits = ty.carrier_bits() as u32;
    match literal {
        LiteralValue::Bool(_) => Err(format!("a bool literal cannot be a `{ty}` value")),
        LiteralValue::Float(value) => match ty {
            PtxType::F32 => Ok(u64::from((value as f32).to_bits())),
            PtxType::F64 => Ok(value.to_bits()),
            _ if ty.class() == TypeClass::Bits => Err(format!(
                "`{ty}` takes raw bits, so the float literal `{value:?}` is ambiguous: write its bits as an integer literal, or use an `.f32`/`.f64` form"
            )),
            _ if ty.is_float() => Err(format!(
                "float literals for `{ty}` operands are not supported yet; write the bits as an integer literal into a tile"
            )),
            _ => Err(format!(
                "`{ty}` is an integer type, so the float literal `{value:?}` would be truncated"
            )),
        },
        LiteralValue::Int(value) => {
            if ty.is_float() && ty.class() == TypeClass::Scalar {
                return Err(format!(
                    "`{ty}` is a float type: write a float literal like `{value}.0`"
                ));
            }
            let fits = if ty.is_signed_int() {
                let limit = 1i128 << (bits - 1);
                (-limit..limit).contains(&value)
            } else if ty.is_unsigned_int() {
                (0..(1i128 << bits)).contains(&value)
            } else {
                // Bit-size and packed types: any value of that many bits, signed or not.
                (-(1i128 << (bits - 1))..(1i128 << bits)).contains(&value)
            };
            if !fits {
                return Err(format!(
                    "the literal `{value}` does not fit in `{ty}` ({bits} bits)"
                ));
            }
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            Ok((value as i64 as u64) & mask)
        }
    }
}

/// A register lane must be one whole register, an aligned part of one
/// register (at most 4 parts: `mov` unpacks into 2 or 4 lanes), or 2/4 whole
/// registers; anything else would need shifts, which views never emit.
fn register_split_error(tiles: &[TileState], value: &Value, span: SpanId) -> Option<Diagnostic> {
    let Value::Local { tile, name, layout } = value else {
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
            span,
            format!("this `{}` view of `{name}` (registers of `{base}`) does not split its registers evenly", layout.dtype),
        )
        .with_note("sub-register views are realised with `mov` pack/unpack: an element must be 1/2 or 1/4 of a register, or 2 or 4 whole registers"),
    )
}
