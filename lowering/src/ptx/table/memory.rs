//! Memory: `ld`, `st`, `ldu`, `prefetch`, `atom`, `red`, `createpolicy` in every state space.
//!
//! One form per ISA syntax line (weak, `.volatile`, `.relaxed`/`.acquire`/
//! `.release` with a scope, `.mmio`), split further where the operands
//! differ (`.L2::cache_hint` adds the 64-bit cache-policy operand) and where
//! the state spaces take different modifiers (the non-global spaces take no
//! eviction priority, prefetch size or cache hint). Address operands in the
//! shared, local, const and param spaces are registered and certified but
//! not usable by kernels yet ([`crate::ptx::form::Modifiers::usability`]).
//!
//! The vector `atom`/`red` forms (sm_90, PTX 8.1: `.v2/.v4` of `.f32`,
//! `.f16x2`, `.bf16x2`, up to `.v8` of `.f16`, `.bf16`) take global or
//! generic addresses only; their `d` and `b` are `{..}` groups of `vec`
//! lanes. `atom` with `.bf16`/`.bf16x2` has its own forms because ptxas
//! 12.9 takes no sink `_` for their `d` (it does for the others).

use super::*;
use crate::ptx::Slot;
use rules::memory as mem;

/// `ld`/`st`/`ldu` element types (ISA: `.b8 .. .b128, .u8 .. .u64, .s8 .. .s64, .f32, .f64`).
const LDST_TYPES: &[&str] = &[
    "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32",
    "f64",
];
/// The element types are the table's memory types plus `.b128` (PTX 8.3).
const _: () = assert!(MEMORY_TYPES.len() + 1 == LDST_TYPES.len());
const LD_COP: &[&str] = &["ca", "cg", "cs", "lu", "cv"];
const ST_COP: &[&str] = &["wb", "cg", "cs", "wt"];
const PREFETCH_SIZE: &[&str] = &["L2::64B", "L2::128B", "L2::256B"];
const SCOPES: &[&str] = &["cta", "cluster", "gpu", "sys"];
/// Spaces that take memory-consistency qualifiers: global and shared.
const ORDERED_SPACES: &[&str] = &["global", "shared", "shared::cta", "shared::cluster"];
const LD_OTHER_SPACES: &[&str] = &[
    "shared",
    "shared::cta",
    "shared::cluster",
    "local",
    "const",
    "param",
    "param::entry",
    "param::func",
];
/// `st.param` and `st.param::func` are left out: in a kernel (`.entry`)
/// ptxas 12.9 crashes on them (a segmentation fault, no diagnostic) from
/// PTX 8.3 on; parameter stores only pass arguments of device functions.
const ST_OTHER_SPACES: &[&str] = &["shared", "shared::cta", "shared::cluster", "local"];
const HINT: &[&str] = &["L2::cache_hint"];
const ATOM_SEM: &[&str] = &["relaxed", "acquire", "release", "acq_rel"];
const ATOM_OPS: &[&str] = &[
    "and", "or", "xor", "exch", "add", "inc", "dec", "min", "max",
];
const ATOM_OPS_NO_EXCH: &[&str] = &["and", "or", "xor", "add", "inc", "dec", "min", "max"];
const ATOM_TYPES: &[&str] = &[
    "b32", "b64", "b128", "u32", "u64", "s32", "s64", "f32", "f64",
];
const RED_TYPES: &[&str] = &["b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"];
const F16_TYPES: &[&str] = &["f16", "f16x2"];
const BF16_TYPES: &[&str] = &["bf16", "bf16x2"];
/// Vector atomics (sm_90, PTX 8.1): `.vec_32_bit`, `.vec_16_bit`, the
/// `.half_word_type`s and `.packed_type`s, and their operations.
const VEC_32_BIT: &[&str] = &["v2", "v4"];
const VEC_16_BIT: &[&str] = &["v2", "v4", "v8"];
const HALF_WORD_TYPES: &[&str] = &["f16", "bf16"];
const PACKED_TYPES: &[&str] = &["f16x2", "bf16x2"];
const VECTOR_OPS: &[&str] = &["add", "min", "max"];
const RED_SEM: &[&str] = &["relaxed", "release"];
const L2_PRIORITY: &[&str] = &[
    "L2::evict_last",
    "L2::evict_normal",
    "L2::evict_first",
    "L2::evict_unchanged",
];

/// The forms of this family, in lookup order. The plain `ld`/`st` forms come
/// last among their mnemonic's: an incomplete opcode (`ld.global.v2`) is
/// explained by the last form that got furthest, so it names the missing type.
pub static FORMS: &[InstructionForm] = &[
    // ------------------------------------------------------------------ ld
    InstructionForm {
        id: "ld.cache-hint",
        mnemonic: "ld",
        slots: &[
            opt(Slot::Sem, &["weak"]),
            opt(Slot::Space, &["global"]),
            opt(Slot::Cop, LD_COP),
            opt(Slot::Nc, &["nc"]),
            opt(Slot::Evict, EVICT),
            slot(Slot::Hint, HINT),
            opt(Slot::Prefetch, PREFETCH_SIZE),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R), POLICY],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "load from global memory under an L2 cache policy (a 64-bit `createpolicy` value)",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ld.volatile",
        mnemonic: "ld",
        slots: &[
            slot(Slot::Sem, &["volatile"]),
            opt(Slot::Space, ORDERED_SPACES),
            opt(Slot::Prefetch, PREFETCH_SIZE),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "volatile load: not merged with or reordered against other volatile accesses",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ld.relaxed",
        mnemonic: "ld",
        slots: &[
            slot(Slot::Sem, &["relaxed", "acquire"]),
            slot(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            opt(Slot::Evict, EVICT),
            opt(Slot::Prefetch, PREFETCH_SIZE),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "strong (relaxed or acquire) load at a scope",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ld.relaxed.cache-hint",
        mnemonic: "ld",
        slots: &[
            slot(Slot::Sem, &["relaxed", "acquire"]),
            slot(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            opt(Slot::Evict, EVICT),
            slot(Slot::Hint, HINT),
            opt(Slot::Prefetch, PREFETCH_SIZE),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R), POLICY],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "strong (relaxed or acquire) load at a scope, under an L2 cache policy",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ld.mmio",
        mnemonic: "ld",
        slots: &[
            slot(Slot::Mmio, &["mmio"]),
            slot(Slot::Sem, &["relaxed"]),
            slot(Slot::Scope, &["sys"]),
            opt(Slot::Space, &["global"]),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[reg("d", W, TYPE), address("a", R)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "memory-mapped I/O load: performed exactly once, never cached or merged",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ld.state-space",
        mnemonic: "ld",
        slots: &[
            opt(Slot::Sem, &["weak"]),
            slot(Slot::Space, LD_OTHER_SPACES),
            opt(Slot::Cop, LD_COP),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "load from shared, local, const or param memory",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "ld",
        mnemonic: "ld",
        slots: &[
            opt(Slot::Sem, &["weak"]),
            opt(Slot::Space, &["global"]),
            opt(Slot::Cop, LD_COP),
            opt(Slot::Nc, &["nc"]),
            opt(Slot::Evict, EVICT),
            opt(Slot::Prefetch, PREFETCH_SIZE),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "load 1, 2 or 4 elements from global memory (or a generic address) into registers",
        effect: Effect::Load {
            non_coherent: false,
        },
        usable: Usability::Yes,
    },
    // ------------------------------------------------------------------ st
    InstructionForm {
        id: "st.cache-hint",
        mnemonic: "st",
        slots: &[
            opt(Slot::Sem, &["weak"]),
            opt(Slot::Space, &["global"]),
            opt(Slot::Cop, ST_COP),
            opt(Slot::Evict, EVICT),
            slot(Slot::Hint, HINT),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector), POLICY],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "store to global memory under an L2 cache policy (a 64-bit `createpolicy` value)",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "st.volatile",
        mnemonic: "st",
        slots: &[
            slot(Slot::Sem, &["volatile"]),
            opt(Slot::Space, ORDERED_SPACES),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "volatile store: not merged with or reordered against other volatile accesses",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "st.relaxed",
        mnemonic: "st",
        slots: &[
            slot(Slot::Sem, &["relaxed", "release"]),
            slot(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            opt(Slot::Evict, EVICT),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "strong (relaxed or release) store at a scope",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "st.relaxed.cache-hint",
        mnemonic: "st",
        slots: &[
            slot(Slot::Sem, &["relaxed", "release"]),
            slot(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            opt(Slot::Evict, EVICT),
            slot(Slot::Hint, HINT),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector), POLICY],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "strong (relaxed or release) store at a scope, under an L2 cache policy",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "st.mmio",
        mnemonic: "st",
        slots: &[
            slot(Slot::Mmio, &["mmio"]),
            slot(Slot::Sem, &["relaxed"]),
            slot(Slot::Scope, &["sys"]),
            opt(Slot::Space, &["global"]),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), reg("b", R, TYPE)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "memory-mapped I/O store: performed exactly once, never cached or merged",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "st.state-space",
        mnemonic: "st",
        slots: &[
            opt(Slot::Sem, &["weak"]),
            slot(Slot::Space, ST_OTHER_SPACES),
            opt(Slot::Cop, ST_COP),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "store to shared or local memory",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "st",
        mnemonic: "st",
        slots: &[
            opt(Slot::Sem, &["weak"]),
            opt(Slot::Space, &["global"]),
            opt(Slot::Cop, ST_COP),
            opt(Slot::Evict, EVICT),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "store 1, 2 or 4 registers to global memory (or a generic address)",
        effect: Effect::Store,
        usable: Usability::Yes,
    },
    // ----------------------------------------------------------------- ldu
    InstructionForm {
        id: "ldu",
        mnemonic: "ldu",
        slots: &[
            opt(Slot::Space, &["global"]),
            opt(Slot::Vec, VEC),
            slot(Slot::Type, LDST_TYPES),
        ],
        operands: &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rule: mem::access,
        requires: mem::access_requires,
        packing: Packing::None,
        summary: "load read-only data at an address common to the warp (one fetch, broadcast)",
        effect: Effect::Load { non_coherent: true },
        usable: Usability::Yes,
    },
    // ------------------------------------------------------------ prefetch
    InstructionForm {
        id: "prefetch",
        mnemonic: "prefetch",
        slots: &[
            opt(Slot::Space, &["global", "local"]),
            slot(Slot::Level, &["L1", "L2"]),
        ],
        operands: &[prefetched("a")],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "bring the cache line holding an address into the L1 or L2 cache",
        effect: Effect::Prefetch,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "prefetch.evict",
        mnemonic: "prefetch",
        slots: &[
            slot(Slot::Space, &["global"]),
            slot(Slot::Level, &["L2::evict_last", "L2::evict_normal"]),
        ],
        operands: &[prefetched("a")],
        rule: no_rule,
        requires: mem::l2_policy_requires,
        packing: Packing::None,
        summary: "prefetch a global cache line into L2 with an eviction priority",
        effect: Effect::Prefetch,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "prefetch.tensormap",
        mnemonic: "prefetch",
        slots: &[
            opt(Slot::Space, &["const", "param"]),
            slot(Slot::Level, &["tensormap"]),
        ],
        operands: &[prefetched("a")],
        rule: no_rule,
        requires: mem::tensormap_requires,
        packing: Packing::None,
        summary: "prefetch a tensor map (TMA descriptor) into the cache",
        effect: Effect::Prefetch,
        usable: Usability::NotYet("tensor maps (TMA descriptors)"),
    },
    InstructionForm {
        id: "prefetchu",
        mnemonic: "prefetchu",
        slots: &[slot(Slot::Level, &["L1"])],
        operands: &[prefetched("a")],
        rule: no_rule,
        requires: rules::baseline,
        packing: Packing::None,
        summary: "prefetch a line common to the warp into the uniform (L1) cache",
        effect: Effect::Prefetch,
        usable: Usability::Yes,
    },
    // ---------------------------------------------------------- atom / red
    InstructionForm {
        id: "atom",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, ATOM_OPS),
            slot(Slot::Type, ATOM_TYPES),
        ],
        operands: &[reg("d", W, TYPE).or_sink(), atomic("a"), reg("b", R, TYPE)],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "atomic read-modify-write: d = old [a]; [a] = op([a], b)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, ATOM_OPS),
            slot(Slot::Hint, HINT),
            slot(Slot::Type, ATOM_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE).or_sink(),
            atomic("a"),
            reg("b", R, TYPE),
            POLICY,
        ],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "atomic read-modify-write under an L2 cache policy",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.cas",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, &["cas"]),
            slot(Slot::Type, &["b16", "b32", "b64"]),
        ],
        operands: &[
            reg("d", W, TYPE).or_sink(),
            atomic("a"),
            reg("b", R, TYPE),
            reg("c", R, TYPE),
        ],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "compare and swap: d = old [a]; [a] = (old == b) ? c : old",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.cas.b128",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, &["cas"]),
            slot(Slot::Type, &["b128"]),
        ],
        operands: &[
            reg("d", W, TYPE).or_sink(),
            atomic("a"),
            reg("b", R, TYPE),
            reg("c", R, TYPE).no_imm(),
        ],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "128-bit compare and swap (ptxas 12.9 takes a literal for b but not for c)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.half",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Type, F16_TYPES),
        ],
        operands: &[reg("d", W, TYPE).or_sink(), atomic("a"), reg("b", R, TYPE)],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "atomic half-precision add (no flush to zero)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.bf16",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Type, BF16_TYPES),
        ],
        operands: &[reg("d", W, TYPE), atomic("a"), reg("b", R, TYPE)],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "atomic bf16 add (no flush to zero)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.half.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Type, F16_TYPES),
        ],
        operands: &[
            reg("d", W, TYPE).or_sink(),
            atomic("a"),
            reg("b", R, TYPE),
            POLICY,
        ],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "atomic half-precision add under an L2 cache policy",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.bf16.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Type, BF16_TYPES),
        ],
        operands: &[reg("d", W, TYPE), atomic("a"), reg("b", R, TYPE), POLICY],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "atomic bf16 add under an L2 cache policy",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    // ------------------------------------------------ vector atom (sm_90)
    InstructionForm {
        id: "atom.vector-f32",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["f32"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector).or_sink(),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add on .v2/.v4 f32: d = old [a]; [a] = op([a], b) per element",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-f32.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["f32"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector).or_sink(),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
            POLICY,
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add on .v2/.v4 f32 under an L2 cache policy: d = old [a]; [a] = op([a], b) per element",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-f16",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Vec, VEC_16_BIT),
            slot(Slot::Type, &["f16"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector).or_sink(),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4/.v8 f16 (no flush to zero): d = old [a]; [a] = op([a], b) per element",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-f16.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_16_BIT),
            slot(Slot::Type, &["f16"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector).or_sink(),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
            POLICY,
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4/.v8 f16 (no flush to zero) under an L2 cache policy: d = old [a]; [a] = op([a], b) per element",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-bf16",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Vec, VEC_16_BIT),
            slot(Slot::Type, &["bf16"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4/.v8 bf16: d = old [a]; [a] = op([a], b) per element (ptxas 12.9 takes no sink `_` for d)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-bf16.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_16_BIT),
            slot(Slot::Type, &["bf16"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
            POLICY,
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4/.v8 bf16 under an L2 cache policy: d = old [a]; [a] = op([a], b) per element (ptxas 12.9 takes no sink `_` for d)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-f16x2",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["f16x2"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector).or_sink(),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4 f16x2 pairs (no flush to zero): d = old [a]; [a] = op([a], b) per element",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-f16x2.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["f16x2"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector).or_sink(),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
            POLICY,
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4 f16x2 pairs (no flush to zero) under an L2 cache policy: d = old [a]; [a] = op([a], b) per element",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-bf16x2",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["bf16x2"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4 bf16x2 pairs: d = old [a]; [a] = op([a], b) per element (ptxas 12.9 takes no sink `_` for d)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "atom.vector-bf16x2.cache-hint",
        mnemonic: "atom",
        slots: &[
            opt(Slot::Sem, ATOM_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["bf16x2"]),
        ],
        operands: &[
            group("d", W, TYPE, Lanes::Vector),
            address("a", W),
            group("b", R, TYPE, Lanes::Vector),
            POLICY,
        ],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "atomic vector add, min or max on .v2/.v4 bf16x2 pairs under an L2 cache policy: d = old [a]; [a] = op([a], b) per element (ptxas 12.9 takes no sink `_` for d)",
        effect: Effect::Atomic { returns_old: true },
        usable: Usability::Yes,
    },
    // ------------------------------------------------------------------ red
    InstructionForm {
        id: "red",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, ATOM_OPS_NO_EXCH),
            slot(Slot::Type, RED_TYPES),
        ],
        operands: &[atomic("a"), reg("b", R, TYPE)],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "reduction into memory: [a] = op([a], b), no result",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.cache-hint",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, ATOM_OPS_NO_EXCH),
            slot(Slot::Hint, HINT),
            slot(Slot::Type, RED_TYPES),
        ],
        operands: &[atomic("a"), reg("b", R, TYPE), POLICY],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "reduction into memory under an L2 cache policy",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.half",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Type, F16_TYPES),
        ],
        operands: &[atomic("a"), reg("b", R, TYPE)],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "half-precision add reduction into memory (no flush to zero)",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.bf16",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, ORDERED_SPACES),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Type, BF16_TYPES),
        ],
        operands: &[atomic("a"), reg("b", R, TYPE)],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "bf16 add reduction into memory (no flush to zero)",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.half.cache-hint",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Type, F16_TYPES),
        ],
        operands: &[atomic("a"), reg("b", R, TYPE), POLICY],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "half-precision add reduction under an L2 cache policy",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    // -------------------------------------------------------- createpolicy
    InstructionForm {
        id: "red.bf16.cache-hint",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Type, BF16_TYPES),
        ],
        operands: &[atomic("a"), reg("b", R, TYPE), POLICY],
        rule: mem::atomic,
        requires: mem::atomic_requires,
        packing: Packing::None,
        summary: "bf16 add reduction under an L2 cache policy",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    // ------------------------------------------------- vector red (sm_90)
    InstructionForm {
        id: "red.vector-f32",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, RED_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["f32"]),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "vector add reduction into memory on f32 elements (.v2, .v4)",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.vector-f32.cache-hint",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, RED_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, &["f32"]),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector), POLICY],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "vector add reduction into memory on f32 elements (.v2, .v4) under an L2 cache policy",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.vector-half",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, RED_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Vec, VEC_16_BIT),
            slot(Slot::Type, HALF_WORD_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "vector add, min or max reduction into memory on f16 or bf16 elements (.v2, .v4, .v8; no flush to zero)",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.vector-half.cache-hint",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, RED_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_16_BIT),
            slot(Slot::Type, HALF_WORD_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector), POLICY],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "vector add, min or max reduction into memory on f16 or bf16 elements (.v2, .v4, .v8; no flush to zero) under an L2 cache policy",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.vector-packed",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, RED_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, PACKED_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "vector add, min or max reduction into memory on f16x2 or bf16x2 pairs (.v2, .v4; no flush to zero)",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "red.vector-packed.cache-hint",
        mnemonic: "red",
        slots: &[
            opt(Slot::Sem, RED_SEM),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, VECTOR_OPS),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Hint, HINT),
            slot(Slot::Vec, VEC_32_BIT),
            slot(Slot::Type, PACKED_TYPES),
        ],
        operands: &[address("a", W), group("b", R, TYPE, Lanes::Vector), POLICY],
        rule: no_rule,
        requires: mem::vector_atomic_requires,
        packing: Packing::None,
        summary: "vector add, min or max reduction into memory on f16x2 or bf16x2 pairs (.v2, .v4; no flush to zero) under an L2 cache policy",
        effect: Effect::Atomic { returns_old: false },
        usable: Usability::Yes,
    },
    // -------------------------------------------------------- createpolicy
    InstructionForm {
        id: "createpolicy.fractional",
        mnemonic: "createpolicy",
        slots: &[
            slot(Slot::Mode, &["fractional"]),
            slot(Slot::Primary, L2_PRIORITY),
            opt(Slot::Secondary, &["L2::evict_first", "L2::evict_unchanged"]),
            slot(Slot::Type, &["b64"]),
        ],
        operands: &[
            reg("policy", W, TYPE),
            reg("fraction", R, TypeRef::Fixed(PtxType::F32)),
        ],
        rule: no_rule,
        requires: mem::l2_policy_requires,
        packing: Packing::None,
        summary: "a cache policy: this fraction (0, 1] of accesses gets the primary priority",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "createpolicy.fractional-all",
        mnemonic: "createpolicy",
        slots: &[
            slot(Slot::Mode, &["fractional"]),
            slot(Slot::Primary, L2_PRIORITY),
            opt(Slot::Secondary, &["L2::evict_first", "L2::evict_unchanged"]),
            slot(Slot::Type, &["b64"]),
        ],
        operands: &[reg("policy", W, TYPE)],
        rule: no_rule,
        requires: mem::l2_policy_requires,
        packing: Packing::None,
        summary: "a cache policy giving every access the primary priority (fraction 1.0)",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
    InstructionForm {
        id: "createpolicy.range",
        mnemonic: "createpolicy",
        slots: &[
            slot(Slot::Mode, &["range"]),
            opt(Slot::Space, &["global"]),
            slot(Slot::Primary, L2_PRIORITY),
            opt(Slot::Secondary, &["L2::evict_first", "L2::evict_unchanged"]),
            slot(Slot::Type, &["b64"]),
        ],
        operands: &[
            reg("policy", W, TYPE),
            prefetched("a"),
            reg("primary_size", R, TypeRef::Fixed(PtxType::B32)),
            reg("total_size", R, TypeRef::Fixed(PtxType::B32)),
        ],
        rule: no_rule,
        requires: mem::l2_policy_requires,
        packing: Packing::None,
        summary: "a cache policy: primary priority for [a, a + primary_size), secondary for the rest of total_size",
        effect: Effect::Pure,
        usable: Usability::NotYet(
            "address ranges in bytes (the policy covers memory around an address, not one element)",
        ),
    },
    InstructionForm {
        id: "createpolicy.cvt",
        mnemonic: "createpolicy",
        slots: &[
            slot(Slot::Mode, &["cvt"]),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Type, &["b64"]),
        ],
        operands: &[
            reg("policy", W, TYPE),
            reg("access_property", R, TypeRef::Fixed(PtxType::B64)),
        ],
        rule: no_rule,
        requires: mem::l2_policy_requires,
        packing: Packing::None,
        summary: "convert a CUDA `cudaAccessProperty` value into a cache policy",
        effect: Effect::Pure,
        usable: Usability::Yes,
    },
];

/// The address of a cache line (`prefetch`, `createpolicy.range`): one byte
/// of any tensor, read.
const fn prefetched(name: &'static str) -> OperandSlot {
    let mut a = address(name, R);
    a.ty = TypeRef::Fixed(PtxType::B8);
    a.lanes = Lanes::Fixed(1);
    a
}

/// The memory operand of `atom`/`red`: one `type` element, read and written
/// (recorded as written).
const fn atomic(name: &'static str) -> OperandSlot {
    let mut a = address(name, W);
    a.lanes = Lanes::Fixed(1);
    a
}

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(FORMS.iter().find(|f| f.id == id).expect("form id")).len()
    }

    /// Element type x vector shapes within 128 bits (ISA 5.4.2): 15 scalar
    /// types (`.b8`..`.b128`, `.u8`..`.u64`, `.s8`..`.s64`, `.f32`, `.f64`),
    /// `.v2` of the 14 up to 64 bits, `.v4` of the 10 up to 32 bits.
    const VT: usize = 15 + 14 + 10;

    /// Exact legal-variant counts, transcribed from the ISA's syntax lines
    /// (ld/st/ldu 9.7.9.8-10, prefetch 9.7.9.15, atom/red 9.7.13.5-6,
    /// createpolicy 9.7.9.18), each narrowed where ptxas 12.9 is stricter
    /// (noted).
    #[test]
    fn variant_counts() {
        // ld{.weak}{.global}{.cop | .L1::evict_*}{.L2::NB}{.vec}.type: generic
        // and global each 2 x (1 + 5 cop + 5 evict) x 4 x VT; ld.global.nc
        // (no .weak) takes {-, .ca, .cg, .cs} or an evict: 9 x 4 x VT.
        assert_eq!(count("ld"), 2 * 2 * 11 * 4 * VT + 9 * 4 * VT);
        // The same line with .L2::cache_hint (and its policy operand).
        assert_eq!(count("ld.cache-hint"), 2 * 2 * 11 * 4 * VT + 9 * 4 * VT);
        // ld.volatile{.ss}{.L2::NB}{.vec}.type: prefetch sizes only on
        // generic/global; ptxas rejects .volatile on .local/.const/.param.
        assert_eq!(count("ld.volatile"), 2 * 4 * VT + 3 * VT);
        // ld.{relaxed,acquire}.scope{.ss}{.L1::evict_*}{.L2::NB}{.vec}.type:
        // the cache qualifiers only on generic/global, not on the 3 shared spellings.
        assert_eq!(count("ld.relaxed"), 2 * 4 * (2 * 6 * 4 * VT + 3 * VT));
        assert_eq!(count("ld.relaxed.cache-hint"), 2 * 4 * 2 * 6 * 4 * VT);
        // ld.mmio.relaxed.sys{.global}.type: no vectors.
        assert_eq!(count("ld.mmio"), 2 * 15);
        // ld{.weak}.ss{.cop}{.vec}.type over shared{,::cta,::cluster},
        // local, const, param{,::entry,::func}.
        assert_eq!(count("ld.state-space"), 2 * 8 * 6 * VT);
        // st{.weak}{.global}{.cop | .L1::evict_*}{.vec}.type, cop in wb/cg/cs/wt.
        assert_eq!(count("st"), 2 * 2 * (1 + 4 + 5) * VT);
        assert_eq!(count("st.cache-hint"), 2 * 2 * (1 + 4 + 5) * VT);
        // st.volatile{.ss}{.vec}.type over generic, global, 3 shared spellings.
        assert_eq!(count("st.volatile"), 5 * VT);
        // st.{relaxed,release}.scope{.ss}{.L1::evict_*}{.vec}.type.
        assert_eq!(count("st.relaxed"), 2 * 4 * (2 * 6 * VT + 3 * VT));
        assert_eq!(count("st.relaxed.cache-hint"), 2 * 4 * 2 * 6 * VT);
        assert_eq!(count("st.mmio"), 2 * 15);
        // st{.weak}.ss{.cop}{.vec}.type over shared x3 and local (st.param
        // left out: ptxas 12.9 crashes on it in a kernel).
        assert_eq!(count("st.state-space"), 2 * 4 * 5 * VT);
        // ldu{.global}{.vec}.type.
        assert_eq!(count("ldu"), 2 * VT);
        // prefetch{.global,.local}.{L1,L2}; prefetch.global.L2::evict_{last,normal};
        // prefetch{.const,.param}.tensormap; prefetchu.L1.
        assert_eq!(count("prefetch"), 3 * 2);
        assert_eq!(count("prefetch.evict"), 2);
        assert_eq!(count("prefetch.tensormap"), 3);
        assert_eq!(count("prefetchu"), 1);
        // atom{.sem}{.scope}{.space}.op.type: {-, 4 sems} x {-, 4 scopes} x
        // {generic, global, 3 shared} = 125 prefixes; op x type pairs:
        // and/or/xor x {b32, b64} 6, exch x {b32, b64, b128} 3,
        // add x {u32, s32, u64, f32, f64} 5, inc/dec x u32 2, min/max x {u32, s32, u64, s64} 8.
        let pairs = 6 + 3 + 5 + 2 + 8;
        assert_eq!(count("atom"), 125 * pairs);
        // With .L2::cache_hint: generic or global only.
        assert_eq!(count("atom.cache-hint"), 5 * 5 * 2 * pairs);
        // atom.cas.{b16, b32, b64} and .b128.
        assert_eq!(count("atom.cas"), 125 * 3);
        assert_eq!(count("atom.cas.b128"), 125);
        // atom.add.noftz.{f16, f16x2} / {bf16, bf16x2}, with and without cache hint.
        assert_eq!(count("atom.half"), 125 * 2);
        assert_eq!(count("atom.bf16"), 125 * 2);
        assert_eq!(count("atom.half.cache-hint"), 5 * 5 * 2 * 2);
        assert_eq!(count("atom.bf16.cache-hint"), 5 * 5 * 2 * 2);
        // red{.relaxed, .release}: 3 x 5 x 5 = 75 prefixes; the pairs without exch.
        assert_eq!(count("red"), 75 * (pairs - 3));
        assert_eq!(count("red.cache-hint"), 3 * 5 * 2 * (pairs - 3));
        assert_eq!(count("red.half"), 75 * 2);
        assert_eq!(count("red.bf16"), 75 * 2);
        assert_eq!(count("red.half.cache-hint"), 3 * 5 * 2 * 2);
        assert_eq!(count("red.bf16.cache-hint"), 3 * 5 * 2 * 2);
        // Vector atoms (sm_90, PTX 8.1): atom{.sem}{.scope}{.global} is
        // {-, 4 sems} x {-, 4 scopes} x {generic, global} = 50 prefixes.
        // atom{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.f32,
        // .vec_32_bit = {.v2, .v4}: 50 x 2.
        assert_eq!(count("atom.vector-f32"), 50 * 2);
        assert_eq!(count("atom.vector-f32.cache-hint"), 50 * 2);
        // atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type,
        // .op = {.add, .min, .max}, .vec_16_bit = {.v2, .v4, .v8},
        // .half_word_type = {.f16, .bf16}, one form per type (ptxas takes
        // `_` for d with .f16 but not .bf16): 50 x 3 x 3 each.
        for id in ["f16", "bf16"] {
            assert_eq!(count(&format!("atom.vector-{id}")), 50 * 3 * 3, "{id}");
            assert_eq!(count(&format!("atom.vector-{id}.cache-hint")), 50 * 3 * 3);
        }
        // atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type,
        // .packed_type = {.f16x2, .bf16x2}, one form per type: 50 x 3 x 2 each.
        for id in ["f16x2", "bf16x2"] {
            assert_eq!(count(&format!("atom.vector-{id}")), 50 * 3 * 2, "{id}");
            assert_eq!(count(&format!("atom.vector-{id}.cache-hint")), 50 * 3 * 2);
        }
        // The matching red lines (no d), red{.sem}{.scope}{.global} with
        // .sem = {.relaxed, .release}: 3 x 5 x 2 = 30 prefixes.
        assert_eq!(count("red.vector-f32"), 30 * 2);
        assert_eq!(count("red.vector-f32.cache-hint"), 30 * 2);
        assert_eq!(count("red.vector-half"), 30 * 3 * 3 * 2);
        assert_eq!(count("red.vector-half.cache-hint"), 30 * 3 * 3 * 2);
        assert_eq!(count("red.vector-packed"), 30 * 3 * 2 * 2);
        assert_eq!(count("red.vector-packed.cache-hint"), 30 * 3 * 2 * 2);
        // createpolicy.fractional.L2::primary{.L2::secondary}.b64: 4 x 3
        // (with and without the fraction operand); .range{.global}: 2 x 4 x 3.
        assert_eq!(count("createpolicy.fractional"), 4 * 3);
        assert_eq!(count("createpolicy.fractional-all"), 4 * 3);
        assert_eq!(count("createpolicy.range"), 2 * 4 * 3);
        assert_eq!(count("createpolicy.cvt"), 1);
    }
}
