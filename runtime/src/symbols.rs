//! Launch-time sizes: symbolic tensor dims ([`DimSpec`]), the size symbols
//! they bind ([`SymbolSpec`]), and grid sizes computed from those symbols
//! ([`LaunchFormulaSpec`]).
//!
//! Everything here is pure (no driver, no allocation on success), so the
//! checks a launch makes can be tested without a GPU:
//! - [`bind_shape`] matches a tensor's shape against a parameter's dims and
//!   binds, or checks, the symbols its dims name;
//! - [`check_symbols`] checks the bound values against the requirements the
//!   compiler recorded (limit, divisors, alignment multiples);
//! - [`grid_size`] evaluates the grid formulas with checked arithmetic and
//!   applies the CUDA grid limits.

use crate::{Error, Result};

/// The most size symbols one kernel may declare. Each one adds a hidden
/// `.u64` parameter, and their values live in fixed arrays of this size so
/// that a launch does not allocate.
pub const MAX_SYMBOLS: usize = 8;

/// How deep a [`LaunchFormulaSpec`]'s evaluation stack may grow.
const MAX_LAUNCH_STACK: usize = 16;

/// The largest grid extent CUDA accepts along x.
const GRID_X_LIMIT: u64 = (1 << 31) - 1;
/// The largest grid extent CUDA accepts along y and z.
const GRID_YZ_LIMIT: u64 = 65535;

use crate::spec::{DimSpec, LaunchFormulaSpec, LaunchOp, MAX_SYMBOL_VALUE, SymbolSpec};

/// A symbol's value and the parameter whose shape first fixed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Binding {
    pub(crate) value: u64,
    pub(crate) by: &'static str,
}

/// The symbols bound so far in one launch, by symbol index.
pub(crate) type Bindings = [Option<Binding>; MAX_SYMBOLS];

/// A symbol's name for messages; a spec's out-of-range index shows as `#i`.
fn symbol_name(symbols: &[SymbolSpec], symbol: u16) -> String {
    symbols
        .get(usize::from(symbol))
        .map_or_else(|| format!("#{symbol}"), |s| s.name.to_owned())
}

/// One dim as the kernel's signature spells it: `4`, `N`, `{2 * N / 3 + 1}`.
pub(crate) fn dim_text(dim: DimSpec, symbols: &[SymbolSpec]) -> String {
    tile_kernel_lowering::program::dim_text(dim, |symbol| symbol_name(symbols, symbol))
}

/// A parameter's whole shape as text: `[N, 2]`, `[{N / 2}]`, `[]`.
pub(crate) fn shape_text(dims: &[DimSpec], symbols: &[SymbolSpec]) -> String {
    let dims: Vec<String> = dims.iter().map(|&d| dim_text(d, symbols)).collect();
    format!("[{}]", dims.join(", "))
}

/// The symbol value that makes a symbolic dim exactly `extent`:
/// `value * mul / div + add == extent` with `value * mul` a multiple of
/// `div`. `None` where no value does (`extent < add`, or `{2 * N}` odd).
/// Needs `mul, div >= 1`.
pub(crate) fn invert_dim(extent: u64, mul: u64, div: u64, add: u64) -> Option<u128> {
    let scaled = u128::from(extent.checked_sub(add)?) * u128::from(div);
    let mul = u128::from(mul);
    if mul == 0 || !scaled.is_multiple_of(mul) {
        return None;
    }
    let value = scaled / mul;
    // Holds by construction (value * mul == scaled, a multiple of div);
    // checked so the function alone guarantees what it documents.
    (value * mul)
        .is_multiple_of(u128::from(div))
        .then_some(value)
}

/// Greatest common divisor, `gcd(0, b) = b`.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// An error for a spec the macro would never write.
fn malformed_spec(kernel: &'static str, detail: String) -> Error {
    Error::ArgumentMismatch {
        kernel,
        detail: format!("malformed kernel spec: {detail}"),
    }
}

/// Checks the shape `actual` of the tensor passed to parameter `param`
/// against its dims, binding every symbol a dim names that is not bound yet
/// (into `bound`) and checking the ones that are.
///
/// A wrong rank, a wrong constant dim, or an extent no symbol value gives
/// (`{2 * N}` odd, `{N + 1}` zero) is [`Error::ShapeMismatch`]; a value
/// other than the one bound before is [`Error::SymbolMismatch`]; a value over
/// [`MAX_SYMBOL_VALUE`], or a bound value a `{N / d}` dim cannot divide, is
/// [`Error::SymbolRequirement`]. On error `bound` may be partly updated.
pub(crate) fn bind_shape(
    kernel: &'static str,
    param: &'static str,
    dims: &[DimSpec],
    symbols: &[SymbolSpec],
    actual: &[usize],
    bound: &mut Bindings,
) -> Result<()> {
    let mismatch = || Error::ShapeMismatch {
        kernel,
        param,
        expected: shape_text(dims, symbols),
        actual: actual.to_vec(),
    };
    if dims.len() != actual.len() {
        return Err(mismatch());
    }
    // First the shape as such, so that a plainly wrong shape is reported as
    // one, not as a symbol problem.
    for (&dim, &extent) in dims.iter().zip(actual) {
        let extent = extent as u64;
        match dim {
            DimSpec::Const(expected) if expected == extent => {}
            DimSpec::Const(_) => return Err(mismatch()),
            DimSpec::Symbolic {
                symbol,
                mul,
                div,
                add,
            } => {
                if usize::from(symbol) >= symbols.len().min(MAX_SYMBOLS) {
                    return Err(malformed_spec(
                        kernel,
                        format!(
                            "a dim of `{param}` names symbol #{symbol}, but the kernel declares {} symbol(s)",
                            symbols.len()
                        ),
                    ));
                }
                if mul == 0 || div == 0 {
                    return Err(malformed_spec(
                        kernel,
                        format!("a dim of `{param}` has mul = {mul}, div = {div}"),
                    ));
                }
                if invert_dim(extent, mul, div, add).is_none() {
                    return Err(mismatch());
                }
            }
        }
    }
    for (&dim, &extent) in dims.iter().zip(actual) {
        let DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } = dim
        else {
            continue;
        };
        let index = usize::from(symbol);
        let (Some(spec), Some(slot), Some(value)) = (
            symbols.get(index),
            bound.get_mut(index),
            invert_dim(extent as u64, mul, div, add),
        ) else {
            // Excluded by the first pass.
            return Err(mismatch());
        };
        let Some(value) = u64::try_from(value).ok().filter(|&v| v <= MAX_SYMBOL_VALUE) else {
            return Err(Error::SymbolRequirement {
                kernel,
                symbol: spec.name,
                value,
                detail: format!(
                    "exceeds the limit 2^40 - 1 (from the shape {actual:?} of `{param}`, which is {})",
                    shape_text(dims, symbols)
                ),
            });
        };
        match *slot {
            None => *slot = Some(Binding { value, by: param }),
            Some(earlier) => {
                let needed = div / gcd(mul, div);
                if !earlier.value.is_multiple_of(needed) {
                    return Err(Error::SymbolRequirement {
                        kernel,
                        symbol: spec.name,
                        value: u128::from(earlier.value),
                        detail: format!(
                            "must be a multiple of {needed} (`{}` in the shape of `{param}`)",
                            dim_text(dim, symbols)
                        ),
                    });
                }
                if earlier.value != value {
                    return Err(Error::SymbolMismatch {
                        kernel,
                        symbol: spec.name,
                        param,
                        shape: actual.to_vec(),
                        bound_by: earlier.by,
                        expected: earlier.value,
                        actual: value,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Checks that every symbol of the kernel is bound and meets its
/// requirements (at most [`MAX_SYMBOL_VALUE`], a multiple of its `divisor`
/// and `multiple_of`); returns the full user values, by symbol index.
pub(crate) fn check_symbols(
    kernel: &'static str,
    symbols: &[SymbolSpec],
    bound: &Bindings,
) -> Result<[u64; MAX_SYMBOLS]> {
    if symbols.len() > MAX_SYMBOLS {
        return Err(malformed_spec(
            kernel,
            format!(
                "it declares {} symbols, but a launch supports at most {MAX_SYMBOLS}",
                symbols.len()
            ),
        ));
    }
    let mut values = [0; MAX_SYMBOLS];
    for ((spec, binding), value) in symbols.iter().zip(bound).zip(&mut values) {
        let Some(binding) = binding else {
            return Err(Error::ArgumentMismatch {
                kernel,
                detail: format!(
                    "size symbol `{}` is not bound: no tensor parameter's shape names it",
                    spec.name
                ),
            });
        };
        let requirement = |detail: String| Error::SymbolRequirement {
            kernel,
            symbol: spec.name,
            value: u128::from(binding.value),
            detail,
        };
        if binding.value > MAX_SYMBOL_VALUE {
            return Err(requirement(format!(
                "exceeds the limit 2^40 - 1 (from the shape of `{}`)",
                binding.by
            )));
        }
        if spec.divisor == 0 || spec.multiple_of == 0 {
            return Err(malformed_spec(
                kernel,
                format!(
                    "symbol `{}` has divisor {} and multiple_of {}",
                    spec.name, spec.divisor, spec.multiple_of
                ),
            ));
        }
        if !binding.value.is_multiple_of(spec.divisor) {
            return Err(requirement(format!(
                "must be a multiple of {} (the kernel computes with {} / {})",
                spec.divisor, spec.name, spec.divisor
            )));
        }
        if !binding.value.is_multiple_of(spec.multiple_of) {
            return Err(requirement(format!(
                "must be a multiple of {} (the kernel's vector accesses are aligned only then)",
                spec.multiple_of
            )));
        }
        *value = binding.value;
    }
    Ok(values)
}

/// Why a [`LaunchFormulaSpec`] has no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EvalError {
    /// A result above `u64::MAX`.
    Overflow,
    /// A subtraction below zero.
    Underflow,
    /// A `Div` or `CeilDiv` by zero.
    DivisionByZero,
    /// Not a well-formed formula (what is wrong).
    Malformed(&'static str),
}

impl EvalError {
    /// What went wrong, after "which": "overflows 64 bits".
    fn problem(self) -> String {
        match self {
            EvalError::Overflow => "overflows 64 bits".into(),
            EvalError::Underflow => "goes below zero".into(),
            EvalError::DivisionByZero => "divides by zero".into(),
            EvalError::Malformed(why) => format!("is malformed: {why}"),
        }
    }
}

/// Evaluates `expr` with checked `u64` arithmetic; `values[i]` is symbol i.
pub(crate) fn eval_formula(expr: LaunchFormulaSpec, values: &[u64]) -> Result<u64, EvalError> {
    let mut stack = [0u64; MAX_LAUNCH_STACK];
    let mut depth = 0usize;
    for &op in expr.0 {
        let pushed = match op {
            LaunchOp::Const(value) => value,
            LaunchOp::Symbol(symbol) => *values
                .get(usize::from(symbol))
                .ok_or(EvalError::Malformed("it names an undeclared symbol"))?,
            binary => {
                if depth < 2 {
                    return Err(EvalError::Malformed("an operation lacks an operand"));
                }
                depth -= 2;
                apply_launch_op(binary, stack[depth], stack[depth + 1])?
            }
        };
        let slot = stack
            .get_mut(depth)
            .ok_or(EvalError::Malformed("it needs more than 16 stack slots"))?;
        *slot = pushed;
        depth += 1;
    }
    match depth {
        1 => Ok(stack[0]),
        0 => Err(EvalError::Malformed("it is empty")),
        _ => Err(EvalError::Malformed("it leaves more than one value")),
    }
}

/// `a op b` for a binary [`LaunchOp`].
fn apply_launch_op(op: LaunchOp, a: u64, b: u64) -> Result<u64, EvalError> {
    match op {
        LaunchOp::Add => a.checked_add(b).ok_or(EvalError::Overflow),
        LaunchOp::Sub => a.checked_sub(b).ok_or(EvalError::Underflow),
        LaunchOp::Mul => a.checked_mul(b).ok_or(EvalError::Overflow),
        LaunchOp::Div => a.checked_div(b).ok_or(EvalError::DivisionByZero),
        LaunchOp::CeilDiv if b == 0 => Err(EvalError::DivisionByZero),
        LaunchOp::CeilDiv => Ok(a.div_ceil(b)),
        LaunchOp::Min => Ok(a.min(b)),
        LaunchOp::Max => Ok(a.max(b)),
        LaunchOp::Const(_) | LaunchOp::Symbol(_) => {
            Err(EvalError::Malformed("an operand is used as an operation"))
        }
    }
}

/// `expr` in the kernel's syntax, for messages: `ceil_div(N, 2048)`.
pub(crate) fn formula_spec_text(expr: LaunchFormulaSpec, symbols: &[SymbolSpec]) -> String {
    tile_kernel_lowering::program::formula_text(expr.0, |symbol| symbol_name(symbols, symbol))
}

/// ` (N = 5, K = 3)` for the symbols `expr` names, or nothing.
fn symbol_values_text(expr: LaunchFormulaSpec, symbols: &[SymbolSpec], values: &[u64]) -> String {
    let mut named = [false; MAX_SYMBOLS];
    for op in expr.0 {
        if let LaunchOp::Symbol(symbol) = *op
            && let Some(flag) = named.get_mut(usize::from(symbol))
        {
            *flag = true;
        }
    }
    let parts: Vec<String> = named
        .iter()
        .zip(symbols)
        .zip(values)
        .filter(|((named, _), _)| **named)
        .map(|((_, spec), value)| format!("{} = {value}", spec.name))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// Evaluates the kernel's grid formulas for these symbol values and checks
/// them against CUDA's limits (x at most 2^31 - 1, y and z at most 65535).
/// Any failure is [`Error::LaunchSize`]. A zero extent is returned as is.
pub(crate) fn grid_size(
    kernel: &'static str,
    grid: &[LaunchFormulaSpec; 3],
    symbols: &[SymbolSpec],
    values: &[u64],
) -> Result<[u32; 3]> {
    let mut size = [0u32; 3];
    for (((axis, &expr), limit), extent) in ["x", "y", "z"]
        .into_iter()
        .zip(grid)
        .zip([GRID_X_LIMIT, GRID_YZ_LIMIT, GRID_YZ_LIMIT])
        .zip(&mut size)
    {
        *extent = launch_value_at_most(
            kernel,
            expr,
            symbols,
            values,
            limit,
            |expr| format!("grid {axis} is `{expr}`"),
            || format!("the CUDA limit {limit}"),
        )?;
    }
    Ok(size)
}

/// Evaluates the kernel's dynamic shared memory formula for these symbol
/// values and checks it against `limit`, the bytes the device lets one
/// block of this kernel have beside its static shared memory. Any failure
/// is [`Error::LaunchSize`].
pub(crate) fn dynamic_shared_size(
    kernel: &'static str,
    expr: LaunchFormulaSpec,
    symbols: &[SymbolSpec],
    values: &[u64],
    limit: u32,
) -> Result<u32> {
    launch_value_at_most(
        kernel,
        expr,
        symbols,
        values,
        u64::from(limit),
        |expr| format!("the dynamic shared memory is `{expr}` bytes"),
        || format!("the {limit} bytes this device lets a block of this kernel have"),
    )
}

/// `expr`'s value for these symbol values, at most `limit`; otherwise
/// [`Error::LaunchSize`] saying "`subject(formula)`, which `problem`
/// (N = ..)", where the problem of a value above the limit is "is V, above
/// `limit_text()`". Nothing is formatted unless the check fails (launches
/// call this for every grid axis).
fn launch_value_at_most(
    kernel: &'static str,
    expr: LaunchFormulaSpec,
    symbols: &[SymbolSpec],
    values: &[u64],
    limit: u64,
    subject: impl Fn(&str) -> String,
    limit_text: impl Fn() -> String,
) -> Result<u32> {
    let values = &values[..symbols.len().min(values.len())];
    let fail = |problem: String| Error::LaunchSize {
        kernel,
        detail: format!(
            "{}, which {problem}{}",
            subject(&formula_spec_text(expr, symbols)),
            symbol_values_text(expr, symbols, values)
        ),
    };
    let value = eval_formula(expr, values).map_err(|e| fail(e.problem()))?;
    u32::try_from(value)
        .ok()
        .filter(|_| value <= limit)
        .ok_or_else(|| fail(format!("is {value}, above {}", limit_text())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn sym(symbol: u16, mul: u64, div: u64, add: u64) -> DimSpec {
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        }
    }

    const N: DimSpec = sym(0, 1, 1, 0);
    const K: DimSpec = sym(1, 1, 1, 0);
    const SYMBOLS: &[SymbolSpec] = &[
        SymbolSpec {
            name: "N",
            divisor: 1,
            multiple_of: 1,
        },
        SymbolSpec {
            name: "K",
            divisor: 1,
            multiple_of: 1,
        },
    ];

    /// Binds one parameter's shape into fresh bindings.
    fn bind(dims: &[DimSpec], actual: &[usize]) -> Result<Bindings> {
        let mut bound = [None; MAX_SYMBOLS];
        bind_shape("k", "x", dims, SYMBOLS, actual, &mut bound)?;
        Ok(bound)
    }

    fn value_of(bound: &Bindings, symbol: usize) -> Option<u64> {
        bound[symbol].map(|b| b.value)
    }

    #[test]
    fn dims_render_as_written() {
        assert_eq!(shape_text(&[N, DimSpec::Const(2)], SYMBOLS), "[N, 2]");
        assert_eq!(shape_text(&[sym(0, 2, 1, 0)], SYMBOLS), "[{2 * N}]");
        assert_eq!(shape_text(&[sym(0, 1, 2, 0)], SYMBOLS), "[{N / 2}]");
        assert_eq!(shape_text(&[sym(1, 1, 1, 1)], SYMBOLS), "[{K + 1}]");
        assert_eq!(shape_text(&[sym(0, 2, 3, 1)], SYMBOLS), "[{2 * N / 3 + 1}]");
        assert_eq!(shape_text(&[sym(7, 1, 1, 0)], SYMBOLS), "[#7]");
        assert_eq!(shape_text(&[], SYMBOLS), "[]");
    }

    #[test]
    fn inversion_is_exact() {
        // N
        assert_eq!(invert_dim(7, 1, 1, 0), Some(7));
        assert_eq!(invert_dim(0, 1, 1, 0), Some(0));
        // {2 * N}: even extents only.
        assert_eq!(invert_dim(8, 2, 1, 0), Some(4));
        assert_eq!(invert_dim(7, 2, 1, 0), None);
        // {N / 2}: N is twice the extent.
        assert_eq!(invert_dim(3, 1, 2, 0), Some(6));
        // {N + 1}: extent at least 1.
        assert_eq!(invert_dim(5, 1, 1, 1), Some(4));
        assert_eq!(invert_dim(0, 1, 1, 1), None);
        // {3 * N / 2}: extent a multiple of 3, N = 2 * extent / 3.
        assert_eq!(invert_dim(9, 3, 2, 0), Some(6));
        assert_eq!(invert_dim(10, 3, 2, 0), None);
        // No overflow in the intermediate product.
        assert_eq!(
            invert_dim(u64::MAX, 1, 4, 0),
            Some(u128::from(u64::MAX) * 4)
        );
    }

    #[test]
    fn symbolic_dims_bind_their_symbols() -> Result<()> {
        let bound = bind(&[N, DimSpec::Const(2)], &[7, 2])?;
        assert_eq!(bound[0], Some(Binding { value: 7, by: "x" }));
        assert_eq!(bound[1], None);
        assert_eq!(value_of(&bind(&[sym(0, 2, 1, 0)], &[8])?, 0), Some(4));
        assert_eq!(value_of(&bind(&[sym(0, 1, 2, 0)], &[3])?, 0), Some(6));
        assert_eq!(value_of(&bind(&[sym(0, 1, 1, 1)], &[5])?, 0), Some(4));
        let bound = bind(&[N, K], &[3, 5])?;
        assert_eq!(
            (value_of(&bound, 0), value_of(&bound, 1)),
            (Some(3), Some(5))
        );
        // One symbol twice in one shape: both dims must agree.
        assert_eq!(value_of(&bind(&[N, N], &[4, 4])?, 0), Some(4));
        Ok(())
    }

    #[test]
    fn wrong_rank_const_dim_or_impossible_extent_is_shape_mismatch() {
        let cases: [(&[DimSpec], &[usize]); 5] = [
            (&[N, DimSpec::Const(2)], &[14]),
            (&[N, DimSpec::Const(2)], &[7, 3]),
            (&[sym(0, 2, 1, 0)], &[7]),
            (&[sym(0, 1, 1, 1)], &[0]),
            (&[], &[1]),
        ];
        for (dims, actual) in cases {
            match bind(dims, actual) {
                Err(Error::ShapeMismatch {
                    kernel: "k",
                    param: "x",
                    expected,
                    actual: got,
                }) => {
                    assert_eq!(expected, shape_text(dims, SYMBOLS));
                    assert_eq!(got, actual.to_vec());
                }
                other => panic!("{dims:?} vs {actual:?}: expected ShapeMismatch, got {other:?}"),
            }
        }
        let err = bind(&[N, DimSpec::Const(2)], &[7, 3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: argument `x` has shape [7, 3], but the kernel was compiled for shape [N, 2]"
        );
        // The shape is checked as a whole before any symbol is bound.
        let err = bind(&[sym(0, 2, 1, 0)], &[7]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: argument `x` has shape [7], but the kernel was compiled for shape [{2 * N}]"
        );
    }

    #[test]
    fn disagreeing_params_name_both() {
        let mut bound = [None; MAX_SYMBOLS];
        bind_shape("k", "x", &[N], SYMBOLS, &[8], &mut bound).unwrap();
        let err = bind_shape("k", "y", &[N], SYMBOLS, &[7], &mut bound).unwrap_err();
        match &err {
            Error::SymbolMismatch {
                kernel: "k",
                symbol: "N",
                param: "y",
                shape,
                bound_by: "x",
                expected: 8,
                actual: 7,
            } => assert_eq!(shape, &vec![7]),
            other => panic!("expected SymbolMismatch, got {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            "kernel `k`: argument `y` has N = 7 (from its shape [7]), but `x` bound N = 8"
        );
        // The value implied through a {N / 2} dim is compared, not the extent.
        let err = bind_shape("k", "h", &[sym(0, 1, 2, 0)], SYMBOLS, &[3], &mut bound).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: argument `h` has N = 6 (from its shape [3]), but `x` bound N = 8"
        );
        // Agreeing dims of every form pass and keep the first binding.
        bind_shape("k", "h", &[sym(0, 1, 2, 0)], SYMBOLS, &[4], &mut bound).unwrap();
        bind_shape("k", "d", &[sym(0, 2, 1, 0)], SYMBOLS, &[16], &mut bound).unwrap();
        bind_shape("k", "p", &[sym(0, 1, 1, 1)], SYMBOLS, &[9], &mut bound).unwrap();
        assert_eq!(bound[0], Some(Binding { value: 8, by: "x" }));
        // Within one shape too.
        assert!(matches!(
            bind(&[N, N], &[4, 5]),
            Err(Error::SymbolMismatch {
                bound_by: "x",
                param: "x",
                expected: 4,
                actual: 5,
                ..
            })
        ));
    }

    #[test]
    fn a_bound_value_must_divide_for_n_over_2() {
        let mut bound = [None; MAX_SYMBOLS];
        bind_shape("k", "x", &[N], SYMBOLS, &[7], &mut bound).unwrap();
        let err = bind_shape("k", "y", &[sym(0, 1, 2, 0)], SYMBOLS, &[3], &mut bound).unwrap_err();
        assert!(
            matches!(
                err,
                Error::SymbolRequirement {
                    kernel: "k",
                    symbol: "N",
                    value: 7,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: N = 7 must be a multiple of 2 (`{N / 2}` in the shape of `y`)"
        );
        // {3 * N / 6} needs N even, not a multiple of 6.
        let err = bind_shape("k", "z", &[sym(0, 3, 6, 0)], SYMBOLS, &[3], &mut bound).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: N = 7 must be a multiple of 2 (`{3 * N / 6}` in the shape of `z`)"
        );
    }

    #[test]
    fn symbol_values_over_the_limit_are_refused_when_bound() {
        let limit = usize::try_from(MAX_SYMBOL_VALUE).unwrap();
        assert_eq!(
            value_of(&bind(&[N], &[limit]).unwrap(), 0),
            Some(MAX_SYMBOL_VALUE)
        );
        let err = bind(&[N, DimSpec::Const(0)], &[limit + 1, 0]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::SymbolRequirement {
                    symbol: "N",
                    value: 1_099_511_627_776,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: N = 1099511627776 exceeds the limit 2^40 - 1 (from the shape [1099511627776, 0] of `x`, which is [N, 0])"
        );
        // Beyond 64 bits, the value is still reported exactly.
        let err = bind(&[sym(0, 1, 4, 0)], &[usize::MAX]).unwrap_err();
        assert!(
            matches!(err, Error::SymbolRequirement { value, .. } if value == u128::from(u64::MAX) * 4),
            "{err:?}"
        );
    }

    #[test]
    fn malformed_dims_are_errors_not_panics() {
        for dims in [[sym(2, 1, 1, 0)], [sym(0, 0, 1, 0)], [sym(0, 1, 0, 0)]] {
            assert!(
                matches!(
                    bind(&dims, &[4]),
                    Err(Error::ArgumentMismatch { kernel: "k", .. })
                ),
                "{dims:?}"
            );
        }
    }

    fn bound_values(values: &[u64]) -> Bindings {
        let mut bound = [None; MAX_SYMBOLS];
        for (slot, &value) in bound.iter_mut().zip(values) {
            *slot = Some(Binding { value, by: "x" });
        }
        bound
    }

    #[test]
    fn symbol_requirements_are_checked() {
        let specs = [
            SymbolSpec {
                name: "N",
                divisor: 2,
                multiple_of: 1,
            },
            SymbolSpec {
                name: "K",
                divisor: 1,
                multiple_of: 4,
            },
        ];
        let values = check_symbols("k", &specs, &bound_values(&[6, 8])).unwrap();
        assert_eq!(values[..2], [6, 8]);
        assert!(values[2..].iter().all(|&v| v == 0));

        let err = check_symbols("k", &specs, &bound_values(&[7, 8])).unwrap_err();
        assert!(
            matches!(
                err,
                Error::SymbolRequirement {
                    symbol: "N",
                    value: 7,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: N = 7 must be a multiple of 2 (the kernel computes with N / 2)"
        );
        let err = check_symbols("k", &specs, &bound_values(&[6, 6])).unwrap_err();
        assert!(
            matches!(
                err,
                Error::SymbolRequirement {
                    symbol: "K",
                    value: 6,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: K = 6 must be a multiple of 4 (the kernel's vector accesses are aligned only then)"
        );
        let err = check_symbols("k", &specs, &bound_values(&[1 << 40, 8])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: N = 1099511627776 exceeds the limit 2^40 - 1 (from the shape of `x`)"
        );
    }

    #[test]
    fn unbound_symbols_and_bad_specs_are_argument_mismatch() {
        let err = check_symbols("k", SYMBOLS, &bound_values(&[3])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: size symbol `K` is not bound: no tensor parameter's shape names it"
        );
        let zero = [SymbolSpec {
            name: "N",
            divisor: 0,
            multiple_of: 1,
        }];
        assert!(matches!(
            check_symbols("k", &zero, &bound_values(&[4])),
            Err(Error::ArgumentMismatch { .. })
        ));
        let many = [SYMBOLS[0]; MAX_SYMBOLS + 1];
        assert!(matches!(
            check_symbols("k", &many, &bound_values(&[1; MAX_SYMBOLS])),
            Err(Error::ArgumentMismatch { .. })
        ));
    }

    use LaunchOp::{Add, CeilDiv, Const, Div, Max, Min, Mul, Sub, Symbol};

    fn eval(ops: &'static [LaunchOp], values: &[u64]) -> Result<u64, EvalError> {
        eval_formula(LaunchFormulaSpec(ops), values)
    }

    #[test]
    fn launch_formulas_evaluate_exactly() {
        const CEIL: &[LaunchOp] = &[Symbol(0), Const(2048), CeilDiv];
        assert_eq!(eval(CEIL, &[0]), Ok(0));
        assert_eq!(eval(CEIL, &[1]), Ok(1));
        assert_eq!(eval(CEIL, &[2048]), Ok(1));
        assert_eq!(eval(CEIL, &[2049]), Ok(2));
        assert_eq!(eval(CEIL, &[u64::MAX]), Ok(u64::MAX / 2048 + 1));
        assert_eq!(eval(&[Symbol(0), Const(2048), Div], &[4095]), Ok(1));
        assert_eq!(eval(&[Symbol(0), Symbol(1), Min], &[5, 3]), Ok(3));
        assert_eq!(eval(&[Symbol(0), Symbol(1), Max], &[5, 3]), Ok(5));
        // (N + 1) * 2 - K, in RPN: operand order matters for Sub.
        assert_eq!(
            eval(
                &[Symbol(0), Const(1), Add, Const(2), Mul, Symbol(1), Sub],
                &[10, 4]
            ),
            Ok(18)
        );
        assert_eq!(eval(&[Const(528)], &[]), Ok(528));
        // min(ceil_div(N, 256), 528)
        assert_eq!(
            eval(
                &[Symbol(0), Const(256), CeilDiv, Const(528), Min],
                &[1 << 30]
            ),
            Ok(528)
        );
    }

    #[test]
    fn launch_formula_failures_are_exact() {
        assert_eq!(
            eval(&[Symbol(0), Const(1), Sub], &[0]),
            Err(EvalError::Underflow)
        );
        assert_eq!(
            eval(&[Symbol(0), Const(2), Mul], &[u64::MAX]),
            Err(EvalError::Overflow)
        );
        assert_eq!(
            eval(&[Symbol(0), Const(1), Add], &[u64::MAX]),
            Err(EvalError::Overflow)
        );
        assert_eq!(
            eval(&[Const(1), Const(0), Div], &[]),
            Err(EvalError::DivisionByZero)
        );
        assert_eq!(
            eval(&[Const(1), Const(0), CeilDiv], &[]),
            Err(EvalError::DivisionByZero)
        );
        assert_eq!(
            eval(&[Const(0), Const(0), CeilDiv], &[]),
            Err(EvalError::DivisionByZero)
        );
        assert!(matches!(eval(&[], &[]), Err(EvalError::Malformed(_))));
        assert!(matches!(
            eval(&[Const(1), Add], &[]),
            Err(EvalError::Malformed(_))
        ));
        assert!(matches!(
            eval(&[Const(1), Const(2)], &[]),
            Err(EvalError::Malformed(_))
        ));
        assert!(matches!(
            eval(&[Symbol(1)], &[3]),
            Err(EvalError::Malformed(_))
        ));
        assert!(matches!(
            eval(&[Const(1); 17], &[]),
            Err(EvalError::Malformed(_))
        ));
    }

    #[test]
    fn launch_formulas_render_in_kernel_syntax() {
        let text = |ops: &'static [LaunchOp]| formula_spec_text(LaunchFormulaSpec(ops), SYMBOLS);
        assert_eq!(
            text(&[Symbol(0), Const(2048), CeilDiv]),
            "ceil_div(N, 2048)"
        );
        assert_eq!(
            text(&[Symbol(0), Const(1), Add, Const(2), Mul, Symbol(1), Sub]),
            "(N + 1) * 2 - K"
        );
        assert_eq!(
            text(&[Symbol(0), Symbol(1), Const(2), Sub, Sub]),
            "N - (K - 2)"
        );
        assert_eq!(text(&[Symbol(0), Symbol(1), Min]), "min(N, K)");
        assert_eq!(text(&[Const(1), Add]), "<malformed>");
    }

    fn grid(x: &'static [LaunchOp], y: &'static [LaunchOp], values: &[u64]) -> Result<[u32; 3]> {
        grid_size(
            "k",
            &[
                LaunchFormulaSpec(x),
                LaunchFormulaSpec(y),
                LaunchFormulaSpec::ONE,
            ],
            SYMBOLS,
            values,
        )
    }

    #[test]
    fn grid_sizes_evaluate_and_respect_cuda_limits() -> Result<()> {
        const CEIL: &[LaunchOp] = &[Symbol(0), Const(2048), CeilDiv];
        assert_eq!(grid(CEIL, &[Const(1)], &[1000, 0])?, [1, 1, 1]);
        assert_eq!(grid(CEIL, &[Symbol(1)], &[1 << 20, 3])?, [512, 3, 1]);
        assert_eq!(grid(CEIL, &[Const(1)], &[0, 0])?, [0, 1, 1]);
        // Exactly at the limits.
        assert_eq!(
            grid(&[Symbol(0)], &[Symbol(1)], &[(1 << 31) - 1, 65535])?,
            [(1 << 31) - 1, 65535, 1]
        );
        let err = grid(&[Symbol(0)], &[Const(1)], &[1 << 31, 0]).unwrap_err();
        assert!(
            matches!(err, Error::LaunchSize { kernel: "k", .. }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: invalid launch size: grid x is `N`, which is 2147483648, above the CUDA limit 2147483647 (N = 2147483648)"
        );
        let err = grid(&[Const(1)], &[Symbol(1), Const(2), Mul], &[0, 40000]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: invalid launch size: grid y is `K * 2`, which is 80000, above the CUDA limit 65535 (K = 40000)"
        );
        let err = grid(&[Symbol(0), Const(1), Sub], &[Const(1)], &[0, 0]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: invalid launch size: grid x is `N - 1`, which goes below zero (N = 0)"
        );
        let err = grid(&[Symbol(0), Symbol(1), CeilDiv], &[Const(1)], &[5, 0]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: invalid launch size: grid x is `ceil_div(N, K)`, which divides by zero (N = 5, K = 0)"
        );
        let err = grid(
            &[Symbol(0), Symbol(0), Mul, Symbol(0), Mul],
            &[Const(1)],
            &[MAX_SYMBOL_VALUE, 0],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: invalid launch size: grid x is `N * N * N`, which overflows 64 bits (N = 1099511627775)"
        );
        let err = grid(&[Const(1)], &[Const(1), Add], &[0, 0]).unwrap_err();
        assert!(matches!(err, Error::LaunchSize { .. }), "{err:?}");
        Ok(())
    }
}
