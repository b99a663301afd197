//! Opcode strings: real table spellings, their tokens, and mutations.

use super::*;

/// Every legal spelling of the table, e.g. `cvt.rn.f16x2.f32`.
pub(crate) static OPCODES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut all: Vec<String> = FORMS
        .iter()
        .flat_map(legal_variants)
        .map(|m| m.opcode_text())
        .collect();
    all.sort();
    all.dedup();
    all
});

pub(crate) const TOKENS: &[&str] = &[
    "cvt",
    "ld",
    "st",
    "mov",
    "add",
    "sub",
    "mul",
    "mad",
    "fma",
    "min",
    "max",
    "neg",
    "abs",
    "global",
    "rn",
    "rz",
    "rm",
    "rp",
    "rni",
    "sat",
    "satfinite",
    "relu",
    "ftz",
    "f16x2",
    "bf16x2",
    "e4m3x2",
    "e5m2x2",
    "f32",
    "f16",
    "bf16",
    "f64",
    "u8",
    "u16",
    "u32",
    "u64",
    "s8",
    "s32",
    "b8",
    "b16",
    "b32",
    "b64",
    "v2",
    "v4",
    "v8",
    "nc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "L1::evict_last",
    "L2::128B",
    "wide",
    "lo",
    "hi",
    "tf32",
    "rna",
    "NaN",
    "xorsign",
    "",
    "x",
    "é",
    "数",
    "\u{0}",
    "..",
    "global.global",
    "sync",
    "shfl",
    "bfly",
    "idx",
    "redux",
    "vote",
    "ballot",
    "activemask",
    "bar",
    "barrier",
    "aligned",
    "red",
    "popc",
    "pred",
    "atom",
    "shared",
    "shared::cta",
    "cta",
    "warp",
];

/// Collectives, barriers and `.shared` forms: a small share of the table,
/// so real spellings rarely pick them on their own.
pub(crate) const SCOPED_OPCODES: &[&str] = &[
    "redux.sync.max.u32",
    "redux.sync.add.s32",
    "shfl.sync.bfly.b32",
    "shfl.sync.idx.b32",
    "shfl.sync.up.b32",
    "vote.sync.ballot.b32",
    "vote.sync.any.pred",
    "activemask.b32",
    "match.any.sync.b32",
    "elect.sync",
    "bar.warp.sync",
    "bar.sync",
    "barrier.sync.aligned",
    "bar.red.popc.u32",
    "bar.red.or.pred",
    "bar.arrive",
    "ld.shared.u32",
    "ld.shared::cta.v4.f32",
    "st.shared.u32",
    "atom.shared.add.u32",
    "atom.shared.add.f64",
    "red.shared.add.f32",
];

pub(crate) fn opcode() -> impl Strategy<Value = String> {
    let tokens =
        prop::collection::vec(prop::sample::select(TOKENS), 1..8).prop_map(|t| t.join("."));
    let real = prop::sample::select(OPCODES.clone());
    // A real spelling with one token dropped, repeated or replaced.
    let mutated = (
        prop::sample::select(OPCODES.clone()),
        any::<prop::sample::Index>(),
        prop::sample::select(TOKENS),
        0..3u8,
    )
        .prop_map(|(text, at, token, how)| {
            let mut parts: Vec<&str> = text.split('.').collect();
            let i = at.index(parts.len());
            match how {
                0 => {
                    parts.remove(i);
                }
                1 => parts.insert(i, parts[i]),
                _ => parts[i] = token,
            }
            parts.join(".")
        });
    let scoped = prop::sample::select(SCOPED_OPCODES).prop_map(str::to_string);
    prop_oneof![2 => tokens, 2 => real, 2 => mutated, 1 => scoped, 1 => any::<String>()]
}
