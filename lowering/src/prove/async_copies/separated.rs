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
use std::cell::OnceCell;
use std::rc::Rc;

use crate::sym::{AtomId, Poly};

use super::super::races::{Digit, Separation};

/// An access's candidates per axis and its pinned digits.
pub(super) type SeparationParts = (Vec<Vec<Separation>>, Vec<(Digit, i128)>);

/// The search for one access's [`SeparationParts`], run at most once.
pub(super) struct SeparationSource<'c> {
    found: OnceCell<SeparationParts>,
    find: Box<dyn Fn() -> SeparationParts + 'c>,
}

impl<'c> SeparationSource<'c> {
    /// A source whose parts `find` computes when first read.
    pub(super) fn new(find: impl Fn() -> SeparationParts + 'c) -> Rc<SeparationSource<'c>> {
        Rc::new(SeparationSource {
            found: OnceCell::new(),
            find: Box::new(find),
        })
    }

    fn parts(&self) -> &SeparationParts {
        self.found.get_or_init(|| (self.find)())
    }
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
        let all = &self.source.parts().0;
        let Some(first) = self.stale_from else {
            return Cow::Borrowed(all);
        };
        let stale = |s: &Separation| {
            let stale = |p: &Poly| p.atoms().iter().any(|a| *a >= first);
            stale(&s.rank)
                || stale(&s.range)
                || stale(&s.offset)
                || s.period.as_ref().is_some_and(stale)
        };
        if !all.iter().flatten().any(stale) {
            return Cow::Borrowed(all);
        }
        Cow::Owned(
            all.iter()
                .map(|axis| axis.iter().filter(|s| !stale(s)).cloned().collect())
                .collect(),
        )
    }

    /// The digits the access pins to one value.
    pub(super) fn pinned(&self) -> &[(Digit, i128)] {
        &self.source.parts().1
    }
}

/// Equal exactly when the parts are: the same source with the same stale
/// atoms without the search, others by their parts.
impl PartialEq for Separated<'_> {
    fn eq(&self, other: &Self) -> bool {
        (Rc::ptr_eq(&self.source, &other.source) && self.stale_from == other.stale_from)
            || (self.pinned() == other.pinned() && self.candidates() == other.candidates())
    }
}

impl std::fmt::Debug for Separated<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Separated")
            .field("found", &self.source.found.get())
            .field("stale_from", &self.stale_from)
            .finish()
    }
}
