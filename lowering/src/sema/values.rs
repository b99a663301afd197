//! Integer and bool expressions of the tile language -> [`Poly`] / [`Cond`],
//! plus the kernel's size symbols and launch formulas.
//!
//! Guarantee: an integer expression becomes a polynomial over atoms whose
//! ranges are proven (special registers from the launch shape, symbols from
//! the launcher's limit, loop variables from their bounds, computed values
//! from their operands); every value that reaches the emitter was checked by
//! [`Checker::materialize`] to fit 64-bit signed arithmetic.

use crate::ast::{self, BinOp, Expr, UnOp};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::dtype::DType;
use crate::program::{CmpOp, Cond, DimSpec, LaunchFormula, LaunchOp, ParamKind, Symbol};
use crate::ptx::resolve::nearest;
use crate::sym::{Atom, AtomKind, ComputedOp, INDEX_LIMIT, Poly, gcd};

use super::{Binding, Checker, SymbolState, Value, View, ViewBase, limits};
use crate::checked::{self, CondRead, Reader};

/// Every symbol value is at most this (checked by the launcher).
pub const MAX_SYMBOL_VALUE: i128 = (1 << 40) - 1;
/// Coefficients of intermediate values stay below this, so the saturating
/// polynomial arithmetic is exact wherever it is used (see `within_limits`).
const EXACT_LIMIT: u128 = 1 << 100;
/// The largest grid extent along x.
const MAX_GRID_X: i128 = (1 << 31) - 1;

/// A checked expression value (an operand of an `apply` is a [`super::Value`]).
#[derive(Debug, Clone)]
pub(super) enum ExprValue {
    Int(Poly),
    Bool(Cond),
}

/// `mul * S / div + add` for one symbol `S`.
#[derive(Debug, Clone, Copy)]
struct Affine<'e> {
    symbol: Option<(&'e str, SpanId)>,
    mul: i128,
    div: i128,
    add: i128,
}

/// The value of an integer constant expression, if it is one.
pub(super) fn const_int(expr: &Expr) -> Option<i128> {
    match expr {
        Expr::Int(v, _) => Some(*v),
        Expr::Unary {
            op: UnOp::Neg,
            expr,
            ..
        } => const_int(expr)?.checked_neg(),
        Expr::Binary { op, lhs, rhs, .. } => {
            let (a, b) = (const_int(lhs)?, const_int(rhs)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => a.checked_div(b),
                BinOp::Rem => a.checked_rem(b),
                _ => None,
            }
        }
        _ => None,
    }
}

fn axis_name(axis: u8) -> &'static str {
    ["x", "y", "z"][usize::from(axis.min(2))]
}

impl Checker<'_> {
    /// Finds every size symbol in tensor dims, with the divisor its uses
    /// need (`{N / 2}` needs `N` even), and creates its atom.
    pub(super) fn collect_symbols(&mut self) {
        let mut found: Vec<(String, SpanId, i128)> = Vec::new();
        for param in &self.kernel.params {
            let ast::ParamType::Tensor { dims, .. } = &param.ty else {
                continue;
            };
            for dim in dims {
                let Ok(affine) = affine(&dim.expr) else {
                    continue;
                };
                if let Some((name, span)) = affine.symbol {
                    let need = affine.div / gcd(affine.mul, affine.div).max(1);
                    match found.iter_mut().find(|(n, _, _)| n == name) {
                        Some(entry) => entry.2 = lcm(entry.2, need),
                        None => found.push((name.to_string(), span, need)),
                    }
                }
            }
        }
        for (index, (name, span, divisor)) in found.into_iter().enumerate() {
            // Symbols are at most 2^40 - 1: a larger divisor leaves only 0.
            let divisor = if divisor > MAX_SYMBOL_VALUE {
                self.diags.error(
                    Code::DIM_FORM,
                    span,
                    format!(
                        "the dims of `{name}` divide it by more than 2^40 - 1, its largest value"
                    ),
                );
                1
            } else {
                divisor.max(1)
            };
            let atom = self.atoms.push(Atom {
                kind: AtomKind::Symbol(index),
                name: if divisor == 1 {
                    name.clone()
                } else {
                    format!("({name} / {divisor})")
                },
                lo: 0,
                hi: MAX_SYMBOL_VALUE / divisor,
            });
            self.bind(&name, Binding::Symbol(Poly::atom(atom).scale(divisor)));
            self.symbols.push(SymbolState {
                symbol: Symbol {
                    name,
                    divisor: u64::try_from(divisor).unwrap_or(1),
                    multiple_of: 1,
                    atom,
                },
            });
        }
    }

    /// A tensor's dims as the launcher checks them.
    pub(super) fn tensor_dims(
        &mut self,
        param: &ast::Param,
        dtype: DType,
        dims: &[ast::Dim],
    ) -> Vec<DimSpec> {
        let mut out = Vec::new();
        let mut max_bytes: i128 = dtype.size_bytes() as i128;
        // The same with zero dims read as 1: an empty tensor may not hide a
        // dim whose extent alone is beyond any real tensor.
        let mut span_bytes: i128 = max_bytes;
        for dim in dims {
            match affine(&dim.expr) {
                Err((code, message)) => {
                    self.diags.push(
                        Diagnostic::new(code, dim.span, message)
                            .with_help("a dim is an integer constant (`4`, `{8 / 2}`), a symbol (`N`) or a simple form of one symbol (`{2 * N}`, `{N / 2}`, `{N + 1}`)"),
                    );
                    out.push(DimSpec::Const(0));
                }
                Ok(Affine {
                    symbol: None, add, ..
                }) => {
                    if add < 0 {
                        self.diags.error(
                            Code::NEGATIVE_DIM,
                            dim.span,
                            "a tensor dim cannot be negative",
                        );
                    }
                    max_bytes = max_bytes.saturating_mul(add.max(0));
                    span_bytes = span_bytes.saturating_mul(add.max(1));
                    out.push(DimSpec::Const(u64::try_from(add).unwrap_or(0)));
                }
                Ok(Affine {
                    symbol: Some((name, span)),
                    mul,
                    div,
                    add,
                }) => {
                    if mul <= 0 || add < 0 {
                        self.diags.push(
                            Diagnostic::new(Code::NEGATIVE_DIM, span, format!("the dim `{}` could be negative", dim_text(mul, div, add, name)))
                                .with_help("write dims as `N`, `{2 * N}`, `{N / 2}` or `{N + 1}`: a positive multiple of the symbol plus a non-negative constant"),
                        );
                    }
                    let index = self
                        .symbols
                        .iter()
                        .position(|s| s.symbol.name == name)
                        .unwrap_or(0);
                    max_bytes = max_bytes.saturating_mul(
                        (MAX_SYMBOL_VALUE.saturating_mul(mul.max(1)) / div.max(1))
                            .saturating_add(add.max(0)),
                    );
                    out.push(DimSpec::Symbolic {
                        symbol: u16::try_from(index).unwrap_or(0),
                        mul: u64::try_from(mul).unwrap_or(1),
                        div: u64::try_from(div).unwrap_or(1),
                        add: u64::try_from(add).unwrap_or(0),
                    });
                }
            }
        }
        let constant = out.iter().all(|d| matches!(d, DimSpec::Const(_)));
        if constant && max_bytes <= (1i128 << 40) && span_bytes > (1i128 << 40) {
            self.diags.error(
                Code::TENSOR_TOO_LARGE,
                param.span,
                "this tensor is empty, but its other dims span more than 1 TiB",
            );
        }
        if constant && max_bytes > (1i128 << 40) {
            self.diags.error(
                Code::TENSOR_TOO_LARGE,
                param.span,
                "this tensor is larger than 1 TiB",
            );
        }
        out
    }

    /// A shared buffer's dims: constants, or forms of one size symbol of
    /// the tensor dims (the dynamic buffer, sized at launch). `None` after
    /// reporting an error.
    pub(super) fn shared_dims(&mut self, dims: &[ast::Dim]) -> Option<Vec<DimSpec>> {
        let mut out = Vec::with_capacity(dims.len());
        for dim in dims {
            let form = match affine(&dim.expr) {
                Ok(form) => form,
                Err((code, message)) => {
                    self.diags.push(
                        Diagnostic::new(code, dim.span, message)
                            .with_help("a shared extent is an integer constant (`256`) or a simple form of one size symbol (`N`, `{2 * N}`, `{N / 2}`, `{N + 1}`)"),
                    );
                    return None;
                }
            };
            let Some((name, span)) = form.symbol else {
                let Ok(extent) = u64::try_from(form.add) else {
                    self.diags.error(
                        Code::TILE_SHAPE,
                        dim.span,
                        "a shared extent cannot be negative",
                    );
                    return None;
                };
                out.push(DimSpec::Const(extent));
                continue;
            };
            let Some(index) = self.symbols.iter().position(|s| s.symbol.name == name) else {
                let what = match self.lookup(name) {
                    Some(Binding::Param(_)) => {
                        format!("`{name}` is a parameter, not a size symbol")
                    }
                    Some(Binding::Int(_)) => {
                        format!("`{name}` is a runtime value, not a size symbol")
                    }
                    _ => format!("`{name}` is not a size symbol of this kernel"),
                };
                self.diags.push(
                    Diagnostic::new(Code::SHARED_EXTENT, span, format!("{what}: a shared buffer's extents are fixed when the kernel is launched"))
                        .with_note("a shared extent is an integer constant, or a form of a size symbol that a tensor dim names (`Tensor<f32, R, C>`): the launcher sizes the dynamic shared memory from it"),
                );
                return None;
            };
            if form.mul <= 0 || form.add < 0 {
                self.diags.push(
                    Diagnostic::new(Code::NEGATIVE_DIM, span, format!("the shared extent `{}` could be negative", dim_text(form.mul, form.div, form.add, name)))
                        .with_help("write it as `N`, `{2 * N}`, `{N / 2}` or `{N + 1}`: a positive multiple of the symbol plus a non-negative constant"),
                );
                return None;
            }
            let state = &self.symbols[index].symbol;
            let need = form.div / gcd(form.mul, form.div).max(1);
            if i128::from(state.divisor) % need != 0 {
                self.diags.push(
                    Diagnostic::new(
                        Code::SHARED_EXTENT,
                        dim.span,
                        format!(
                            "the shared extent `{}` needs `{name}` to be a multiple of {need}, and no tensor dim requires that",
                            dim_text(form.mul, form.div, form.add, name)
                        ),
                    )
                    .with_help(format!("name the requirement in a tensor dim (`Tensor<f32, {{{name} / {need}}}>` makes the launcher check it), or size the buffer without dividing")),
                );
                return None;
            }
            out.push(DimSpec::Symbolic {
                symbol: u16::try_from(index).unwrap_or(0),
                mul: u64::try_from(form.mul).unwrap_or(1),
                div: u64::try_from(form.div).unwrap_or(1),
                add: u64::try_from(form.add).unwrap_or(0),
            });
        }
        Some(out)
    }

    /// The extent of a tensor dim as a polynomial of the symbol atoms.
    pub(super) fn dim_poly(&self, dim: DimSpec) -> Poly {
        match dim {
            DimSpec::Const(v) => Poly::constant(i128::from(v)),
            DimSpec::Symbolic {
                symbol,
                mul,
                div,
                add,
            } => {
                let Some(state) = self.symbols.get(usize::from(symbol)) else {
                    return Poly::default();
                };
                let divisor = i128::from(state.symbol.divisor);
                // mul * (divisor * Q) / div, exact by the choice of divisor.
                let coef = i128::from(mul) * divisor / i128::from(div).max(1);
                Poly::atom(state.symbol.atom)
                    .scale(coef)
                    .add_const(i128::from(add))
            }
        }
    }

    /// Block limits and the grid formulas.
    pub(super) fn check_launch(&mut self) {
        let launch = &self.kernel.launch;
        let threads: u128 = launch.block.iter().map(|d| u128::from(*d)).product();
        if launch.block.contains(&0) {
            self.diags.error(
                Code::LAUNCH_EXTENT_ZERO,
                self.kernel.name_span,
                "grid and block extents must be at least 1",
            );
        } else if threads > 1024 {
            self.diags.error(
                Code::BLOCK_TOO_LARGE,
                self.kernel.name_span,
                format!(
                    "a block may hold at most 1024 threads, but block = {:?} has {threads}",
                    launch.block
                ),
            );
        }
        self.check_cluster();
        for axis in 0..3 {
            let expr = &self.kernel.launch.grid[axis];
            let mut ops = Vec::new();
            if self.launch_formula(expr, &mut ops) {
                let formula = LaunchFormula(ops);
                if formula.as_const() == Some(0) {
                    self.diags.error(
                        Code::LAUNCH_EXTENT_ZERO,
                        self.kernel.name_span,
                        "grid and block extents must be at least 1",
                    );
                }
                let limit = if axis == 0 { MAX_GRID_X } else { 65535 };
                if formula.as_const().is_some_and(|v| i128::from(v) > limit) {
                    self.diags.error(
                        Code::GRID_TOO_LARGE,
                        expr.span(),
                        format!(
                            "grid extent {} exceeds the limit {limit} of axis {axis}",
                            formula.as_const().unwrap_or(0)
                        ),
                    );
                }
                let cluster = self.launch.cluster[axis];
                if let Some(extent) = formula.as_const()
                    && cluster > 1
                    && extent % u64::from(cluster) != 0
                {
                    // Checked on as a kernel without a cluster: one error.
                    self.launch.cluster = [1, 1, 1];
                    self.diags.push(
                        Diagnostic::new(
                            Code::CLUSTER_SHAPE,
                            self.kernel.launch.cluster_span,
                            format!("grid extent {extent} of axis {axis} is not a multiple of the cluster's {cluster}: a grid is made of whole clusters"),
                        )
                        .with_help(format!("make the grid extent of axis {axis} a multiple of {cluster}")),
                    );
                }
                // Set first: `cta_id` reads whether the extent is known.
                self.launch.grid[axis] = formula.clone();
                if formula.as_const().is_none() {
                    self.grid_fact(axis, &formula);
                }
            }
        }
    }

    /// `cluster = [x, y, z]`: a Hopper feature, of at most 8 CTAs (the
    /// portable cluster size every sm_90 device launches).
    fn check_cluster(&mut self) {
        let launch = &self.kernel.launch;
        if launch.cluster == [1, 1, 1] {
            return;
        }
        let span = launch.cluster_span;
        let ctas: u64 = launch.cluster.iter().map(|c| u64::from(*c)).product();
        // A shape with a mistake: the body is checked as without one.
        let legal = !launch.cluster.contains(&0) && self.kernel.target.sm >= 90 && ctas <= 8;
        if !legal {
            self.launch.cluster = [1, 1, 1];
        }
        if launch.cluster.contains(&0) {
            self.diags.error(
                Code::LAUNCH_EXTENT_ZERO,
                span,
                "cluster extents must be at least 1",
            );
        } else if self.kernel.target.sm < 90 {
            self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_TARGET,
                    span,
                    format!(
                        "thread-block clusters need sm_90 or newer, but this kernel targets {}",
                        self.kernel.target
                    ),
                )
                .with_help("target `arch = \"sm_90\"` (or newer), or remove `cluster`"),
            );
        } else if ctas > 8 {
            self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_SHAPE,
                    span,
                    format!("a cluster may hold at most 8 CTAs, but cluster = {:?} has {ctas}", launch.cluster),
                )
                .with_note("8 is the portable cluster size: larger clusters need an opt-in at launch and do not fit every device"),
            );
        }
    }

    /// For a grid extent computed at launch, `cta_id(axis) < extent` as a
    /// fact of the whole kernel (for `ceil_div(n, c)`: `c * cta_id < n`).
    fn grid_fact(&mut self, axis: usize, formula: &LaunchFormula) {
        let mut stack: Vec<(Poly, Option<i128>)> = Vec::new();
        for op in &formula.0 {
            match op {
                LaunchOp::Const(v) => stack.push((Poly::constant(i128::from(*v)), None)),
                LaunchOp::Symbol(s) => {
                    let Some(Binding::Symbol(poly)) = self
                        .symbols
                        .get(usize::from(*s))
                        .map(|st| st.symbol.name.clone())
                        .and_then(|n| self.lookup(&n).cloned())
                    else {
                        return;
                    };
                    stack.push((poly, None));
                }
                binary => {
                    let (Some((b, _)), Some((a, _))) = (stack.pop(), stack.pop()) else {
                        return;
                    };
                    match binary {
                        LaunchOp::Add => stack.push((a.add(&b), None)),
                        LaunchOp::Mul => stack.push((a.mul(&b), None)),
                        LaunchOp::CeilDiv => match b.as_const() {
                            Some(c) if c > 0 => stack.push((a, Some(c))),
                            _ => return,
                        },
                        _ => return,
                    }
                }
            }
        }
        let Some((extent, divisor)) = stack.pop() else {
            return;
        };
        let cta = self.cta_id(axis as u8);
        // cta < extent, or c * cta < n for ceil_div(n, c).
        let c = divisor.unwrap_or(1);
        self.facts.push(cta.scale(c).sub(&extent).add_const(1));
    }

    /// Compiles a grid expression to a launch formula; `false` after an error.
    fn launch_formula(&mut self, expr: &Expr, ops: &mut Vec<LaunchOp>) -> bool {
        match expr {
            Expr::Int(v, span) => match u64::try_from(*v) {
                Ok(v) => {
                    ops.push(LaunchOp::Const(v));
                    true
                }
                Err(_) => {
                    self.diags.error(
                        Code::LAUNCH_EXTENT_ZERO,
                        *span,
                        "a grid extent cannot be negative",
                    );
                    false
                }
            },
            Expr::Name(name, span) => {
                match self.symbols.iter().position(|s| s.symbol.name == *name) {
                    Some(index) => {
                        ops.push(LaunchOp::Symbol(u16::try_from(index).unwrap_or(0)));
                        true
                    }
                    None => {
                        self.diags.push(
                            Diagnostic::new(Code::UNKNOWN_GRID_SYMBOL, *span, format!("`{name}` is not a size symbol of this kernel"))
                                .with_note("a grid extent may use integer constants and the symbols of tensor dims (`Tensor<f32, N>`)"),
                        );
                        false
                    }
                }
            }
            Expr::Binary { op, lhs, rhs, span } => {
                let code = match op {
                    BinOp::Add => LaunchOp::Add,
                    BinOp::Sub => LaunchOp::Sub,
                    BinOp::Mul => LaunchOp::Mul,
                    BinOp::Div => LaunchOp::Div,
                    _ => {
                        self.diags.error(
                            Code::GRID_EXPRESSION,
                            *span,
                            format!("`{}` is not allowed in a grid extent; use `+ - * /`, `ceil_div`, `min` or `max`", op.symbol()),
                        );
                        return false;
                    }
                };
                let ok = self.launch_formula(lhs, ops) & self.launch_formula(rhs, ops);
                ops.push(code);
                ok
            }
            Expr::Call { func, args, span } if args.len() == 2 => {
                let code = match func.as_str() {
                    "ceil_div" => LaunchOp::CeilDiv,
                    "min" => LaunchOp::Min,
                    "max" => LaunchOp::Max,
                    _ => {
                        self.diags.error(
                            Code::GRID_EXPRESSION,
                            *span,
                            format!("`{func}` cannot be used in a grid extent; use `ceil_div`, `min` or `max`"),
                        );
                        return false;
                    }
                };
                let ok = self.launch_formula(&args[0], ops) & self.launch_formula(&args[1], ops);
                ops.push(code);
                ok
            }
            other => {
                self.diags.error(
                    Code::GRID_EXPRESSION,
                    other.span(),
                    "a grid extent is an integer expression over constants and size symbols, like `ceil_div(N, 256)`",
                );
                false
            }
        }
    }

    /// An integer expression; `None` after reporting an error.
    pub(super) fn eval_int(&mut self, expr: &Expr) -> Option<Poly> {
        match self.eval(expr)? {
            ExprValue::Int(poly) => Some(poly),
            ExprValue::Bool(_) => {
                self.diags.error(
                    Code::NOT_INTEGER,
                    expr.span(),
                    "expected an integer expression, found a bool",
                );
                None
            }
        }
    }

    /// A bool expression used as `context` ("`pred`", "an `if` condition").
    pub(super) fn eval_bool(&mut self, expr: &Expr, context: &str) -> Option<Cond> {
        // Names get the foundation's specific messages.
        if let Expr::Name(name, span) = expr {
            match self.lookup(name).cloned() {
                Some(Binding::Param(param)) => {
                    match &self.params[param].kind {
                        ParamKind::Scalar(DType::Bool) => return Some(Cond::Param(param)),
                        ParamKind::Scalar(dtype) => {
                            // Only integers of at most 32 bits can be compared
                            // (index arithmetic); suggest that only for them.
                            let help = if matches!(
                                dtype,
                                DType::U8
                                    | DType::U16
                                    | DType::U32
                                    | DType::I8
                                    | DType::I16
                                    | DType::I32
                            ) {
                                format!(
                                    "declare the parameter as `bool`, or compare it: `{name} > 0`"
                                )
                            } else {
                                "declare the parameter as `bool`".to_string()
                            };
                            self.diags.push(
                            Diagnostic::new(Code::NOT_BOOL, *span, format!("{context} must be a bool expression, but `{name}` is `{dtype}`"))
                                .with_help(help),
                        );
                            return None;
                        }
                        ParamKind::Tensor { .. } => {
                            self.diags.error(
                                Code::NOT_BOOL,
                                *span,
                                format!(
                                    "{context} must be a bool expression, but `{name}` is a tensor"
                                ),
                            );
                            return None;
                        }
                    }
                }
                Some(Binding::Tile(tile)) if self.tiles[tile].tile.dtype != DType::Bool => {
                    self.diags.error(
                        Code::NOT_BOOL,
                        *span,
                        format!(
                            "{context} must be a bool expression, but `{name}` is a local tile"
                        ),
                    );
                    return None;
                }
                None => {
                    self.diags.error(
                        Code::UNKNOWN_NAME,
                        *span,
                        format!("cannot find `{name}` in this kernel"),
                    );
                    return None;
                }
                _ => {}
            }
        }
        if let Expr::Other(text, span) = expr {
            let text = limits::bounded(text);
            self.diags.push(
                Diagnostic::new(
                    Code::NOT_BOOL,
                    *span,
                    format!("{context} must be a bool expression, found `{text}`"),
                )
                .with_help(
                    "write a `bool` parameter, a comparison like `i < n`, or `true`/`false`",
                ),
            );
            return None;
        }
        match self.eval(expr)? {
            ExprValue::Bool(cond) => Some(cond),
            ExprValue::Int(_) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_BOOL,
                        expr.span(),
                        format!("{context} must be a bool expression, found an integer"),
                    )
                    .with_help("compare it: `i < n`"),
                );
                None
            }
        }
    }

    /// `flags[k]`, or a name bound to one element of a `bool` tile, as a
    /// condition: that predicate register's current value. `None` when
    /// `place` is not a view of a `bool` tile (the caller says what it is);
    /// `Some(None)` after reporting an error.
    fn predicate_of(&mut self, place: &ast::PlaceExpr) -> Option<Option<Cond>> {
        let base = match self.lookup(&place.base) {
            Some(Binding::Tile(tile)) => *tile,
            Some(Binding::View(View {
                base: ViewBase::Tile(tile),
                ..
            })) => *tile,
            _ => return None,
        };
        if self.tiles[base].tile.dtype != DType::Bool {
            return None;
        }
        let Some(Value::Local {
            tile, name, layout, ..
        }) = self.operand_value(
            &ast::Operand::Place(place.clone()),
            crate::scope::Scope::Thread,
        )
        else {
            return Some(None);
        };
        // A register's value read in a rolled loop names one iteration's
        // register and version: that loop is checked unrolled.
        self.refuse_rolling();
        let count: usize = layout.shape.iter().product();
        if count != 1 {
            self.diags.push(
                Diagnostic::new(
                    Code::NOT_BOOL,
                    place.span,
                    format!("a condition is one predicate, but `{name}` holds {count}"),
                )
                .with_help(format!("select one element, like `{}[0]`", place.base)),
            );
            return Some(None);
        }
        // A `bool` element is one byte: its offset is its register.
        let register = layout.byte_offset(&vec![0; layout.shape.len()]);
        // Whether it holds a value here is the register obligation's to
        // prove (`crate::prove::registers`).
        self.body.push(checked::Node::CondRead(CondRead {
            tile,
            register,
            reader: Reader::Condition,
            span: place.span,
            text: name,
            base: place.base.clone(),
        }));
        self.tiles[tile].ever_read = true;
        Some(Some(Cond::Register {
            tile,
            register,
            version: self.pred_version(tile, register),
        }))
    }

    /// `ids[k]`, or a name bound to one element of a local integer tile,
    /// in an index expression: the register's current value, as a fresh
    /// register atom read here (its range is its dtype's). `None` when
    /// `place` is not a view of such a tile (the caller says what it is);
    /// `Some(None)` after reporting an error.
    fn integer_of(&mut self, place: &ast::PlaceExpr) -> Option<Option<Poly>> {
        let base = match self.lookup(&place.base) {
            Some(Binding::Tile(tile)) => *tile,
            Some(Binding::View(View {
                base: ViewBase::Tile(tile),
                ..
            })) => *tile,
            _ => return None,
        };
        let dtype = self.tiles[base].tile.dtype;
        let (lo, hi) = match dtype {
            DType::U8 => (0, i128::from(u8::MAX)),
            DType::U16 => (0, i128::from(u16::MAX)),
            DType::U32 => (0, i128::from(u32::MAX)),
            DType::I8 => (i128::from(i8::MIN), i128::from(i8::MAX)),
            DType::I16 => (i128::from(i16::MIN), i128::from(i16::MAX)),
            DType::I32 => (i128::from(i32::MIN), i128::from(i32::MAX)),
            _ => return None,
        };
        let Some(Value::Local {
            tile, name, layout, ..
        }) = self.operand_value(
            &ast::Operand::Place(place.clone()),
            crate::scope::Scope::Thread,
        )
        else {
            return Some(None);
        };
        // A register's value read in a rolled loop names one iteration's
        // register and version: that loop is checked unrolled.
        self.refuse_rolling();
        let count: usize = layout.shape.iter().product();
        if count != 1 || layout.dtype != dtype {
            let what = if layout.dtype == dtype {
                format!("`{name}` holds {count} values")
            } else {
                format!(
                    "`{name}` reinterprets `{dtype}` registers as `{}`",
                    layout.dtype
                )
            };
            self.diags.push(
                Diagnostic::new(
                    Code::NOT_A_VALUE,
                    place.span,
                    format!("an index reads one whole element of an integer tile, but {what}"),
                )
                .with_help(format!("select one element, like `{}[0]`", place.base)),
            );
            return Some(None);
        }
        let register = layout.byte_offset(&vec![0; layout.shape.len()]) / dtype.size_bytes();
        if let Some(atom) = self.index_read(tile, register) {
            return Some(Some(Poly::atom(atom)));
        }
        // Whether it holds a value here is the register obligation's to
        // prove (`crate::prove::registers`).
        self.body.push(checked::Node::CondRead(CondRead {
            tile,
            register,
            reader: Reader::Index,
            span: place.span,
            text: name.clone(),
            base: place.base.clone(),
        }));
        self.tiles[tile].ever_read = true;
        let atom = self.atoms.push(Atom {
            kind: AtomKind::Register {
                tile,
                register,
                dtype,
            },
            name,
            lo,
            hi,
        });
        self.body.push(checked::Node::Define(atom));
        let version = self.pred_version(tile, register);
        if let Some(reads) = self.index_reads.last_mut() {
            reads.insert((tile, register, version), atom);
        }
        Some(Some(Poly::atom(atom)))
    }

    /// Evaluates an expression; `None` after reporting an error.
    pub(super) fn eval(&mut self, expr: &Expr) -> Option<ExprValue> {
        match expr {
            Expr::Int(v, span) => {
                if v.unsigned_abs() > INDEX_LIMIT.unsigned_abs() {
                    self.diags.error(
                        Code::LITERAL_INDEX_RANGE,
                        *span,
                        "integer literal out of range for index arithmetic",
                    );
                    return None;
                }
                Some(ExprValue::Int(Poly::constant(*v)))
            }
            Expr::Bool(v, _) => Some(ExprValue::Bool(Cond::Const(*v))),
            Expr::Name(name, span) => self.eval_name(name, *span),
            Expr::Call { func, args, span } => {
                let value = self.eval_call(func, args, *span)?;
                self.within_limits(value, *span)
            }
            Expr::Unary {
                op,
                expr: inner,
                span,
            } => match (op, self.eval(inner)?) {
                (UnOp::Neg, ExprValue::Int(p)) => Some(ExprValue::Int(p.scale(-1))),
                // `!` adds at most one node to a condition within the caps.
                (UnOp::Not, ExprValue::Bool(c))
                    if limits::cond_nodes(&c, limits::MAX_COND_NODES) >= limits::MAX_COND_NODES =>
                {
                    self.expression_limit(*span);
                    None
                }
                (UnOp::Not, ExprValue::Bool(c)) => Some(ExprValue::Bool(c.not())),
                (UnOp::Neg, ExprValue::Bool(_)) => {
                    self.diags
                        .error(Code::OPERATOR_TYPES, *span, "cannot negate a bool; use `!`");
                    None
                }
                (UnOp::Not, ExprValue::Int(_)) => {
                    self.diags.error(
                        Code::OPERATOR_TYPES,
                        *span,
                        "`!` on an integer is not supported; use `^` with a mask",
                    );
                    None
                }
            },
            Expr::Binary { op, lhs, rhs, span } => {
                let (a, b) = (self.eval(lhs), self.eval(rhs));
                let (a, b) = (a?, b?);
                if let (BinOp::Mul, ExprValue::Int(a), ExprValue::Int(b)) = (op, &a, &b)
                    && limits::product_may_exceed(a, b)
                {
                    self.expression_limit(*span);
                    return None;
                }
                let value = self.eval_binary(*op, a, b, *span, lhs.span(), rhs.span())?;
                self.within_limits(value, *span)
            }
            Expr::View(place) => {
                if let Some(predicate) = self.predicate_of(place) {
                    return predicate.map(ExprValue::Bool);
                }
                if let Some(value) = self.integer_of(place) {
                    return value.map(ExprValue::Int);
                }
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_A_VALUE,
                        place.span,
                        format!(
                            "`{}` with views is a tile or tensor, not a value",
                            place.base
                        ),
                    )
                    .with_help("bind a view with `let name = ...;` and pass it to `apply`"),
                );
                None
            }
            Expr::Other(text, span) => {
                let text = limits::bounded(text);
                self.diags.error(
                    Code::UNSUPPORTED_EXPRESSION,
                    *span,
                    format!("unsupported expression `{text}`: runtime values use integer literals, names, `+ - * / % << >> & | ^`, comparisons, `&& || !` and the built-ins `thread_id`, `cta_id`, `block_dim`, `grid_dim`, `lane_id`, `warp_id`, `min`, `max`, `ceil_div`"),
                );
                None
            }
        }
    }

    /// `value` if it is within the size caps of [`limits`] (else TK0610) and
    /// its coefficients are far from the ends of `i128` (else TK0510):
    /// polynomial arithmetic saturates, so a coefficient past 2^100 may no
    /// longer be exact, and no folded constant or cancellation may rely on it.
    fn within_limits(&mut self, value: ExprValue, span: SpanId) -> Option<ExprValue> {
        let poly = match &value {
            ExprValue::Int(poly) | ExprValue::Bool(Cond::Cmp(_, poly)) => Some(poly),
            ExprValue::Bool(_) => None,
        };
        if poly.is_some_and(|p| p.terms().any(|(_, c)| c.unsigned_abs() > EXACT_LIMIT)) {
            self.diags.push(
                Diagnostic::new(
                    Code::INDEX_OVERFLOW,
                    span,
                    "this index value may overflow 64-bit arithmetic",
                )
                .with_note(
                    "symbols are at most 2^40 - 1 and 32-bit parameters at most 2^32; index values must stay below 2^62",
                ),
            );
            return None;
        }
        let fits = match &value {
            ExprValue::Int(poly) => limits::poly_fits(poly),
            ExprValue::Bool(cond) => {
                limits::cond_nodes(cond, limits::MAX_COND_NODES) <= limits::MAX_COND_NODES
                    && match cond {
                        Cond::Cmp(_, poly) => limits::poly_fits(poly),
                        _ => true,
                    }
            }
        };
        if fits {
            Some(value)
        } else {
            self.expression_limit(span);
            None
        }
    }

    fn expression_limit(&mut self, span: SpanId) {
        self.diags.push(
            Diagnostic::new(
                Code::EXPRESSION_LIMIT,
                span,
                format!(
                    "this value is too large for the compiler: runtime values are limited to {} terms of degree {}, conditions to {} `&&`/`||`/`!`/comparison nodes",
                    limits::MAX_POLY_TERMS,
                    limits::MAX_POLY_DEGREE,
                    limits::MAX_COND_NODES
                ),
            )
            .with_note("products and `let` chains multiply terms: `let b = a * a;` squares `a`, `let q = p && p;` doubles `p`")
            .with_help("simplify the expression (splitting it into `let`s does not help: a `let` value is substituted where it is used)"),
        );
    }

    fn eval_name(&mut self, name: &str, span: SpanId) -> Option<ExprValue> {
        match self.lookup(name).cloned() {
            Some(Binding::Symbol(poly) | Binding::Int(poly)) => Some(ExprValue::Int(poly)),
            Some(Binding::Bool(cond)) => Some(ExprValue::Bool(cond)),
            Some(Binding::Failed | Binding::Unparsed) => None,
            Some(Binding::Param(param)) => match self.params[param].kind.clone() {
                ParamKind::Scalar(DType::Bool) => Some(ExprValue::Bool(Cond::Param(param))),
                ParamKind::Scalar(dtype) => {
                    let (lo, hi) = match dtype {
                        DType::U8 => (0, 255),
                        DType::U16 => (0, 65535),
                        DType::U32 => (0, i128::from(u32::MAX)),
                        DType::I8 => (-128, 127),
                        DType::I16 => (-32768, 32767),
                        DType::I32 => (i128::from(i32::MIN), i128::from(i32::MAX)),
                        other => {
                            self.diags.push(
                                Diagnostic::new(Code::PARAM_NOT_INDEX, span, format!("`{name}: {other}` cannot be used in index arithmetic"))
                                    .with_help("index values come from integer parameters of at most 32 bits (`u32`, `i32`, ...), symbols and thread indices"),
                            );
                            return None;
                        }
                    };
                    let kind = AtomKind::Param(param);
                    let atom = match self.atoms.find(&kind) {
                        Some(atom) => atom,
                        None => self.atoms.push(Atom {
                            kind,
                            name: name.to_string(),
                            lo,
                            hi,
                        }),
                    };
                    Some(ExprValue::Int(Poly::atom(atom)))
                }
                ParamKind::Tensor { .. } => {
                    self.diags.push(
                        Diagnostic::new(
                            Code::NOT_A_VALUE,
                            span,
                            format!("`{name}` is a tensor, not a value"),
                        )
                        .with_help(
                            "tensors are `apply` operands; their sizes are symbols like `N`",
                        ),
                    );
                    None
                }
            },
            Some(Binding::KernelFunction(_)) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_A_VALUE,
                        span,
                        format!("`{name}` is a kernel function, not a value"),
                    )
                    .with_help(format!("call it as a statement: `{name}(..);`")),
                );
                None
            }
            Some(Binding::Function(_)) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_A_VALUE,
                        span,
                        format!("`{name}` is a scalar function, not a value"),
                    )
                    .with_help(format!(
                        "a scalar function runs on tiles through `ewise({name}, dst, inputs..)`"
                    )),
                );
                None
            }
            Some(Binding::Tile(_) | Binding::View(_) | Binding::Shared(_)) => {
                let place = ast::PlaceExpr {
                    base: name.to_string(),
                    base_span: span,
                    views: Vec::new(),
                    span,
                };
                if let Some(predicate) = self.predicate_of(&place) {
                    return predicate.map(ExprValue::Bool);
                }
                if let Some(value) = self.integer_of(&place) {
                    return value.map(ExprValue::Int);
                }
                self.diags.push(
                    Diagnostic::new(
                        Code::NOT_A_VALUE,
                        span,
                        format!("`{name}` is a tile or view, not a value"),
                    )
                    .with_help("tiles and views are `apply` operands"),
                );
                None
            }
            None => {
                let mut diag = Diagnostic::new(
                    Code::UNKNOWN_NAME,
                    span,
                    format!("cannot find value `{name}` in this kernel"),
                );
                let names = self.names_in_scope();
                if let Some(near) = nearest(name, names.iter().map(String::as_str)) {
                    // The name itself, seen from a kernel function: the
                    // kernel's, which the function cannot reach.
                    diag = if near == name {
                        diag.with_help(format!(
                            "`{name}` is the kernel's: a kernel function sees only its parameters and its own `let`s; pass `{name}` as an argument"
                        ))
                    } else {
                        diag.with_help(format!("a name with a similar spelling exists: `{near}`"))
                    };
                }
                self.diags.push(diag);
                None
            }
        }
    }

    /// The atom of a special register, created on first use.
    fn special(&mut self, kind: AtomKind, name: String, lo: i128, hi: i128) -> Poly {
        let atom = match self.atoms.find(&kind) {
            Some(atom) => atom,
            None => self.atoms.push(Atom { kind, name, lo, hi }),
        };
        Poly::atom(atom)
    }

    /// `cluster_ctarank()`: the CTA's linear rank in its cluster, x
    /// fastest (0 without a cluster).
    pub(super) fn cluster_rank(&mut self) -> Poly {
        let [cx, cy, _] = self.launch.cluster.map(i128::from);
        let mut rank = Poly::default();
        for (axis, weight) in [(0, 1), (1, cx), (2, cx * cy)] {
            rank = rank.add(&self.cluster_ctaid(axis).scale(weight));
        }
        rank
    }

    /// `cta_id(axis)`: the special register's atom, or, along an axis the
    /// cluster spans, `cluster_dim * cluster_id + cluster_ctaid` (the
    /// CTAs of a cluster are consecutive along each axis), so that the
    /// proofs see which cluster a CTA is in and where in it.
    pub(super) fn cta_id(&mut self, axis: u8) -> Poly {
        let cluster = i128::from(self.launch.cluster[usize::from(axis)]);
        if cluster > 1 {
            let id = self.cluster_id(axis);
            return id.scale(cluster).add(&self.cluster_ctaid(axis));
        }
        let grid = self.launch.grid[usize::from(axis)]
            .as_const()
            .map(i128::from);
        if grid == Some(1) {
            return Poly::default();
        }
        let hi = grid.map_or(MAX_GRID_X - 1, |g| g - 1);
        self.special(AtomKind::CtaId(axis), format!("cta_id({axis})"), 0, hi)
    }

    /// `cluster_ctaid(axis)` (`%cluster_ctaid`): the CTA's index in its
    /// cluster; 0 along an axis the cluster does not span.
    fn cluster_ctaid(&mut self, axis: u8) -> Poly {
        let cluster = i128::from(self.launch.cluster[usize::from(axis)]);
        if cluster <= 1 {
            return Poly::default();
        }
        self.special(
            AtomKind::ClusterCtaId(axis),
            format!("cluster_ctaid({axis})"),
            0,
            cluster - 1,
        )
    }

    /// `cluster_id(axis)` (`%clusterid`): the cluster's index in the grid;
    /// `cta_id(axis)` along an axis the cluster does not span.
    fn cluster_id(&mut self, axis: u8) -> Poly {
        let cluster = i128::from(self.launch.cluster[usize::from(axis)]);
        if cluster <= 1 {
            return self.cta_id(axis);
        }
        let clusters = self.launch.grid[usize::from(axis)]
            .as_const()
            .map(|g| i128::from(g) / cluster);
        if clusters == Some(1) {
            return Poly::default();
        }
        let hi = clusters.map_or((MAX_GRID_X - 1) / cluster, |c| c - 1);
        self.special(
            AtomKind::ClusterId(axis),
            format!("cluster_id({axis})"),
            0,
            hi,
        )
    }

    fn eval_call(&mut self, func: &str, args: &[Expr], span: SpanId) -> Option<ExprValue> {
        let axis_builtin = matches!(
            func,
            "thread_id"
                | "cta_id"
                | "block_dim"
                | "grid_dim"
                | "cluster_ctaid"
                | "cluster_id"
                | "cluster_dim"
        );
        let arity = match func {
            _ if axis_builtin => 1,
            "lane_id" | "warp_id" | "cluster_ctarank" => 0,
            "min" | "max" | "ceil_div" => 2,
            _ => {
                self.diags.push(
                    Diagnostic::new(Code::UNKNOWN_FUNCTION, span, format!("unknown function `{func}`"))
                        .with_help("the built-ins are `thread_id(axis)`, `cta_id(axis)`, `block_dim(axis)`, `grid_dim(axis)`, `lane_id()`, `warp_id()`, `cluster_ctaid(axis)`, `cluster_id(axis)`, `cluster_dim(axis)`, `cluster_ctarank()`, `min(a, b)`, `max(a, b)`, `ceil_div(a, b)`"),
                );
                return None;
            }
        };
        if args.len() != arity {
            self.diags.error(
                Code::BUILTIN_ARITY,
                span,
                format!(
                    "`{func}` takes {arity} argument{}, but {} were given",
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return None;
        }
        if axis_builtin {
            let axis = match const_int(&args[0]) {
                Some(a @ 0..=2) => a as u8,
                _ => {
                    self.diags.error(
                        Code::BUILTIN_AXIS,
                        args[0].span(),
                        format!("the axis of `{func}` must be 0, 1 or 2 (x, y, z)"),
                    );
                    return None;
                }
            };
            let block = i128::from(self.kernel.launch.block[usize::from(axis)]);
            let grid = self.launch.grid[usize::from(axis)]
                .as_const()
                .map(i128::from);
            let poly = match func {
                "thread_id" if block <= 1 => Poly::default(),
                "thread_id" => self.special(
                    AtomKind::ThreadId(axis),
                    format!("thread_id({axis})"),
                    0,
                    block - 1,
                ),
                "block_dim" => Poly::constant(block),
                "cta_id" => self.cta_id(axis),
                "cluster_ctaid" => self.cluster_ctaid(axis),
                "cluster_id" => self.cluster_id(axis),
                "cluster_dim" => Poly::constant(i128::from(self.launch.cluster[usize::from(axis)])),
                _ => match grid {
                    Some(g) => Poly::constant(g),
                    None => self.special(
                        AtomKind::GridDim(axis),
                        format!("grid_dim({axis})"),
                        1,
                        MAX_GRID_X,
                    ),
                },
            };
            let _ = axis_name(axis);
            return Some(ExprValue::Int(poly));
        }
        if arity == 0 {
            let threads: i128 = self
                .kernel
                .launch
                .block
                .iter()
                .map(|b| i128::from(*b))
                .product();
            let poly = match func {
                "cluster_ctarank" => self.cluster_rank(),
                "lane_id" if threads <= 1 => Poly::default(),
                "lane_id" => {
                    self.special(AtomKind::LaneId, "lane_id()".into(), 0, 31.min(threads - 1))
                }
                _ if threads <= 32 => Poly::default(),
                _ => self.special(
                    AtomKind::WarpId,
                    "warp_id()".into(),
                    0,
                    (threads + 31) / 32 - 1,
                ),
            };
            return Some(ExprValue::Int(poly));
        }
        let a = self.eval_int(&args[0]);
        let b = self.eval_int(&args[1]);
        let (a, b) = (a?, b?);
        let op = match func {
            "min" => ComputedOp::Min,
            "max" => ComputedOp::Max,
            _ => ComputedOp::CeilDiv,
        };
        self.computed(op, a, b, span, args[0].span(), args[1].span())
            .map(ExprValue::Int)
    }

    fn eval_binary(
        &mut self,
        op: BinOp,
        a: ExprValue,
        b: ExprValue,
        span: SpanId,
        lhs_span: SpanId,
        rhs_span: SpanId,
    ) -> Option<ExprValue> {
        match (a, b) {
            (ExprValue::Bool(a), ExprValue::Bool(b)) => match op {
                BinOp::And => Some(ExprValue::Bool(a.and(b))),
                BinOp::Or => Some(ExprValue::Bool(match (a, b) {
                    (Cond::Const(true), _) | (_, Cond::Const(true)) => Cond::Const(true),
                    (Cond::Const(false), c) | (c, Cond::Const(false)) => c,
                    (a, b) => Cond::Or(Box::new(a), Box::new(b)),
                })),
                BinOp::Eq | BinOp::Ne => {
                    self.diags.error(
                        Code::OPERATOR_TYPES,
                        span,
                        "compare predicates with `&&`, `||` and `!`",
                    );
                    None
                }
                _ => {
                    self.diags.error(
                        Code::OPERATOR_TYPES,
                        span,
                        format!(
                            "`{}` does not apply to bools; use `&&`, `||` or `!`",
                            op.symbol()
                        ),
                    );
                    None
                }
            },
            (ExprValue::Int(a), ExprValue::Int(b)) => {
                let cmp = |op: CmpOp, p: Poly| {
                    Some(ExprValue::Bool(match p.as_const() {
                        Some(v) => Cond::Const(match op {
                            CmpOp::Lt => v < 0,
                            CmpOp::Le => v <= 0,
                            CmpOp::Eq => v == 0,
                            CmpOp::Ne => v != 0,
                        }),
                        None => Cond::Cmp(op, p),
                    }))
                };
                match op {
                    BinOp::Add => Some(ExprValue::Int(a.add(&b))),
                    BinOp::Sub => Some(ExprValue::Int(a.sub(&b))),
                    BinOp::Mul => Some(ExprValue::Int(a.mul(&b))),
                    // Integers: `a < b` is `a - b + 1 <= 0`; one normal
                    // form lets equal conditions compare equal.
                    BinOp::Lt => cmp(CmpOp::Le, a.sub(&b).add_const(1)),
                    BinOp::Le => cmp(CmpOp::Le, a.sub(&b)),
                    BinOp::Gt => cmp(CmpOp::Le, b.sub(&a).add_const(1)),
                    BinOp::Ge => cmp(CmpOp::Le, b.sub(&a)),
                    BinOp::Eq => cmp(CmpOp::Eq, a.sub(&b)),
                    BinOp::Ne => cmp(CmpOp::Ne, a.sub(&b)),
                    BinOp::Shl => match b.as_const() {
                        Some(s @ 0..=62) => Some(ExprValue::Int(a.scale(1i128 << s))),
                        _ => self
                            .computed(ComputedOp::Shl, a, b, span, lhs_span, rhs_span)
                            .map(ExprValue::Int),
                    },
                    BinOp::Shr => match b.as_const() {
                        Some(s @ 0..=62) => self
                            .computed(
                                ComputedOp::Div,
                                a,
                                Poly::constant(1i128 << s),
                                span,
                                lhs_span,
                                rhs_span,
                            )
                            .map(ExprValue::Int),
                        _ => self
                            .computed(ComputedOp::Shr, a, b, span, lhs_span, rhs_span)
                            .map(ExprValue::Int),
                    },
                    BinOp::Div => self
                        .computed(ComputedOp::Div, a, b, span, lhs_span, rhs_span)
                        .map(ExprValue::Int),
                    BinOp::Rem => self
                        .computed(ComputedOp::Rem, a, b, span, lhs_span, rhs_span)
                        .map(ExprValue::Int),
                    BinOp::BitAnd => self
                        .computed(ComputedOp::And, a, b, span, lhs_span, rhs_span)
                        .map(ExprValue::Int),
                    BinOp::BitOr => self
                        .computed(ComputedOp::Or, a, b, span, lhs_span, rhs_span)
                        .map(ExprValue::Int),
                    BinOp::BitXor => self
                        .computed(ComputedOp::Xor, a, b, span, lhs_span, rhs_span)
                        .map(ExprValue::Int),
                    BinOp::And | BinOp::Or => {
                        self.diags.error(
                            Code::OPERATOR_TYPES,
                            span,
                            format!(
                                "`{}` needs bool operands; compare the integers first",
                                op.symbol()
                            ),
                        );
                        None
                    }
                }
            }
            _ => {
                self.diags.error(
                    Code::OPERATOR_TYPES,
                    span,
                    format!("`{}` cannot mix an integer and a bool", op.symbol()),
                );
                None
            }
        }
    }

    /// A value that is not a polynomial of its operands: folded when both
    /// are constants or the division is exact, else a new computed atom
    /// defined at this point of the body.
    pub(super) fn computed(
        &mut self,
        op: ComputedOp,
        a: Poly,
        b: Poly,
        span: SpanId,
        lhs_span: SpanId,
        rhs_span: SpanId,
    ) -> Option<Poly> {
        let (alo, ahi) = self.atoms.range(&a);
        let (blo, bhi) = self.atoms.range(&b);
        let symbol = match op {
            ComputedOp::Div => "/",
            ComputedOp::Rem => "%",
            ComputedOp::CeilDiv => "ceil_div",
            ComputedOp::Min => "min",
            ComputedOp::Max => "max",
            ComputedOp::Shl => "<<",
            ComputedOp::Shr => ">>",
            ComputedOp::And => "&",
            ComputedOp::Or => "|",
            ComputedOp::Xor => "^",
        };
        let needs_non_negative = !matches!(op, ComputedOp::Min | ComputedOp::Max);
        if needs_non_negative && alo < 0 {
            self.diags.push(
                Diagnostic::new(Code::NEGATIVE_OPERAND, lhs_span, format!("the left operand of `{symbol}` is not provably non-negative (it is `{}`)", limits::poly_text(&a, &self.atoms)))
                    .with_note("index division, remainder, shifts and bit operations are defined here for non-negative values only"),
            );
            return None;
        }
        // A divisor is at least 1 by its range or by the facts in scope
        // (`if n >= 1 { .. i % n .. }`): the value is defined (computed)
        // only where they hold.
        let divides = matches!(op, ComputedOp::Div | ComputedOp::Rem | ComputedOp::CeilDiv);
        let positive = |checker: &Self| {
            let prover = crate::sym::Prover {
                atoms: &checker.atoms,
                facts: &checker.facts,
            };
            prover.prove_le0(&b.scale(-1).add_const(1))
        };
        // A constant divisor below 1 is an error even where the facts
        // contradict (an arm that never runs): they would prove anything.
        let constant_below_one = b.as_const().is_some_and(|c| c < 1);
        if divides && blo < 1 && (constant_below_one || !positive(self)) {
            self.diags.push(Diagnostic::new(
                Code::DIVISOR_NOT_POSITIVE,
                rhs_span,
                format!(
                    "the divisor `{}` is not provably at least 1",
                    limits::poly_text(&b, &self.atoms)
                ),
            ));
            return None;
        }
        let blo = if divides { blo.max(1) } else { blo };
        if needs_non_negative && blo < 0 {
            self.diags.push(Diagnostic::new(
                Code::NEGATIVE_OPERAND,
                rhs_span,
                format!("the right operand of `{symbol}` is not provably non-negative"),
            ));
            return None;
        }
        if matches!(op, ComputedOp::Shl | ComputedOp::Shr) && bhi > 63 {
            self.diags.push(Diagnostic::new(
                Code::SHIFT_TOO_LARGE,
                rhs_span,
                "a shift amount must be provably below 64".to_string(),
            ));
            return None;
        }
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            let value = match op {
                ComputedOp::Div => x / y,
                ComputedOp::Rem => x % y,
                // `y >= 1`; `x` may be any constant (sums saturate).
                ComputedOp::CeilDiv => x.div_euclid(y) + i128::from(x.rem_euclid(y) != 0),
                ComputedOp::Min => x.min(y),
                ComputedOp::Max => x.max(y),
                // `y < 64`; a product that leaves i128 saturates and is
                // reported by `within_limits`.
                ComputedOp::Shl => x.checked_mul(1i128 << y).unwrap_or(i128::MAX),
                ComputedOp::Shr => x >> y,
                ComputedOp::And => x & y,
                ComputedOp::Or => x | y,
                ComputedOp::Xor => x ^ y,
            };
            return Some(Poly::constant(value));
        }
        // Below the divisor: `a % b` is `a`, `a / b` is 0.
        if matches!(op, ComputedOp::Div | ComputedOp::Rem) && ahi < blo {
            return Some(match op {
                ComputedOp::Rem => a,
                _ => Poly::default(),
            });
        }
        // In blocks of several warpgroups, `warp_id() % 4` and
        // `warp_id() / 4` are the warp's index in its warpgroup and the
        // warpgroup's in the block: one atom each (the ranks of warpgroup
        // scopes, digits of the race rule).
        if matches!(op, ComputedOp::Div | ComputedOp::Rem)
            && b.as_const() == Some(4)
            && let [warp] = a.atoms()[..]
            && a == Poly::atom(warp)
            && self.atoms.get(warp).kind == AtomKind::WarpId
        {
            let warps = self.atoms.get(warp).hi + 1;
            return Some(match op {
                ComputedOp::Rem => {
                    self.special(AtomKind::WarpInGroup, "warp_id() % 4".into(), 0, 3)
                }
                _ => self.special(
                    AtomKind::WarpgroupId,
                    "warp_id() / 4".into(),
                    0,
                    (warps - 1) / 4,
                ),
            });
        }
        // `lane_id() / d` and `lane_id() % d` for d = 2, 4, 8, 16: fields
        // of the lane's bits (the fragment layouts' group and index in
        // it), digits of the race rule, so `8 * (lane_id() / 4) + 2 *
        // (lane_id() % 4)` is an injective rank.
        if matches!(op, ComputedOp::Div | ComputedOp::Rem)
            && let Some(d) = b.as_const()
            && matches!(d, 2 | 4 | 8 | 16)
            && let [lane] = a.atoms()[..]
            && a == Poly::atom(lane)
            && self.atoms.get(lane).kind == AtomKind::LaneId
        {
            let low = d.trailing_zeros() as u8;
            return Some(match op {
                ComputedOp::Rem => self.special(
                    AtomKind::LaneField {
                        shift: 0,
                        bits: low,
                    },
                    format!("lane_id() % {d}"),
                    0,
                    d - 1,
                ),
                _ => self.special(
                    AtomKind::LaneField {
                        shift: low,
                        bits: 5 - low,
                    },
                    format!("lane_id() / {d}"),
                    0,
                    32 / d - 1,
                ),
            });
        }
        if op == ComputedOp::Div
            && let Some(d) = b.as_const()
            && a.divisible_by(d)
        {
            return Some(a.div_exact(d));
        }
        if op == ComputedOp::Rem
            && let Some(d) = b.as_const()
            && a.divisible_by(d)
        {
            return Some(Poly::default());
        }
        let (lo, hi) = match op {
            ComputedOp::Div => (alo / bhi.max(1), ahi / blo.max(1)),
            ComputedOp::Rem => (0, (bhi - 1).min(ahi)),
            ComputedOp::CeilDiv => (
                alo.saturating_add(bhi - 1) / bhi.max(1),
                ahi.saturating_add(blo - 1) / blo.max(1),
            ),
            ComputedOp::Min => (alo.min(blo), ahi.min(bhi)),
            ComputedOp::Max => (alo.max(blo), ahi.max(bhi)),
            ComputedOp::Shl => (alo, ahi.saturating_mul(1i128 << bhi.clamp(0, 63))),
            ComputedOp::Shr => (0, ahi),
            ComputedOp::And => (0, ahi.min(bhi)),
            ComputedOp::Or | ComputedOp::Xor => {
                let top = ahi.max(bhi).max(1);
                (0, (1i128 << (128 - top.leading_zeros()).min(126)) - 1)
            }
        };
        if !(self.materialize(&a, lhs_span) && self.materialize(&b, rhs_span)) {
            return None;
        }
        if lo.unsigned_abs().max(hi.unsigned_abs()) > INDEX_LIMIT.unsigned_abs() {
            self.diags.error(
                Code::INDEX_OVERFLOW,
                span,
                "this index value may overflow 64-bit arithmetic",
            );
            return None;
        }
        let name = match op {
            ComputedOp::Min | ComputedOp::Max | ComputedOp::CeilDiv => format!(
                "{symbol}({}, {})",
                limits::poly_text(&a, &self.atoms),
                limits::poly_text(&b, &self.atoms)
            ),
            _ => format!(
                "({} {symbol} {})",
                limits::poly_text(&a, &self.atoms),
                limits::poly_text(&b, &self.atoms)
            ),
        };
        let atom = self.atoms.push(Atom {
            kind: AtomKind::Computed(op, vec![a, b]),
            name,
            lo,
            hi,
        });
        self.body.push(checked::Node::Define(atom));
        Some(Poly::atom(atom))
    }

    /// A `let` value keeps its polynomial (no register until used).
    pub(super) fn name_value(&mut self, poly: Poly, _name: &str, span: SpanId) -> Poly {
        let _ = self.materialize(&poly, span);
        poly
    }

    /// Checks that emitting `poly` cannot overflow 64-bit signed arithmetic;
    /// `false` after reporting.
    pub(super) fn materialize(&mut self, poly: &Poly, span: SpanId) -> bool {
        if self.atoms.magnitude(poly) <= INDEX_LIMIT {
            return true;
        }
        self.diags.push(
            Diagnostic::new(
                Code::INDEX_OVERFLOW,
                span,
                format!(
                    "the index value `{}` may overflow 64-bit arithmetic",
                    limits::poly_text(poly, &self.atoms)
                ),
            )
            .with_note(
                "symbols are at most 2^40 - 1 and 32-bit parameters at most 2^32; index values must stay below 2^62",
            ),
        );
        false
    }

    /// [`materialize`](Self::materialize) for every polynomial of a condition.
    pub(super) fn materialize_cond(&mut self, cond: &Cond, span: SpanId) -> bool {
        match cond {
            Cond::Cmp(_, p) => self.materialize(p, span),
            Cond::Not(c) => self.materialize_cond(c, span),
            Cond::And(a, b) | Cond::Or(a, b) => {
                self.materialize_cond(a, span) & self.materialize_cond(b, span)
            }
            Cond::Const(_) | Cond::Param(_) | Cond::Register { .. } => true,
        }
    }
}

/// Saturating: divisors come from dims (at most 2^64 each).
fn lcm(a: i128, b: i128) -> i128 {
    if a == 0 || b == 0 {
        return a.max(b);
    }
    (a / gcd(a, b)).saturating_mul(b)
}

fn dim_text(mul: i128, div: i128, add: i128, name: &str) -> String {
    let mut text = name.to_string();
    if mul != 1 {
        text = format!("{mul} * {text}");
    }
    if div != 1 {
        text = format!("{text} / {div}");
    }
    if add != 0 {
        text = format!("{text} + {add}");
    }
    text
}

/// Reads a dim as `mul * S / div + add`.
fn affine(expr: &Expr) -> Result<Affine<'_>, (Code, String)> {
    // Every part within 2^64 (dims are `u64`), so the arithmetic on parts
    // below cannot overflow `i128` unchecked.
    let a = affine_parts(expr)?;
    const LIMIT: u128 = 1 << 64;
    if a.mul.unsigned_abs() > LIMIT || a.div.unsigned_abs() > LIMIT || a.add.unsigned_abs() > LIMIT
    {
        return Err((
            Code::CONSTANT_OVERFLOW,
            "a tensor dim's constants must stay within 2^64".to_string(),
        ));
    }
    Ok(a)
}

fn affine_parts(expr: &Expr) -> Result<Affine<'_>, (Code, String)> {
    let constant = |v: i128| Affine {
        symbol: None,
        mul: 0,
        div: 1,
        add: v,
    };
    match expr {
        Expr::Int(v, _) => Ok(constant(*v)),
        Expr::Name(name, span) => Ok(Affine {
            symbol: Some((name, *span)),
            mul: 1,
            div: 1,
            add: 0,
        }),
        Expr::Unary {
            op: UnOp::Neg,
            expr,
            ..
        } => {
            let a = affine(expr)?;
            if a.symbol.is_some() {
                return Err((Code::DIM_FORM, "a dim cannot be a negated symbol".into()));
            }
            Ok(constant(-a.add))
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            let (a, b) = (affine(lhs)?, affine(rhs)?);
            let overflow = || {
                (
                    Code::CONSTANT_OVERFLOW,
                    "integer overflow in constant expression".to_string(),
                )
            };
            match op {
                BinOp::Add | BinOp::Sub => {
                    let sign = if *op == BinOp::Add { 1 } else { -1 };
                    match (a.symbol, b.symbol) {
                        (Some(_), Some(_)) => Err((
                            Code::DIM_FORM,
                            "a dim may use one symbol once; sums of symbols are not supported"
                                .into(),
                        )),
                        (None, Some(_)) if sign < 0 => {
                            Err((Code::DIM_FORM, "a dim cannot subtract a symbol".into()))
                        }
                        (None, Some(_)) => Ok(Affine {
                            add: b.add.checked_add(a.add).ok_or_else(overflow)?,
                            ..b
                        }),
                        _ => Ok(Affine {
                            add: a.add.checked_add(b.add * sign).ok_or_else(overflow)?,
                            ..a
                        }),
                    }
                }
                BinOp::Mul => match (a.symbol, b.symbol) {
                    (Some(_), Some(_)) => Err((
                        Code::DIM_FORM,
                        "a dim cannot multiply symbols (products of symbols are not supported)"
                            .into(),
                    )),
                    (Some(_), None) | (None, Some(_)) => {
                        let (s, c) = if a.symbol.is_some() {
                            (a, b.add)
                        } else {
                            (b, a.add)
                        };
                        Ok(Affine {
                            mul: s.mul.checked_mul(c).ok_or_else(overflow)?,
                            add: s.add.checked_mul(c).ok_or_else(overflow)?,
                            ..s
                        })
                    }
                    (None, None) => Ok(constant(a.add.checked_mul(b.add).ok_or_else(overflow)?)),
                },
                BinOp::Div | BinOp::Rem if b.symbol.is_some() => {
                    Err((Code::DIM_FORM, "a dim cannot divide by a symbol".into()))
                }
                BinOp::Div | BinOp::Rem if b.add == 0 => Err((
                    Code::DIVISION_BY_ZERO,
                    "division by zero in constant expression".into(),
                )),
                BinOp::Div if a.symbol.is_some() => {
                    if a.add != 0 {
                        return Err((
                            Code::DIM_FORM,
                            "write `{(N + c) / d}` as a dim only without the constant: `{N / d}`"
                                .into(),
                        ));
                    }
                    if b.add < 0 {
                        return Err((
                            Code::DIM_FORM,
                            "a dim cannot divide by a negative number".into(),
                        ));
                    }
                    let div = a.div.checked_mul(b.add).ok_or_else(overflow)?;
                    let g = gcd(a.mul, div);
                    Ok(Affine {
                        mul: a.mul / g,
                        div: div / g,
                        ..a
                    })
                }
                BinOp::Div => Ok(constant(a.add.checked_div(b.add).ok_or_else(overflow)?)),
                BinOp::Rem if a.symbol.is_none() => {
                    Ok(constant(a.add.checked_rem(b.add).ok_or_else(overflow)?))
                }
                _ => Err((
                    Code::DIM_FORM,
                    format!(
                        "`{}` is not allowed in a tensor dim; use `+ - * /`",
                        op.symbol()
                    ),
                )),
            }
        }
        Expr::Other(text, _) => Err((
            Code::DIM_FORM,
            format!(
                "expected an integer constant or a size symbol, found `{}`",
                limits::bounded(text)
            ),
        )),
        _ => Err((
            Code::DIM_FORM,
            "a tensor dim must be an integer constant or a size symbol like `N`".into(),
        )),
    }
}
