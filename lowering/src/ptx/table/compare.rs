//! Comparison and selection: `setp`, `set`, `selp`, `slct` (`testp` is
//! with the floating-point family).

use super::*;
use crate::ptx::Slot;

/// `.CmpOp`: ordered, unsigned, unordered and NaN tests (which apply to a
/// type is the rule's business: `rules::compare::setp`).
const CMP_OPS: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu",
    "geu", "num", "nan",
];
const BOOL_OPS: &[&str] = &["and", "or", "xor"];
/// The source types of `setp` with one result: [`CMP_TYPES`] and the half scalars.
const SETP_TYPES: &[&str] = &[
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64", "f16", "bf16",
];
/// The half pairs, compared lane by lane into `p|q`.
const HALF_PAIRS: &[&str] = &["f16x2", "bf16x2"];
/// The sources of `set` with a `.f16`/`.bf16` result.
const SET_TO_HALF_STYPES: &[&str] = &[
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "bf16", "f32", "f64",
];
/// The results of `set` on half sources (other than a half scalar).
const SET_FROM_HALF_DTYPES: &[&str] = &["u16", "s16", "u32", "s32", "f16x2", "bf16x2"];
const HALF_TYPES: &[&str] = &["f16", "bf16", "f16x2", "bf16x2"];
/// The source types of `setp`/`set` and the types of `selp`/`slct`.
const CMP_TYPES: &[&str] = &[
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
];

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "setp",
        mnemonic: "setp",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, SETP_TYPES),
        ],
        operands: &[pred("p", W).or_sink(), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::compare::setp,
        requires: rules::compare::setp_requires,
        packing: Packing::None,
        summary: "p = a CmpOp b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "setp.pair",
        mnemonic: "setp",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, CMP_TYPES),
        ],
        operands: &[
            pred("p", W).piped(2).or_sink(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
        ],
        rule: rules::compare::setp,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "p = a CmpOp b, q = !(a CmpOp b) (destinations written `p|q`)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "setp.bool",
        mnemonic: "setp",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            slot(Slot::Bool, BOOL_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, SETP_TYPES),
        ],
        operands: &[
            pred("p", W).or_sink(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            pred("c", R),
        ],
        rule: rules::compare::setp,
        requires: rules::compare::setp_requires,
        packing: Packing::None,
        summary: "p = (a CmpOp b) BoolOp c",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "setp.bool-pair",
        mnemonic: "setp",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            slot(Slot::Bool, BOOL_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, CMP_TYPES),
        ],
        operands: &[
            pred("p", W).piped(2).or_sink(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            pred("c", R),
        ],
        rule: rules::compare::setp,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "p = (a CmpOp b) BoolOp c, q = !(a CmpOp b) BoolOp c (destinations written `p|q`)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "setp.halves",
        mnemonic: "setp",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, HALF_PAIRS),
        ],
        operands: &[
            pred("p", W).piped(2).or_sink(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
        ],
        rule: rules::compare::setp,
        requires: rules::compare::setp_requires,
        packing: Packing::None,
        summary: "compare two half pairs lane by lane: p from the low halves, q from the high halves",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "setp.halves-bool",
        mnemonic: "setp",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            slot(Slot::Bool, BOOL_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Type, HALF_PAIRS),
        ],
        operands: &[
            pred("p", W).piped(2).or_sink(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            pred("c", R),
        ],
        rule: rules::compare::setp,
        requires: rules::compare::setp_requires,
        packing: Packing::None,
        summary: "compare two half pairs lane by lane, each folded with c: p from the low halves, q from the high halves",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "set",
        mnemonic: "set",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, &["u32", "s32", "f32"]),
            slot(Slot::Stype, CMP_TYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Stype)),
            reg("b", R, TypeRef::Slot(Slot::Stype)),
        ],
        rule: rules::compare::set,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a CmpOp b as a mask (0xffffffff / 0) or 1.0f / 0.0f",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "set.bool",
        mnemonic: "set",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            slot(Slot::Bool, BOOL_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, &["u32", "s32", "f32"]),
            slot(Slot::Stype, CMP_TYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Stype)),
            reg("b", R, TypeRef::Slot(Slot::Stype)),
            pred("c", R),
        ],
        rule: rules::compare::set,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = (a CmpOp b) BoolOp c as a mask (0xffffffff / 0) or 1.0f / 0.0f",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "set.to-half",
        mnemonic: "set",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, &["f16", "bf16"]),
            slot(Slot::Stype, SET_TO_HALF_STYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Stype)),
            reg("b", R, TypeRef::Slot(Slot::Stype)),
        ],
        rule: rules::compare::set_half,
        requires: rules::compare::set_half_requires,
        packing: Packing::None,
        summary: "d = a CmpOp b as 1.0 / 0.0 in a .f16 or .bf16",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "set.to-half-bool",
        mnemonic: "set",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            slot(Slot::Bool, BOOL_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, &["f16", "bf16"]),
            slot(Slot::Stype, SET_TO_HALF_STYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Stype)),
            reg("b", R, TypeRef::Slot(Slot::Stype)),
            pred("c", R),
        ],
        rule: rules::compare::set_half,
        requires: rules::compare::set_half_requires,
        packing: Packing::None,
        summary: "d = (a CmpOp b) BoolOp c as 1.0 / 0.0 in a .f16 or .bf16",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "set.from-half",
        mnemonic: "set",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, SET_FROM_HALF_DTYPES),
            slot(Slot::Stype, HALF_TYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Stype)),
            reg("b", R, TypeRef::Slot(Slot::Stype)),
        ],
        rule: rules::compare::set_half,
        requires: rules::compare::set_half_requires,
        packing: Packing::None,
        summary: "d = a CmpOp b on halves: an all-ones / zero mask, or 1.0 / 0.0 per lane of a pair",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "set.from-half-bool",
        mnemonic: "set",
        slots: &[
            slot(Slot::Cmp, CMP_OPS),
            slot(Slot::Bool, BOOL_OPS),
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, SET_FROM_HALF_DTYPES),
            slot(Slot::Stype, HALF_TYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Stype)),
            reg("b", R, TypeRef::Slot(Slot::Stype)),
            pred("c", R),
        ],
        rule: rules::compare::set_half,
        requires: rules::compare::set_half_requires,
        packing: Packing::None,
        summary: "d = (a CmpOp b) BoolOp c on halves: an all-ones / zero mask, or 1.0 / 0.0 per lane of a pair",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "selp",
        mnemonic: "selp",
        slots: &[slot(Slot::Type, CMP_TYPES)],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            pred("c", R),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = c ? a : b (c a predicate)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "slct",
        mnemonic: "slct",
        slots: &[
            opt(Slot::Ftz, &["ftz"]),
            slot(Slot::Dtype, CMP_TYPES),
            slot(Slot::Ctype, &["s32", "f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Dtype)),
            reg("b", R, TypeRef::Slot(Slot::Dtype)),
            reg("c", R, TypeRef::Slot(Slot::Ctype)),
        ],
        rule: rules::compare::slct,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = c >= 0 ? a : b (c a signed integer or float selector)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
];

#[cfg(test)]
mod tests {
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(super::FORMS.iter().find(|f| f.id == id).expect(id)).len()
    }

    /// Per source type, the CmpOps of ISA 9.7.6.1: bit-size {eq, ne} (2);
    /// signed {eq, ne, lt, le, gt, ge} (6); unsigned those + {lo, ls, hi,
    /// hs} (10); float ordered 6 + unordered {equ, neu, ltu, leu, gtu, geu}
    /// + {num, nan} (14), `.ftz` only on `.f32`.
    const PER_TYPE: usize = 3 * 2 + 3 * 10 + 3 * 6 + 14 * 2 + 14;

    /// The half-precision setp lines (ISA 9.7.5.2): `.CmpOp` = {eq, ne, lt,
    /// le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan} (14);
    /// `setp.CmpOp{.ftz}.f16` (28) and `setp.CmpOp.bf16` (14).
    const HALF: usize = 14 * 2 + 14;

    #[test]
    fn variant_counts() {
        // setp.CmpOp{.ftz}.type p[|q], a, b;  (.type: 11 types)
        assert_eq!(PER_TYPE, 96);
        // ... plus setp.CmpOp{.ftz}.f16 p, a, b; setp.CmpOp.bf16 p, a, b;
        assert_eq!(count("setp"), 96 + HALF);
        assert_eq!(count("setp.pair"), 96);
        // setp.CmpOp.BoolOp{.ftz}.type p[|q], a, b, c;  .BoolOp = {and, or, xor}
        assert_eq!(count("setp.bool"), (96 + HALF) * 3);
        assert_eq!(count("setp.bool-pair"), 96 * 3);
        // setp.CmpOp{.ftz}.f16x2 p|q, a, b;  setp.CmpOp.bf16x2 p|q, a, b;
        assert_eq!(count("setp.halves"), HALF);
        // setp.CmpOp.BoolOp{.ftz}.f16x2 p|q, a, b, c;  setp.CmpOp.BoolOp.bf16x2 p|q, a, b, c;
        assert_eq!(count("setp.halves-bool"), HALF * 3);
        // set.CmpOp{.ftz}.dtype.stype d, a, b;  .dtype = {u32, s32, f32}
        assert_eq!(count("set"), 96 * 3);
        // set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, c;
        assert_eq!(count("set.bool"), 96 * 3 * 3);
        // set.CmpOp{.ftz}.f16.stype (stype: 9 integer/bit types, .f16 .f32 .f64;
        // .ftz with .f16/.f32): 6 + 30 + 18 + 28 + 28 + 14 = 124;
        // set.CmpOp.bf16.stype (the same 9, .f16 .bf16 .f32 .f64; no .ftz): 110;
        // set.CmpOp{.ftz}.{u16, s16}.f16 + set.CmpOp.{u16, s16}.bf16: 2 * (28 + 14);
        // set.CmpOp{.ftz}.{u32, s32}.{f16, f16x2} + .bf16/.bf16x2: 2 * (2 * 28 + 2 * 14);
        // set.CmpOp{.ftz}.f16x2.f16x2: 28; set.CmpOp.bf16x2.bf16x2: 14.
        assert_eq!(count("set.to-half"), 124 + 110);
        assert_eq!(count("set.from-half"), 2 * 42 + 2 * 84 + 28 + 14);
        // set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, c; with the same pairs.
        assert_eq!(count("set.to-half-bool"), (124 + 110) * 3);
        assert_eq!(count("set.from-half-bool"), (2 * 42 + 2 * 84 + 28 + 14) * 3);
        // selp.type d, a, b, c;  .type = {b16, b32, b64, u16, u32, u64, s16, s32, s64, f32, f64}
        assert_eq!(count("selp"), 11);
        // slct.dtype.s32 d, a, b, c;  slct{.ftz}.dtype.f32 d, a, b, c;  (11 dtypes)
        assert_eq!(count("slct"), 11 * 3);
    }
}
