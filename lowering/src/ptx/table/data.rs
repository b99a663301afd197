//! Data movement and bit manipulation: `mov`, `prmt`, shifts, logic, bit-field and bit-count instructions.

use super::*;
use crate::ptx::Slot;

/// Types of the bitwise logic instructions and `shl` (the `.pred` lines are
/// separate forms).
const LOGIC_TYPES: &[&str] = &["b16", "b32", "b64"];
const SHR_TYPES: &[&str] = &[
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64",
];
const BFE_TYPES: &[&str] = &["u32", "u64", "s32", "s64"];
const PRMT_MODES: &[&str] = &["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];

/// The 32-bit special registers kernels may read with `mov.u32`, each on
/// every target from sm_70 (PTX ISA 6.0). The cluster registers (sm_90)
/// need a form of their own floor and are not listed.
const SREGS_32: &[&str] = &[
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%smid",
    "%nsmid",
    "%tid.x",
    "%tid.y",
    "%tid.z",
    "%ntid.x",
    "%ntid.y",
    "%ntid.z",
    "%ctaid.x",
    "%ctaid.y",
    "%ctaid.z",
    "%nctaid.x",
    "%nctaid.y",
    "%nctaid.z",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%clock",
    "%total_smem_size",
    "%dynamic_smem_size",
];

/// The 64-bit special registers (`mov.u64`).
const SREGS_64: &[&str] = &["%clock64", "%globaltimer", "%gridid"];

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "mov",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, MOV_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "copy one register",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.pack2",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b16", "b32", "b64"])],
        operands: &[
            reg("d", W, TYPE),
            group(
                "a",
                R,
                TypeRef::LaneOf {
                    slot: Slot::Type,
                    lanes: 2,
                },
                Lanes::Fixed(2),
            ),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack two half-width registers: the first lane is the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.pack4",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[
            reg("d", W, TYPE),
            group(
                "a",
                R,
                TypeRef::LaneOf {
                    slot: Slot::Type,
                    lanes: 4,
                },
                Lanes::Fixed(4),
            ),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack four quarter-width registers: the first lane is the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.unpack2",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b16", "b32", "b64"])],
        operands: &[
            group(
                "d",
                W,
                TypeRef::LaneOf {
                    slot: Slot::Type,
                    lanes: 2,
                },
                Lanes::Fixed(2),
            ),
            reg("a", R, TYPE),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "split a register into two halves: the first lane gets the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.unpack4",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[
            group(
                "d",
                W,
                TypeRef::LaneOf {
                    slot: Slot::Type,
                    lanes: 4,
                },
                Lanes::Fixed(4),
            ),
            reg("a", R, TYPE),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "split a register into four quarters: the first lane gets the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.pack2-split",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b16", "b32", "b64"])],
        operands: &[reg("d", W, TYPE), braced("a", R, 2), braced("b", R, 2)],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack two half-width registers given as two operands: a is the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.pack4-split",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[
            reg("d", W, TYPE),
            braced("a", R, 4),
            braced("b", R, 4),
            braced("c", R, 4),
            braced("e", R, 4),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack four quarter-width registers given as four operands: a is the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.unpack2-split",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b16", "b32", "b64"])],
        operands: &[braced("a", W, 2), braced("b", W, 2), reg("d", R, TYPE)],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "split a register into two operands: a gets the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.unpack4-split",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[
            braced("a", W, 4),
            braced("b", W, 4),
            braced("c", W, 4),
            braced("e", W, 4),
            reg("d", R, TYPE),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "split a register into four operands: a gets the low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.b128",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["b128"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::data::b128_requires,
        packing: Packing::None,
        summary: "copy one 128-bit register",
        effect: Effect::Pure,
        usable: Usability::NotYet("128-bit registers (`.b128`), which no tile dtype fills"),
    },
    InstructionForm {
        id: "mov.pred",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["pred"])],
        operands: &[pred("d", W), pred("a", R)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "copy one predicate",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "and",
        mnemonic: "and",
        slots: &[slot(Slot::Type, LOGIC_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = bitwise and of a and b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "and.pred",
        mnemonic: "and",
        slots: &[slot(Slot::Type, &["pred"])],
        operands: &[pred("d", W), pred("a", R), pred("b", R)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = logical and of two predicates",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "or",
        mnemonic: "or",
        slots: &[slot(Slot::Type, LOGIC_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = bitwise or of a and b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "or.pred",
        mnemonic: "or",
        slots: &[slot(Slot::Type, &["pred"])],
        operands: &[pred("d", W), pred("a", R), pred("b", R)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = logical or of two predicates",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "xor",
        mnemonic: "xor",
        slots: &[slot(Slot::Type, LOGIC_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = bitwise exclusive or of a and b",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "xor.pred",
        mnemonic: "xor",
        slots: &[slot(Slot::Type, &["pred"])],
        operands: &[pred("d", W), pred("a", R), pred("b", R)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = logical exclusive or of two predicates",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "not",
        mnemonic: "not",
        slots: &[slot(Slot::Type, LOGIC_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = bitwise complement of a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "not.pred",
        mnemonic: "not",
        slots: &[slot(Slot::Type, &["pred"])],
        operands: &[pred("d", W), pred("a", R)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = logical negation of a predicate",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cnot",
        mnemonic: "cnot",
        slots: &[slot(Slot::Type, LOGIC_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = (a == 0) ? 1 : 0 (C logical not)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "lop3",
        mnemonic: "lop3",
        slots: &[slot(Slot::Type, &["b32"])],
        operands: &[
            reg("d", W, TYPE).or_sink(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
            imm("immLut", PtxType::B32, 0, 255),
        ],
        rule: no_rule,
        requires: rules::data::lop3_requires,
        packing: Packing::None,
        summary: "d = any bitwise function of a, b, c given by its 8-bit truth table immLut (0xF0 = a, 0xCC = b, 0xAA = c)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.sreg32",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["u32"])],
        operands: &[
            reg("d", W, TYPE),
            OperandSlot {
                kind: OperandKind::Special(SREGS_32),
                ..reg("sreg", R, TYPE).no_imm()
            },
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "read a 32-bit special register (`sreg(\"%laneid\")`, `%smid`, `%clock`, ...)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "mov.sreg64",
        mnemonic: "mov",
        slots: &[slot(Slot::Type, &["u64"])],
        operands: &[
            reg("d", W, TYPE),
            OperandSlot {
                kind: OperandKind::Special(SREGS_64),
                ..reg("sreg", R, TYPE).no_imm()
            },
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "read a 64-bit special register (`sreg(\"%clock64\")`, `%globaltimer`, `%gridid`)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "lop3.bool",
        mnemonic: "lop3",
        slots: &[
            slot(Slot::Boolop, &["or", "and"]),
            slot(Slot::Type, &["b32"]),
        ],
        operands: &[
            reg("d", W, TYPE).or_sink(),
            pred("p", W).after_pipe(),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
            imm("immLut", PtxType::B32, 0, 255),
            pred("q", R),
        ],
        rule: no_rule,
        requires: rules::data::lop3_bool_requires,
        packing: Packing::None,
        summary: "d = lop3(a, b, c, immLut), and p = (d != 0) BoolOp q",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "shl",
        mnemonic: "shl",
        slots: &[slot(Slot::Type, LOGIC_TYPES)],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a << b (zero for b >= width)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "shr",
        mnemonic: "shr",
        slots: &[slot(Slot::Type, SHR_TYPES)],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a >> b: sign-filling for .sN, zero-filling otherwise",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "shf",
        mnemonic: "shf",
        slots: &[
            slot(Slot::Dir, &["l", "r"]),
            slot(Slot::Mode, &["clamp", "wrap"]),
            slot(Slot::Type, &["b32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::data::shf_requires,
        packing: Packing::None,
        summary: "funnel shift of the 64-bit {b, a} (a is the low word) by c: .l gives the high word, .r the low word; .clamp caps c at 32, .wrap takes it mod 32",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "prmt",
        mnemonic: "prmt",
        slots: &[slot(Slot::Type, &["b32"]), opt(Slot::Mode, PRMT_MODES)],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "byte permute of the 8 bytes {b, a} (a is bytes 0-3): c holds four 4-bit selectors, or a mode picks the pattern from c's low bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "bfe",
        mnemonic: "bfe",
        slots: &[slot(Slot::Type, BFE_TYPES)],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TypeRef::Fixed(PtxType::U32)),
            reg("c", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "d = c bits of a from bit b, zero- or sign-extended",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "bfi",
        mnemonic: "bfi",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[
            reg("f", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TypeRef::Fixed(PtxType::U32)),
            reg("d", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "f = b with its d bits from bit c replaced by the low bits of a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "bfind",
        mnemonic: "bfind",
        slots: &[
            opt(Slot::Shiftamt, &["shiftamt"]),
            slot(Slot::Type, BFE_TYPES),
        ],
        operands: &[reg("d", W, TypeRef::Fixed(PtxType::U32)), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "d = bit position of the most significant non-sign bit of a (0xFFFFFFFF if none); .shiftamt gives the left shift that brings it to the top",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "brev",
        mnemonic: "brev",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "d = a with its bits reversed",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "popc",
        mnemonic: "popc",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[reg("d", W, TypeRef::Fixed(PtxType::U32)), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "d = number of set bits of a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "clz",
        mnemonic: "clz",
        slots: &[slot(Slot::Type, &["b32", "b64"])],
        operands: &[reg("d", W, TypeRef::Fixed(PtxType::U32)), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::data::ptx_2_requires,
        packing: Packing::None,
        summary: "d = number of leading zero bits of a",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "bmsk",
        mnemonic: "bmsk",
        slots: &[
            slot(Slot::Mode, &["clamp", "wrap"]),
            slot(Slot::Type, &["b32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TypeRef::Fixed(PtxType::U32)),
            reg("b", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::data::ptx_7_6_requires,
        packing: Packing::None,
        summary: "d = a mask of b one-bits starting at bit a (.clamp caps positions at 32, .wrap takes them mod 32)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "szext",
        mnemonic: "szext",
        slots: &[
            slot(Slot::Mode, &["clamp", "wrap"]),
            slot(Slot::Type, &["u32", "s32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, TypeRef::Fixed(PtxType::U32)),
        ],
        rule: no_rule,
        requires: rules::data::ptx_7_6_requires,
        packing: Packing::None,
        summary: "d = the low b bits of a, sign- (.s32) or zero-extended (.u32)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "fns",
        mnemonic: "fns",
        slots: &[slot(Slot::Type, &["b32"])],
        operands: &[
            reg("d", W, TYPE),
            reg("mask", R, TYPE),
            reg("base", R, TypeRef::Fixed(PtxType::U32)),
            reg("offset", R, TypeRef::Fixed(PtxType::S32)),
        ],
        rule: no_rule,
        requires: rules::data::fns_requires,
        packing: Packing::None,
        summary: "d = position of the offset-th set bit of mask counting from bit base (0xFFFFFFFF if none)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
];

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::form::{InstructionForm, OperandKind, Usability};
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

    /// Exact variant counts, transcribed from the ISA's syntax lines.
    #[test]
    fn variant_counts() {
        // mov.type with .type = .pred or .b128 (the other types are the `mov` form).
        assert_eq!(count("mov.pred"), 1);
        assert_eq!(count("mov.b128"), 1);
        // and/or/xor/not.type: .type = {pred, b16, b32, b64}, the .pred line apart.
        for id in ["and", "or", "xor", "not"] {
            assert_eq!(count(id), 3, "{id}");
            assert_eq!(count(&format!("{id}.pred")), 1, "{id}.pred");
        }
        // cnot.type: .type = {b16, b32, b64}.
        assert_eq!(count("cnot"), 3);
        // lop3.b32 d, a, b, c, immLut.
        assert_eq!(count("lop3"), 1);
        // lop3.BoolOp.b32 d|p, a, b, c, immLut, q; .BoolOp = {or, and}.
        assert_eq!(count("lop3.bool"), 2);
        // shl.type: .type = {b16, b32, b64}.
        assert_eq!(count("shl"), 3);
        // shr.type: .type = {b16, b32, b64, u16, u32, u64, s16, s32, s64}.
        assert_eq!(count("shr"), 9);
        // shf.{l, r}.mode.b32: .mode = {clamp, wrap}.
        assert_eq!(count("shf"), 4);
        // prmt.b32{.mode}: .mode = {f4e, b4e, rc8, ecl, ecr, rc16}: 1 + 6.
        assert_eq!(count("prmt"), 7);
        // bfe.type: .type = {u32, u64, s32, s64}.
        assert_eq!(count("bfe"), 4);
        // bfi.type: .type = {b32, b64}.
        assert_eq!(count("bfi"), 2);
        // bfind{.shiftamt}.type: .type = {u32, u64, s32, s64}: 2 x 4.
        assert_eq!(count("bfind"), 8);
        // brev/popc/clz.type: .type = {b32, b64}.
        for id in ["brev", "popc", "clz"] {
            assert_eq!(count(id), 2, "{id}");
        }
        // bmsk.mode.b32: .mode = {clamp, wrap}.
        assert_eq!(count("bmsk"), 2);
        // szext.mode.type: .mode = {clamp, wrap}; .type = {u32, s32}.
        assert_eq!(count("szext"), 4);
        // fns.b32 d, mask, base, offset.
        assert_eq!(count("fns"), 1);
    }

    #[test]
    fn floors_and_usability() {
        let floor = |id: &str| legal_variants(form(id))[0].requirement(Target::SM_90);
        assert_eq!(floor("bmsk"), Requirement::new(70, 7, 6));
        assert_eq!(floor("szext"), Requirement::new(70, 7, 6));
        assert_eq!(floor("lop3"), Requirement::new(50, 4, 3));
        assert_eq!(floor("shf"), Requirement::new(32, 3, 1));
        assert_eq!(floor("prmt"), Requirement::new(20, 2, 0));
        assert_eq!(floor("fns"), Requirement::new(30, 6, 0));
        assert_eq!(floor("mov.b128"), Requirement::new(70, 8, 3));
        // Predicate operands are `bool` tiles.
        for id in ["mov.pred", "and.pred", "or.pred", "xor.pred", "not.pred"] {
            assert_eq!(form(id).usable, Usability::Yes, "{id}");
        }
        assert_eq!(form("lop3").usable, Usability::Yes);
        // lop3's truth table is an immediate-only byte.
        assert!(matches!(
            form("lop3").operands[4].kind,
            OperandKind::Immediate { min: 0, max: 255 }
        ));
    }
}
