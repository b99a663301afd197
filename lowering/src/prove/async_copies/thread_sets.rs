//! Sets of a CTA's threads, by linear index: which threads issued a copy
//! or made an access, and which have acquired it through an mbarrier wait.
//!
//! The lock-step walk follows the CTA's threads together; where an `if` on
//! the thread's index splits them into roles (a producer warpgroup issuing
//! copies, consumer warpgroups waiting for them and multiplying), what one
//! role waited for is visible to that role only. The walk names such
//! groups of threads by the conditions on the thread in scope
//! ([`crate::prove::races::Threads::members`] enumerates the block); a set
//! it cannot enumerate (a condition that also names launch values) is
//! `None` where it is asked, and the walk then keeps its older, per-access
//! reasoning.

use std::rc::Rc;

/// A set of the block's threads (bit `l`: the thread of linear index `l`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct ThreadSet(Rc<[u64]>);

impl ThreadSet {
    /// The threads `members` lists, of a block of `threads`.
    pub(super) fn of(members: &[usize], threads: usize) -> ThreadSet {
        let mut words = vec![0u64; threads.div_ceil(64)];
        for &l in members {
            words[l / 64] |= 1 << (l % 64);
        }
        ThreadSet(words.into())
    }

    /// Every thread of a block of `threads`.
    pub(super) fn all(threads: usize) -> ThreadSet {
        ThreadSet::of(&(0..threads).collect::<Vec<_>>(), threads)
    }

    /// How many threads it holds.
    pub(super) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// Whether every thread of `self` is in `other`.
    pub(super) fn within(&self, other: &ThreadSet) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & !b == 0)
    }

    /// Whether no thread is in both.
    pub(super) fn disjoint(&self, other: &ThreadSet) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & b == 0)
    }

    pub(super) fn union(&self, other: &ThreadSet) -> ThreadSet {
        ThreadSet(
            self.0
                .iter()
                .zip(other.0.iter())
                .map(|(a, b)| a | b)
                .collect(),
        )
    }

    /// The whole warps (32 consecutive threads, a half of a word) that
    /// hold a thread of `self`, within `block` (every thread of the block).
    pub(super) fn warps(&self, block: &ThreadSet) -> ThreadSet {
        const LOW: u64 = 0xffff_ffff;
        ThreadSet(
            self.0
                .iter()
                .zip(block.0.iter())
                .map(|(w, b)| {
                    let low = if w & LOW != 0 { LOW } else { 0 };
                    let high = if w & !LOW != 0 { !LOW } else { 0 };
                    (low | high) & b
                })
                .collect(),
        )
    }

    /// Whether every warp that holds a thread of `self` holds one of
    /// `other` too.
    pub(super) fn warps_meet(&self, other: &ThreadSet) -> bool {
        const LOW: u64 = 0xffff_ffff;
        self.0
            .iter()
            .zip(other.0.iter())
            .all(|(a, b)| (a & LOW == 0 || b & LOW != 0) && (a & !LOW == 0 || b & !LOW != 0))
    }

    pub(super) fn intersection(&self, other: &ThreadSet) -> ThreadSet {
        ThreadSet(
            self.0
                .iter()
                .zip(other.0.iter())
                .map(|(a, b)| a & b)
                .collect(),
        )
    }
}

/// Threads that acquired something (an async copy's bytes, an access an
/// mbarrier phase released) through their own wait: empty where none did.
pub(super) fn acquire(acquired: &mut Option<ThreadSet>, waiters: &ThreadSet) {
    *acquired = Some(match acquired.take() {
        Some(known) => known.union(waiters),
        None => waiters.clone(),
    });
}

/// Whether `threads` (`None`: not known) all acquired it.
pub(super) fn acquired_by(acquired: &Option<ThreadSet>, threads: &Option<ThreadSet>) -> bool {
    match (acquired, threads) {
        (Some(acquired), Some(threads)) => threads.within(acquired),
        _ => false,
    }
}

/// Whether acquirers `mine` name no thread `theirs` do not (one version
/// of an item says no more than another).
pub(super) fn acquired_no_more(mine: &Option<ThreadSet>, theirs: &Option<ThreadSet>) -> bool {
    match (mine, theirs) {
        (None, _) => true,
        (Some(mine), Some(theirs)) => mine.within(theirs),
        (Some(_), None) => false,
    }
}

/// The acquirers of one item on two paths the same threads may take: the
/// threads that acquired it on both.
pub(super) fn join_acquired(a: &Option<ThreadSet>, b: &Option<ThreadSet>) -> Option<ThreadSet> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.intersection(b)).filter(|s| !s.is_empty()),
        _ => None,
    }
}

/// The acquirers of one item after the two arms of an `if` on the
/// thread's index: each arm's threads acquired what they acquired there
/// (both arms start from the same acquirers, and a path only adds to
/// them, so the union names no thread that did not acquire it).
pub(super) fn join_acquired_arms(
    a: &Option<ThreadSet>,
    b: &Option<ThreadSet>,
) -> Option<ThreadSet> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.union(b)),
        (Some(one), None) | (None, Some(one)) => Some(one.clone()),
        (None, None) => None,
    }
}

/// Per shared buffer, the threads of the kernel's statements that may
/// meet what an earlier access or copy left there (`None`: some such
/// statement runs on threads the walk cannot enumerate). Once the threads
/// that acquired an access or a copy include every thread that could meet
/// it later, nothing is left to follow: the walk drops it, as it drops
/// what every thread acquired.
#[derive(Debug, Clone, Default)]
pub(super) struct Meeters {
    /// Statements that access the buffer at all (against a copy's bytes).
    pub accessors: Option<ThreadSet>,
    /// Asynchronous copies into it (against any access).
    pub async_writers: Option<ThreadSet>,
    /// Every async-proxy access of it: copies into or out of it, `wgmma`
    /// matrix reads (against a generic write).
    pub async_accessors: Option<ThreadSet>,
    /// Generic-proxy writes (against a `wgmma`'s retired reads).
    pub generic_writers: Option<ThreadSet>,
    /// Arrivals on its objects (an mbarrier buffer: against other
    /// threads' waits, whose phase an arrival could run past).
    pub arrivers: Option<ThreadSet>,
}

/// Adds `threads` to a known set; one statement whose threads are unknown
/// makes it unknown for good.
pub(super) fn include(set: &mut Option<ThreadSet>, threads: &Option<ThreadSet>) {
    match (set.as_mut(), threads) {
        (Some(known), Some(threads)) => *known = known.union(threads),
        _ => *set = None,
    }
}

impl Meeters {
    /// No statement yet (every set empty, known).
    pub(super) fn empty(block: usize) -> Meeters {
        let none = ThreadSet::of(&[], block);
        Meeters {
            accessors: Some(none.clone()),
            async_writers: Some(none.clone()),
            async_accessors: Some(none.clone()),
            generic_writers: Some(none.clone()),
            arrivers: Some(none),
        }
    }
}

/// Whether the acquirers cover every thread of `meeters` (a known set).
pub(super) fn covers_all(acquired: &Option<ThreadSet>, meeters: &[&Option<ThreadSet>]) -> bool {
    let Some(acquired) = acquired else {
        return false;
    };
    meeters.iter().all(|m| match m {
        Some(m) => m.within(acquired),
        None => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_a_block_compare_by_their_threads() {
        let consumers = ThreadSet::of(&(0..256).collect::<Vec<_>>(), 384);
        let producer = ThreadSet::of(&[256], 384);
        let both = consumers.union(&producer);
        assert!(producer.disjoint(&consumers));
        assert!(producer.within(&both) && consumers.within(&both));
        assert!(!both.within(&consumers));
        assert!(consumers.intersection(&producer).is_empty());
        assert!(!ThreadSet::all(384).within(&both));
    }

    #[test]
    fn acquirers_join_by_path_and_by_arm() {
        let a = Some(ThreadSet::of(&[0, 1], 64));
        let b = Some(ThreadSet::of(&[1, 2], 64));
        // Two paths of the same threads: only what both acquired.
        assert_eq!(join_acquired(&a, &b), Some(ThreadSet::of(&[1], 64)));
        assert_eq!(join_acquired(&a, &None), None);
        // Two arms run by different threads: each arm's acquirers.
        assert_eq!(
            join_acquired_arms(&a, &b),
            Some(ThreadSet::of(&[0, 1, 2], 64))
        );
        assert_eq!(join_acquired_arms(&None, &b), b);
        assert!(acquired_by(&a, &Some(ThreadSet::of(&[1], 64))));
        assert!(!acquired_by(&a, &Some(ThreadSet::of(&[2], 64))));
        assert!(!acquired_by(&a, &None));
    }

    #[test]
    fn a_statement_on_unknown_threads_makes_the_meeters_unknown() {
        let mut set = Some(ThreadSet::of(&[], 64));
        include(&mut set, &Some(ThreadSet::of(&[3], 64)));
        assert_eq!(set, Some(ThreadSet::of(&[3], 64)));
        assert!(covers_all(&Some(ThreadSet::of(&[3, 4], 64)), &[&set]));
        include(&mut set, &None);
        assert_eq!(set, None);
        assert!(!covers_all(&Some(ThreadSet::all(64)), &[&set]));
    }

    /// A set's warps are the whole warps (clipped to the block) holding
    /// one of its threads; a warp-synced touch is released by a lane of
    /// each of its warps.
    #[test]
    fn warps_are_whole_and_meet_by_any_lane() {
        let block = ThreadSet::all(96);
        let lane = ThreadSet::of(&[64], 96);
        let warp = ThreadSet::of(&(64..96).collect::<Vec<_>>(), 96);
        assert_eq!(lane.warps(&block), warp);
        assert_eq!(warp.warps(&block), warp);
        let two = ThreadSet::of(&[3, 40], 96);
        assert_eq!(
            two.warps(&block),
            ThreadSet::of(&(0..64).collect::<Vec<_>>(), 96)
        );
        // A partial last warp stays inside the block.
        let small = ThreadSet::all(48);
        assert_eq!(
            ThreadSet::of(&[33], 48).warps(&small),
            ThreadSet::of(&(32..48).collect::<Vec<_>>(), 48)
        );
        assert!(warp.warps_meet(&lane));
        assert!(!two.warps_meet(&ThreadSet::of(&[5], 96)));
        assert!(two.warps_meet(&ThreadSet::of(&[5, 63], 96)));
    }
}
