//! Memory: `ld`, `st`, `ldu`, `prefetch`, `atom`, `red`, `createpolicy` in every state space.

use super::*;

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
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
        usable: Usability::Yes,
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
        usable: Usability::Yes,
    },
];
