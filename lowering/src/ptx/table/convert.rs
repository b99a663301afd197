//! Conversions: every `cvt` form (scalar, packed half/fp8/fp6/fp4 pairs, tf32) and `cvt.pack`.

use super::*;
use crate::ptx::Slot;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "cvt.scalar",
        mnemonic: "cvt",
        slots: &[
            opt(Slot::Rnd, ROUNDING),
            opt(Slot::Relu, &["relu"]),
            opt(Slot::Satfinite, &["satfinite"]),
            opt(Slot::Ftz, &["ftz"]),
            opt(Slot::Sat, &["sat"]),
            slot(Slot::Dtype, CVT_TYPES),
            slot(Slot::Atype, CVT_TYPES),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
        ],
        rule: rules::cvt_scalar,
        requires: rules::cvt_scalar_requires,
        packing: Packing::None,
        summary: "convert one value between integer and float types",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.half-pair-from-f32",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn", "rz"]),
            opt(Slot::Relu, &["relu"]),
            opt(Slot::Satfinite, &["satfinite"]),
            slot(Slot::Dtype, &["f16x2", "bf16x2"]),
            slot(Slot::Atype, &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
            reg("b", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: rules::cvt_half_pair_requires,
        packing: Packing::FirstSourceHigh,
        summary: "pack two f32 into one half pair: a -> high 16 bits, b -> low 16 bits",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.tf32",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rna", "rn", "rz"]),
            opt(Slot::Satfinite, &["satfinite"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Dtype, &["tf32"]),
            slot(Slot::Atype, &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::Tf32)),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: rules::cvt_tf32,
        requires: rules::cvt_tf32_requires,
        packing: Packing::None,
        summary: "round an f32 to tf32 (kept in a 32-bit register)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.fp8-pair-from-f32",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            slot(Slot::Satfinite, &["satfinite"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Dtype, FP8_PAIRS),
            slot(Slot::Atype, &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
            reg("b", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: rules::cvt_fp8_requires,
        packing: Packing::FirstSourceHigh,
        summary: "pack two f32 into an fp8 pair: a -> high byte, b -> low byte",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.fp8-pair-from-f16x2",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            slot(Slot::Satfinite, &["satfinite"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Dtype, FP8_PAIRS),
            slot(Slot::Atype, &["f16x2"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Fixed(PtxType::F16x2)),
        ],
        rule: no_rule,
        requires: rules::cvt_fp8_requires,
        packing: Packing::InPlace,
        summary: "narrow an f16 pair to an fp8 pair: high half -> high byte",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.f16x2-from-fp8-pair",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Dtype, &["f16x2"]),
            slot(Slot::Atype, FP8_PAIRS),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::F16x2)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
        ],
        rule: no_rule,
        requires: rules::cvt_fp8_requires,
        packing: Packing::InPlace,
        summary: "widen an fp8 pair to an f16 pair: high byte -> high half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    // ------------------------------------------- Blackwell (sm_100a, sm_120a)
    InstructionForm {
        id: "cvt.fp6-fp4-pair-from-f32",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            slot(Slot::Satfinite, &["satfinite"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Dtype, &["e2m1x2", "e2m3x2", "e3m2x2"]),
            slot(Slot::Atype, &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Slot(Slot::Dtype)),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
            reg("b", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: rules::convert::blackwell_narrow_requires,
        packing: Packing::FirstSourceHigh,
        summary: "pack two f32 into an fp4 (8-bit) or fp6 (16-bit) pair: a -> high element, b -> low element",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.f16x2-from-fp6-fp4-pair",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            opt(Slot::Relu, &["relu"]),
            slot(Slot::Dtype, &["f16x2"]),
            slot(Slot::Atype, &["e2m1x2", "e2m3x2", "e3m2x2"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::F16x2)),
            reg("a", R, TypeRef::Slot(Slot::Atype)),
        ],
        rule: no_rule,
        requires: rules::convert::blackwell_narrow_requires,
        packing: Packing::InPlace,
        summary: "widen an fp4 or fp6 pair to an f16 pair: high element -> high half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.ue8m0x2-from-f32",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rz", "rp"]),
            opt(Slot::Satfinite, &["satfinite"]),
            slot(Slot::Dtype, &["ue8m0x2"]),
            slot(Slot::Atype, &["f32"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::Ue8m0x2)),
            reg("a", R, TypeRef::Fixed(PtxType::F32)),
            reg("b", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: rules::convert::blackwell_narrow_requires,
        packing: Packing::FirstSourceHigh,
        summary: "the exponents of two f32 as a ue8m0 (MX scale) pair: a -> high byte, b -> low byte",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.ue8m0x2-from-bf16x2",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rz", "rp"]),
            opt(Slot::Satfinite, &["satfinite"]),
            slot(Slot::Dtype, &["ue8m0x2"]),
            slot(Slot::Atype, &["bf16x2"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::Ue8m0x2)),
            reg("a", R, TypeRef::Fixed(PtxType::Bf16x2)),
        ],
        rule: no_rule,
        requires: rules::convert::blackwell_narrow_requires,
        packing: Packing::InPlace,
        summary: "the exponents of a bf16 pair as a ue8m0 pair: high half -> high byte",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.bf16x2-from-ue8m0x2",
        mnemonic: "cvt",
        slots: &[
            slot(Slot::Rnd, &["rn"]),
            slot(Slot::Dtype, &["bf16x2"]),
            slot(Slot::Atype, &["ue8m0x2"]),
        ],
        operands: &[
            reg("d", W, TypeRef::Fixed(PtxType::Bf16x2)),
            reg("a", R, TypeRef::Fixed(PtxType::Ue8m0x2)),
        ],
        rule: no_rule,
        requires: rules::convert::blackwell_narrow_requires,
        packing: Packing::InPlace,
        summary: "a ue8m0 pair as the bf16 powers of two it encodes: high byte -> high half",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.pack",
        mnemonic: "cvt.pack",
        slots: &[
            slot(Slot::Sat, &["sat"]),
            slot(Slot::Convert, &["u16", "s16"]),
            slot(Slot::Abtype, &["s32"]),
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
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "cvt.pack-into",
        mnemonic: "cvt.pack",
        slots: &[
            slot(Slot::Sat, &["sat"]),
            slot(Slot::Convert, &["u2", "s2", "u4", "s4", "u8", "s8"]),
            slot(Slot::Abtype, &["s32"]),
            slot(Slot::Ctype, &["b32"]),
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

    #[test]
    fn variant_counts() {
        // cvt.rn.satfinite{.relu}.{e2m1x2, e2m3x2, e3m2x2}.f32 d, a, b
        assert_eq!(count("cvt.fp6-fp4-pair-from-f32"), 6);
        // cvt.rn{.relu}.f16x2.{e2m1x2, e2m3x2, e3m2x2} d, a
        assert_eq!(count("cvt.f16x2-from-fp6-fp4-pair"), 6);
        // cvt.{rz, rp}{.satfinite}.ue8m0x2.f32 d, a, b
        assert_eq!(count("cvt.ue8m0x2-from-f32"), 4);
        // cvt.{rz, rp}{.satfinite}.ue8m0x2.bf16x2 d, a
        assert_eq!(count("cvt.ue8m0x2-from-bf16x2"), 4);
        // cvt.rn.bf16x2.ue8m0x2 d, a
        assert_eq!(count("cvt.bf16x2-from-ue8m0x2"), 1);
        // cvt.pack.sat.convertType.abType d, a, b;
        //   .convertType = { .u16, .s16 }, .abType = { .s32 }
        assert_eq!(count("cvt.pack"), 2);
        // cvt.pack.sat.convertType.abType.cType d, a, b, c;
        //   .convertType = { .u2, .s2, .u4, .s4, .u8, .s8 }, .abType = { .s32 }, .cType = { .b32 }
        assert_eq!(count("cvt.pack-into"), 6);
    }
}
