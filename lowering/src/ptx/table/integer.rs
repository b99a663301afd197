//! Integer arithmetic: `add`, `sub`, `mul`, `mad`, `min`, `max`, `neg`, `abs` and the rest of ISA 9.7.1.

use super::*;
use crate::ptx::Slot;

/// `add`'s types: the scalar integers and, since sm_90, two 16-bit halves.
const ADD_TYPES: &[&str] = &["u16", "u32", "u64", "s16", "s32", "s64", "u16x2", "s16x2"];
/// Integer `min`/`max` types (`.relu` only on `.s32` and `.s16x2`).
const MIN_MAX_TYPES: &[&str] = ADD_TYPES;
/// Types of the carry-flag instructions (`add.cc`, `addc`, `mad.cc`, ...).
const CARRY_TYPES: &[&str] = &["u32", "s32", "u64", "s64"];
const TYPES_32: &[&str] = &["u32", "s32"];
/// Why the carry-flag forms are not usable yet.
const CARRY_CHAINS: Usability = Usability::NotYet(
    "carry-flag chains (`.cc`): the carry flag is hidden state passed from one instruction to the next, and kernels have no way to keep instructions adjacent and in order",
);

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "add.int",
        mnemonic: "add",
        slots: &[opt(Slot::Sat, &["sat"]), slot(Slot::Type, ADD_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::int_saturation,
        requires: rules::integer::add_requires,
        packing: Packing::None,
        summary: "d = a + b (wrapping, or saturating with .sat.s32; .u16x2/.s16x2 per half)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "sub.int",
        mnemonic: "sub",
        slots: &[opt(Slot::Sat, &["sat"]), slot(Slot::Type, INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::int_saturation,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a - b (wrapping, or saturating with .sat.s32)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mul.int",
        mnemonic: "mul",
        slots: &[slot(Slot::Mode, &["hi", "lo"]), slot(Slot::Type, INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = high or low half of the double-width product a * b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mul.wide",
        mnemonic: "mul",
        slots: &[
            slot(Slot::Mode, &["wide"]),
            slot(Slot::Type, &["u16", "u32", "s16", "s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Wide(Slot::Type)),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d (double width) = a * b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mad.int",
        mnemonic: "mad",
        slots: &[
            slot(Slot::Mode, &["hi", "lo"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, INT_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: rules::int_saturation,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = (high or low half of a * b) + c",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mad.wide",
        mnemonic: "mad",
        slots: &[
            slot(Slot::Mode, &["wide"]),
            slot(Slot::Type, &["u16", "u32", "s16", "s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Wide(Slot::Type)),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TypeRef::Wide(Slot::Type)),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d (double width) = a * b + c",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "min.int",
        mnemonic: "min",
        slots: &[opt(Slot::Relu, &["relu"]), slot(Slot::Type, MIN_MAX_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::integer::int_min_max,
        requires: rules::integer::int_min_max_requires,
        packing: Packing::None,
        summary: "d = the smaller of a and b (per half for .u16x2/.s16x2; .relu clamps at 0)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "max.int",
        mnemonic: "max",
        slots: &[opt(Slot::Relu, &["relu"]), slot(Slot::Type, MIN_MAX_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::integer::int_min_max,
        requires: rules::integer::int_min_max_requires,
        packing: Packing::None,
        summary: "d = the larger of a and b (per half for .u16x2/.s16x2; .relu clamps at 0)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "neg.int",
        mnemonic: "neg",
        slots: &[slot(Slot::Type, SIGNED_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = -a (wrapping)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "abs.int",
        mnemonic: "abs",
        slots: &[slot(Slot::Type, SIGNED_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = |a| (wrapping at the minimum value)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "add.cc",
        mnemonic: "add",
        slots: &[slot(Slot::Cc, &["cc"]), slot(Slot::Type, CARRY_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::integer::carry_requires,
        packing: Packing::None,
        summary: "d = a + b, writing the carry-out to the carry flag",
        effect: Effect::Pure,
        usable: CARRY_CHAINS,
    },
    InstructionForm {
        id: "addc",
        mnemonic: "addc",
        slots: &[opt(Slot::Cc, &["cc"]), slot(Slot::Type, CARRY_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::integer::carry_requires,
        packing: Packing::None,
        summary: "d = a + b + carry-in (and carry-out with .cc)",
        effect: Effect::Pure,
        usable: CARRY_CHAINS,
    },
    InstructionForm {
        id: "sub.cc",
        mnemonic: "sub",
        slots: &[slot(Slot::Cc, &["cc"]), slot(Slot::Type, CARRY_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::integer::carry_requires,
        packing: Packing::None,
        summary: "d = a - b, writing the borrow-out to the carry flag",
        effect: Effect::Pure,
        usable: CARRY_CHAINS,
    },
    InstructionForm {
        id: "subc",
        mnemonic: "subc",
        slots: &[opt(Slot::Cc, &["cc"]), slot(Slot::Type, CARRY_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::integer::carry_requires,
        packing: Packing::None,
        summary: "d = a - (b + borrow-in) (and borrow-out with .cc)",
        effect: Effect::Pure,
        usable: CARRY_CHAINS,
    },
    InstructionForm {
        id: "mad.cc",
        mnemonic: "mad",
        slots: &[
            slot(Slot::Mode, &["hi", "lo"]),
            slot(Slot::Cc, &["cc"]),
            slot(Slot::Type, CARRY_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::integer::mad_carry_requires,
        packing: Packing::None,
        summary: "d = (high or low half of a * b) + c, writing the carry-out to the carry flag",
        effect: Effect::Pure,
        usable: CARRY_CHAINS,
    },
    InstructionForm {
        id: "madc",
        mnemonic: "madc",
        slots: &[
            slot(Slot::Mode, &["hi", "lo"]),
            opt(Slot::Cc, &["cc"]),
            slot(Slot::Type, CARRY_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::integer::mad_carry_requires,
        packing: Packing::None,
        summary: "d = (high or low half of a * b) + c + carry-in (and carry-out with .cc)",
        effect: Effect::Pure,
        usable: CARRY_CHAINS,
    },
    InstructionForm {
        id: "mul24",
        mnemonic: "mul24",
        slots: &[slot(Slot::Mode, &["hi", "lo"]), slot(Slot::Type, TYPES_32)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = high or low 32 bits of the 48-bit product of the low 24 bits of a and b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mad24",
        mnemonic: "mad24",
        slots: &[
            slot(Slot::Mode, &["hi", "lo"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Type, TYPES_32),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: rules::integer::mad24_saturation,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = (high or low 32 bits of the 24x24-bit product a * b) + c",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "sad",
        mnemonic: "sad",
        slots: &[slot(Slot::Type, INT_TYPES)],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = c + |a - b|",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "div.int",
        mnemonic: "div",
        slots: &[slot(Slot::Type, INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a / b, rounded toward zero (undefined for b = 0)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "rem",
        mnemonic: "rem",
        slots: &[slot(Slot::Type, INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a % b, with the sign of a (undefined for b = 0)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "dp4a.unsigned",
        mnemonic: "dp4a",
        slots: &[slot(Slot::Atype, &["u32"]), slot(Slot::Btype, &["u32"])],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::U32)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
            reg("b", R, TypeRef::Slot(Slot::Btype)),
            reg("c", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::integer::dot_product_requires,
        packing: Packing::None,
        summary: "four-way byte dot product: d = c + sum of a.byte[i] * b.byte[i]; both unsigned: .u32 accumulator",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "dp4a.signed",
        mnemonic: "dp4a",
        slots: &[
            slot(Slot::Atype, &["s32"]),
            slot(Slot::Btype, &["u32", "s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::S32)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
            reg("b", R, TypeRef::Slot(Slot::Btype)),
            reg("c", R, TypeRef::Fixed(PtxType::S32)),
        ],
        rule: no_rule,
        requires: rules::integer::dot_product_requires,
        packing: Packing::None,
        summary: "four-way byte dot product: d = c + sum of a.byte[i] * b.byte[i]; signed a: .s32 accumulator",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "dp4a.mixed",
        mnemonic: "dp4a",
        slots: &[slot(Slot::Atype, &["u32"]), slot(Slot::Btype, &["s32"])],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::S32)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
            reg("b", R, TypeRef::Slot(Slot::Btype)),
            reg("c", R, TypeRef::Fixed(PtxType::S32)),
        ],
        rule: no_rule,
        requires: rules::integer::dot_product_requires,
        packing: Packing::None,
        summary: "four-way byte dot product: d = c + sum of a.byte[i] * b.byte[i]; signed b: .s32 accumulator",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "dp2a.unsigned",
        mnemonic: "dp2a",
        slots: &[
            slot(Slot::Mode, &["lo", "hi"]),
            slot(Slot::Atype, &["u32"]),
            slot(Slot::Btype, &["u32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::U32)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
            reg("b", R, TypeRef::Slot(Slot::Btype)),
            reg("c", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::integer::dot_product_requires,
        packing: Packing::None,
        summary: "two-way dot product: d = c + sum of a.half[i] * b.byte[i] (b's low or high two bytes); both unsigned: .u32 accumulator",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "dp2a.signed",
        mnemonic: "dp2a",
        slots: &[
            slot(Slot::Mode, &["lo", "hi"]),
            slot(Slot::Atype, &["s32"]),
            slot(Slot::Btype, &["u32", "s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::S32)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
            reg("b", R, TypeRef::Slot(Slot::Btype)),
            reg("c", R, TypeRef::Fixed(PtxType::S32)),
        ],
        rule: no_rule,
        requires: rules::integer::dot_product_requires,
        packing: Packing::None,
        summary: "two-way dot product: d = c + sum of a.half[i] * b.byte[i] (b's low or high two bytes); signed a: .s32 accumulator",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "dp2a.mixed",
        mnemonic: "dp2a",
        slots: &[
            slot(Slot::Mode, &["lo", "hi"]),
            slot(Slot::Atype, &["u32"]),
            slot(Slot::Btype, &["s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::S32)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
            reg("b", R, TypeRef::Slot(Slot::Btype)),
            reg("c", R, TypeRef::Fixed(PtxType::S32)),
        ],
        rule: no_rule,
        requires: rules::integer::dot_product_requires,
        packing: Packing::None,
        summary: "two-way dot product: d = c + sum of a.half[i] * b.byte[i] (b's low or high two bytes); signed b: .s32 accumulator",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
];

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::form::{InstructionForm, Usability};
    use crate::ptx::resolve::legal_variants;
    use crate::target::{Requirement, Target};

    fn form(id: &str) -> &'static InstructionForm {
        FORMS
            .iter()
            .find(|f| f.id == id)
            .unwrap_or_else(|| panic!("no form {id}"))
    }

    fn count(id: &str) -> usize {
        legal_variants(form(id)).len()
    }

    /// The requirement of the variant of `id` spelt `opcode`, on sm_90.
    fn floor(id: &str, opcode: &str) -> Requirement {
        legal_variants(form(id))
            .into_iter()
            .find(|m| m.opcode_text() == opcode)
            .unwrap_or_else(|| panic!("{opcode} is not a variant of {id}"))
            .requirement(Target::SM_90)
    }

    /// Exact variant counts, transcribed from the ISA's syntax lines.
    #[test]
    fn variant_counts() {
        // add{.sat}.type: .type = {u16, u32, u64, s16, s32, s64, u16x2, s16x2};
        // .sat only as add.sat.s32: 8 + 1.
        assert_eq!(count("add.int"), 9);
        // sub{.sat}.type: .type = {u16, u32, u64, s16, s32, s64}: 6 + sub.sat.s32.
        assert_eq!(count("sub.int"), 7);
        // min{.relu}.type: .type = {u16, u32, u64, s16, s32, s64, u16x2, s16x2};
        // .relu only on .s32 and .s16x2: 8 + 2 (max likewise).
        assert_eq!(count("min.int"), 10);
        assert_eq!(count("max.int"), 10);
        // add.cc.type, sub.cc.type: .type = {u32, s32, u64, s64}.
        assert_eq!(count("add.cc"), 4);
        assert_eq!(count("sub.cc"), 4);
        // addc{.cc}.type, subc{.cc}.type: 2 x 4.
        assert_eq!(count("addc"), 8);
        assert_eq!(count("subc"), 8);
        // mad{.hi,.lo}.cc.type: 2 x 4.
        assert_eq!(count("mad.cc"), 8);
        // madc{.hi,.lo}{.cc}.type: 2 x 2 x 4.
        assert_eq!(count("madc"), 16);
        // mul24.mode.type: .mode = {hi, lo}; .type = {u32, s32}.
        assert_eq!(count("mul24"), 4);
        // mad24.mode.type (4) + mad24.hi.sat.s32 (1).
        assert_eq!(count("mad24"), 5);
        // sad.type, div.type, rem.type: .type = {u16, u32, u64, s16, s32, s64}.
        assert_eq!(count("sad"), 6);
        assert_eq!(count("div.int"), 6);
        assert_eq!(count("rem"), 6);
        // dp4a.atype.btype: .atype = .btype = {u32, s32}: 4 in all, split by
        // the accumulator type (.u32 only for u32.u32).
        assert_eq!(count("dp4a.unsigned"), 1);
        assert_eq!(count("dp4a.signed"), 2);
        assert_eq!(count("dp4a.mixed"), 1);
        // dp2a.mode.atype.btype: .mode = {lo, hi}: 2 x 4 in all.
        assert_eq!(count("dp2a.unsigned"), 2);
        assert_eq!(count("dp2a.signed"), 4);
        assert_eq!(count("dp2a.mixed"), 2);
    }

    #[test]
    fn floors() {
        assert_eq!(floor("add.int", "add.u16x2"), Requirement::new(90, 8, 0));
        assert_eq!(floor("add.int", "add.sat.s32"), Requirement::new(20, 1, 0));
        assert_eq!(floor("min.int", "min.s16x2"), Requirement::new(90, 8, 0));
        assert_eq!(
            floor("max.int", "max.relu.s16x2"),
            Requirement::new(90, 8, 0)
        );
        assert_eq!(floor("min.int", "min.u64"), Requirement::new(20, 1, 0));
        assert_eq!(floor("add.cc", "add.cc.u32"), Requirement::new(20, 1, 2));
        assert_eq!(floor("subc", "subc.cc.s64"), Requirement::new(20, 4, 3));
        assert_eq!(floor("madc", "madc.hi.cc.u32"), Requirement::new(20, 3, 0));
        assert_eq!(floor("mad.cc", "mad.lo.cc.u64"), Requirement::new(20, 4, 3));
        assert_eq!(
            floor("dp2a.mixed", "dp2a.hi.u32.s32"),
            Requirement::new(61, 5, 0)
        );
    }

    #[test]
    fn carry_chains_are_not_usable_yet() {
        for id in ["add.cc", "addc", "sub.cc", "subc", "mad.cc", "madc"] {
            assert!(
                matches!(form(id).usable, Usability::NotYet(why) if why.starts_with("carry-flag chains (`.cc`)")),
                "{id}"
            );
        }
        for id in ["add.int", "mad24", "dp4a.signed", "div.int"] {
            assert_eq!(form(id).usable, Usability::Yes, "{id}");
        }
    }
}
