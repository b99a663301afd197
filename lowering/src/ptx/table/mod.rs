//! The PTX instruction table: one record per syntax shape, as data.
//!
//! One module per instruction family (the ISA's chapters); [`FORMS`] is
//! their concatenation, in lookup order. Adding an instruction means adding
//! a record to its family (plus a rule function in [`super::rules`] when
//! slot combinations are restricted); the certification tests
//! (`lowering/tests/certify.rs`) then check it against ptxas in both
//! directions, and `docs/ptx-table.md` is regenerated from it.

pub mod async_copy;
pub mod compare;
pub mod convert;
pub mod data;
pub mod float;
pub mod half;
pub mod integer;
pub mod memory;
pub mod registered;
pub mod warp;

use super::form::{
    Access, Effect, InstructionForm, Lanes, ModifierSlot, OperandKind, OperandSlot, Packing,
    TypeRef, Usability, no_rule,
};
use super::rules;
use super::types::PtxType;
use crate::ptx::Slot;

/// A fingerprint of the table's shape: every form's id, mnemonic, slots
/// with their choices, and operand count, in order (FNV-1a). Two builds
/// with equal fingerprints number their variants alike
/// ([`super::form::VariantId`]); an encoded program carries it.
pub fn fingerprint() -> u64 {
    // Computed once per process: the macro encodes every kernel with it.
    static FINGERPRINT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *FINGERPRINT.get_or_init(compute_fingerprint)
}

fn compute_fingerprint() -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes.iter().chain([0xff].iter()) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for form in FORMS {
        eat(form.id.as_bytes());
        eat(form.mnemonic.as_bytes());
        for slot in form.slots {
            eat(slot.name.name().as_bytes());
            eat(&[u8::from(slot.required)]);
            for choice in slot.choices {
                eat(choice.as_bytes());
            }
        }
        eat(&form.operands.len().to_le_bytes());
    }
    hash
}

const fn slot(name: Slot, choices: &'static [&'static str]) -> ModifierSlot {
    ModifierSlot {
        name,
        choices,
        required: true,
    }
}

const fn opt(name: Slot, choices: &'static [&'static str]) -> ModifierSlot {
    ModifierSlot {
        name,
        choices,
        required: false,
    }
}

/// A register operand of one lane. A source also accepts an immediate
/// (most PTX sources do; [`OperandSlot::no_imm`] where not).
const fn reg(name: &'static str, access: Access, ty: TypeRef) -> OperandSlot {
    group(name, access, ty, Lanes::Fixed(1))
}

const fn braced(name: &'static str, access: Access, lanes: u8) -> OperandSlot {
    let mut slot = reg(
        name,
        access,
        TypeRef::LaneOf {
            slot: Slot::Type,
            lanes,
        },
    );
    slot.braced = true;
    slot
}

/// Registers: one, or a `{..}` group of `lanes`.
const fn group(name: &'static str, access: Access, ty: TypeRef, lanes: Lanes) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Register,
        ty,
        lanes,
        braced: false,
        imm: matches!(access, Access::Read),
        sink: false,
        piped: false,
        after_pipe: false,
        own_braces: false,
        whole: false,
        mbarrier: false,
        whole_alignment: 0,
        descriptor: false,
        sink_only: false,
    }
}

/// An address `[a]` of the memory the form moves (`type` elements, one per
/// `vec` lane).
const fn address(name: &'static str, access: Access) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Address,
        ty: TypeRef::Slot(Slot::Type),
        lanes: Lanes::Vector,
        braced: false,
        imm: false,
        sink: false,
        piped: false,
        after_pipe: false,
        own_braces: false,
        whole: false,
        mbarrier: false,
        whole_alignment: 0,
        descriptor: false,
        sink_only: false,
    }
}

/// A `.pred` register.
#[allow(dead_code)] // used as families grow
const fn pred(name: &'static str, access: Access) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Predicate,
        ty: TypeRef::Fixed(PtxType::Pred),
        lanes: Lanes::Fixed(1),
        braced: false,
        imm: false,
        sink: false,
        piped: false,
        after_pipe: false,
        own_braces: false,
        whole: false,
        mbarrier: false,
        whole_alignment: 0,
        descriptor: false,
        sink_only: false,
    }
}

/// A compile-time integer in `min..=max`, of PTX type `ty`.
#[allow(dead_code)] // used as families grow
const fn imm(name: &'static str, ty: PtxType, min: i64, max: i64) -> OperandSlot {
    OperandSlot {
        name,
        access: Access::Read,
        kind: OperandKind::Immediate { min, max },
        ty: TypeRef::Fixed(ty),
        lanes: Lanes::Fixed(1),
        braced: false,
        imm: true,
        sink: false,
        piped: false,
        after_pipe: false,
        own_braces: false,
        whole: false,
        mbarrier: false,
        whole_alignment: 0,
        descriptor: false,
        sink_only: false,
    }
}

#[allow(dead_code)] // used as families grow
impl OperandSlot {
    /// A source that takes registers only, never an immediate.
    const fn no_imm(mut self) -> Self {
        self.imm = false;
        self
    }

    /// A destination that may be the sink `_`.
    const fn or_sink(mut self) -> Self {
        self.sink = true;
        self
    }

    /// A destination that is always the sink `_`.
    const fn only_sink(mut self) -> Self {
        self.sink = true;
        self.sink_only = true;
        self
    }

    /// A group written in its own `{..}`, even of one register.
    const fn in_braces(mut self) -> Self {
        self.own_braces = true;
        self
    }

    /// Written after the previous operand as `prev|this`.
    const fn after_pipe(mut self) -> Self {
        self.after_pipe = true;
        self
    }

    /// Two registers written `p|q` instead of a `{..}` group.
    const fn piped(mut self, lanes: u8) -> Self {
        self.piped = true;
        self.lanes = Lanes::Fixed(lanes);
        self
    }
}

use Access::{Read as R, Write as W};

const TYPE: TypeRef = TypeRef::Slot(Slot::Type);
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

/// The 64-bit cache policy of the `.L2::cache_hint` forms (from `createpolicy`).
const POLICY: OperandSlot = reg("policy", R, TypeRef::Fixed(PtxType::B64));

/// A form without packing: its usability, then its effect, last.
#[allow(clippy::too_many_arguments)]
const fn form(
    id: &'static str,
    mnemonic: &'static str,
    slots: &'static [ModifierSlot],
    operands: &'static [OperandSlot],
    rule: fn(&super::form::Modifiers) -> Result<(), super::form::Violation>,
    requires: fn(&super::form::Modifiers, crate::target::Target) -> crate::target::Requirement,
    summary: &'static str,
    usable: Usability,
    effect: Effect,
) -> InstructionForm {
    InstructionForm {
        id,
        mnemonic,
        slots,
        operands,
        rule,
        requires,
        packing: Packing::None,
        summary,
        effect,
        usable,
    }
}

/// An address `[a]` of `lanes` elements of type `ty`.
const fn addr(name: &'static str, access: Access, ty: PtxType, lanes: u8) -> OperandSlot {
    OperandSlot {
        name,
        access,
        kind: OperandKind::Address,
        ty: TypeRef::Fixed(ty),
        lanes: Lanes::Fixed(lanes),
        braced: false,
        imm: false,
        sink: false,
        piped: false,
        after_pipe: false,
        own_braces: false,
        whole: false,
        mbarrier: false,
        whole_alignment: 0,
        descriptor: false,
        sink_only: false,
    }
}

/// An address `[addr]` of one mbarrier object (8 bytes).
const fn barrier(name: &'static str, access: Access) -> OperandSlot {
    let mut slot = addr(name, access, PtxType::B64, 1);
    slot.mbarrier = true;
    slot
}

/// An address `[addr]` of a run of bytes as long as the operand view
/// (bulk copies: the operand is the whole view, contiguous).
const fn bytes(name: &'static str, access: Access) -> OperandSlot {
    let mut slot = addr(name, access, PtxType::B8, 1);
    slot.whole = true;
    slot.whole_alignment = crate::checked::BULK_ALIGNMENT;
    slot
}

/// An address of a run of elements of the form's `.type` as long as the
/// operand view (a bulk reduction's `[dst]`, `[src]`): a [`bytes`] run
/// whose view must hold that type, as a load's or store's address does.
const fn typed_bytes(name: &'static str, access: Access) -> OperandSlot {
    let mut slot = bytes(name, access);
    slot.ty = TypeRef::Slot(Slot::Type);
    slot
}

/// The shared side of a tensor copy: a run of bytes as long as the box,
/// aligned to [`crate::memory::TENSOR_COPY_SHARED_ALIGNMENT`].
const fn box_bytes(name: &'static str, access: Access) -> OperandSlot {
    let mut slot = bytes(name, access);
    slot.whole_alignment = crate::memory::TENSOR_COPY_SHARED_ALIGNMENT;
    slot
}

/// The families, in lookup order.
pub static FAMILIES: &[(&str, &[InstructionForm])] = &[
    ("memory", memory::FORMS),
    ("conversion", convert::FORMS),
    ("data movement and bits", data::FORMS),
    ("integer", integer::FORMS),
    ("floating point", float::FORMS),
    ("half precision", half::FORMS),
    ("comparison and selection", compare::FORMS),
    ("warp-level", warp::FORMS),
    ("asynchronous copies", async_copy::FORMS),
    (
        "fences, barriers, mbarriers, bulk copies and matrix instructions",
        registered::FORMS,
    ),
];

const FORM_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < FAMILIES.len() {
        n += FAMILIES[i].1.len();
        i += 1;
    }
    n
};

/// Every form the compiler knows, in lookup order: the families' forms,
/// concatenated at compile time.
pub static FORMS: &[InstructionForm] = &concat_families::<FORM_COUNT>();

const fn concat_families<const N: usize>() -> [InstructionForm; N] {
    // Any form fills the array before it is overwritten.
    let mut out = [memory::FORMS[0]; N];
    let (mut n, mut f) = (0, 0);
    while f < FAMILIES.len() {
        let forms = FAMILIES[f].1;
        let mut i = 0;
        while i < forms.len() {
            out[n] = forms[i];
            n += 1;
            i += 1;
        }
        f += 1;
    }
    out
}
