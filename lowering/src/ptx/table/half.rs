//! Half precision: `f16`, `f16x2`, `bf16`, `bf16x2` arithmetic (ISA 9.7.4).
//!
//! One form per mnemonic covers the four types; the pairs (`x2`) work on
//! each 16-bit half of a 32-bit register independently. None of these types
//! has immediate syntax: every source is a register.

use super::*;
use crate::ptx::Slot;

const HALF_TYPES: &[&str] = &["f16", "f16x2", "bf16", "bf16x2"];

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "add.half",
        mnemonic: "add",
        slots: HALF_ARITH,
        operands: BINARY,
        rule: rules::half::arith,
        requires: rules::half::arith_requires,
        packing: Packing::None,
        summary: "d = a + b per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "sub.half",
        mnemonic: "sub",
        slots: HALF_ARITH,
        operands: BINARY,
        rule: rules::half::arith,
        requires: rules::half::arith_requires,
        packing: Packing::None,
        summary: "d = a - b per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mul.half",
        mnemonic: "mul",
        slots: HALF_ARITH,
        operands: BINARY,
        rule: rules::half::arith,
        requires: rules::half::arith_requires,
        packing: Packing::None,
        summary: "d = a * b per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "fma.half",
        mnemonic: "fma",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Type, HALF_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: rules::half::fma,
        requires: rules::half::fma_requires,
        packing: Packing::None,
        summary: "d = a * b + c per half, one rounding (.relu clamps negative results to 0)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    // `fma.rn.oob{.relu}.type` is its own ISA line, without `.ftz`/`.sat`
    // (ptxas 12.9 also accepts `fma.rn.sat.oob.{f16,f16x2}`, which the ISA
    // does not define).
    InstructionForm {
        id: "fma.half-oob",
        mnemonic: "fma",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            slot(Slot::Oob, &["oob"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Type, HALF_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::half::fma_oob_requires,
        packing: Packing::None,
        summary: "d = a * b + c per half, one rounding; 0 where an operand is an OOB NaN (the fill of an out-of-bounds tensor load)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "neg.half",
        mnemonic: "neg",
        slots: &[opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, HALF_TYPES)],
        operands: UNARY,
        rule: rules::half::arith,
        requires: rules::half::neg_requires,
        packing: Packing::None,
        summary: "d = -a per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "abs.half",
        mnemonic: "abs",
        slots: &[opt(Slot::Ftz, &["ftz"]), slot(Slot::Type, HALF_TYPES)],
        operands: UNARY,
        rule: rules::half::arith,
        requires: rules::half::abs_requires,
        packing: Packing::None,
        summary: "d = |a| per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "min.half",
        mnemonic: "min",
        slots: HALF_MIN_MAX,
        operands: BINARY,
        rule: rules::half::min_max,
        requires: rules::half::min_max_requires,
        packing: Packing::None,
        summary: "d = the smaller of a and b per half (.NaN propagates NaN)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "max.half",
        mnemonic: "max",
        slots: HALF_MIN_MAX,
        operands: BINARY,
        rule: rules::half::min_max,
        requires: rules::half::min_max_requires,
        packing: Packing::None,
        summary: "d = the larger of a and b per half (.NaN propagates NaN)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ex2.half",
        mnemonic: "ex2",
        slots: &[
            slot(Slot::Mode, &["approx"]),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, HALF_TYPES),
        ],
        operands: UNARY,
        rule: rules::half::ex2,
        requires: rules::half::ex2_requires,
        packing: Packing::None,
        summary: "d = an approximation of 2 to the power a, per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "tanh.half",
        mnemonic: "tanh",
        slots: &[slot(Slot::Mode, &["approx"]), slot(Slot::Type, HALF_TYPES)],
        operands: UNARY,
        rule: no_rule,
        requires: rules::half::tanh_requires,
        packing: Packing::None,
        summary: "d = an approximation of tanh(a), per half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
];

/// `add`/`sub`/`mul{.rnd}{.ftz}{.sat}.type`, `.rnd` = `.rn`.
const HALF_ARITH: &[ModifierSlot] = &[
    opt(Slot::Rnd, &["rn"]),
    opt(Slot::Ftz, &["ftz"]),
    opt(Slot::Sat, &["sat"]),
    slot(Slot::Type, HALF_TYPES),
];

/// `min`/`max{.ftz}{.NaN}{.xorsign.abs}.type`.
const HALF_MIN_MAX: &[ModifierSlot] = &[
    opt(Slot::Ftz, &["ftz"]),
    opt(Slot::Nan, &["NaN"]),
    opt(Slot::Xorsign, &["xorsign"]),
    opt(Slot::Abs, &["abs"]),
    slot(Slot::Type, HALF_TYPES),
];

const UNARY: &[OperandSlot] = &[reg("d", W, TYPE), reg("a", R, TYPE)];
const BINARY: &[OperandSlot] = &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)];

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(FORMS.iter().find(|f| f.id == id).expect("form id")).len()
    }

    /// Variant counts, transcribed from the ISA's syntax lines (9.7.4).
    #[test]
    fn variant_counts() {
        // op{.rnd}{.ftz}{.sat}.{f16, f16x2}: 2 x 2 x 2 x 2;
        // op{.rnd}.{bf16, bf16x2}: 2 x 2; .rnd = { .rn }.
        for id in ["add.half", "sub.half", "mul.half"] {
            assert_eq!(count(id), 16 + 4, "{id}");
        }
        // fma.rnd{.ftz}{.sat}.{f16, f16x2}: 2 x 2 x 2;
        // fma.rnd{.ftz}.relu.{f16, f16x2}: 2 x 2;
        // fma.rnd{.relu}.{bf16, bf16x2}: 2 x 2.
        assert_eq!(count("fma.half"), 8 + 4 + 4);
        // fma.rnd.oob{.relu}.{f16, f16x2, bf16, bf16x2}: 2 x 4.
        assert_eq!(count("fma.half-oob"), 8);
        // neg/abs{.ftz}.{f16, f16x2}: 4; neg/abs.{bf16, bf16x2}: 2.
        assert_eq!(count("neg.half"), 6);
        assert_eq!(count("abs.half"), 6);
        // min/max{.ftz}{.NaN}{.xorsign.abs}.{f16, f16x2}: 2 x 2 x 2 x 2;
        // min/max{.NaN}{.xorsign.abs}.{bf16, bf16x2}: 2 x 2 x 2.
        assert_eq!(count("min.half"), 16 + 8);
        assert_eq!(count("max.half"), 16 + 8);
        // ex2.approx.{f16, f16x2}: 2; ex2.approx.ftz.{bf16, bf16x2}: 2.
        assert_eq!(count("ex2.half"), 4);
        // tanh.approx.{f16, f16x2, bf16, bf16x2}.
        assert_eq!(count("tanh.half"), 4);
    }
}
