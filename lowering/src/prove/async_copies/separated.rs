//! How a copy's or touch's access separates threads, found when first read.
//!
//! **Input**: the access's view and its `apply`'s facts. **Output**: its
//! candidate separations per axis ([`Threads::separations`]) and the digits
//! it pins ([`Threads::pinned_digits`]), exactly as computing them at the
//! access would give, with the candidates a back edge made stale dropped.
//!
//! The walk reads them only where another access may meet this one's bytes
//! (a copy after a touch of the same buffer, a retired copy's bytes read
//! before a barrier: `Walk::own_bytes`), and the separation search is most
//! of a large kernel's walk; a GEMM's `ldmatrix` touches and `cp.async`
//! copies are never compared. So the search runs at the first read, once
//! per access (the source is shared by every state that holds it).

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use crate::sym::{AtomId, Poly};

use super::super::races::{Digit, Separation};

/// An access's candidates per axis and its pinned digits.
pub(super) type SeparationParts = (Vec<Vec<Separation>>, Vec<(Digit, i128)>);

/// The search for one access's [`SeparationParts`], run at most once.
pub(super) struct SeparationSource<'c> {
    found: OnceCell<Rc<Found>>,
    find: Box<dyn Fn() -> SeparationParts + 'c>,
    interner: Rc<PartsInterner>,
}

/// The parts, and per candidate the newest (largest) atom it names
/// (`None`: none), which decides at which back edges it goes stale.
struct Found {
    parts: SeparationParts,
    newest: Vec<Vec<Option<AtomId>>>,
}

/// One [`Found`] per distinct parts among a walk's sources: the accesses
/// of unrolled iterations and of a kernel function's calls carry the same
/// span, and where their parts are equal the joins compare them by
/// pointer instead of polynomial by polynomial.
#[derive(Default)]
pub(super) struct PartsInterner {
    by_hash: RefCell<HashMap<u64, Vec<Rc<Found>>>>,
}

impl<'c> SeparationSource<'c> {
    /// A source whose parts `find` computes when first read, shared
    /// through `interner` with every source of equal parts.
    pub(super) fn new(
        interner: &Rc<PartsInterner>,
        find: impl Fn() -> SeparationParts + 'c,
    ) -> Rc<SeparationSource<'c>> {
        Rc::new(SeparationSource {
            found: OnceCell::new(),
            find: Box::new(find),
            interner: Rc::clone(interner),
        })
    }

    fn found(&self) -> &Rc<Found> {
        self.found.get_or_init(|| {
            let parts = (self.find)();
            let mut hasher = DefaultHasher::new();
            parts.hash(&mut hasher);
            let mut by_hash = self.interner.by_hash.borrow_mut();
            let bucket = by_hash.entry(hasher.finish()).or_default();
            if let Some(same) = bucket.iter().find(|f| f.parts == parts) {
                return Rc::clone(same);
            }
            let newest = parts
                .0
                .iter()
                .map(|axis| axis.iter().map(newest_atom).collect())
                .collect();
            let found = Rc::new(Found { parts, newest });
            bucket.push(Rc::clone(&found));
            found
        })
    }
}

/// The largest atom a separation names (in its rank, range, offset or
/// period), without collecting them.
fn newest_atom(s: &Separation) -> Option<AtomId> {
    let newest = |p: &Poly| p.terms().flat_map(|(m, _)| m.iter().copied()).max();
    [&s.rank, &s.range, &s.offset]
        .into_iter()
        .chain(s.period.as_ref())
        .filter_map(newest)
        .max()
}

/// Whether a candidate naming atoms up to `newest` is stale after back
/// edges that made the atoms from `stale_from` on stale.
fn stale(newest: Option<AtomId>, stale_from: Option<AtomId>) -> bool {
    matches!((newest, stale_from), (Some(n), Some(first)) if n >= first)
}

/// One access's separations as a copy or touch carries them: its source,
/// and the first atom of the innermost loop body whose back edge made the
/// candidates naming that body's atoms stale (dropping at every back edge
/// the candidates that name atoms from its body's first on leaves those
/// that name none from the smallest such atom on: what [`Self::candidates`]
/// keeps).
#[derive(Clone)]
pub(super) struct Separated<'c> {
    source: Rc<SeparationSource<'c>>,
    stale_from: Option<AtomId>,
}

impl<'c> Separated<'c> {
    /// The access's separations, none stale yet.
    pub(super) fn new(source: Rc<SeparationSource<'c>>) -> Separated<'c> {
        Separated {
            source,
            stale_from: None,
        }
    }

    /// After a back edge of the loop whose body's atoms start at `first`:
    /// the candidates that name them are dropped.
    pub(super) fn drop_stale(&mut self, first: AtomId) {
        self.stale_from = Some(self.stale_from.map_or(first, |f| f.min(first)));
    }

    /// The candidates per axis, without the stale ones.
    pub(super) fn candidates(&self) -> Cow<'_, [Vec<Separation>]> {
        let found = self.source.found();
        let all = &found.parts.0;
        if !found
            .newest
            .iter()
            .flatten()
            .any(|&n| stale(n, self.stale_from))
        {
            return Cow::Borrowed(all);
        }
        Cow::Owned(
            (0..all.len())
                .map(|axis| self.kept(axis).cloned().collect())
                .collect(),
        )
    }

    /// The candidates of axis `axis` that are not stale.
    fn kept(&self, axis: usize) -> impl Iterator<Item = &Separation> {
        let found = self.source.found();
        found.parts.0[axis]
            .iter()
            .zip(&found.newest[axis])
            .filter(|(_, n)| !stale(**n, self.stale_from))
            .map(|(s, _)| s)
    }

    /// The digits the access pins to one value.
    pub(super) fn pinned(&self) -> &[(Digit, i128)] {
        &self.source.found().parts.1
    }
}

/// Equal exactly when the parts are: the same source with the same stale
/// atoms without the search, others by their parts.
impl PartialEq for Separated<'_> {
    fn eq(&self, other: &Self) -> bool {
        if Rc::ptr_eq(&self.source, &other.source) && self.stale_from == other.stale_from {
            return true;
        }
        let (found, other_found) = (self.source.found(), other.source.found());
        if Rc::ptr_eq(found, other_found) {
            // The same parts: equal when every candidate is kept by both
            // or dropped by both.
            return found
                .newest
                .iter()
                .flatten()
                .all(|&n| stale(n, self.stale_from) == stale(n, other.stale_from));
        }
        // Other parts may still agree once the stale candidates are gone.
        let axes = found.parts.0.len();
        self.pinned() == other.pinned()
            && axes == other.source.found().parts.0.len()
            && (0..axes).all(|axis| self.kept(axis).eq(other.kept(axis)))
    }
}

impl std::fmt::Debug for Separated<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Separated")
            .field("found", &self.source.found.get().map(|f| &f.parts))
            .field("stale_from", &self.stale_from)
            .finish()
    }
}
