//! Warp-level collectives: registered and certified; usable once scopes exist.

use super::*;
use crate::ptx::Slot;

const B32: TypeRef = TypeRef::Fixed(PtxType::B32);

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    InstructionForm {
        id: "shfl.sync",
        mnemonic: "shfl.sync",
        slots: &[
            slot(Slot::Mode, &["up", "down", "bfly", "idx"]),
            slot(Slot::Type, &["b32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("b", R, B32),
            reg("c", R, B32),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::sync_collective_requires,
        packing: Packing::None,
        summary: "exchange a register between the lanes of a warp (lane b, offset b or xor b; c packs clamp and segment mask)",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "shfl.sync.pred",
        mnemonic: "shfl.sync",
        slots: &[
            slot(Slot::Mode, &["up", "down", "bfly", "idx"]),
            slot(Slot::Type, &["b32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            pred("p", W).after_pipe().or_sink(),
            reg("a", R, TYPE),
            reg("b", R, B32),
            reg("c", R, B32),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::sync_collective_requires,
        packing: Packing::None,
        summary: "shfl.sync, and p = whether the source lane was in range",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "vote.sync",
        mnemonic: "vote.sync",
        slots: &[
            slot(Slot::Mode, &["all", "any", "uni"]),
            slot(Slot::Type, &["pred"]),
        ],
        operands: &[pred("d", W), pred("a", R), reg("membermask", R, B32)],
        rule: no_rule,
        requires: rules::warp::sync_collective_requires,
        packing: Packing::None,
        summary: "whether a predicate holds in all, any, or all-or-none of the member lanes",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "vote.sync.ballot",
        mnemonic: "vote.sync",
        slots: &[slot(Slot::Mode, &["ballot"]), slot(Slot::Type, &["b32"])],
        operands: &[reg("d", W, TYPE), pred("a", R), reg("membermask", R, B32)],
        rule: no_rule,
        requires: rules::warp::sync_collective_requires,
        packing: Packing::None,
        summary: "a bit mask of the member lanes whose predicate is true (bit i = lane i)",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "match.sync",
        mnemonic: "match",
        slots: &[
            slot(Slot::Mode, &["any", "all"]),
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Type, &["b32", "b64"]),
        ],
        operands: &[
            reg("d", W, B32),
            reg("a", R, TYPE),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::match_requires,
        packing: Packing::None,
        summary: "the mask of member lanes holding the same value (.any), or all members if all agree, else 0 (.all)",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "match.sync.all-pred",
        mnemonic: "match",
        slots: &[
            slot(Slot::Mode, &["all"]),
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Type, &["b32", "b64"]),
        ],
        operands: &[
            reg("d", W, B32).or_sink(),
            pred("p", W).after_pipe().or_sink(),
            reg("a", R, TYPE),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::match_requires,
        packing: Packing::None,
        summary: "match.all.sync, and p = whether all member lanes agree",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "elect.sync",
        mnemonic: "elect.sync",
        slots: &[],
        operands: &[
            reg("d", W, B32).or_sink(),
            pred("p", W).after_pipe(),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::elect_requires,
        packing: Packing::None,
        summary: "elect one leader among the member lanes: d = its lane number, p = whether this lane is it",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "redux.sync",
        mnemonic: "redux.sync",
        slots: &[
            slot(Slot::Op, &["add", "min", "max"]),
            slot(Slot::Type, &["u32", "s32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::redux_requires,
        packing: Packing::None,
        summary: "sum, minimum or maximum of an integer over the member lanes",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "redux.sync.bitwise",
        mnemonic: "redux.sync",
        slots: &[
            slot(Slot::Op, &["and", "or", "xor"]),
            slot(Slot::Type, &["b32"]),
        ],
        operands: &[
            reg("d", W, TYPE),
            reg("a", R, TYPE),
            reg("membermask", R, B32),
        ],
        rule: no_rule,
        requires: rules::warp::redux_requires,
        packing: Packing::None,
        summary: "bitwise and, or or xor of a register over the member lanes",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "activemask",
        mnemonic: "activemask",
        slots: &[slot(Slot::Type, &["b32"])],
        operands: &[reg("d", W, TYPE)],
        rule: no_rule,
        requires: rules::warp::activemask_requires,
        packing: Packing::None,
        summary: "the mask of the warp's currently active lanes",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
    InstructionForm {
        id: "bar.warp.sync",
        mnemonic: "bar.warp.sync",
        slots: &[],
        operands: &[reg("membermask", R, B32)],
        rule: no_rule,
        requires: rules::warp::sync_collective_requires,
        packing: Packing::None,
        summary: "wait until every member lane has arrived (and order their memory accesses)",
        effect: Effect::Collective,
        usable: Usability::NeedsScope,
    },
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
        // shfl.sync.{up,down,bfly,idx}.b32 d, a, b, c, membermask
        assert_eq!(count("shfl.sync"), 4);
        // vote.sync.{all,any,uni}.pred d, {!}a, membermask
        assert_eq!(count("vote.sync"), 3);
        // vote.sync.ballot.b32 d, {!}a, membermask
        assert_eq!(count("vote.sync.ballot"), 1);
        // match.{any,all}.sync.{b32,b64} d, a, membermask
        assert_eq!(count("match.sync"), 4);
        // shfl.sync.{up,down,bfly,idx}.b32 d|p, a, b, c, membermask
        assert_eq!(count("shfl.sync.pred"), 4);
        // match.all.sync.{b32,b64} d|p, a, membermask
        assert_eq!(count("match.sync.all-pred"), 2);
        // elect.sync d|p, membermask
        assert_eq!(count("elect.sync"), 1);
        // redux.sync.{add,min,max}.{u32,s32} d, a, membermask
        assert_eq!(count("redux.sync"), 6);
        // redux.sync.{and,or,xor}.b32 d, a, membermask
        assert_eq!(count("redux.sync.bitwise"), 3);
        // activemask.b32 d
        assert_eq!(count("activemask"), 1);
        // bar.warp.sync membermask
        assert_eq!(count("bar.warp.sync"), 1);
    }
}
