//! The PTX instruction behind each operator, call and cast of a scalar
//! function (`ewise`), as data. `docs/language.md` prints this table;
//! `tests/ewise.rs` checks every row against the GPU and the interpreter.
//!
//! The rules: every operation is exactly one named PTX instruction (casts
//! between two float types without a direct form are two, the first
//! exact), float arithmetic rounds to nearest even (`.rn`, so `a * b + c`
//! is two roundings, never contracted into an `fma`), approximate
//! functions are reached only by their `_approx` names, and integer
//! arithmetic wraps.

use crate::ast::{BinOp, UnOp};
use crate::dtype::DType;

/// How a dtype takes part in scalar arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// `f32`, `f64`.
    Float,
    /// `f16`, `bf16`: no division, no literals in instructions.
    Half,
    /// 16-, 32- and 64-bit integers.
    Int,
    /// 8-bit integers: only `as` casts (PTX has no 8-bit arithmetic).
    Byte,
    Bool,
}

pub(super) fn class(dtype: DType) -> Class {
    match dtype {
        DType::F32 | DType::F64 => Class::Float,
        DType::F16 | DType::Bf16 => Class::Half,
        DType::U8 | DType::I8 => Class::Byte,
        DType::Bool => Class::Bool,
        _ => Class::Int,
    }
}

/// The PTX type token of a dtype (`f32`, `s32`, `u16`, `pred`).
pub(super) fn ptx_token(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "f16",
        DType::Bf16 => "bf16",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::U8 => "u8",
        DType::U16 => "u16",
        DType::U32 => "u32",
        DType::U64 => "u64",
        DType::I8 => "s8",
        DType::I16 => "s16",
        DType::I32 => "s32",
        DType::I64 => "s64",
        DType::Bool => "pred",
    }
}

fn signed(dtype: DType) -> bool {
    matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64)
}

/// The instruction of `lhs op rhs` on operands of `dtype` (both sides
/// have it; a shift's amount is `u32`), or `None` where PTX has none.
/// Comparisons return `bool`.
pub(super) fn binary(op: BinOp, dtype: DType) -> Option<String> {
    let t = ptx_token(dtype);
    let bits = dtype.bits();
    let class = class(dtype);
    let float = matches!(class, Class::Float | Class::Half);
    Some(match (op, class) {
        (_, Class::Byte) => return None,
        (BinOp::Add, _) if float => format!("add.rn.{t}"),
        (BinOp::Sub, _) if float => format!("sub.rn.{t}"),
        (BinOp::Mul, _) if float => format!("mul.rn.{t}"),
        (BinOp::Div, Class::Float) => format!("div.rn.{t}"),
        (BinOp::Add, Class::Int) => format!("add.{t}"),
        (BinOp::Sub, Class::Int) => format!("sub.{t}"),
        (BinOp::Mul, Class::Int) => format!("mul.lo.{t}"),
        (BinOp::Div, Class::Int) => format!("div.{t}"),
        (BinOp::Rem, Class::Int) => format!("rem.{t}"),
        (BinOp::BitAnd, Class::Int) => format!("and.b{bits}"),
        (BinOp::BitOr, Class::Int) => format!("or.b{bits}"),
        (BinOp::BitXor, Class::Int) => format!("xor.b{bits}"),
        (BinOp::Shl, Class::Int) => format!("shl.b{bits}"),
        (BinOp::Shr, Class::Int) => format!("shr.{t}"),
        (BinOp::BitAnd | BinOp::And, Class::Bool) => "and.pred".to_string(),
        (BinOp::BitOr | BinOp::Or, Class::Bool) => "or.pred".to_string(),
        (BinOp::BitXor | BinOp::Ne, Class::Bool) => "xor.pred".to_string(),
        (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne, _)
            if class != Class::Bool =>
        {
            let cmp = match op {
                BinOp::Lt => "lt",
                BinOp::Le => "le",
                BinOp::Gt => "gt",
                BinOp::Ge => "ge",
                BinOp::Eq => "eq",
                // Rust's `!=` is true for NaN operands: the unordered form.
                _ if float => "neu",
                _ => "ne",
            };
            format!("setp.{cmp}.{t}")
        }
        _ => return None,
    })
}

/// Whether `op` compares (its result is `bool` whatever its operands).
pub(super) fn compares(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// The instruction of `op x` on `dtype`.
pub(super) fn unary(op: UnOp, dtype: DType) -> Option<String> {
    let t = ptx_token(dtype);
    Some(match (op, class(dtype)) {
        (UnOp::Neg, Class::Float | Class::Half) => format!("neg.{t}"),
        (UnOp::Neg, Class::Int) if signed(dtype) => format!("neg.{t}"),
        (UnOp::Not, Class::Int) => format!("not.b{}", dtype.bits()),
        (UnOp::Not, Class::Bool) => "not.pred".to_string(),
        _ => return None,
    })
}

/// A named function of scalar functions: its arity and its instruction
/// for operands of `dtype` (all its operands and its result have it).
pub(super) struct Function {
    pub name: &'static str,
    pub arity: usize,
    /// The PTX spelling for one dtype, `None` where PTX has no form.
    pub opcode: fn(DType) -> Option<String>,
    /// Operand order in the instruction: indices into the call's arguments.
    pub order: &'static [usize],
    /// What it computes, for `docs/language.md`.
    pub doc: &'static str,
}

fn float_only(dtype: DType, template: &str) -> Option<String> {
    (class(dtype) == Class::Float).then(|| template.replace("{t}", ptx_token(dtype)))
}

fn f32_only(dtype: DType, opcode: &str) -> Option<String> {
    (dtype == DType::F32).then(|| opcode.to_string())
}

/// The named functions, in documentation order.
pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "fma",
        arity: 3,
        opcode: |d| {
            matches!(class(d), Class::Float | Class::Half)
                .then(|| format!("fma.rn.{}", ptx_token(d)))
        },
        order: &[0, 1, 2],
        doc: "`a * b + c` rounded once (also `a.mul_add(b, c)`)",
    },
    Function {
        name: "min",
        arity: 2,
        opcode: |d| {
            matches!(class(d), Class::Float | Class::Half | Class::Int)
                .then(|| format!("min.{}", ptx_token(d)))
        },
        order: &[0, 1],
        doc: "the smaller; for floats a NaN operand gives the other (Rust's `f32::min`)",
    },
    Function {
        name: "max",
        arity: 2,
        opcode: |d| {
            matches!(class(d), Class::Float | Class::Half | Class::Int)
                .then(|| format!("max.{}", ptx_token(d)))
        },
        order: &[0, 1],
        doc: "the larger; for floats a NaN operand gives the other (Rust's `f32::max`)",
    },
    Function {
        name: "abs",
        arity: 1,
        opcode: |d| {
            (matches!(class(d), Class::Float | Class::Half)
                || (class(d) == Class::Int && signed(d)))
            .then(|| format!("abs.{}", ptx_token(d)))
        },
        order: &[0],
        doc: "the magnitude (integers wrap: `abs(i32::MIN)` is `i32::MIN`)",
    },
    Function {
        name: "sqrt",
        arity: 1,
        opcode: |d| float_only(d, "sqrt.rn.{t}"),
        order: &[0],
        doc: "the square root, correctly rounded",
    },
    Function {
        name: "recip",
        arity: 1,
        opcode: |d| float_only(d, "rcp.rn.{t}"),
        order: &[0],
        doc: "`1 / x`, correctly rounded",
    },
    Function {
        name: "copysign",
        arity: 2,
        opcode: |d| float_only(d, "copysign.{t}"),
        // PTX's copysign takes the sign from its first source.
        order: &[1, 0],
        doc: "the magnitude of the first with the sign of the second",
    },
    Function {
        name: "ex2_approx",
        arity: 1,
        opcode: |d| f32_only(d, "ex2.approx.f32"),
        order: &[0],
        doc: "`2^x`, approximate (max. 2 ulp)",
    },
    Function {
        name: "lg2_approx",
        arity: 1,
        opcode: |d| f32_only(d, "lg2.approx.f32"),
        order: &[0],
        doc: "`log2(x)`, approximate",
    },
    Function {
        name: "rcp_approx",
        arity: 1,
        opcode: |d| f32_only(d, "rcp.approx.f32"),
        order: &[0],
        doc: "`1 / x`, approximate (1 ulp)",
    },
    Function {
        name: "sqrt_approx",
        arity: 1,
        opcode: |d| f32_only(d, "sqrt.approx.f32"),
        order: &[0],
        doc: "the square root, approximate",
    },
    Function {
        name: "rsqrt_approx",
        arity: 1,
        opcode: |d| f32_only(d, "rsqrt.approx.f32"),
        order: &[0],
        doc: "`1 / sqrt(x)`, approximate",
    },
    Function {
        name: "sin_approx",
        arity: 1,
        opcode: |d| f32_only(d, "sin.approx.f32"),
        order: &[0],
        doc: "`sin(x)`, approximate",
    },
    Function {
        name: "cos_approx",
        arity: 1,
        opcode: |d| f32_only(d, "cos.approx.f32"),
        order: &[0],
        doc: "`cos(x)`, approximate",
    },
    Function {
        name: "tanh_approx",
        arity: 1,
        opcode: |d| f32_only(d, "tanh.approx.f32"),
        order: &[0],
        doc: "`tanh(x)`, approximate (sm_75)",
    },
];

/// Method spellings (`x.abs()`, `a.mul_add(b, c)`, `x.recip()`) of named
/// functions; the receiver is the first argument.
pub(super) fn method_function(method: &str) -> Option<&'static str> {
    Some(match method {
        "mul_add" => "fma",
        "min" | "max" | "abs" | "sqrt" | "recip" | "copysign" => {
            FUNCTIONS.iter().find(|f| f.name == method)?.name
        }
        _ => return None,
    })
}

pub(super) fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

/// The instructions of `x as to` for `x: from`, in order (each reads the
/// previous result), or `None` where Rust has no such cast. Empty for a
/// cast to the same type. Same-width integer casts are a `mov` of the
/// bits; `bool` to an integer is a `selp` (written by the caller).
pub(super) fn cast(from: DType, to: DType) -> Option<Vec<String>> {
    let (f, t) = (ptx_token(from), ptx_token(to));
    let float = |d: DType| matches!(class(d), Class::Float | Class::Half);
    if from == to {
        return Some(Vec::new());
    }
    let direct = match (float(from), float(to)) {
        _ if to == DType::Bool || from == DType::Bool => return None,
        // Widening is exact; narrowing rounds to nearest even.
        (true, true) if from.bits() < to.bits() => format!("cvt.{t}.{f}"),
        // f16 <-> bf16: through f32, which holds either exactly.
        (true, true) if from.bits() == to.bits() => {
            return Some(vec![format!("cvt.f32.{f}"), format!("cvt.rn.{t}.f32")]);
        }
        (true, true) => format!("cvt.rn.{t}.{f}"),
        // Rust's float -> int: toward zero, saturating (NaN: see the caller).
        (true, false) => format!("cvt.rzi.{t}.{f}"),
        (false, true) => format!("cvt.rn.{t}.{f}"),
        (false, false) if from.bits() == to.bits() && from.bits() > 8 => {
            format!("mov.b{}", to.bits())
        }
        // Truncates, or extends by the source's signedness (8-bit: copies).
        (false, false) => format!("cvt.{t}.{f}"),
    };
    if crate::ptx::resolve(&direct).is_ok() {
        return Some(vec![direct]);
    }
    // No direct form (bf16 and 8-bit integers): through f32, exactly
    // (f32 holds every bf16 and every 8-bit integer), one rounding.
    let first = cast(from, DType::F32)?;
    let second = cast(DType::F32, to)?;
    Some(first.into_iter().chain(second).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::resolve;

    /// Every opcode the table can produce names a form the PTX table knows.
    #[test]
    fn every_spelling_resolves() {
        let mut spellings = Vec::new();
        for dtype in DType::ALL {
            for op in BinOp::ALL {
                spellings.extend(binary(op, dtype));
            }
            for op in [UnOp::Neg, UnOp::Not] {
                spellings.extend(unary(op, dtype));
            }
            for f in FUNCTIONS {
                spellings.extend((f.opcode)(dtype));
            }
            for to in DType::ALL {
                spellings.extend(cast(dtype, to).into_iter().flatten());
            }
        }
        assert!(spellings.len() > 300, "{} spellings", spellings.len());
        let missing: Vec<String> = spellings
            .into_iter()
            .filter(|opcode| resolve(opcode).is_err())
            .collect();
        assert!(missing.is_empty(), "do not resolve: {missing:?}");
    }

    /// `docs/language.md` lists every named function with what it computes.
    #[test]
    fn the_language_page_lists_every_function() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/language.md");
        let page = std::fs::read_to_string(path).expect("docs/language.md");
        for (name, doc) in crate::sema::scalar_functions() {
            let line = format!("- `{name}`: {doc}");
            assert!(
                page.contains(&line),
                "docs/language.md lacks the line\n{line}"
            );
        }
    }

    #[test]
    fn rust_semantics_pick_the_forms() {
        assert_eq!(binary(BinOp::Ne, DType::F32).unwrap(), "setp.neu.f32");
        assert_eq!(binary(BinOp::Ne, DType::U32).unwrap(), "setp.ne.u32");
        assert_eq!(binary(BinOp::Mul, DType::I32).unwrap(), "mul.lo.s32");
        assert_eq!(binary(BinOp::Shr, DType::I16).unwrap(), "shr.s16");
        assert_eq!(binary(BinOp::Div, DType::F16), None);
        assert_eq!(binary(BinOp::Add, DType::U8), None);
        assert_eq!(cast(DType::F32, DType::I32).unwrap(), ["cvt.rzi.s32.f32"]);
        assert_eq!(cast(DType::I16, DType::U64).unwrap(), ["cvt.u64.s16"]);
        assert_eq!(cast(DType::U32, DType::I32).unwrap(), ["mov.b32"]);
        assert_eq!(
            cast(DType::F16, DType::Bf16).unwrap(),
            ["cvt.f32.f16", "cvt.rn.bf16.f32"]
        );
        assert_eq!(cast(DType::F32, DType::Bool), None);
        assert_eq!(unary(UnOp::Neg, DType::U32), None);
    }
}
