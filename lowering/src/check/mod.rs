//! Legality checking: turns an [`ast::Kernel`] into a [`Program`] or a list of
//! diagnostics (all of them, not just the first).
//!
//! Rule numbers in comments refer to the legality rules of SPEC §4:
//! 1 opcode, 2 operand count, 3 register vs memory, 4 repeat shapes,
//! 5 register axis, 6 dtype/carrier, 7 scalars, 8 overlapping destinations,
//! 9 pred/preserve_dst/uninitialised reads, 10 memory contiguity/alignment.
//!
//! - this file: names, tiles, views, opcode resolution, `pred`/`preserve_dst`,
//!   and the driver that runs the other two per `apply`;
//! - `operands`: one candidate form against the operands (rules 2-7, 10);
//! - `expand`: one instruction per repeat coordinate (rules 8, 9, 10).

mod expand;
mod operands;

use std::collections::HashMap;

use crate::ast::{self, LiteralValue, Operand, PredExpr, Stmt, ViewKind};
use crate::diag::{Diagnostic, Diagnostics};
use crate::dtype::DType;
use crate::layout::{Layout, shape_text};
use crate::program::{Guard, ParamKind, Program, ProgramParam, Statement, Tile};
use crate::ptx::form::{Access, OperandKind, ResolvedOperand};
use crate::ptx::resolve::nearest;
use crate::ptx::table::FORMS;
use crate::ptx::{Modifiers, resolve};
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
        // Where the view starts: a whole tile or a whole tensor parameter.
        let (is_tile, index, mut layout) = match binding {
            Binding::Unparsed => return None,
            Binding::Tile(tile) => {
                let t = &self.tiles[tile].tile;
                (true, tile, Layout::row_major(t.dtype, &t.shape))
            }
            Binding::Param(param) => match &self.params[param].kind {
                ParamKind::Scalar(dtype) => {
                    if let Some(view) = place.views.first() {
                        self.diags.error(
                            view.span,
                            format!(
                                "`{}` is a scalar parameter; views apply only to tiles and tensors",
                                place.base
                            ),
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
                    (false, param, Layout::row_major(*dtype, shape))
                }
            },
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
        let name = place.base.clone();
        Some(if is_tile {
            Value::Local {
                tile: index,
                name,
                layout,
            }
        } else {
            Value::Global {
                param: index,
                name,
                layout,
            }
        })
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
            if let (Access::Write, Value::Global { param, .. }) = (slot.access, value) {
                self.mark_tensor_written(*param);
            }
        }
    }

    /// The launcher will take this tensor parameter `&mut`.
    fn mark_tensor_written(&mut self, param: usize) {
        if let ParamKind::Tensor { written, .. } = &mut self.params[param].kind {
            *written = true;
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
            if let (true, Some(Value::Global { param, .. })) = (always_stored, value) {
                self.mark_tensor_written(*param);
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
