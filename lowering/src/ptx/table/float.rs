//! Floating point (f32/f64): arithmetic, division, transcendental and sign instructions (ISA 9.7.3).

use super::*;
use crate::ptx::Slot;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "add.float",
        mnemonic: "add",
        slots: &[
            opt(Slot::Rnd, FLOAT_ROUNDING),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a + b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "sub.float",
        mnemonic: "sub",
        slots: &[
            opt(Slot::Rnd, FLOAT_ROUNDING),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a - b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mul.float",
        mnemonic: "mul",
        slots: &[
            opt(Slot::Rnd, FLOAT_ROUNDING),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a * b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "fma",
        mnemonic: "fma",
        slots: &[
            slot(Slot::Rnd, FLOAT_ROUNDING),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: rules::float_arith,
        requires: rules::fma_requires,
        packing: Packing::None,
        summary: "d = a * b + c with a single rounding",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "min.float",
        mnemonic: "min",
        slots: &[
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Nan, &["NaN"]),
            opt(Slot::Xorsign, &["xorsign"]),
            opt(Slot::Abs, &["abs"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_min_max,
        requires: rules::float_min_max_requires,
        packing: Packing::None,
        summary: "d = the smaller of a and b (.NaN propagates NaN)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "max.float",
        mnemonic: "max",
        slots: &[
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Nan, &["NaN"]),
            opt(Slot::Xorsign, &["xorsign"]),
            opt(Slot::Abs, &["abs"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_min_max,
        requires: rules::float_min_max_requires,
        packing: Packing::None,
        summary: "d = the larger of a and b (.NaN propagates NaN)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "neg.float",
        mnemonic: "neg",
        slots: &[opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, FLOAT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = -a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "abs.float",
        mnemonic: "abs",
        slots: &[opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, FLOAT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = |a|",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mad.float",
        mnemonic: "mad",
        slots: &[
            slot(Slot::Rnd, FLOAT_ROUNDING),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: rules::float_arith,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "d = a * b + c with a single rounding (the same operation as fma)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "div.float",
        mnemonic: "div",
        slots: &[
            slot(Slot::Mode, &["approx", "full", "rn", "rz", "rm", "rp"]),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float::div,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "d = a / b (IEEE rounded, or .approx / .full (2 ulp) for f32)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "rcp.f32",
        mnemonic: "rcp",
        slots: &[
            slot(Slot::Mode, &["approx", "rn", "rz", "rm", "rp"]),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, &["f32"]),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "d = 1 / a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    // The ISA's `.f64` lines are `rcp.rnd.f64` and `rcp.approx.ftz.f64`
    // (its own section, `.ftz` mandatory): separate forms, so no `.ftz` is
    // offered on the rounded line (ptxas 12.9 accepts `rcp.rn.ftz.f64`,
    // which the ISA does not define).
    InstructionForm {
        id: "rcp.f64",
        mnemonic: "rcp",
        slots: &[slot(Slot::Rnd, FLOAT_ROUNDING), slot(Slot::Type, &["f64"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "d = 1 / a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "rcp.approx.f64",
        mnemonic: "rcp",
        slots: &[
            slot(Slot::Mode, &["approx"]),
            slot(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, &["f64"]),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::float::rcp_approx_f64,
        packing: Packing::None,
        summary: "d = a fast approximation of 1 / a (about 20 significant bits; subnormals flushed)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "sqrt",
        mnemonic: "sqrt",
        slots: &[
            slot(Slot::Mode, &["approx", "rn", "rz", "rm", "rp"]),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: rules::float::sqrt,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "d = the square root of a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "rsqrt",
        mnemonic: "rsqrt",
        slots: &[
            slot(Slot::Mode, &["approx"]),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::float::rsqrt,
        packing: Packing::None,
        summary: "d = an approximation of 1 / sqrt(a)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "sin",
        mnemonic: "sin",
        slots: &[APPROX, opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, &["f32"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = an approximation of sin(a), a in radians",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cos",
        mnemonic: "cos",
        slots: &[APPROX, opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, &["f32"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = an approximation of cos(a), a in radians",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "lg2",
        mnemonic: "lg2",
        slots: &[APPROX, opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, &["f32"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = an approximation of log2(a)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ex2.float",
        mnemonic: "ex2",
        slots: &[APPROX, opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, &["f32"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = an approximation of 2 to the power a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "tanh.float",
        mnemonic: "tanh",
        slots: &[APPROX, slot(Slot::Type, &["f32"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::float::tanh,
        packing: Packing::None,
        summary: "d = an approximation of tanh(a)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "copysign",
        mnemonic: "copysign",
        slots: &[slot(Slot::Type, FLOAT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "d = b with the sign of a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "testp",
        mnemonic: "testp",
        slots: &[
            slot(
                Slot::Test,
                &[
                    "finite",
                    "infinite",
                    "number",
                    "notanumber",
                    "normal",
                    "subnormal",
                ],
            ),
            slot(Slot::Type, FLOAT_TYPES),
        ],
        operands: &[pred("p", W), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::float::ptx_2,
        packing: Packing::None,
        summary: "p = whether a is of the tested class (finite, NaN, subnormal, ..)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
];

/// The mandatory `.approx` of the transcendental instructions.
const APPROX: ModifierSlot = slot(Slot::Mode, &["approx"]);

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(FORMS.iter().find(|f| f.id == id).expect("form id")).len()
    }

    /// Variant counts, transcribed from the ISA's syntax lines (9.7.3).
    #[test]
    fn variant_counts() {
        // add/sub/mul{.rnd}{.ftz}{.sat}.f32: 5 x 2 x 2; op{.rnd}.f64: 5.
        for id in ["add.float", "sub.float", "mul.float"] {
            assert_eq!(count(id), 20 + 5, "{id}");
        }
        // fma.rnd{.ftz}{.sat}.f32: 4 x 2 x 2; fma.rnd.f64: 4.
        assert_eq!(count("fma"), 16 + 4);
        // mad.rnd{.ftz}{.sat}.f32: 4 x 2 x 2; mad.rnd.f64: 4.
        assert_eq!(count("mad.float"), 16 + 4);
        // div.approx{.ftz}.f32, div.full{.ftz}.f32: 2 x 2;
        // div.rnd{.ftz}.f32: 4 x 2; div.rnd.f64: 4.
        assert_eq!(count("div.float"), 4 + 8 + 4);
        // rcp.approx{.ftz}.f32: 2; rcp.rnd{.ftz}.f32: 4 x 2.
        assert_eq!(count("rcp.f32"), 2 + 8);
        // rcp.rnd.f64: 4.
        assert_eq!(count("rcp.f64"), 4);
        // rcp.approx.ftz.f64: 1.
        assert_eq!(count("rcp.approx.f64"), 1);
        // sqrt.approx{.ftz}.f32: 2; sqrt.rnd{.ftz}.f32: 8; sqrt.rnd.f64: 4.
        assert_eq!(count("sqrt"), 2 + 8 + 4);
        // rsqrt.approx{.ftz}.f32: 2; rsqrt.approx.f64, rsqrt.approx.ftz.f64: 2.
        assert_eq!(count("rsqrt"), 4);
        // sin/cos/lg2/ex2.approx{.ftz}.f32: 2 each.
        for id in ["sin", "cos", "lg2", "ex2.float"] {
            assert_eq!(count(id), 2, "{id}");
        }
        // tanh.approx.f32.
        assert_eq!(count("tanh.float"), 1);
        // copysign.{f32, f64}.
        assert_eq!(count("copysign"), 2);
        // testp.{finite, infinite, number, notanumber, normal, subnormal}.{f32, f64}.
        assert_eq!(count("testp"), 6 * 2);
        // min/max{.ftz}{.NaN}{.xorsign.abs}.f32: 2 x 2 x 2; min/max.f64: 1.
        assert_eq!(count("min.float"), 8 + 1);
        assert_eq!(count("max.float"), 8 + 1);
        // neg/abs{.ftz}.f32: 2; neg/abs.f64: 1.
        assert_eq!(count("neg.float"), 3);
        assert_eq!(count("abs.float"), 3);
    }
}
