//! Asynchronous copies from global to shared memory: `cp.async` (4, 8 or
//! 16 bytes; `.ca` through L1, `.cg` around it for 16; an L2 prefetch
//! size; an L2 cache policy) and its groups (`cp.async.commit_group`,
//! `cp.async.wait_group`, `cp.async.wait_all`).
//!
//! A copy's destination bytes belong to it from issue until a wait retires
//! its group; `crate::prove::async_copies` proves no access meets them
//! earlier. The forms with `src-size` are chosen by `zero_fill = true`
//! (the compiler computes `src-size` from the source's bounds); the forms
//! with `ignore-src` are registered but not usable yet.

use super::*;
use crate::ptx::Slot;

const U32: TypeRef = TypeRef::Fixed(PtxType::U32);

const CP_ASYNC_CA: &[ModifierSlot] = &[
    slot(Slot::Cop, &["ca"]),
    slot(Slot::Space, &["shared", "shared::cta"]),
    slot(Slot::Src, &["global"]),
    opt(Slot::Prefetch, &["L2::64B", "L2::128B", "L2::256B"]),
];
const CP_ASYNC_16: &[ModifierSlot] = &[
    slot(Slot::Cop, &["ca", "cg"]),
    slot(Slot::Space, &["shared", "shared::cta"]),
    slot(Slot::Src, &["global"]),
    opt(Slot::Prefetch, &["L2::64B", "L2::128B", "L2::256B"]),
];
const CP_ASYNC_CA_HINT: &[ModifierSlot] = &[
    slot(Slot::Cop, &["ca"]),
    slot(Slot::Space, &["shared", "shared::cta"]),
    slot(Slot::Src, &["global"]),
    slot(Slot::Hint, &["L2::cache_hint"]),
    opt(Slot::Prefetch, &["L2::64B", "L2::128B", "L2::256B"]),
];
const CP_ASYNC_16_HINT: &[ModifierSlot] = &[
    slot(Slot::Cop, &["ca", "cg"]),
    slot(Slot::Space, &["shared", "shared::cta"]),
    slot(Slot::Src, &["global"]),
    slot(Slot::Hint, &["L2::cache_hint"]),
    opt(Slot::Prefetch, &["L2::64B", "L2::128B", "L2::256B"]),
];

/// `cp.async` with `ignore-src`: a predicate that zero-fills instead of
/// copying, which the bounds proof cannot take as a guard yet.
const PREDICATED_COPIES: Usability = Usability::NotYet(
    "an in-bounds proof that follows `ignore-src` (`zero_fill = true` on the form without it zero-fills past the tensor)",
);

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    form(
        "cp.async.4",
        "cp.async",
        CP_ASYNC_CA,
        &[
            addr("dst", W, PtxType::B32, 1),
            addr("src", R, PtxType::B32, 1),
            imm("cp-size", PtxType::U32, 4, 4),
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy 4 bytes from global to shared memory asynchronously",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.8",
        "cp.async",
        CP_ASYNC_CA,
        &[
            addr("dst", W, PtxType::B32, 2),
            addr("src", R, PtxType::B32, 2),
            imm("cp-size", PtxType::U32, 8, 8),
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy 8 bytes from global to shared memory asynchronously",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.16",
        "cp.async",
        CP_ASYNC_16,
        &[
            addr("dst", W, PtxType::B32, 4),
            addr("src", R, PtxType::B32, 4),
            imm("cp-size", PtxType::U32, 16, 16),
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy 16 bytes from global to shared memory asynchronously (.cg: bypassing L1)",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.4-src-size",
        "cp.async",
        CP_ASYNC_CA,
        &[
            addr("dst", W, PtxType::B32, 1),
            addr("src", R, PtxType::B32, 1),
            imm("cp-size", PtxType::U32, 4, 4),
            reg("src-size", R, U32),
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy the first src-size of 4 bytes asynchronously, zero-filling the rest",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.8-src-size",
        "cp.async",
        CP_ASYNC_CA,
        &[
            addr("dst", W, PtxType::B32, 2),
            addr("src", R, PtxType::B32, 2),
            imm("cp-size", PtxType::U32, 8, 8),
            reg("src-size", R, U32),
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy the first src-size of 8 bytes asynchronously, zero-filling the rest",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.16-src-size",
        "cp.async",
        CP_ASYNC_16,
        &[
            addr("dst", W, PtxType::B32, 4),
            addr("src", R, PtxType::B32, 4),
            imm("cp-size", PtxType::U32, 16, 16),
            reg("src-size", R, U32),
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy the first src-size of 16 bytes asynchronously, zero-filling the rest",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.4-ignore-src",
        "cp.async",
        CP_ASYNC_CA,
        &[
            addr("dst", W, PtxType::B32, 1),
            addr("src", R, PtxType::B32, 1),
            imm("cp-size", PtxType::U32, 4, 4),
            pred("ignore-src", R),
        ],
        no_rule,
        rules::registered::cp_async_ignore_src_requires,
        "copy 4 bytes asynchronously, or zero-fill them where ignore-src holds",
        PREDICATED_COPIES,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.8-ignore-src",
        "cp.async",
        CP_ASYNC_CA,
        &[
            addr("dst", W, PtxType::B32, 2),
            addr("src", R, PtxType::B32, 2),
            imm("cp-size", PtxType::U32, 8, 8),
            pred("ignore-src", R),
        ],
        no_rule,
        rules::registered::cp_async_ignore_src_requires,
        "copy 8 bytes asynchronously, or zero-fill them where ignore-src holds",
        PREDICATED_COPIES,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.16-ignore-src",
        "cp.async",
        CP_ASYNC_16,
        &[
            addr("dst", W, PtxType::B32, 4),
            addr("src", R, PtxType::B32, 4),
            imm("cp-size", PtxType::U32, 16, 16),
            pred("ignore-src", R),
        ],
        no_rule,
        rules::registered::cp_async_ignore_src_requires,
        "copy 16 bytes asynchronously, or zero-fill them where ignore-src holds",
        PREDICATED_COPIES,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.4.cache-hint",
        "cp.async",
        CP_ASYNC_CA_HINT,
        &[
            addr("dst", W, PtxType::B32, 1),
            addr("src", R, PtxType::B32, 1),
            imm("cp-size", PtxType::U32, 4, 4),
            POLICY,
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy 4 bytes from global to shared memory asynchronously under an L2 cache policy",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.4-src-size.cache-hint",
        "cp.async",
        CP_ASYNC_CA_HINT,
        &[
            addr("dst", W, PtxType::B32, 1),
            addr("src", R, PtxType::B32, 1),
            imm("cp-size", PtxType::U32, 4, 4),
            reg("src-size", R, U32),
            POLICY,
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy the first src-size of 4 bytes asynchronously under an L2 cache policy, zero-filling the rest",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.8.cache-hint",
        "cp.async",
        CP_ASYNC_CA_HINT,
        &[
            addr("dst", W, PtxType::B32, 2),
            addr("src", R, PtxType::B32, 2),
            imm("cp-size", PtxType::U32, 8, 8),
            POLICY,
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy 8 bytes from global to shared memory asynchronously under an L2 cache policy",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.8-src-size.cache-hint",
        "cp.async",
        CP_ASYNC_CA_HINT,
        &[
            addr("dst", W, PtxType::B32, 2),
            addr("src", R, PtxType::B32, 2),
            imm("cp-size", PtxType::U32, 8, 8),
            reg("src-size", R, U32),
            POLICY,
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy the first src-size of 8 bytes asynchronously under an L2 cache policy, zero-filling the rest",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.16.cache-hint",
        "cp.async",
        CP_ASYNC_16_HINT,
        &[
            addr("dst", W, PtxType::B32, 4),
            addr("src", R, PtxType::B32, 4),
            imm("cp-size", PtxType::U32, 16, 16),
            POLICY,
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy 16 bytes from global to shared memory asynchronously under an L2 cache policy",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.16-src-size.cache-hint",
        "cp.async",
        CP_ASYNC_16_HINT,
        &[
            addr("dst", W, PtxType::B32, 4),
            addr("src", R, PtxType::B32, 4),
            imm("cp-size", PtxType::U32, 16, 16),
            reg("src-size", R, U32),
            POLICY,
        ],
        no_rule,
        rules::registered::cp_async_requires,
        "copy the first src-size of 16 bytes asynchronously under an L2 cache policy, zero-filling the rest",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.commit_group",
        "cp.async.commit_group",
        &[],
        &[],
        no_rule,
        rules::registered::cp_async_group_requires,
        "close the thread's pending cp.async operations into a group",
        Usability::Yes,
        Effect::AsyncGroup,
    ),
    form(
        "cp.async.wait_group",
        "cp.async.wait_group",
        &[],
        // ptxas 12.9 takes any integer; the table caps it.
        &[imm("n", PtxType::U32, 0, 255)],
        no_rule,
        rules::registered::cp_async_group_requires,
        "wait until at most n of the thread's cp.async groups are pending",
        Usability::Yes,
        Effect::AsyncGroup,
    ),
    form(
        "cp.async.wait_all",
        "cp.async.wait_all",
        &[],
        &[],
        no_rule,
        rules::registered::cp_async_group_requires,
        "wait for all of the thread's cp.async operations",
        Usability::Yes,
        Effect::AsyncGroup,
    ),
];

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(FORMS.iter().find(|f| f.id == id).expect("form id")).len()
    }

    #[test]
    fn variant_counts() {
        // cp.async.ca.shared{::cta}.global{.L2::{64,128,256}B} [dst], [src], {4,8}{, src-size}: 2 x 4
        for id in [
            "cp.async.4",
            "cp.async.8",
            "cp.async.4-src-size",
            "cp.async.8-src-size",
        ] {
            assert_eq!(count(id), 8, "{id}");
        }
        // cp.async.{ca,cg}.shared{::cta}.global{.L2::{64,128,256}B} [dst], [src], 16{, src-size}
        assert_eq!(count("cp.async.16"), 16);
        assert_eq!(count("cp.async.16-src-size"), 16);
        // cp.async.ca.shared{::cta}.global{.L2::{64,128,256}B} [dst], [src], {4,8}, ignore-src
        assert_eq!(count("cp.async.4-ignore-src"), 8);
        assert_eq!(count("cp.async.8-ignore-src"), 8);
        // cp.async.{ca,cg}.shared{::cta}.global{.L2::{64,128,256}B} [dst], [src], 16, ignore-src
        assert_eq!(count("cp.async.16-ignore-src"), 16);
        // cp.async.ca.shared{::cta}.global.L2::cache_hint{.L2::{64,128,256}B}
        // [dst], [src], {4,8}{, src-size}, cache-policy: 2 x 4
        for id in [
            "cp.async.4.cache-hint",
            "cp.async.8.cache-hint",
            "cp.async.4-src-size.cache-hint",
            "cp.async.8-src-size.cache-hint",
        ] {
            assert_eq!(count(id), 8, "{id}");
        }
        // cp.async.{ca,cg}.shared{::cta}.global.L2::cache_hint{.L2::NB} [dst], [src], 16{, src-size}, cache-policy
        assert_eq!(count("cp.async.16.cache-hint"), 16);
        assert_eq!(count("cp.async.16-src-size.cache-hint"), 16);
        // cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all
        assert_eq!(count("cp.async.commit_group"), 1);
        assert_eq!(count("cp.async.wait_group"), 1);
        assert_eq!(count("cp.async.wait_all"), 1);
    }
}
