//! Conversions: every `cvt` form (scalar, packed half/fp8/fp6/fp4 pairs, tf32) and `cvt.pack`.

use super::*;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
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
        usable: Usability::Yes,
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
        usable: Usability::Yes,
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
        usable: Usability::Yes,
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
        usable: Usability::Yes,
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
        usable: Usability::Yes,
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
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.pack",
        mnemonic: "cvt.pack",
        slots: &[
            slot("sat", &["sat"]),
            slot("convert", &["u16", "s16"]),
            slot("abtype", &["s32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::U32)),
            reg("a", R, TypeRef::Fixed(PtxType::S32)),
            reg("b", R, TypeRef::Fixed(PtxType::S32)),
        ],
        rule: no_rule,
        requires: rules::convert::cvt_pack_requires,
        packing: Packing::FirstSourceHigh,
        summary: "saturate two s32 to 16 bits and pack them: a -> high 16 bits, b -> low 16 bits",
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.pack-into",
        mnemonic: "cvt.pack",
        slots: &[
            slot("sat", &["sat"]),
            slot("convert", &["u2", "s2", "u4", "s4", "u8", "s8"]),
            slot("abtype", &["s32"]),
            slot("ctype", &["b32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::U32)),
            reg("a", R, TypeRef::Fixed(PtxType::S32)),
            reg("b", R, TypeRef::Fixed(PtxType::S32)),
            reg("c", R, TypeRef::Fixed(PtxType::B32)),
        ],
        rule: no_rule,
        requires: rules::convert::cvt_pack_requires,
        packing: Packing::FirstSourceHigh,
        summary: "saturate two s32 to 8/4/2 bits and pack them into the low bits (a above b); the rest of d comes from the low bits of c",
        usable: Usability::Yes,
    },
];

#[cfg(test)]
mod tests {
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(super::FORMS.iter().find(|f| f.id == id).expect(id)).len()
    }

    #[test]
    fn variant_counts() {
        // cvt.pack.sat.convertType.abType d, a, b;
        //   .convertType = { .u16, .s16 }, .abType = { .s32 }
        assert_eq!(count("cvt.pack"), 2);
        // cvt.pack.sat.convertType.abType.cType d, a, b, c;
        //   .convertType = { .u2, .s2, .u4, .s4, .u8, .s8 }, .abType = { .s32 }, .cType = { .b32 }
        assert_eq!(count("cvt.pack-into"), 6);
    }
}
