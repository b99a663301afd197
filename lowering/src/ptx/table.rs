//! The PTX instruction table: one record per syntax shape, as data.
//!
//! Covered: `ld`/`st` (global, scalar and `.v2`/`.v4`, cache operators),
//! `cvt` (scalar line, packed half pairs, tf32, fp8 pairs), `mov` (scalar,
//! pack, unpack) and integer/float `add sub mul mad fma min max neg abs`.
//! Adding an instruction means adding a record here (plus a rule function in
//! [`super::rules`] when slot combinations are restricted).

use super::form::{
    Access, InstructionForm, Lanes, ModifierSlot, OperandKind, OperandSlot, Packing, TypeRef,
    no_rule,
};
use super::rules;
use super::types::PtxType;

const fn slot(name: &'static str, choices: &'static [&'static str]) -> ModifierSlot {
    ModifierSlot {
        name,
        choices,
        required: true,
    }
}

const fn opt(name: &'static str, choices: &'static [&'static str]) -> ModifierSlot {
    ModifierSlot {
        name,
        choices,
        required: false,
    }
}

const fn reg(name: &'static str, access: Access, ty: TypeRef) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Register,
        ty,
        lanes: Lanes::Fixed(1),
        braced: false,
    }
}

const fn braced(name: &'static str, access: Access, lanes: u8) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Register,
        ty: TypeRef::LaneOf {
            slot: "type",
            lanes,
        },
        lanes: Lanes::Fixed(1),
        braced: true,
    }
}

const fn group(name: &'static str, access: Access, ty: TypeRef, lanes: Lanes) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Register,
        ty,
        lanes,
        braced: false,
    }
}

const fn address(name: &'static str, access: Access) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Address,
        ty: TypeRef::Slot("type"),
        lanes: Lanes::Vector,
        braced: false,
    }
}

use Access::{Read as R, Write as W};

const TYPE: TypeRef = TypeRef::Slot("type");
const MEMORY_TYPES: &[&str] = &[
    "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64",
];
const VEC: &[&str] = &["v2", "v4"];
const EVICT: &[&str] = &[
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
];
const CVT_TYPES: &[&str] = &[
    "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64",
];
const ROUNDING: &[&str] = &["rni", "rzi", "rmi", "rpi", "rn", "rz", "rm", "rp"];
const FLOAT_ROUNDING: &[&str] = &["rn", "rz", "rm", "rp"];
const FLOAT_TYPES: &[&str] = &["f32", "f64"];
const INT_TYPES: &[&str] = &["u16", "u32", "u64", "s16", "s32", "s64"];
const SIGNED_TYPES: &[&str] = &["s16", "s32", "s64"];
const MOV_TYPES: &[&str] = &[
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
];
const FP8_PAIRS: &[&str] = &["e4m3x2", "e5m2x2"];

/// Every form the compiler knows, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    // ---------------------------------------------------------------- memory
    InstructionForm {
        id: "ld",
        mnemonic: "ld",
        slots: &[
            slot("space", &["global"]),
            opt("cop", &["ca", "cg", "cs", "lu", "cv"]),
            opt("nc", &["nc"]),
            opt("evict", EVICT),
            opt("prefetch", &["L2::64B", "L2::128B", "L2::256B"]),
            opt("vec", VEC),
            slot("type", MEMORY_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rule: rules::memory_access,
        requires: rules::memory_access_requires,
        packing: Packing::None,
        summary: "load 1, 2 or 4 elements from global memory into registers",
    },
    InstructionForm {
        id: "st",
        mnemonic: "st",
        slots: &[
            slot("space", &["global"]),
            opt("cop", &["wb", "cg", "cs", "wt"]),
            opt("evict", EVICT),
            opt("vec", VEC),
            slot("type", MEMORY_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: rules::memory_access,
        requires: rules::memory_access_requires,
        packing: Packing::None,
        summary: "store 1, 2 or 4 registers to global memory",
    },
    // ------------------------------------------------------------------- cvt
    InstructionForm {
        id: "cvt.scalar",
        mnemonic: "cvt",
        slots: &[
            opt("rnd", ROUNDING),
            opt("relu", &["relu"]),
            opt("satfinite", &["satfinite"]),
            opt("ftz", &["ftz"]),
            opt("sat", &["sat"]),
            slot("dtype", CVT_TYPES),
            slot("atype", CVT_TYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot("dtype")),
            reg("a", R, TypeRef::Slot("atype")),
        ],
        rule: rules::cvt_scalar,
        requires: rules::cvt_scalar_requires,
        packing: Packing::None,
        summary: "convert one value between integer and float types",
    },
    InstructionForm {
        id: "cvt.half-pair-from-f32",
        mnemonic: "cvt",
        slots: &[
            slot("rnd", &["rn", "rz"]),
            opt("relu", &["relu"]),
            opt("satfinite", &["satfinite"]),
            slot("dtype", &["f16x2", "bf16x2"]),
            slot("atype", &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot("dtype")),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
            reg("b", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: rules::cvt_half_pair_requires,
        packing: Packing::FirstSourceHigh,
        summary: "pack two f32 into one half pair: a -> high 16 bits, b -> low 16 bits",
    },
    InstructionForm {
        id: "cvt.tf32",
        mnemonic: "cvt",
        slots: &[
            slot("rnd", &["rna", "rn", "rz"]),
            opt("satfinite", &["satfinite"]),
            opt("relu", &["relu"]),
            slot("dtype", &["tf32"]),
            slot("atype", &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::Tf32)),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: rules::cvt_tf32,
        requires: rules::cvt_tf32_requires,
        packing: Packing::None,
        summary: "round an f32 to tf32 (kept in a 32-bit register)",
    },
    InstructionForm {
        id: "cvt.fp8-pair-from-f32",
        mnemonic: "cvt",
        slots: &[
            slot("rnd", &["rn"]),
            slot("satfinite", &["satfinite"]),
            opt("relu", &["relu"]),
            slot("dtype", FP8_PAIRS),
            slot("atype", &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot("dtype")),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
            reg("b", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: rules::cvt_fp8_requires,
        packing: Packing::FirstSourceHigh,
        summary: "pack two f32 into an fp8 pair: a -> high byte, b -> low byte",
    },
    InstructionForm {
        id: "cvt.fp8-pair-from-f16x2",
        mnemonic: "cvt",
        slots: &[
            slot("rnd", &["rn"]),
            slot("satfinite", &["satfinite"]),
            opt("relu", &["relu"]),
            slot("dtype", FP8_PAIRS),
            slot("atype", &["f16x2"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot("dtype")),
            reg("a", R, TypeRef::Fixed(PtxType::F16x2)),
        ],
        rule: no_rule,
        requires: rules::cvt_fp8_requires,
        packing: Packing::InPlace,
        summary: "narrow an f16 pair to an fp8 pair: high half -> high byte",
    },
    InstructionForm {
        id: "cvt.f16x2-from-fp8-pair",
        mnemonic: "cvt",
        slots: &[
            slot("rnd", &["rn"]),
            opt("relu", &["relu"]),
            slot("dtype", &["f16x2"]),
            slot("atype", FP8_PAIRS),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::F16x2)),
            reg("a", R, TypeRef::Slot("atype")),
        ],
        rule: no_rule,
        requires: rules::cvt_fp8_requires,
        packing: Packing::InPlace,
        summary: "widen an fp8 pair to an f16 pair: high byte -> high half",
    },
    // ------------------------------------------------------------------- mov
    InstructionForm {
        id: "mov",
        mnemonic: "mov",
        slots: &[slot("type", MOV_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "copy one register",
    },
    InstructionForm {
        id: "mov.pack2",
        mnemonic: "mov",
        slots: &[slot("type", &["b16", "b32", "b64"])],
        operands: &[
            reg("d", W, TYPE),
            group(
                "a",
                R,
                TypeRef::LaneOf {
                    slot: "type",
                    lanes: 2,
                },
                Lanes::Fixed(2),
            ),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack two half-width registers: the first lane is the low bits",
    },
    InstructionForm {
        id: "mov.pack4",
        mnemonic: "mov",
        slots: &[slot("type", &["b32", "b64"])],
        operands: &[
            reg("d", W, TYPE),
            group(
                "a",
                R,
                TypeRef::LaneOf {
                    slot: "type",
                    lanes: 4,
                },
                Lanes::Fixed(4),
            ),
        ],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack four quarter-width registers: the first lane is the low bits",
    },
    InstructionForm {
        id: "mov.unpack2",
        mnemonic: "mov",
        slots: &[slot("type", &["b16", "b32", "b64"])],
        operands: &[
            group(
                "d",
                W,
                TypeRef::LaneOf {
                    slot: "type",
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
    },
    InstructionForm {
        id: "mov.unpack4",
        mnemonic: "mov",
        slots: &[slot("type", &["b32", "b64"])],
        operands: &[
            group(
                "d",
                W,
                TypeRef::LaneOf {
                    slot: "type",
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
    },
    InstructionForm {
        id: "mov.pack2-split",
        mnemonic: "mov",
        slots: &[slot("type", &["b16", "b32", "b64"])],
        operands: &[reg("d", W, TYPE), braced("a", R, 2), braced("b", R, 2)],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "pack two half-width registers given as two operands: a is the low bits",
    },
    InstructionForm {
        id: "mov.pack4-split",
        mnemonic: "mov",
        slots: &[slot("type", &["b32", "b64"])],
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
    },
    InstructionForm {
        id: "mov.unpack2-split",
        mnemonic: "mov",
        slots: &[slot("type", &["b16", "b32", "b64"])],
        operands: &[braced("a", W, 2), braced("b", W, 2), reg("d", R, TYPE)],
        rule: rules::pack_lanes,
        requires: rules::baseline,
        packing: Packing::FirstLaneLow,
        summary: "split a register into two operands: a gets the low bits",
    },
    InstructionForm {
        id: "mov.unpack4-split",
        mnemonic: "mov",
        slots: &[slot("type", &["b32", "b64"])],
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
    },
    // ------------------------------------------------------------ arithmetic
    InstructionForm {
        id: "add.float",
        mnemonic: "add",
        slots: &[
            opt("rnd", FLOAT_ROUNDING),
            opt("ftz", &["ftz"]),
            opt("sat", &["sat"]),
            slot("type", FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a + b",
    },
    InstructionForm {
        id: "add.int",
        mnemonic: "add",
        slots: &[opt("sat", &["sat"]), slot("type", INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::int_saturation,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a + b (wrapping, or saturating with .sat.s32)",
    },
    InstructionForm {
        id: "sub.float",
        mnemonic: "sub",
        slots: &[
            opt("rnd", FLOAT_ROUNDING),
            opt("ftz", &["ftz"]),
            opt("sat", &["sat"]),
            slot("type", FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a - b",
    },
    InstructionForm {
        id: "sub.int",
        mnemonic: "sub",
        slots: &[opt("sat", &["sat"]), slot("type", INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::int_saturation,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a - b (wrapping, or saturating with .sat.s32)",
    },
    InstructionForm {
        id: "mul.float",
        mnemonic: "mul",
        slots: &[
            opt("rnd", FLOAT_ROUNDING),
            opt("ftz", &["ftz"]),
            opt("sat", &["sat"]),
            slot("type", FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = a * b",
    },
    InstructionForm {
        id: "mul.int",
        mnemonic: "mul",
        slots: &[slot("mode", &["hi", "lo"]), slot("type", INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = high or low half of the double-width product a * b",
    },
    InstructionForm {
        id: "mul.wide",
        mnemonic: "mul",
        slots: &[
            slot("mode", &["wide"]),
            slot("type", &["u16", "u32", "s16", "s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Wide("type")),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d (double width) = a * b",
    },
    InstructionForm {
        id: "mad.int",
        mnemonic: "mad",
        slots: &[
            slot("mode", &["hi", "lo"]),
            opt("sat", &["sat"]),
            slot("type", INT_TYPES),
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
    },
    InstructionForm {
        id: "mad.wide",
        mnemonic: "mad",
        slots: &[
            slot("mode", &["wide"]),
            slot("type", &["u16", "u32", "s16", "s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Wide("type")),
            reg("a", R, TYPE),
            reg("b", R, TYPE),
            reg("c", R, TypeRef::Wide("type")),
        ],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d (double width) = a * b + c",
    },
    InstructionForm {
        id: "fma",
        mnemonic: "fma",
        slots: &[
            slot("rnd", FLOAT_ROUNDING),
            opt("ftz", &["ftz"]),
            opt("sat", &["sat"]),
            slot("type", FLOAT_TYPES),
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
    },
    InstructionForm {
        id: "min.float",
        mnemonic: "min",
        slots: &[
            opt("ftz", &["ftz"]),
            opt("nan", &["NaN"]),
            opt("xorsign", &["xorsign"]),
            opt("abs", &["abs"]),
            slot("type", FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_min_max,
        requires: rules::float_min_max_requires,
        packing: Packing::None,
        summary: "d = the smaller of a and b (.NaN propagates NaN)",
    },
    InstructionForm {
        id: "min.int",
        mnemonic: "min",
        slots: &[opt("relu", &["relu"]), slot("type", INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::int_min_max,
        requires: rules::int_min_max_requires,
        packing: Packing::None,
        summary: "d = the smaller of a and b",
    },
    InstructionForm {
        id: "max.float",
        mnemonic: "max",
        slots: &[
            opt("ftz", &["ftz"]),
            opt("nan", &["NaN"]),
            opt("xorsign", &["xorsign"]),
            opt("abs", &["abs"]),
            slot("type", FLOAT_TYPES),
        ],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::float_min_max,
        requires: rules::float_min_max_requires,
        packing: Packing::None,
        summary: "d = the larger of a and b (.NaN propagates NaN)",
    },
    InstructionForm {
        id: "max.int",
        mnemonic: "max",
        slots: &[opt("relu", &["relu"]), slot("type", INT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE), reg("b", R, TYPE)],
        rule: rules::int_min_max,
        requires: rules::int_min_max_requires,
        packing: Packing::None,
        summary: "d = the larger of a and b",
    },
    InstructionForm {
        id: "neg.float",
        mnemonic: "neg",
        slots: &[opt("ftz", &["ftz"]), slot("type", FLOAT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = -a",
    },
    InstructionForm {
        id: "neg.int",
        mnemonic: "neg",
        slots: &[slot("type", SIGNED_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = -a (wrapping)",
    },
    InstructionForm {
        id: "abs.float",
        mnemonic: "abs",
        slots: &[opt("ftz", &["ftz"]), slot("type", FLOAT_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: rules::float_arith,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = |a|",
    },
    InstructionForm {
        id: "abs.int",
        mnemonic: "abs",
        slots: &[slot("type", SIGNED_TYPES)],
        operands: &[reg("d", W, TYPE), reg("a", R, TYPE)],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "d = |a| (wrapping at the minimum value)",
    },
];
