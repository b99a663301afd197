//! Symbolic integers: the value language of runtime indices.
//!
//! Every runtime integer the checker reasons about is a [`Poly`]: an integer
//! polynomial over [`Atom`]s (opaque runtime values such as `thread_id(0)`,
//! a symbol `N`, a loop variable or the result of `min`/`/`/`%`). Each atom
//! has a proven inclusive range. Polynomials give exact cancellation
//! (`(base + 8) - base == 8`), which is how slice extents are proven constant,
//! and the [`Prover`] discharges `p <= 0` obligations from atom ranges and
//! from the facts of enclosing conditions and loops.
//!
//! Guarantee: [`Prover::prove_le0`] returns `true` only if `p <= 0` holds for
//! every value of the atoms inside their ranges that satisfies the facts.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Index of an atom in an [`Atoms`] table.
pub type AtomId = u32;

/// Largest magnitude any runtime index value may reach: emitted arithmetic is
/// 64-bit signed, and every intermediate is bounded by the sum of the
/// magnitudes of the monomials.
pub const INDEX_LIMIT: i128 = (1i128 << 62) - 1;

/// An integer polynomial: monomial (sorted atom list; empty = constant) ->
/// coefficient. Zero coefficients are never stored.
///
/// A constant (zero included) is stored inline: most polynomials the
/// checker builds are constants (register tiles' shapes, strides and
/// offsets, unrolled loops' indices), and arithmetic on them allocates
/// nothing. Any other polynomial keeps its terms sorted by monomial in one
/// vector, each monomial's atoms a range of a second vector, both behind
/// one shared pointer: cloning and dropping it (what the checker and the
/// prover do most, at opt-level 0 too) is a reference count, and building
/// one is at most three allocations whatever its terms. Equality, order
/// and hashing are those of the monomial -> coefficient map (in monomial
/// order), whatever the layout.
///
/// Serialized as its term map; deserializing restores the invariants (each
/// monomial sorted, like monomials merged, zero coefficients dropped, a
/// constant inline), so a decoded polynomial is equal to the one encoded.
#[derive(Clone, Deserialize)]
#[serde(from = "PolyTerms")]
pub struct Poly {
    repr: Repr,
}

/// How a [`Poly`] is stored. Canonical: a polynomial equal to a constant
/// is always [`Repr::Const`], so [`Repr::Terms`] has a term with atoms.
#[derive(Clone)]
enum Repr {
    /// A constant, 0 included.
    Const(i128),
    /// Shared between clones (a polynomial is cloned far more often than
    /// changed: into facts, layouts, bindings and the proofs' states), and
    /// copied by the clone that changes it ([`Arc::make_mut`]). An `Arc`:
    /// a kernel's program, polynomials included, is shared between the
    /// interpreter's threads.
    Terms(Arc<PolyBody>),
}

impl Default for Poly {
    fn default() -> Poly {
        Poly::constant(0)
    }
}

/// A [`Poly`]'s terms.
#[derive(Clone, Default)]
struct PolyBody {
    /// Sorted by monomial, each monomial once.
    terms: Vec<Term>,
    /// The monomials' atoms (`Term::start`, `Term::len`); atoms of removed
    /// terms may remain.
    atoms: Vec<AtomId>,
}

/// One term of a [`Poly`]: its monomial's atoms in `Poly::atoms`.
#[derive(Clone, Copy)]
struct Term {
    start: u32,
    len: u32,
    coef: i128,
}

/// [`Poly`]'s serialized form, before its invariants are restored.
#[derive(Deserialize)]
struct PolyTerms {
    terms: BTreeMap<Vec<AtomId>, i128>,
}

impl From<PolyTerms> for Poly {
    fn from(raw: PolyTerms) -> Poly {
        let mut body = PolyBody::default();
        for (mut monomial, coef) in raw.terms {
            monomial.sort_unstable();
            body.add_term(&monomial, coef);
        }
        body.into()
    }
}

impl Serialize for Poly {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        /// The term map, serialized as a `BTreeMap<Vec<AtomId>, i128>`.
        struct Terms<'a>(&'a Poly);
        impl Serialize for Terms<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.terms())
            }
        }
        let mut state = serializer.serialize_struct("Poly", 1)?;
        state.serialize_field("terms", &Terms(self))?;
        state.end()
    }
}

impl PartialEq for Poly {
    /// Term by term over the two vectors (the checker compares fact sets,
    /// which are polynomials, at every cached proof).
    fn eq(&self, other: &Poly) -> bool {
        // Canonical forms: a constant never equals a polynomial with atoms.
        let (mine, theirs) = match (&self.repr, &other.repr) {
            (Repr::Const(a), Repr::Const(b)) => return a == b,
            (Repr::Terms(a), Repr::Terms(b)) => {
                if Arc::ptr_eq(a, b) {
                    return true;
                }
                (&**a, &**b)
            }
            _ => return false,
        };
        if mine.terms.len() != theirs.terms.len() {
            return false;
        }
        for i in 0..mine.terms.len() {
            let (a, b) = (&mine.terms[i], &theirs.terms[i]);
            if a.coef != b.coef || mine.monomial(a) != theirs.monomial(b) {
                return false;
            }
        }
        true
    }
}

impl Eq for Poly {}

impl PartialOrd for Poly {
    fn partial_cmp(&self, other: &Poly) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Poly {
    fn cmp(&self, other: &Poly) -> std::cmp::Ordering {
        self.terms().cmp(other.terms())
    }
}

impl std::hash::Hash for Poly {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // A constant hashes as the term list it stands for.
        let body = match &self.repr {
            Repr::Const(0) => {
                state.write_usize(0);
                return;
            }
            Repr::Const(value) => {
                state.write_usize(1);
                state.write_usize(0);
                state.write_i128(*value);
                return;
            }
            Repr::Terms(body) => &**body,
        };
        state.write_usize(body.terms.len());
        for term in &body.terms {
            state.write_usize(term.len as usize);
            for &atom in body.monomial(term) {
                state.write_u32(atom);
            }
            state.write_i128(term.coef);
        }
    }
}

/// A multiply-rotate hasher over whole words, for the checker's maps
/// ([`WordMap`]): the [`CachedProver`]'s polynomials, the fact sets of the
/// proofs about threads, the emitter's values. SipHash's rounds were most
/// of a lookup at opt-level 0.
#[derive(Default)]
pub(crate) struct WordHasher(u64);

pub(crate) use crate::word_map::WordMap;

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // A word at a time (names, opcodes), then the bytes left over.
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut le = [0; 8];
            le.copy_from_slice(word);
            self.write_u64(u64::from_le_bytes(le));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, word: u32) {
        self.write_u64(u64::from(word));
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn write_i128(&mut self, word: i128) {
        self.write_u64(word as u64);
        self.write_u64((word >> 64) as u64);
    }
}

/// The terms of a polynomial being built or changed.
impl PolyBody {
    /// An empty polynomial with room for `terms` terms and `atoms` atoms.
    fn with_capacity(terms: usize, atoms: usize) -> PolyBody {
        PolyBody {
            terms: Vec::with_capacity(terms),
            atoms: Vec::with_capacity(atoms),
        }
    }

    /// The atoms of `term`'s monomial.
    fn monomial(&self, term: &Term) -> &[AtomId] {
        &self.atoms[term.start as usize..(term.start + term.len) as usize]
    }

    /// The value, if the terms are a constant's (none, or one without
    /// atoms): what [`Poly`] stores inline.
    fn constant_value(&self) -> Option<i128> {
        match self.terms.as_slice() {
            [] => Some(0),
            [term] if term.len == 0 => Some(term.coef),
            _ => None,
        }
    }

    /// Appends a term whose monomial sorts after every present one.
    fn push_term(&mut self, monomial: &[AtomId], coef: i128) {
        let term = self.new_term(monomial, coef);
        self.terms.push(term);
    }

    /// A term for `monomial`, its atoms stored.
    fn new_term(&mut self, monomial: &[AtomId], coef: i128) -> Term {
        let start = self.atoms.len();
        self.atoms.extend_from_slice(monomial);
        Term {
            start: start as u32,
            len: monomial.len() as u32,
            coef,
        }
    }

    /// Adds `coef * monomial` (saturating; a sum of 0 removes the term).
    fn add_term(&mut self, monomial: &[AtomId], coef: i128) {
        // Monomials mostly arrive in order: try the end first.
        let at = match self.terms.last() {
            None => Err(0),
            Some(last) => match self.monomial(last).cmp(monomial) {
                std::cmp::Ordering::Less => Err(self.terms.len()),
                std::cmp::Ordering::Equal => Ok(self.terms.len() - 1),
                std::cmp::Ordering::Greater => self
                    .terms
                    .binary_search_by(|t| self.monomial(t).cmp(monomial)),
            },
        };
        match at {
            Ok(i) => {
                let sum = self.terms[i].coef.saturating_add(coef);
                if sum == 0 {
                    self.terms.remove(i);
                } else {
                    self.terms[i].coef = sum;
                }
            }
            Err(i) => {
                if coef != 0 {
                    let term = self.new_term(monomial, coef);
                    self.terms.insert(i, term);
                }
            }
        }
    }
}

impl From<PolyBody> for Poly {
    /// The canonical polynomial of `body`'s terms: inline if a constant.
    fn from(body: PolyBody) -> Poly {
        let repr = match body.constant_value() {
            Some(value) => Repr::Const(value),
            None => Repr::Terms(Arc::new(body)),
        };
        Poly { repr }
    }
}

/// The terms of a [`Poly`] in monomial order: `(monomial, coefficient)`.
pub struct Terms<'a> {
    /// A constant polynomial's one term, not yet returned.
    constant: Option<i128>,
    terms: std::slice::Iter<'a, Term>,
    atoms: &'a [AtomId],
}

impl<'a> Iterator for Terms<'a> {
    type Item = (&'a [AtomId], i128);

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(value) = self.constant.take() {
            return Some((&[], value));
        }
        let term = self.terms.next()?;
        Some((
            &self.atoms[term.start as usize..(term.start + term.len) as usize],
            term.coef,
        ))
    }

    /// Exact: serializing a polynomial's term map needs its length.
    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = usize::from(self.constant.is_some()) + self.terms.len();
        (len, Some(len))
    }
}

impl ExactSizeIterator for Terms<'_> {}

impl Poly {
    pub const fn constant(value: i128) -> Poly {
        Poly {
            repr: Repr::Const(value),
        }
    }

    pub fn atom(atom: AtomId) -> Poly {
        let mut body = PolyBody::default();
        body.push_term(&[atom], 1);
        body.into()
    }

    /// Applies `change` to this polynomial's own copy of its terms (a
    /// constant's as one term), then restores the canonical form.
    fn change(&mut self, change: impl FnOnce(&mut PolyBody)) {
        match &mut self.repr {
            Repr::Terms(shared) => {
                let body = Arc::make_mut(shared);
                change(body);
                if let Some(value) = body.constant_value() {
                    self.repr = Repr::Const(value);
                }
            }
            Repr::Const(value) => {
                let mut body = PolyBody::default();
                if *value != 0 {
                    body.push_term(&[], *value);
                }
                change(&mut body);
                *self = body.into();
            }
        }
    }

    /// The non-constant polynomial's terms; `None` for a constant.
    fn body(&self) -> Option<&PolyBody> {
        match &self.repr {
            Repr::Const(_) => None,
            Repr::Terms(body) => Some(body),
        }
    }

    /// The value, if the polynomial is a constant.
    pub fn as_const(&self) -> Option<i128> {
        match self.repr {
            Repr::Const(value) => Some(value),
            Repr::Terms(_) => None,
        }
    }

    pub fn is_const(&self) -> bool {
        self.as_const().is_some()
    }

    /// The constant term.
    pub fn constant_term(&self) -> i128 {
        match &self.repr {
            Repr::Const(value) => *value,
            Repr::Terms(body) => match body.terms.first() {
                Some(term) if term.len == 0 => term.coef,
                _ => 0,
            },
        }
    }

    /// Whether `self - other` is a constant: the same terms, but for the
    /// constant term.
    fn differs_by_constant(&self, other: &Poly) -> bool {
        let (mine, theirs) = match (self.body(), other.body()) {
            (None, None) => return true,
            (Some(mine), Some(theirs)) => (mine, theirs),
            // One has atoms, the other none.
            _ => return false,
        };
        let variable_terms = |p: &PolyBody| {
            let constant = p.terms.first().is_some_and(|t| t.len == 0);
            usize::from(constant)..p.terms.len()
        };
        let (i, j) = (variable_terms(mine), variable_terms(theirs));
        i.len() == j.len()
            && i.zip(j).all(|(i, j)| {
                let (a, b) = (&mine.terms[i], &theirs.terms[j]);
                a.coef == b.coef && mine.monomial(a) == theirs.monomial(b)
            })
    }

    /// The polynomial without its constant term.
    pub fn without_constant(&self) -> Poly {
        match &self.repr {
            Repr::Const(_) => Poly::constant(0),
            Repr::Terms(body) if body.terms.first().is_some_and(|t| t.len == 0) => {
                let mut p = self.clone();
                p.change(|body| {
                    body.terms.remove(0);
                });
                p
            }
            Repr::Terms(_) => self.clone(),
        }
    }

    /// `(monomial, coefficient)` pairs, constant first.
    pub fn terms(&self) -> Terms<'_> {
        match &self.repr {
            Repr::Const(value) => Terms {
                constant: (*value != 0).then_some(*value),
                terms: [].iter(),
                atoms: &[],
            },
            Repr::Terms(body) => Terms {
                constant: None,
                terms: body.terms.iter(),
                atoms: &body.atoms,
            },
        }
    }

    /// The number of terms.
    fn len(&self) -> usize {
        match &self.repr {
            Repr::Const(0) => 0,
            Repr::Const(_) => 1,
            Repr::Terms(body) => body.terms.len(),
        }
    }

    /// Every atom that occurs.
    pub fn atoms(&self) -> Vec<AtomId> {
        let mut out: Vec<AtomId> = self.terms().flat_map(|(m, _)| m).copied().collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Adds `coef * monomial` (saturating; a sum of 0 removes the term).
    #[cfg(test)]
    fn add_term(&mut self, monomial: &[AtomId], coef: i128) {
        self.change(|body| body.add_term(monomial, coef));
    }

    pub fn contains(&self, atom: AtomId) -> bool {
        self.terms().any(|(m, _)| m.contains(&atom))
    }

    /// `self + sign * other` (each of `other`'s coefficients times `sign`,
    /// saturating), by one merge of the sorted terms: what adding each of
    /// `other`'s terms in turn gives.
    fn merge(&self, other: &Poly, sign: i128) -> Poly {
        // A constant on either side changes only the other's constant term
        // (the same saturating sums as the merge below).
        let (mine, theirs) = match (&self.repr, &other.repr) {
            (Repr::Const(a), Repr::Const(b)) => {
                return Poly::constant(a.saturating_add(b.saturating_mul(sign)));
            }
            (Repr::Terms(_), Repr::Const(b)) => return self.add_const(b.saturating_mul(sign)),
            (Repr::Const(a), Repr::Terms(_)) => {
                // The scaled copy is this call's own: changed in place.
                let mut out = other.scale(sign);
                out.change(|body| body.add_term(&[], *a));
                return out;
            }
            (Repr::Terms(mine), Repr::Terms(theirs)) => (&**mine, &**theirs),
        };
        let mut out = PolyBody::with_capacity(
            mine.terms.len() + theirs.terms.len(),
            mine.atoms.len() + theirs.atoms.len(),
        );
        let (mut i, mut j) = (0, 0);
        while i < mine.terms.len() || j < theirs.terms.len() {
            let order = match (mine.terms.get(i), theirs.terms.get(j)) {
                (Some(a), Some(b)) => mine.monomial(a).cmp(theirs.monomial(b)),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match order {
                std::cmp::Ordering::Less => {
                    let a = &mine.terms[i];
                    out.push_term(mine.monomial(a), a.coef);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    let b = &theirs.terms[j];
                    let coef = b.coef.saturating_mul(sign);
                    if coef != 0 {
                        out.push_term(theirs.monomial(b), coef);
                    }
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let (a, b) = (&mine.terms[i], &theirs.terms[j]);
                    let sum = a.coef.saturating_add(b.coef.saturating_mul(sign));
                    if sum != 0 {
                        out.push_term(mine.monomial(a), sum);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        out.into()
    }

    pub fn add(&self, other: &Poly) -> Poly {
        self.merge(other, 1)
    }

    pub fn sub(&self, other: &Poly) -> Poly {
        // `self.add(&other.scale(-1))` without building the negation.
        self.merge(other, -1)
    }

    pub fn scale(&self, factor: i128) -> Poly {
        if factor == 0 {
            return Poly::default();
        }
        if let Repr::Const(value) = self.repr {
            return Poly::constant(value.saturating_mul(factor));
        }
        let mut out = self.clone();
        // Nonzero times nonzero saturates to nonzero: no term vanishes.
        out.change(|body| {
            for term in &mut body.terms {
                term.coef = term.coef.saturating_mul(factor);
            }
        });
        out
    }

    pub fn mul(&self, other: &Poly) -> Poly {
        // A constant factor scales each term (the same saturating products
        // in the same order; strides and extents are mostly constants).
        match (self.as_const(), other.as_const()) {
            (Some(a), Some(b)) => return Poly::constant(a.saturating_mul(b)),
            (Some(a), None) => return other.scale(a),
            (None, Some(b)) => return self.scale(b),
            (None, None) => {}
        }
        let mut out = PolyBody::default();
        let mut m: Vec<AtomId> = Vec::new();
        for (m1, c1) in self.terms() {
            for (m2, c2) in other.terms() {
                m.clear();
                m.extend_from_slice(m1);
                m.extend_from_slice(m2);
                m.sort_unstable();
                out.add_term(&m, c1.saturating_mul(c2));
            }
        }
        out.into()
    }

    pub fn add_const(&self, value: i128) -> Poly {
        if let Repr::Const(constant) = self.repr {
            return Poly::constant(constant.saturating_add(value));
        }
        if value == 0 {
            return self.clone();
        }
        let mut out = self.clone();
        out.change(|body| body.add_term(&[], value));
        out
    }

    /// The polynomial with every occurrence of `atom` replaced by `by`.
    pub fn substitute(&self, atom: AtomId, by: &Poly) -> Poly {
        if !self.contains(atom) {
            return self.clone();
        }
        let mut out = Poly::default();
        for (monomial, coef) in self.terms() {
            let mut term = Poly::constant(coef);
            for a in monomial {
                term = if *a == atom {
                    term.mul(by)
                } else {
                    term.mul(&Poly::atom(*a))
                };
            }
            out = out.add(&term);
        }
        out
    }

    /// [`Poly::substitute`] by a constant, without the products and sums
    /// of polynomials (an unrolled iteration's copy of a statement checked
    /// once in its loop variable).
    pub fn substitute_value(&self, atom: AtomId, value: i128) -> Poly {
        let Some(body) = self.body() else {
            return self.clone();
        };
        if !self.contains(atom) {
            return self.clone();
        }
        let mut out = PolyBody::with_capacity(body.terms.len(), body.atoms.len());
        let mut rest: Vec<AtomId> = Vec::with_capacity(4);
        for (monomial, coef) in self.terms() {
            rest.clear();
            let mut coef = coef;
            for a in monomial {
                if *a == atom {
                    coef = coef.saturating_mul(value);
                } else {
                    rest.push(*a);
                }
            }
            out.add_term(&rest, coef);
        }
        out.into()
    }

    /// The polynomial's value with every atom replaced by `value(atom)`,
    /// when no arithmetic on the way can overflow: `None` where the bound
    /// `sum |coef| * prod max(|value|, 1)` (over each term, each atom
    /// occurrence a factor) leaves `i128`.
    ///
    /// Under that bound every partial product of a term and every sum of
    /// such products has magnitude at most the bound, so substituting the
    /// atoms one at a time ([`Poly::substitute`] with constants, in any
    /// order, then [`Poly::as_const`]) never saturates either and gives
    /// this same exact value: a caller may use this first and fall back
    /// to the substitutions on `None` without changing any answer.
    pub(crate) fn value_at(&self, value: impl Fn(AtomId) -> i128) -> Option<i128> {
        let mut bound: i128 = 0;
        let mut sum: i128 = 0;
        for (monomial, coef) in self.terms() {
            let mut term_bound = coef.checked_abs()?;
            let mut term = coef;
            for atom in monomial {
                let v = value(*atom);
                term_bound = term_bound.checked_mul(v.checked_abs()?.max(1))?;
                term = term.checked_mul(v)?;
            }
            bound = bound.checked_add(term_bound)?;
            sum = sum.checked_add(term)?;
        }
        Some(sum)
    }

    /// The part of the polynomial made of monomials that contain `atom`,
    /// divided by `atom` (its "coefficient"), and the rest.
    pub fn split_on(&self, atom: AtomId) -> (Poly, Poly) {
        let mut coef = PolyBody::default();
        let mut rest = PolyBody::default();
        let mut reduced: Vec<AtomId> = Vec::new();
        for (m, c) in self.terms() {
            if let Some(position) = m.iter().position(|a| *a == atom) {
                reduced.clear();
                reduced.extend_from_slice(&m[..position]);
                reduced.extend_from_slice(&m[position + 1..]);
                coef.add_term(&reduced, c);
            } else {
                rest.add_term(m, c);
            }
        }
        (coef.into(), rest.into())
    }

    /// The polynomial of the terms (constant included) that `keep` keeps:
    /// what adding each kept term to 0 in turn builds, without the merges.
    pub(crate) fn filter_terms(&self, mut keep: impl FnMut(&[AtomId], i128) -> bool) -> Poly {
        let mut out = PolyBody::default();
        for (m, c) in self.terms() {
            if keep(m, c) {
                out.push_term(m, c);
            }
        }
        out.into()
    }

    /// Whether every coefficient (constant included) is a multiple of `d`.
    pub fn divisible_by(&self, d: i128) -> bool {
        d != 0 && self.terms().all(|(_, coef)| coef % d == 0)
    }

    /// Exact division of every coefficient by `d` (callers check
    /// [`divisible_by`](Self::divisible_by) first).
    pub fn div_exact(&self, d: i128) -> Poly {
        if let Repr::Const(value) = self.repr {
            return Poly::constant(value / d);
        }
        let mut out = self.clone();
        out.change(|body| {
            for term in &mut body.terms {
                term.coef /= d;
            }
            body.terms.retain(|t| t.coef != 0);
        });
        out
    }

    /// The gcd of all coefficients (0 for the zero polynomial).
    pub fn content(&self) -> i128 {
        self.terms().fold(0, |g, (_, coef)| gcd(g, coef.abs()))
    }

    /// Renders with atom names: `2048*cta_id(0) + 8*thread_id(0) + 8`.
    pub fn display<'a>(&'a self, atoms: &'a Atoms) -> PolyDisplay<'a> {
        PolyDisplay { poly: self, atoms }
    }
}

impl fmt::Debug for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .terms()
            .map(|(m, c)| {
                let atoms: Vec<String> = m.iter().map(|a| format!("a{a}")).collect();
                if m.is_empty() {
                    c.to_string()
                } else {
                    format!("{c}*{}", atoms.join("*"))
                }
            })
            .collect();
        if parts.is_empty() {
            f.write_str("0")
        } else {
            f.write_str(&parts.join(" + "))
        }
    }
}

pub struct PolyDisplay<'a> {
    poly: &'a Poly,
    atoms: &'a Atoms,
}

impl fmt::Display for PolyDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut terms: Vec<(&[AtomId], i128)> = self.poly.terms().collect();
        // Constant last, like people write it.
        let constant_first = terms.first().is_some_and(|(m, _)| m.is_empty()) && terms.len() > 1;
        terms.rotate_left(usize::from(constant_first));
        for (m, c) in terms {
            let (sign, magnitude) = if c < 0 { ("-", -c) } else { ("+", c) };
            if first {
                if c < 0 {
                    f.write_str("-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            first = false;
            let names: Vec<&str> = m.iter().map(|a| self.atoms.get(*a).name.as_str()).collect();
            match (m.is_empty(), magnitude) {
                (true, _) => write!(f, "{magnitude}")?,
                (false, 1) => write!(f, "{}", names.join(" * "))?,
                (false, _) => write!(f, "{magnitude} * {}", names.join(" * "))?,
            }
        }
        if first {
            f.write_str("0")?;
        }
        Ok(())
    }
}

pub fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What an atom stands for; the emitter computes it from this.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtomKind {
    /// `%tid.{x,y,z}`.
    ThreadId(u8),
    /// `%ctaid.{x,y,z}`.
    CtaId(u8),
    /// `%nctaid.{x,y,z}` (only when the grid extent is not a constant).
    GridDim(u8),
    /// `%cluster_ctaid.{x,y,z}`: the CTA's index in its thread-block
    /// cluster (only along an axis a declared cluster spans).
    ClusterCtaId(u8),
    /// `%clusterid.{x,y,z}`: the cluster's index in the grid (only along an
    /// axis a declared cluster spans; `cta_id` is `cluster_dim *
    /// cluster_id + cluster_ctaid` there).
    ClusterId(u8),
    /// The linear thread index in the block modulo 32.
    LaneId,
    /// The linear thread index in the block divided by 32 (not `%warpid`,
    /// which names a physical slot and may change).
    WarpId,
    /// `warp_id() % 4`: the warp's index in its warpgroup (in blocks of
    /// more than one warpgroup).
    WarpInGroup,
    /// `warp_id() / 4`: the warpgroup's index in the block (in blocks of
    /// more than one warpgroup).
    WarpgroupId,
    /// `lane_id() / 2^shift` (`shift + bits == 5`) or `lane_id() % 2^bits`
    /// (`shift == 0`): bits `shift..shift + bits` of the lane, the
    /// "groupID" and "threadID_in_group" of the matrix fragment layouts
    /// (`crate::ptx::fragments`). One atom each, digits of the race rule.
    LaneField { shift: u8, bits: u8 },
    /// Hidden kernel parameter: symbol `index`'s value divided by its divisor.
    Symbol(usize),
    /// An integer scalar parameter, widened to 64 bits.
    Param(usize),
    /// A runtime loop's variable.
    LoopVar,
    /// A value computed at its `let` (or loop bound): the emitter evaluates
    /// `op` over `args` where the IR defines it.
    Computed(ComputedOp, Vec<Poly>),
    /// A value read from register `register` of local tile `tile` (an
    /// integer element of at most 32 bits: `ids[k]`) where the IR defines
    /// it, sign- or zero-extended by `dtype`. It may differ between threads
    /// and between reads; its range is its dtype's.
    Register {
        tile: usize,
        register: usize,
        dtype: crate::dtype::DType,
    },
}

/// Operations whose result is not a polynomial of their operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ComputedOp {
    /// Floor division of non-negative values.
    Div,
    /// Remainder of non-negative values.
    Rem,
    CeilDiv,
    Min,
    Max,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

impl ComputedOp {
    /// The op over constant arguments, as the emitted code computes it
    /// where the checker defines it (`None` outside: a negative dividend, a
    /// zero divisor, a shift out of range, an overflow).
    pub fn fold(self, a: i128, b: i128) -> Option<i128> {
        match self {
            ComputedOp::Div if a >= 0 && b >= 1 => Some(a / b),
            ComputedOp::Rem if a >= 0 && b >= 1 => Some(a % b),
            ComputedOp::CeilDiv if a >= 0 && b >= 1 => Some((a + b - 1) / b),
            ComputedOp::Min => Some(a.min(b)),
            ComputedOp::Max => Some(a.max(b)),
            ComputedOp::Shl if (0..64).contains(&b) => a.checked_mul(1 << b),
            ComputedOp::Shr if (0..64).contains(&b) && a >= 0 => Some(a >> b),
            ComputedOp::And => Some(a & b),
            ComputedOp::Or => Some(a | b),
            ComputedOp::Xor => Some(a ^ b),
            _ => None,
        }
    }
}

/// One opaque runtime value with its proven inclusive range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Atom {
    pub kind: AtomKind,
    /// How diagnostics name it (`thread_id(0)`, `N`, `row`).
    pub name: String,
    pub lo: i128,
    pub hi: i128,
}

/// The atom table of one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Atoms {
    list: Vec<Atom>,
}

impl Atoms {
    pub fn push(&mut self, atom: Atom) -> AtomId {
        self.list.push(atom);
        (self.list.len() - 1) as AtomId
    }

    pub fn get(&self, id: AtomId) -> &Atom {
        &self.list[id as usize]
    }

    /// The existing atom of this kind (for the special registers, symbols
    /// and parameters, which are defined once per kernel).
    pub fn find(&self, kind: &AtomKind) -> Option<AtomId> {
        self.list
            .iter()
            .position(|a| &a.kind == kind)
            .map(|i| i as AtomId)
    }

    pub fn iter(&self) -> impl Iterator<Item = (AtomId, &Atom)> {
        self.list.iter().enumerate().map(|(i, a)| (i as AtomId, a))
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Drops the atoms from the `len`-th on: a trial check's, whose ids are
    /// handed out again. Every memo that may name them must forget them
    /// too ([`ProofMemo::forget_atoms_from`]).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }

    /// Inclusive range of `p` by interval arithmetic over atom ranges
    /// (saturating: a range that reaches +-2^126 means "unbounded").
    pub fn range(&self, p: &Poly) -> (i128, i128) {
        self.range_of_terms(p.terms())
    }

    /// [`Atoms::range`] of the polynomial whose terms are `terms`, in
    /// monomial order (each monomial once; zero coefficients add nothing).
    fn range_of_terms<'p>(
        &self,
        terms: impl Iterator<Item = (&'p [AtomId], i128)>,
    ) -> (i128, i128) {
        let (mut lo, mut hi) = (0i128, 0i128);
        for (m, c) in terms {
            let (tlo, thi) = term_range(self.monomial_range(m), c);
            lo = clamp_range(lo.saturating_add(clamp_range(tlo)));
            hi = clamp_range(hi.saturating_add(clamp_range(thi)));
        }
        (lo, hi)
    }

    /// The range of one monomial (a product of atoms; empty: 1).
    fn monomial_range(&self, m: &[AtomId]) -> (i128, i128) {
        let (mut mlo, mut mhi) = (1i128, 1i128);
        for atom in m {
            let a = self.get(*atom);
            let products = [
                mlo.saturating_mul(a.lo),
                mlo.saturating_mul(a.hi),
                mhi.saturating_mul(a.lo),
                mhi.saturating_mul(a.hi),
            ];
            mlo = clamp_range(*products.iter().min().unwrap_or(&0));
            mhi = clamp_range(*products.iter().max().unwrap_or(&0));
        }
        (mlo, mhi)
    }

    /// The largest magnitude any monomial sum prefix of `p` can reach: what
    /// emitted 64-bit arithmetic must hold without overflow.
    pub fn magnitude(&self, p: &Poly) -> i128 {
        let mut total: i128 = 0;
        for (m, c) in p.terms() {
            let mut single = PolyBody::default();
            single.add_term(m, c);
            let single = Poly::from(single);
            let (lo, hi) = self.range(&single);
            // Every partial product of the monomial is bounded by the
            // whole monomial's magnitude when atom ranges include 1 or
            // more; bound partial products by the product of magnitudes.
            let mut partial: i128 = 1;
            for atom in m {
                let a = self.get(*atom);
                partial = partial.saturating_mul(a.lo.abs().max(a.hi.abs()).max(1));
            }
            total = total
                .saturating_add(lo.abs().max(hi.abs()))
                .saturating_add(partial);
        }
        total
    }
}

/// Ranges saturate here: a bound that reaches +-2^126 means "unbounded".
fn clamp_range(v: i128) -> i128 {
    const CAP: i128 = 1 << 126;
    v.clamp(-CAP, CAP)
}

/// The range of `c` times a monomial of range `(mlo, mhi)`.
fn term_range((mlo, mhi): (i128, i128), c: i128) -> (i128, i128) {
    if c >= 0 {
        (mlo.saturating_mul(c), mhi.saturating_mul(c))
    } else {
        (mhi.saturating_mul(c), mlo.saturating_mul(c))
    }
}

/// Where [`FlatTerms::small_combinations`] stops: partial sums below it
/// never reach the 2^126 at which ranges saturate.
const FLAT_LIMIT: i128 = 1 << 125;

/// The polynomials of one [`Prover::prove_from`] call, flattened over one
/// sorted table of their monomials with each monomial's range computed
/// once: the prover ranges many combinations of the obligation with the
/// facts, and this is its inner loop (at opt-level 0 too, where building
/// each combination as a `Poly` dominated the macro's expansion time).
struct FlatTerms {
    /// Each distinct monomial's range, in monomial order.
    ranges: Vec<(i128, i128)>,
    /// The obligation, then each fact: `(monomial index, coefficient)`,
    /// in monomial order.
    polys: Vec<Vec<(usize, i128)>>,
}

impl FlatTerms {
    fn new(atoms: &Atoms, p: &Poly, facts: &[Fact]) -> FlatTerms {
        let mut monomials: Vec<&[AtomId]> = std::iter::once(p)
            .chain(facts)
            .flat_map(|q| q.terms().map(|(m, _)| m))
            .collect();
        monomials.sort_unstable();
        monomials.dedup();
        let ranges = monomials.iter().map(|m| atoms.monomial_range(m)).collect();
        let polys = std::iter::once(p)
            .chain(facts)
            .map(|q| {
                q.terms()
                    .map(|(m, c)| {
                        let index = monomials.partition_point(|n| *n < m);
                        (index, c)
                    })
                    .collect()
            })
            .collect();
        FlatTerms { ranges, polys }
    }

    /// The upper end of the range of the combination of polynomials
    /// `which` (0: the obligation, 1 + i: fact i; `None`: absent) whose
    /// coefficient for each monomial is `combine` of theirs (0 where one
    /// lacks it): equal to building the combination with `Poly`
    /// arithmetic and taking the end of its [`Atoms::range`].
    fn combined_hi(&self, which: [Option<usize>; 3], combine: impl Fn([i128; 3]) -> i128) -> i128 {
        let empty: &[(usize, i128)] = &[];
        let parts = which.map(|w| {
            w.and_then(|i| self.polys.get(i))
                .map_or(empty, Vec::as_slice)
        });
        let mut at = [0usize; 3];
        let mut hi = 0i128;
        loop {
            let mut next: Option<usize> = None;
            for (part, &i) in parts.iter().zip(&at) {
                if let Some(&(m, _)) = part.get(i) {
                    next = Some(next.map_or(m, |n| n.min(m)));
                }
            }
            let Some(monomial) = next else {
                return hi;
            };
            let mut coefs = [0i128; 3];
            for ((part, i), coef) in parts.iter().zip(&mut at).zip(&mut coefs) {
                if let Some(&(m, c)) = part.get(*i)
                    && m == monomial
                {
                    *coef = c;
                    *i += 1;
                }
            }
            let range = self.ranges.get(monomial).copied().unwrap_or((0, 0));
            let (_, thi) = term_range(range, combine(coefs));
            hi = clamp_range(hi.saturating_add(clamp_range(thi)));
        }
    }

    /// Whether some combination of the obligation with the facts proves
    /// it ([`Prover::prove_from`]'s rules, in its order).
    /// Each `combine` is the coefficient the written-out `Poly` arithmetic
    /// gives (saturating, in that order).
    fn any_combination(&self) -> bool {
        let count = self.polys.len() - 1;
        // `p = k * f + rest` with `rest <= 0` proves `p <= 0` for k > 0: a
        // fact on an index (`i + 1 <= N`) proves bounds on doubled ones
        // (`2 * i + 2 <= 2 * N`). `rest` is `p.sub(&f.scale(k))`.
        for k in [2, 4, 8, 16] {
            for f in 1..=count {
                let hi = self.combined_hi([Some(0), Some(f), None], |[pc, fc, _]| {
                    pc.saturating_add(fc.saturating_mul(k).saturating_mul(-1))
                });
                if hi <= 0 {
                    return true;
                }
            }
        }
        // `k * p <= 0` proves `p <= 0` for k > 0: facts stated on doubled
        // indices (`2 * i + 2 <= N`) prove bounds on halved ones. `rest` is
        // `p.scale(k).sub(f)`, then `rest.sub(g)`.
        let rest_coef = |pc: i128, fc: i128, k: i128| {
            pc.saturating_mul(k).saturating_add(fc.saturating_mul(-1))
        };
        for k in [1, 2, 4, 8, 16] {
            for f in 1..=count {
                let hi =
                    self.combined_hi([Some(0), Some(f), None], |[pc, fc, _]| rest_coef(pc, fc, k));
                if hi <= 0 {
                    return true;
                }
                for g in f + 1..=count {
                    let hi = self.combined_hi([Some(0), Some(f), Some(g)], |[pc, fc, gc]| {
                        rest_coef(pc, fc, k).saturating_add(gc.saturating_mul(-1))
                    });
                    if hi <= 0 {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// `p = k * f + rest` with `rest <= 0`, `k` the ratio of a coefficient
    /// `p` shares with fact `f` (a fact on a CTA index, `cta + 1 <= C`,
    /// proves bounds on tiles of it, `8192 * cta + 4096 <= 8192 * C`,
    /// past the factors the other searches try).
    fn ratio_combination(&self) -> bool {
        let count = self.polys.len() - 1;
        for f in 1..=count {
            // Not the constant terms: the ratio must not depend on them
            // (the prover is monotone in the constant).
            for &(m, pc) in self.polys[0]
                .iter()
                .filter(|(m, _)| self.ranges[*m] != (1, 1))
            {
                let Some(&(_, fc)) = self.polys[f].iter().find(|(n, _)| *n == m) else {
                    continue;
                };
                let k = match (fc != 0).then(|| (pc % fc, pc / fc)) {
                    Some((0, k)) if k > 1 && ![2, 4, 8, 16].contains(&k) => k,
                    _ => continue,
                };
                let hi = self.combined_hi([Some(0), Some(f), None], |[pc, fc, _]| {
                    pc.saturating_add(fc.saturating_mul(k).saturating_mul(-1))
                });
                if hi <= 0 {
                    return true;
                }
            }
        }
        false
    }

    /// [`Self::any_combination`] where no coefficient or range is large
    /// enough for the saturating arithmetic to saturate (`None` otherwise):
    /// then every combination is exact integer arithmetic, ranged over a
    /// dense coefficient table without the merge of sorted term lists. A
    /// combination's coefficient is at most `18 * top` in magnitude (`top`
    /// the largest coefficient: `16 * p - f - g` at worst), so each partial
    /// sum of a range's terms is at most `18 * top` times the sum of the
    /// monomials' largest magnitudes; below 2^125 it never reaches the
    /// 2^126 at which ranges saturate.
    fn small_combinations(&self) -> Option<bool> {
        const LIMIT: i128 = FLAT_LIMIT;
        let width = self.ranges.len();
        let mut los: Vec<i128> = Vec::with_capacity(width);
        let mut his: Vec<i128> = Vec::with_capacity(width);
        let mut reach: i128 = 0;
        for &(lo, hi) in &self.ranges {
            reach = reach.checked_add(lo.checked_abs()?.max(hi.checked_abs()?))?;
            los.push(lo);
            his.push(hi);
        }
        let mut top: i128 = 0;
        for poly in &self.polys {
            for &(_, c) in poly {
                top = top.max(c.checked_abs()?);
            }
        }
        if top >= LIMIT / 18 || reach.checked_mul(top * 18)? >= LIMIT {
            return None;
        }
        // Row `i` of `dense`: polynomial `i`'s coefficient per monomial.
        let rows = self.polys.len();
        let mut dense: Vec<i128> = vec![0; rows * width];
        for (row, poly) in self.polys.iter().enumerate() {
            for &(m, c) in poly {
                dense[row * width + m] = c;
            }
        }
        let hi_of = |coefs: &[i128]| -> i128 {
            let mut hi = 0i128;
            let mut m = 0;
            while m < width {
                let c = coefs[m];
                if c > 0 {
                    hi += c * his[m];
                } else if c < 0 {
                    hi += c * los[m];
                }
                m += 1;
            }
            hi
        };
        let p = &dense[..width];
        let mut sum: Vec<i128> = vec![0; width];
        let mut with_g: Vec<i128> = vec![0; width];
        // `p - k * f`.
        for k in [2, 4, 8, 16] {
            for f in 1..rows {
                let fact = &dense[f * width..(f + 1) * width];
                for m in 0..width {
                    sum[m] = p[m] - k * fact[m];
                }
                if hi_of(&sum) <= 0 {
                    return Some(true);
                }
            }
        }
        // `k * p - f`, then `k * p - f - g`.
        for k in [1, 2, 4, 8, 16] {
            for f in 1..rows {
                let fact = &dense[f * width..(f + 1) * width];
                for m in 0..width {
                    sum[m] = k * p[m] - fact[m];
                }
                if hi_of(&sum) <= 0 {
                    return Some(true);
                }
                for g in f + 1..rows {
                    let other = &dense[g * width..(g + 1) * width];
                    for m in 0..width {
                        with_g[m] = sum[m] - other[m];
                    }
                    if hi_of(&with_g) <= 0 {
                        return Some(true);
                    }
                }
            }
        }
        Some(false)
    }
}

/// The facts of a [`CachedProver`] flattened once for all its queries:
/// [`FlatTerms::small_combinations`] of an obligation `p` with these facts,
/// with everything that does not depend on `p` computed ahead. Each
/// combination's range end is a sum over monomials; the monomials `p`
/// lacks contribute what the facts alone do (per fact, and per pair of
/// facts, summed here once), so a query only visits the facts' columns
/// that `p` shares, and ranges its own other monomials once. In exact
/// integer arithmetic (the same limits as `small_combinations`) every
/// combination's range end is the same integer, hence the same answer.
struct FactTable {
    /// The facts' distinct monomials, sorted.
    monomials: Vec<Vec<AtomId>>,
    /// Each monomial's range.
    ranges: Vec<(i128, i128)>,
    /// Row `f`: fact `f`'s coefficient per monomial (dense).
    rows: Vec<Vec<i128>>,
    /// Per fact `f`: the range end of `-f`.
    neg: Vec<i128>,
    /// Per pair `f < g` (at `f * count + g`): the range end of `-f - g`.
    pair_neg: Vec<i128>,
    /// Per fact `f`: the smallest `pair_neg` of `f` and a later fact
    /// (`i128::MAX` for the last): a bound under which no pair with `f`
    /// is tried ([`FactTable::small_combinations`]).
    pair_neg_min: Vec<i128>,
    /// The facts' part of `small_combinations`' limits: the sum of the
    /// monomials' largest magnitudes and the largest coefficient (`None`:
    /// beyond exact arithmetic, every query takes the saturating path).
    limits: Option<(i128, i128)>,
}

/// The upper end of the range of `c` times a monomial ranging `(lo, hi)`,
/// in exact arithmetic.
fn exact_hi(c: i128, (lo, hi): (i128, i128)) -> i128 {
    if c > 0 {
        c * hi
    } else if c < 0 {
        c * lo
    } else {
        0
    }
}

impl FactTable {
    fn new(atoms: &Atoms, facts: &[Fact]) -> FactTable {
        let mut monomials: Vec<Vec<AtomId>> = facts
            .iter()
            .flat_map(|f| f.terms().map(|(m, _)| m.to_vec()))
            .collect();
        monomials.sort_unstable();
        monomials.dedup();
        let ranges: Vec<(i128, i128)> = monomials.iter().map(|m| atoms.monomial_range(m)).collect();
        let width = monomials.len();
        let rows: Vec<Vec<i128>> = facts
            .iter()
            .map(|f| {
                let mut row = vec![0; width];
                for (m, c) in f.terms() {
                    if let Ok(i) = monomials.binary_search_by(|n| n.as_slice().cmp(m)) {
                        row[i] = c;
                    }
                }
                row
            })
            .collect();
        let limits = (|| {
            let mut reach: i128 = 0;
            for &(lo, hi) in &ranges {
                reach = reach.checked_add(lo.checked_abs()?.max(hi.checked_abs()?))?;
            }
            let mut top: i128 = 0;
            for f in facts {
                for (_, c) in f.terms() {
                    top = top.max(c.checked_abs()?);
                }
            }
            Some((reach, top))
        })();
        let count = facts.len();
        let (mut neg, mut pair_neg, mut pair_neg_min) = (Vec::new(), Vec::new(), Vec::new());
        if let Some((reach, top)) = limits
            && top < FLAT_LIMIT / 18
            && reach.checked_mul(top * 18).is_some_and(|r| r < FLAT_LIMIT)
        {
            neg = rows
                .iter()
                .map(|row| row.iter().zip(&ranges).map(|(c, r)| exact_hi(-c, *r)).sum())
                .collect();
            pair_neg = vec![0; count * count];
            for f in 0..count {
                for g in f + 1..count {
                    pair_neg[f * count + g] = rows[f]
                        .iter()
                        .zip(&rows[g])
                        .zip(&ranges)
                        .map(|((a, b), r)| exact_hi(-a - b, *r))
                        .sum();
                }
            }
            pair_neg_min = (0..count)
                .map(|f| {
                    pair_neg[f * count + f + 1..(f + 1) * count]
                        .iter()
                        .copied()
                        .min()
                        .unwrap_or(i128::MAX)
                })
                .collect();
        }
        FactTable {
            monomials,
            ranges,
            rows,
            neg,
            pair_neg,
            pair_neg_min,
            limits,
        }
    }

    /// [`FlatTerms::small_combinations`] of `p` with the facts: `None`
    /// where that is `None` (the saturating path decides).
    fn small_combinations(&self, atoms: &Atoms, p: &Poly) -> Option<bool> {
        let (mut reach, mut top) = self.limits?;
        // `p`'s monomials the facts share (column, coefficient), and the
        // range end of the rest of `p`.
        let mut shared: Vec<(usize, i128)> = Vec::with_capacity(p.len());
        let mut own_hi: i128 = 0;
        for (m, c) in p.terms() {
            top = top.max(c.checked_abs()?);
            match self.monomials.binary_search_by(|n| n.as_slice().cmp(m)) {
                Ok(i) => shared.push((i, c)),
                Err(_) => {
                    let (lo, hi) = atoms.monomial_range(m);
                    reach = reach.checked_add(lo.checked_abs()?.max(hi.checked_abs()?))?;
                    own_hi += exact_hi(c, (lo, hi));
                }
            }
        }
        if top >= FLAT_LIMIT / 18 || reach.checked_mul(top * 18)? >= FLAT_LIMIT {
            return None;
        }
        let count = self.rows.len();
        // Lower bounds that skip combinations which cannot prove `p` (the
        // same answer, fewer sums): `hi` (the range end of `c` times a
        // monomial, [`exact_hi`]) is subadditive and positively
        // homogeneous, so a shared column's part of a combination's range
        // end, `hi(k c - f) - hi(-f)` (`hi(k c - f - g) - hi(-f - g)` for
        // a pair, `hi(c - k f) - k hi(-f)` for `p - k f`), is at least
        // `-k hi(-c)` (`-hi(-c)`); with `base = own_hi - shared_low` a
        // combination's range end is at least `k * base + neg[f]` (`k *
        // base + pair_neg[f, g]`; `base + k * neg[f]`).
        let shared_low: i128 = shared
            .iter()
            .map(|&(i, c)| exact_hi(-c, self.ranges[i]))
            .sum();
        let base = own_hi - shared_low;
        // Fact `f`'s range end of `-f` over the columns `p` lacks.
        let rest_neg = |f: usize| -> i128 {
            let row = &self.rows[f];
            let mut shared_part = 0;
            for &(i, _) in &shared {
                shared_part += exact_hi(-row[i], self.ranges[i]);
            }
            self.neg[f] - shared_part
        };
        // `p - k * f`.
        for k in [2, 4, 8, 16] {
            for f in 0..count {
                if base + k * self.neg[f] > 0 {
                    continue;
                }
                let row = &self.rows[f];
                let mut hi = own_hi + k * rest_neg(f);
                for &(i, c) in &shared {
                    hi += exact_hi(c - k * row[i], self.ranges[i]);
                }
                if hi <= 0 {
                    return Some(true);
                }
            }
        }
        // `k * p - f`, then `k * p - f - g`.
        for k in [1, 2, 4, 8, 16] {
            let floor = k * base;
            for f in 0..count {
                let row = &self.rows[f];
                if floor + self.neg[f] <= 0 {
                    let mut hi = k * own_hi + rest_neg(f);
                    for &(i, c) in &shared {
                        hi += exact_hi(k * c - row[i], self.ranges[i]);
                    }
                    if hi <= 0 {
                        return Some(true);
                    }
                }
                if floor.saturating_add(self.pair_neg_min[f]) > 0 {
                    continue;
                }
                for g in f + 1..count {
                    let pair_neg = self.pair_neg[f * count + g];
                    if floor + pair_neg > 0 {
                        continue;
                    }
                    let other = &self.rows[g];
                    let mut hi = k * own_hi + pair_neg;
                    for &(i, c) in &shared {
                        let range = self.ranges[i];
                        hi += exact_hi(k * c - row[i] - other[i], range)
                            - exact_hi(-row[i] - other[i], range);
                    }
                    if hi <= 0 {
                        return Some(true);
                    }
                }
            }
        }
        Some(false)
    }
}

impl Atoms {
    /// Facts that hold wherever the computed atoms of `p` are defined,
    /// from their definitions: `a % b <= a` and `a % b <= b - 1`;
    /// `min(a, b) <= a, b`; `max(a, b) >= a, b`; and for a constant `d`,
    /// `d * (a / d) <= a <= d * (a / d) + d - 1`. Sound because the
    /// checker defines `a % b` and `a / b` only for `a >= 0` and `b >= 1`
    /// (proven where the atom is computed; it is used only there and
    /// below).
    pub fn definitions(&self, p: &Poly) -> Vec<Fact> {
        let mut out = Vec::new();
        for atom in p.atoms() {
            let AtomKind::Computed(op, args) = &self.get(atom).kind else {
                continue;
            };
            let [a, b] = args.as_slice() else {
                continue;
            };
            let v = Poly::atom(atom);
            match op {
                ComputedOp::Rem => {
                    out.push(v.sub(a));
                    out.push(v.sub(b).add_const(1));
                }
                ComputedOp::Min => {
                    out.push(v.sub(a));
                    out.push(v.sub(b));
                }
                ComputedOp::Max => {
                    out.push(a.sub(&v));
                    out.push(b.sub(&v));
                }
                ComputedOp::Div => {
                    if let Some(d) = b.as_const().filter(|d| *d >= 1) {
                        out.push(v.scale(d).sub(a));
                        out.push(a.sub(&v.scale(d)).add_const(1 - d));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// A fact `poly <= 0` known to hold where an obligation is proven.
pub type Fact = Poly;

/// Discharges `p <= 0` obligations.
pub struct Prover<'a> {
    pub atoms: &'a Atoms,
    pub facts: &'a [Fact],
}

impl Prover<'_> {
    /// Whether `p <= 0` is proven: by ranges alone, or as a fact (or the sum
    /// of two facts) plus a remainder whose range is non-positive; the
    /// facts include the definitions of the computed atoms `p` names
    /// ([`Atoms::definitions`]: `i % n < n`).
    pub fn prove_le0(&self, p: &Poly) -> bool {
        if self.prove_from(p, self.facts) {
            return true;
        }
        let definitions = self.atoms.definitions(p);
        if definitions.is_empty() {
            return false;
        }
        let mut facts = self.facts.to_vec();
        facts.extend(definitions);
        self.prove_from(p, &facts)
    }

    fn prove_from(&self, p: &Poly, facts: &[Fact]) -> bool {
        if self.atoms.range(p).1 <= 0 || restates_fact(p, facts) {
            return true;
        }
        // A false fact (`1 <= 0`, the arm of a condition that is constant
        // false): the code never runs, anything holds there.
        if facts.iter().any(|f| f.as_const().is_some_and(|c| c > 0)) {
            return true;
        }
        if facts.is_empty() {
            return false;
        }
        // The combinations are ranged without being built ([`FlatTerms`]).
        let flat = FlatTerms::new(self.atoms, p, facts);
        flat.small_combinations()
            .unwrap_or_else(|| flat.any_combination())
            || flat.ratio_combination()
    }

    /// Whether `p <= 0` is impossible: its range lies above 0 (a statically
    /// out-of-range access).
    pub fn refute_le0(&self, p: &Poly) -> bool {
        self.atoms.range(p).0 > 0
    }

    /// `a <= b`.
    pub fn le(&self, a: &Poly, b: &Poly) -> bool {
        self.prove_le0(&a.sub(b))
    }
}

/// Whether `p <= 0` is one of `facts` weakened by a constant: `p = f + c`
/// with `c <= 0`. Then `p - f` ranges to `c`, and `k * p - f` with `k = 1`
/// is one of the combinations [`Prover::prove_from`] ranges (and the exact
/// search finds every one of those that proves), so the answer is the
/// search's without the search. An access guarded by its own bound
/// (`pred = row < M` on a store to row `row`) asks exactly this.
fn restates_fact(p: &Poly, facts: &[Fact]) -> bool {
    let k = p.constant_term();
    facts
        .iter()
        .any(|f| k <= f.constant_term() && p.differs_by_constant(f))
}

/// What the separation search asks of a prover: [`Prover`] itself, or a
/// [`CachedProver`] that remembers its answers.
pub(crate) trait Prove {
    /// [`Prover::prove_le0`].
    fn prove_le0(&self, p: &Poly) -> bool;

    /// `a <= b`.
    fn le(&self, a: &Poly, b: &Poly) -> bool {
        self.prove_le0(&a.sub(b))
    }
}

impl Prove for Prover<'_> {
    fn prove_le0(&self, p: &Poly) -> bool {
        Prover::prove_le0(self, p)
    }
}

/// A [`Prover`] that remembers, per polynomial without its constant term
/// `q`, the largest constant `k` it proved `q + k <= 0` for and the
/// smallest it did not: [`Prover::prove_le0`] is monotone in the constant
/// (lowering it lowers the range and every combination with the facts;
/// the definitions of computed atoms do not depend on it), so any query
/// at or below the first, or at or above the second, has that answer
/// without a proof. For the many queries of one access's separation
/// search under the same facts: the same weights compared per subset of
/// digits, a range against each candidate period, a remainder shifted by
/// a residue.
pub(crate) struct CachedProver<'a> {
    atoms: &'a Atoms,
    facts: Vec<Fact>,
    known: std::cell::RefCell<WordMap<Poly, Known>>,
    /// The facts flattened once, at the first query that needs them.
    table: std::cell::OnceCell<FactTable>,
}

/// What a [`CachedProver`] knows of `q + k <= 0` for one `q`.
#[derive(Default, Clone, Copy)]
struct Known {
    /// The largest `k` proven.
    proven: Option<i128>,
    /// The smallest `k` not proven.
    unproven: Option<i128>,
}

impl<'a> CachedProver<'a> {
    pub(crate) fn new(atoms: &'a Atoms, facts: &[Fact]) -> CachedProver<'a> {
        CachedProver {
            atoms,
            facts: facts.to_vec(),
            known: Default::default(),
            table: Default::default(),
        }
    }
}

impl CachedProver<'_> {
    /// The facts it proves from.
    pub(crate) fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// [`Prover::prove_le0`].
    pub(crate) fn prove_le0(&self, p: &Poly) -> bool {
        // A constant at most 0: its range proves it (as
        // [`CachedProver::prove_uncached`] would, first), without the
        // lookup. One above 0 may still follow from false facts.
        if p.as_const().is_some_and(|k| k <= 0) {
            return true;
        }
        let k = p.constant_term();
        let q = p.without_constant();
        let known = self.known.borrow().get(&q).copied().unwrap_or_default();
        if known.proven.is_some_and(|proven| k <= proven) {
            return true;
        }
        if known.unproven.is_some_and(|unproven| k >= unproven) {
            return false;
        }
        let answer = self.prove_uncached(p);
        let mut map = self.known.borrow_mut();
        let entry = map.entry(q).or_default();
        if answer {
            entry.proven = Some(entry.proven.map_or(k, |proven| proven.max(k)));
        } else {
            entry.unproven = Some(entry.unproven.map_or(k, |unproven| unproven.min(k)));
        }
        answer
    }

    /// `a <= b`.
    pub(crate) fn le(&self, a: &Poly, b: &Poly) -> bool {
        self.prove_le0(&a.sub(b))
    }

    /// The facts that can take part in a proof of any `p <= 0` whose
    /// atoms, and the atoms of the definitions of its computed atoms, are
    /// among `atoms` (sorted): `None` when that is every fact, or when the
    /// rule below does not apply. Proofs under the facts returned are sound
    /// (fewer facts, the same atoms), so a cache keyed on them is too; and
    /// they prove exactly what these facts prove, by what each
    /// combination's range end is ([`FactTable`], exact arithmetic): a
    /// fact `f` that shares no atom with `atoms` (`first` below) nor with a
    /// fact that does (`kept`) adds to a combination's range end what it
    /// adds alone, `hi(-f)`, or `hi(-f - g)` with another fact `g` that
    /// shares no atom with `atoms` either; when all of those are at least
    /// 0 (the facts are satisfiable by ranges, checked here: otherwise
    /// `None`) and `hi(p) > 0` (else ranges alone prove `p`), every
    /// combination with `f` has a range end at least that of one without
    /// it (`k p - f - g` that of `k p - g`; `k p - f`, `p - k f` that of `k
    /// p`). Where the facts' coefficients or ranges are too large for exact
    /// arithmetic, `None`. (A query `p` that itself leaves exact
    /// arithmetic is ranged with saturation under both fact sets; that
    /// may differ, soundly, in a proof lost.)
    pub(crate) fn relevant_facts(&self, atoms: &[AtomId]) -> Option<Vec<Fact>> {
        let facts = self.facts.as_slice();
        if facts.is_empty() {
            return None;
        }
        let count = facts.len();
        let fact_atoms: Vec<Vec<AtomId>> = facts.iter().map(Poly::atoms).collect();
        let meets = |a: &[AtomId], b: &[AtomId]| a.iter().any(|x| b.binary_search(x).is_ok());
        let first: Vec<bool> = fact_atoms.iter().map(|f| meets(f, atoms)).collect();
        let kept: Vec<bool> = (0..count)
            .map(|f| {
                first[f] || (0..count).any(|g| first[g] && meets(&fact_atoms[f], &fact_atoms[g]))
            })
            .collect();
        if kept.iter().all(|k| *k) {
            return None;
        }
        // The facts' table, built only where some fact would go (the
        // prover builds it at its first query that needs the facts): the
        // exact sums exist only within its limits.
        let table = self.table.get_or_init(|| FactTable::new(self.atoms, facts));
        if table.neg.len() != count {
            return None;
        }
        for f in (0..count).filter(|f| !kept[*f]) {
            if table.neg[f] < 0 {
                return None;
            }
            for g in (0..count).filter(|g| *g != f && !first[*g]) {
                if table.pair_neg[f.min(g) * count + f.max(g)] < 0 {
                    return None;
                }
            }
        }
        Some(
            facts
                .iter()
                .zip(&kept)
                .filter(|(_, kept)| **kept)
                .map(|(f, _)| f.clone())
                .collect(),
        )
    }

    /// [`Prover::prove_le0`], with the combinations of `p` and the facts
    /// ranged over the facts' [`FactTable`].
    fn prove_uncached(&self, p: &Poly) -> bool {
        let (atoms, facts) = (self.atoms, self.facts.as_slice());
        let from_facts = atoms.range(p).1 <= 0
            || (!facts.is_empty()
                && self
                    .table
                    .get_or_init(|| FactTable::new(atoms, facts))
                    .small_combinations(atoms, p)
                    .unwrap_or_else(|| FlatTerms::new(atoms, p, facts).any_combination()));
        if from_facts {
            return true;
        }
        let definitions = atoms.definitions(p);
        if definitions.is_empty() {
            return false;
        }
        let mut facts = facts.to_vec();
        facts.extend(definitions);
        Prover { atoms, facts: &[] }.prove_from(p, &facts)
    }
}

impl Prove for CachedProver<'_> {
    fn prove_le0(&self, p: &Poly) -> bool {
        CachedProver::prove_le0(self, p)
    }
}

/// [`Prover::prove_le0`]'s answers over one atom table, remembered per
/// fact set and per polynomial without its constant term as
/// [`CachedProver`] does (the largest constant proven, the smallest not:
/// the proof is monotone in the constant), for passes that ask the same
/// questions under a few fact sets many times: the bounds of every
/// statement of an unrolled loop, the tickets an mbarrier wait compares.
/// Sound across a growing table: atoms are only appended, so an answer
/// about the atoms it names never changes. The answers are exactly
/// [`Prover::prove_le0`]'s.
#[derive(Default)]
pub(crate) struct ProofMemo {
    known: std::cell::RefCell<WordMap<Vec<Fact>, WordMap<Poly, Known>>>,
}

impl ProofMemo {
    /// [`Prover::prove_le0`] of `p` from `facts` over `atoms` (always the
    /// same table, possibly grown since the last query).
    pub(crate) fn prove_le0(&self, atoms: &Atoms, facts: &[Fact], p: &Poly) -> bool {
        self.prove_le0_from(atoms, || facts, p)
    }

    /// [`Self::prove_le0`] with the facts made only where the atoms'
    /// ranges alone do not answer (a caller that builds its list of facts
    /// for the query).
    pub(crate) fn prove_le0_from<'f>(
        &self,
        atoms: &Atoms,
        facts: impl FnOnce() -> &'f [Fact],
        p: &Poly,
    ) -> bool {
        // Ranges alone: cheaper than the lookup.
        if atoms.range(p).1 <= 0 {
            return true;
        }
        let facts = facts();
        let k = p.constant_term();
        let q = p.without_constant();
        let known = self
            .known
            .borrow()
            .get(facts)
            .and_then(|by_poly| by_poly.get(&q).copied())
            .unwrap_or_default();
        if known.proven.is_some_and(|proven| k <= proven) {
            return true;
        }
        if known.unproven.is_some_and(|unproven| k >= unproven) {
            return false;
        }
        let answer = Prover { atoms, facts }.prove_le0(p);
        let mut map = self.known.borrow_mut();
        let by_poly = match map.get_mut(facts) {
            Some(by_poly) => by_poly,
            None => map.entry(facts.to_vec()).or_default(),
        };
        let entry = by_poly.entry(q).or_default();
        if answer {
            entry.proven = Some(entry.proven.map_or(k, |proven| proven.max(k)));
        } else {
            entry.unproven = Some(entry.unproven.map_or(k, |unproven| unproven.min(k)));
        }
        answer
    }

    /// Forgets every answer whose facts or polynomial name an atom from
    /// `first` on: those ids go back to the table ([`Atoms::truncate`]),
    /// and an answer about the atom that held one is not an answer about
    /// the next.
    pub(crate) fn forget_atoms_from(&self, first: AtomId) {
        let names_dropped = |p: &Poly| p.terms().any(|(m, _)| m.iter().any(|a| *a >= first));
        let mut map = self.known.borrow_mut();
        map.retain(|facts, _| !facts.iter().any(names_dropped));
        for by_poly in map.values_mut() {
            by_poly.retain(|q, _| !names_dropped(q));
        }
    }

    /// `a <= b` ([`ProofMemo::prove_le0`]).
    pub(crate) fn le(&self, atoms: &Atoms, facts: &[Fact], a: &Poly, b: &Poly) -> bool {
        self.prove_le0(atoms, facts, &a.sub(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folding follows the emitted code where the checker defines the op,
    /// and refuses outside (no panic on a zero divisor or a wild shift).
    #[test]
    fn computed_ops_fold_where_defined() {
        assert_eq!(ComputedOp::Div.fold(259, 128), Some(2));
        assert_eq!(ComputedOp::Rem.fold(259, 128), Some(3));
        assert_eq!(ComputedOp::CeilDiv.fold(257, 128), Some(3));
        assert_eq!(ComputedOp::Shr.fold(300, 5), Some(9));
        assert_eq!(ComputedOp::And.fold(300, 31), Some(12));
        assert_eq!(ComputedOp::Div.fold(4, 0), None);
        assert_eq!(ComputedOp::Rem.fold(-1, 4), None);
        assert_eq!(ComputedOp::Shl.fold(1, 64), None);
    }

    fn atoms() -> (Atoms, AtomId, AtomId, AtomId) {
        let mut t = Atoms::default();
        let tid = t.push(Atom {
            kind: AtomKind::ThreadId(0),
            name: "thread_id(0)".into(),
            lo: 0,
            hi: 255,
        });
        let cta = t.push(Atom {
            kind: AtomKind::CtaId(0),
            name: "cta_id(0)".into(),
            lo: 0,
            hi: (1 << 31) - 2,
        });
        let n = t.push(Atom {
            kind: AtomKind::Symbol(0),
            name: "N".into(),
            lo: 0,
            hi: (1 << 40) - 1,
        });
        (t, tid, cta, n)
    }

    #[test]
    fn extents_cancel_exactly() {
        let (_, tid, cta, _) = atoms();
        let base = Poly::atom(cta).scale(256).add(&Poly::atom(tid)).scale(8);
        let end = base.add_const(8);
        assert_eq!(end.sub(&base).as_const(), Some(8));
        assert_eq!(base.mul(&Poly::constant(0)), Poly::default());
    }

    #[test]
    fn constant_factors_multiply_each_term() {
        let (_, tid, cta, _) = atoms();
        let p = Poly::atom(cta)
            .scale(3)
            .add(&Poly::atom(tid).mul(&Poly::atom(cta)))
            .add_const(-2);
        for c in [0, 1, -3, i128::MAX, i128::MIN] {
            let expected: Vec<(Vec<AtomId>, i128)> = p
                .terms()
                .map(|(m, k)| (m.to_vec(), k.saturating_mul(c)))
                .filter(|(_, k)| *k != 0)
                .collect();
            for product in [p.mul(&Poly::constant(c)), Poly::constant(c).mul(&p)] {
                let got: Vec<(Vec<AtomId>, i128)> =
                    product.terms().map(|(m, k)| (m.to_vec(), k)).collect();
                assert_eq!(got, expected, "times {c}");
            }
            assert_eq!(
                Poly::constant(7).mul(&Poly::constant(c)),
                Poly::constant(7i128.saturating_mul(c))
            );
        }
    }

    #[test]
    fn facts_prove_bounds_and_ranges_refute() {
        let (t, tid, cta, n) = atoms();
        let base = Poly::atom(cta).scale(2048).add(&Poly::atom(tid).scale(8));
        // if base + 8 <= N
        let fact = base.add_const(8).sub(&Poly::atom(n));
        let facts = vec![fact];
        let prover = Prover {
            atoms: &t,
            facts: &facts,
        };
        // base + 3 + 1 <= N follows; base + 9 <= N does not.
        assert!(prover.prove_le0(&base.add_const(4).sub(&Poly::atom(n))));
        assert!(!prover.prove_le0(&base.add_const(9).sub(&Poly::atom(n))));
        // 0 <= base from ranges.
        assert!(prover.prove_le0(&base.scale(-1)));
        // thread_id(0) + 300 <= 256 is impossible.
        assert!(prover.refute_le0(&Poly::atom(tid).add_const(300 - 256)));
        // A fact scaled: from i + 1 <= N, 2 * i + 2 <= 2 * N and
        // 2 * i + 1 <= 2 * N, but not 2 * i + 3 <= 2 * N.
        let i = Poly::atom(cta).scale(256).add(&Poly::atom(tid));
        let facts = vec![i.add_const(1).sub(&Poly::atom(n))];
        let prover = Prover {
            atoms: &t,
            facts: &facts,
        };
        let doubled = |add: i128| i.scale(2).add_const(add).sub(&Poly::atom(n).scale(2));
        assert!(prover.prove_le0(&doubled(2)));
        assert!(prover.prove_le0(&doubled(1)));
        assert!(!prover.prove_le0(&doubled(3)));
    }

    #[test]
    fn remainders_stay_below_their_divisor() {
        let (mut t, tid, _, n) = atoms();
        let i = Poly::atom(tid);
        let rem = t.push(Atom {
            kind: AtomKind::Computed(ComputedOp::Rem, vec![i.clone(), Poly::atom(n)]),
            name: "(thread_id(0) % N)".into(),
            lo: 0,
            hi: 255,
        });
        let prover = Prover {
            atoms: &t,
            facts: &[],
        };
        let r = Poly::atom(rem);
        // i % N + 1 <= N and i % N <= i, but not i % N + 2 <= N.
        assert!(prover.prove_le0(&r.add_const(1).sub(&Poly::atom(n))));
        assert!(prover.prove_le0(&r.sub(&i)));
        assert!(!prover.prove_le0(&r.add_const(2).sub(&Poly::atom(n))));
    }

    /// The prover's combinations, ranged without being built, agree with
    /// building them from `Poly` arithmetic.
    #[test]
    fn combinations_are_ranged_as_if_built() {
        let (t, tid, cta, n) = atoms();
        let mut rng = tile_kernel_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move |below: u64| rng.next_u64() % below;
        let mut poly = || {
            let mut p = Poly::default();
            for _ in 0..next(5) {
                let mut m: Vec<AtomId> = (0..next(3))
                    .map(|_| [tid, cta, n][next(3) as usize])
                    .collect();
                m.sort_unstable();
                let coef = next(2000) as i128 - 1000;
                let coef = if next(20) == 0 { coef << 120 } else { coef };
                p.add_term(&m, coef);
            }
            p
        };
        for _ in 0..300 {
            let (p, f, g) = (poly(), poly(), poly());
            let facts = [f.clone(), g.clone()];
            let flat = FlatTerms::new(&t, &p, &facts);
            for k in [1, 2, 16] {
                let built = t.range(&p.sub(&f.scale(k))).1;
                let ranged = flat.combined_hi([Some(0), Some(1), None], |[pc, fc, _]| {
                    pc.saturating_add(fc.saturating_mul(k).saturating_mul(-1))
                });
                assert_eq!(built, ranged, "{p:?} - {k} * ({f:?})");
                let built = t.range(&p.scale(k).sub(&f).sub(&g)).1;
                let ranged = flat.combined_hi([Some(0), Some(1), Some(2)], |[pc, fc, gc]| {
                    pc.saturating_mul(k)
                        .saturating_add(fc.saturating_mul(-1))
                        .saturating_add(gc.saturating_mul(-1))
                });
                assert_eq!(built, ranged, "{k} * ({p:?}) - ({f:?}) - ({g:?})");
            }
        }
    }

    /// Atoms of symbols `s0, s1, ..` with the given ranges.
    fn symbol_atoms(ranges: &[(i128, i128)]) -> (Atoms, Vec<AtomId>) {
        let mut atoms = Atoms::default();
        let ids = ranges
            .iter()
            .enumerate()
            .map(|(i, &(lo, hi))| {
                atoms.push(Atom {
                    kind: AtomKind::Symbol(i),
                    name: format!("s{i}"),
                    lo,
                    hi,
                })
            })
            .collect();
        (atoms, ids)
    }

    /// A polynomial of fewer than `max_terms` terms of degree at most 2
    /// over `ids`, coefficients in -20..=20, drawn from `next(below)`.
    fn random_poly(ids: &[AtomId], max_terms: u64, next: &mut dyn FnMut(u64) -> u64) -> Poly {
        let mut p = Poly::default();
        for _ in 0..next(max_terms) {
            let mut m: Vec<AtomId> = (0..next(3))
                .map(|_| ids[next(ids.len() as u64) as usize])
                .collect();
            m.sort_unstable();
            p.add_term(&m, next(41) as i128 - 20);
        }
        p
    }

    /// The hash `Poly`'s `Hash` gives, by [`WordHasher`].
    fn hash_of(p: &Poly) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = WordHasher::default();
        p.hash(&mut hasher);
        hasher.finish()
    }

    /// Whatever builds a polynomial, one that equals a constant is stored
    /// as one (equal to `Poly::constant`, the same hash, `as_const` sees
    /// it), and one that does not is not: checked against a term-map model
    /// of each result, over sums, differences, products, scalings, splits,
    /// substitutions and the constant-term operations of random
    /// polynomials (many cancel: coefficients are small and atoms few).
    #[test]
    fn every_constant_is_stored_as_one() {
        let (_, ids) = symbol_atoms(&[(0, 7), (-3, 5)]);
        let mut rng = tile_kernel_testkit::Rng::new(0x6a09_e667_f3bc_c908);
        let mut next = move |below: u64| rng.next_u64() % below;
        let model = |p: &Poly| -> BTreeMap<Vec<AtomId>, i128> {
            p.terms().map(|(m, c)| (m.to_vec(), c)).collect()
        };
        let (mut constants, mut others) = (0, 0);
        for _ in 0..4000 {
            let p = random_poly(&ids, 4, &mut next);
            let q = random_poly(&ids, 4, &mut next);
            let k = next(7) as i128 - 3;
            let by = random_poly(&ids[1..], 2, &mut next);
            let results = [
                p.add(&q),
                p.sub(&q),
                p.sub(&p),
                p.add(&q).sub(&q),
                p.mul(&q),
                p.scale(k),
                p.add_const(k),
                p.add_const(-p.constant_term()),
                p.without_constant(),
                p.split_on(ids[0]).0,
                p.split_on(ids[0]).1,
                p.substitute(ids[0], &by),
                p.filter_terms(|m, _| m.len() != 1),
                p.scale(6).div_exact(3),
            ];
            for r in results {
                let terms = model(&r);
                assert!(
                    terms.values().all(|c| *c != 0),
                    "a zero coefficient in {r:?}"
                );
                let constant = match terms.len() {
                    0 => Some(0),
                    1 => terms.get(&Vec::new()).copied(),
                    _ => None,
                };
                assert_eq!(r.as_const(), constant, "{r:?}");
                match constant {
                    Some(value) => {
                        constants += 1;
                        assert_eq!(r, Poly::constant(value));
                        assert_eq!(hash_of(&r), hash_of(&Poly::constant(value)));
                    }
                    None => {
                        others += 1;
                        assert_ne!(r, Poly::constant(r.constant_term()));
                    }
                }
                // Equal polynomials hash alike, however each was built.
                let rebuilt: Poly = {
                    let mut body = PolyBody::default();
                    for (m, c) in &terms {
                        body.add_term(m, *c);
                    }
                    body.into()
                };
                assert_eq!(r, rebuilt);
                assert_eq!(hash_of(&r), hash_of(&rebuilt));
            }
        }
        // Both kinds were reached often.
        assert!(
            constants > 5000 && others > 5000,
            "{constants} constants, {others} others"
        );
    }

    /// `Poly::value_at` answers what substituting every atom's value and
    /// reading the constant answers, wherever it answers (random
    /// polynomials and values, some large enough to saturate, which it
    /// must leave to the substitutions).
    #[test]
    fn value_at_is_the_substituted_constant() {
        let (_, ids) = symbol_atoms(&[(0, 7), (-3, 5), (0, 40), (2, 9)]);
        let mut rng = tile_kernel_testkit::Rng::new(0x3c6e_f372_fe94_f82b);
        let mut next = move |below: u64| rng.next_u64() % below;
        let (mut answered, mut declined) = (0, 0);
        for round in 0..5000 {
            let mut p = random_poly(&ids, 5, &mut next);
            if round % 4 == 0 {
                p = p.scale(1 << (60 + next(40)));
            }
            let values: Vec<i128> = ids
                .iter()
                .map(|_| match next(4) {
                    0 => (next(1 << 20) as i128 - (1 << 19)) << next(60),
                    _ => next(41) as i128 - 20,
                })
                .collect();
            let mut substituted = p.clone();
            for (id, value) in ids.iter().zip(&values) {
                substituted = substituted.substitute(*id, &Poly::constant(*value));
            }
            let value_of = |atom: AtomId| values[ids.iter().position(|i| *i == atom).unwrap()];
            match p.value_at(value_of) {
                Some(value) => {
                    assert_eq!(Some(value), substituted.as_const(), "{p:?} at {values:?}");
                    answered += 1;
                }
                None => declined += 1,
            }
        }
        assert!(answered > 1000 && declined > 100, "{answered} / {declined}");
    }

    /// Substituting a constant term by term gives what substituting the
    /// constant polynomial does (random polynomials with powers and
    /// products of atoms, small and large values).
    #[test]
    fn substitute_value_is_substitute_by_a_constant() {
        let (_, ids) = symbol_atoms(&[(0, 7), (-3, 5), (0, 40), (2, 9)]);
        let mut rng = tile_kernel_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move |below: u64| rng.next_u64() % below;
        let mut changed = 0;
        for _ in 0..5000 {
            let p = random_poly(&ids, 5, &mut next);
            let atom = ids[next(ids.len() as u64) as usize];
            let value = match next(3) {
                0 => 0,
                1 => next(41) as i128 - 20,
                _ => (next(1 << 20) as i128) << next(40),
            };
            let by_value = p.substitute_value(atom, value);
            assert_eq!(
                by_value,
                p.substitute(atom, &Poly::constant(value)),
                "{p:?} with atom {atom} = {value}"
            );
            changed += usize::from(by_value != p);
        }
        assert!(changed > 1000, "{changed}");
    }

    /// The dense exact path gives the saturating path's answer wherever it
    /// applies, both ways (random obligations and facts over small ranges,
    /// so that some are proven and some not).
    #[test]
    fn small_combinations_agree_with_saturating_ones() {
        let (mut t, ids) = symbol_atoms(&[(0, 7), (-3, 5), (0, 40), (2, 9)]);
        let mut rng = tile_kernel_testkit::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move |below: u64| rng.next_u64() % below;
        let poly = |next: &mut dyn FnMut(u64) -> u64| random_poly(&ids, 4, next);
        let (mut proven, mut unproven) = (0, 0);
        for _ in 0..3000 {
            let p = poly(&mut next);
            let facts: Vec<Poly> = (0..1 + next(4)).map(|_| poly(&mut next)).collect();
            let flat = FlatTerms::new(&t, &p, &facts);
            let exact = flat.small_combinations().expect("small coefficients");
            assert_eq!(exact, flat.any_combination(), "{p:?} from {facts:?}");
            if exact {
                proven += 1;
            } else {
                unproven += 1;
            }
        }
        assert!(proven > 100 && unproven > 100, "{proven} / {unproven}");
        // Large coefficients or ranges take the saturating path.
        let big = Poly::atom(ids[0]).scale(1 << 122);
        let flat = FlatTerms::new(&t, &big, std::slice::from_ref(&big));
        assert_eq!(flat.small_combinations(), None);
        let wide = t.push(Atom {
            kind: AtomKind::Symbol(4),
            name: "w".into(),
            lo: 0,
            hi: 1 << 110,
        });
        let p = Poly::atom(wide).scale(1 << 12).add_const(1);
        let flat = FlatTerms::new(&t, &p, std::slice::from_ref(&p));
        assert_eq!(flat.small_combinations(), None);
    }

    /// The shortcut for an obligation that restates a fact (`p = f + c`,
    /// `c <= 0`, by `Poly` arithmetic) answers exactly for those, and the
    /// combination search proves each of them from that fact alone and from
    /// all the facts: large coefficients and wide ranges included, where
    /// the search saturates.
    #[test]
    fn restated_facts_are_what_the_search_proves() {
        let (mut t, mut ids) = symbol_atoms(&[(0, 7), (-3, 5), (0, 40), (2, 9)]);
        ids.push(t.push(Atom {
            kind: AtomKind::Symbol(4),
            name: "w".into(),
            lo: -(1 << 110),
            hi: 1 << 110,
        }));
        let mut rng = tile_kernel_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move |below: u64| rng.next_u64() % below;
        let (mut restated, mut not_restated) = (0, 0);
        for round in 0..3000 {
            let mut p = random_poly(&ids, 4, &mut next);
            if round % 3 == 0 {
                p = p.scale(1 << 100);
            }
            let mut facts: Vec<Poly> = (0..next(3))
                .map(|_| random_poly(&ids, 4, &mut next))
                .collect();
            // `p` shifted by a constant of either sign, among the others.
            let at = next(facts.len() as u64 + 1) as usize;
            facts.insert(at, p.add_const(next(21) as i128 - 10));
            let restating: Vec<&Poly> = facts
                .iter()
                .filter(|f| p.sub(f).as_const().is_some_and(|c| c <= 0))
                .collect();
            assert_eq!(restates_fact(&p, &facts), !restating.is_empty());
            let search = |facts: &[Poly]| {
                let flat = FlatTerms::new(&t, &p, facts);
                flat.small_combinations()
                    .unwrap_or_else(|| flat.any_combination())
                    || flat.ratio_combination()
            };
            if restating.is_empty() {
                not_restated += 1;
                continue;
            }
            restated += 1;
            for f in restating {
                assert!(search(std::slice::from_ref(f)), "{p:?} from {f:?}");
            }
            assert!(search(&facts), "{p:?} from {facts:?}");
        }
        assert!(
            restated > 500 && not_restated > 500,
            "{restated} / {not_restated}"
        );
    }

    /// The term-vector polynomial computes what the map of monomials did
    /// (the old representation, written out here): every operation, with
    /// cancelling and saturating coefficients; equality, order and the
    /// encoded bytes are the map's.
    #[test]
    fn polys_compute_what_the_term_map_did() {
        type Map = BTreeMap<Vec<AtomId>, i128>;
        fn add_term(map: &mut Map, m: Vec<AtomId>, c: i128) {
            use std::collections::btree_map::Entry;
            match map.entry(m) {
                Entry::Occupied(mut e) => {
                    let sum = e.get().saturating_add(c);
                    if sum == 0 {
                        e.remove();
                    } else {
                        *e.get_mut() = sum;
                    }
                }
                Entry::Vacant(e) => {
                    if c != 0 {
                        e.insert(c);
                    }
                }
            }
        }
        fn map_of(p: &Poly) -> Map {
            p.terms().map(|(m, c)| (m.to_vec(), c)).collect()
        }
        #[derive(Serialize)]
        struct Encoded {
            terms: Map,
        }
        let mut rng = tile_kernel_testkit::Rng::new(0xbb67_ae85_84ca_a73b);
        let mut next = move |below: u64| rng.next_u64() % below;
        let coefs = [
            1,
            -1,
            2,
            -3,
            7,
            i128::MAX,
            i128::MIN + 1,
            1 << 100,
            -(1 << 100),
        ];
        let poly = |next: &mut dyn FnMut(u64) -> u64| {
            let mut p = Poly::default();
            let mut map = Map::new();
            for _ in 0..next(6) {
                let mut m: Vec<AtomId> = (0..next(4)).map(|_| next(4) as AtomId).collect();
                m.sort_unstable();
                let c = coefs[next(coefs.len() as u64) as usize];
                p.add_term(&m, c);
                add_term(&mut map, m, c);
            }
            assert_eq!(map_of(&p), map);
            (p, map)
        };
        for _ in 0..3000 {
            let (a, ma) = poly(&mut next);
            let (b, mb) = poly(&mut next);
            let mut sum = ma.clone();
            let mut difference = ma.clone();
            for (m, c) in &mb {
                add_term(&mut sum, m.clone(), *c);
                add_term(&mut difference, m.clone(), c.saturating_mul(-1));
            }
            assert_eq!(map_of(&a.add(&b)), sum, "{a:?} + {b:?}");
            assert_eq!(map_of(&a.sub(&b)), difference, "{a:?} - {b:?}");
            let mut product = Map::new();
            for (m1, c1) in &ma {
                for (m2, c2) in &mb {
                    let mut m = m1.clone();
                    m.extend_from_slice(m2);
                    m.sort_unstable();
                    add_term(&mut product, m, c1.saturating_mul(*c2));
                }
            }
            assert_eq!(map_of(&a.mul(&b)), product, "{a:?} * {b:?}");
            let k = coefs[next(coefs.len() as u64) as usize];
            let scaled: Map = ma
                .iter()
                .map(|(m, c)| (m.clone(), c.saturating_mul(k)))
                .collect();
            assert_eq!(map_of(&a.scale(k)), scaled);
            let mut shifted = ma.clone();
            add_term(&mut shifted, Vec::new(), k);
            assert_eq!(map_of(&a.add_const(k)), shifted);
            let atom = next(4) as AtomId;
            let (mut coef, mut rest) = (Map::new(), Map::new());
            for (m, c) in &ma {
                if let Some(i) = m.iter().position(|x| *x == atom) {
                    let mut reduced = m.clone();
                    reduced.remove(i);
                    add_term(&mut coef, reduced, *c);
                } else {
                    add_term(&mut rest, m.clone(), *c);
                }
            }
            let (pc, pr) = a.split_on(atom);
            assert_eq!((map_of(&pc), map_of(&pr)), (coef, rest));
            let mut without = ma.clone();
            without.remove(&Vec::new());
            assert_eq!(map_of(&a.without_constant()), without);
            assert_eq!(a.constant_term(), ma.get(&Vec::new()).copied().unwrap_or(0));
            let mut odd = Map::new();
            for (m, c) in &ma {
                if c % 2 != 0 {
                    add_term(&mut odd, m.clone(), *c);
                }
            }
            assert_eq!(map_of(&a.filter_terms(|_, c| c % 2 != 0)), odd);
            // After removals (the constant, cancelled terms), equality,
            // order and hashing are the map's.
            let (c, mc) = (a.without_constant().add(&b), {
                let mut m = without.clone();
                for (k, v) in &mb {
                    add_term(&mut m, k.clone(), *v);
                }
                m
            });
            assert_eq!(map_of(&c), mc);
            assert_eq!(c == b, mc == mb);
            assert_eq!(c.cmp(&b), mc.cmp(&mb));
            assert_eq!(a.cmp(&b), ma.cmp(&mb));
            if c == b {
                let hash = |p: &Poly| {
                    use std::hash::{BuildHasher, BuildHasherDefault};
                    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
                        .hash_one(p)
                };
                assert_eq!(hash(&c), hash(&b));
            }
            let bytes = postcard::to_allocvec(&c).expect("encodes");
            let map_bytes = postcard::to_allocvec(&Encoded { terms: mc }).expect("encodes");
            assert_eq!(bytes, map_bytes);
            assert_eq!(postcard::from_bytes::<Poly>(&bytes).expect("decodes"), c);
        }
    }

    /// The facts' table gives `small_combinations`' answer (and its
    /// `None`) for every obligation: random facts and obligations whose
    /// monomials the facts share in part, in whole or not at all.
    #[test]
    fn fact_table_agrees_with_flat_terms() {
        let (mut t, ids) = symbol_atoms(&[(0, 7), (-3, 5), (0, 40), (2, 9), (-6, -1)]);
        let mut rng = tile_kernel_testkit::Rng::new(0x6a09_e667_f3bc_c908);
        let mut next = move |below: u64| rng.next_u64() % below;
        let poly = |next: &mut dyn FnMut(u64) -> u64| random_poly(&ids, 5, next);
        let (mut proven, mut unproven) = (0, 0);
        for _ in 0..400 {
            let facts: Vec<Poly> = (0..1 + next(6)).map(|_| poly(&mut next)).collect();
            let table = FactTable::new(&t, &facts);
            for _ in 0..10 {
                let p = poly(&mut next);
                let flat = FlatTerms::new(&t, &p, &facts).small_combinations();
                assert_eq!(
                    table.small_combinations(&t, &p),
                    flat,
                    "{p:?} from {facts:?}"
                );
                if flat == Some(true) {
                    proven += 1;
                } else {
                    unproven += 1;
                }
            }
        }
        assert!(proven > 300 && unproven > 300, "{proven} / {unproven}");
        // Many facts (the pairs the bounds skip), sparse ones (fact
        // columns the obligation lacks): the same answers.
        let (mut proven, mut unproven) = (0, 0);
        for _ in 0..100 {
            let facts: Vec<Poly> = (0..4 + next(14))
                .map(|_| random_poly(&ids, 2 + next(3), &mut next))
                .collect();
            let table = FactTable::new(&t, &facts);
            for _ in 0..10 {
                let p = poly(&mut next);
                let flat = FlatTerms::new(&t, &p, &facts).small_combinations();
                assert_eq!(
                    table.small_combinations(&t, &p),
                    flat,
                    "{p:?} from {facts:?}"
                );
                if flat == Some(true) {
                    proven += 1;
                } else {
                    unproven += 1;
                }
            }
        }
        assert!(proven > 100 && unproven > 100, "{proven} / {unproven}");
        // Large coefficients or ranges, in the facts or the obligation.
        let big = Poly::atom(ids[0]).scale(1 << 122);
        let small = Poly::atom(ids[1]).add_const(-3);
        for (p, facts) in [(&big, &small), (&small, &big), (&big, &big)] {
            let facts = std::slice::from_ref(facts);
            assert_eq!(
                FactTable::new(&t, facts).small_combinations(&t, p),
                FlatTerms::new(&t, p, facts).small_combinations()
            );
        }
        let wide = t.push(Atom {
            kind: AtomKind::Symbol(5),
            name: "w".into(),
            lo: 0,
            hi: 1 << 110,
        });
        let p = Poly::atom(wide).scale(1 << 12).add_const(1);
        let facts = std::slice::from_ref(&small);
        assert_eq!(FactTable::new(&t, facts).small_combinations(&t, &p), None);
        assert_eq!(FlatTerms::new(&t, &p, facts).small_combinations(), None);
    }

    /// The cache answers as the prover does, over queries that share
    /// their non-constant parts (so that most answers come from what it
    /// knows): proven and unproven both, with facts and computed atoms.
    #[test]
    fn cached_prover_answers_as_the_prover() {
        let (mut t, tid, cta, n) = atoms();
        let rem = t.push(Atom {
            kind: AtomKind::Computed(ComputedOp::Rem, vec![Poly::atom(tid), Poly::atom(n)]),
            name: "(thread_id(0) % N)".into(),
            lo: 0,
            hi: 255,
        });
        let i = Poly::atom(cta).scale(256).add(&Poly::atom(tid));
        let facts = vec![
            i.add_const(1).sub(&Poly::atom(n)),
            Poly::atom(tid).scale(2).add_const(-100),
        ];
        let shapes = [
            Poly::default(),
            Poly::atom(tid),
            Poly::atom(tid).scale(-1),
            i.scale(2).sub(&Poly::atom(n).scale(2)),
            Poly::atom(rem).sub(&Poly::atom(n)),
            Poly::atom(tid).sub(&Poly::atom(rem)),
        ];
        let prover = Prover {
            atoms: &t,
            facts: &facts,
        };
        let cached = CachedProver::new(&t, &facts);
        let mut rng = tile_kernel_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let (mut proven, mut unproven) = (0, 0);
        for _ in 0..2000 {
            let seed = rng.next_u64();
            let shape = &shapes[(seed % 6) as usize];
            let k = ((seed >> 8) % 601) as i128 - 300;
            let p = shape.add_const(k);
            let expected = prover.prove_le0(&p);
            assert_eq!(cached.prove_le0(&p), expected, "{p:?}");
            if expected {
                proven += 1;
            } else {
                unproven += 1;
            }
        }
        assert!(proven > 200 && unproven > 200, "{proven} / {unproven}");
    }

    /// [`CachedProver::relevant_facts`]: the prover answers under the
    /// facts it keeps as under all of them, and as [`Prover`] does, for
    /// polynomials over the atoms it was given (5000 random fact sets over
    /// six symbols and a computed remainder, each asked about 6
    /// obligations over a random part of the atoms at 9 constants).
    #[test]
    fn relevant_facts_prove_what_all_facts_prove() {
        let (mut t, mut ids) = symbol_atoms(&[(0, 7), (-3, 5), (0, 40), (2, 9), (0, 3), (1, 12)]);
        let rem = t.push(Atom {
            kind: AtomKind::Computed(
                ComputedOp::Rem,
                vec![Poly::atom(ids[2]), Poly::atom(ids[3])],
            ),
            name: "(s2 % s3)".into(),
            lo: 0,
            hi: 8,
        });
        ids.push(rem);
        let mut rng = tile_kernel_testkit::Rng::new(0x510e_527f_ade6_82d1);
        let mut next = move |below: u64| rng.next_u64() % below;
        let (mut reduced, mut proven, mut unproven) = (0, 0, 0);
        for _ in 0..5000 {
            // Facts over small groups of atoms, most satisfiable by ranges.
            let facts: Vec<Fact> = (0..2 + next(7))
                .map(|_| {
                    let group: Vec<AtomId> = (0..1 + next(3))
                        .map(|_| ids[next(ids.len() as u64) as usize])
                        .collect();
                    let q = random_poly(&group, 4, &mut next).without_constant();
                    let (lo, hi) = t.range(&q);
                    let shift = if next(10) == 0 {
                        -lo + 1
                    } else {
                        -lo - next((hi - lo + 1) as u64) as i128
                    };
                    q.add_const(shift)
                })
                .collect();
            let cached = CachedProver::new(&t, &facts);
            let prover = Prover {
                atoms: &t,
                facts: &facts,
            };
            let part: Vec<AtomId> = (0..1 + next(3))
                .map(|_| ids[next(ids.len() as u64) as usize])
                .collect();
            // The atoms of the part and of the definitions of its computed ones.
            let mut atoms = part.clone();
            if atoms.contains(&rem) {
                atoms.extend([ids[2], ids[3]]);
            }
            atoms.sort_unstable();
            atoms.dedup();
            let Some(relevant) = cached.relevant_facts(&atoms) else {
                continue;
            };
            assert!(relevant.len() < facts.len());
            reduced += 1;
            let fewer = CachedProver::new(&t, &relevant);
            for _ in 0..6 {
                let q = random_poly(&part, 4, &mut next).without_constant();
                for k in -4..=4 {
                    let p = q.add_const(k);
                    let expected = prover.prove_le0(&p);
                    assert_eq!(cached.prove_le0(&p), expected, "{p:?} under {facts:?}");
                    assert_eq!(
                        fewer.prove_le0(&p),
                        expected,
                        "{p:?} under {relevant:?} of {facts:?}"
                    );
                    if expected {
                        proven += 1;
                    } else {
                        unproven += 1;
                    }
                }
            }
        }
        assert!(
            reduced > 1000 && proven > 5000 && unproven > 5000,
            "{reduced} reduced, {proven} / {unproven}"
        );
    }

    /// What the cache and the bisection of periods rely on: a proof of
    /// `q + k <= 0` holds for every smaller `k` too (random obligations
    /// and facts, some with computed atoms).
    #[test]
    fn proofs_are_monotone_in_the_constant() {
        let (mut t, tid, cta, n) = atoms();
        let rem = t.push(Atom {
            kind: AtomKind::Computed(ComputedOp::Rem, vec![Poly::atom(tid), Poly::atom(n)]),
            name: "(thread_id(0) % N)".into(),
            lo: 0,
            hi: 255,
        });
        let ids = [tid, cta, n, rem];
        let mut rng = tile_kernel_testkit::Rng::new(0x5851_f42d_4c95_7f2d);
        let mut next = move |below: u64| rng.next_u64() % below;
        let poly = |next: &mut dyn FnMut(u64) -> u64| {
            let mut p = Poly::default();
            for _ in 0..next(3) {
                let m = vec![ids[next(4) as usize]];
                p.add_term(&m, next(9) as i128 - 4);
            }
            p.add_const(next(600) as i128 - 300)
        };
        let mut flips = 0;
        for _ in 0..300 {
            let q = poly(&mut next).without_constant();
            let facts: Vec<Poly> = (0..next(3)).map(|_| poly(&mut next)).collect();
            let prover = Prover {
                atoms: &t,
                facts: &facts,
            };
            let mut previous = true;
            for k in (-300..=300).step_by(7) {
                let proven = prover.prove_le0(&q.add_const(k));
                assert!(previous || !proven, "{q:?} + {k} from {facts:?}");
                flips += usize::from(previous && !proven);
                previous = proven;
            }
        }
        assert!(flips > 50, "{flips}");
    }

    /// `sub` and `add_const` build what `add` of the negation and of the
    /// constant build (cancelling and saturating terms included).
    #[test]
    fn direct_sub_and_add_const_agree_with_add() {
        let (_, tid, cta, n) = atoms();
        let mut rng = tile_kernel_testkit::Rng::new(0xd1b5_4a32_d192_ed03);
        let mut next = move |below: u64| rng.next_u64() % below;
        let poly = |next: &mut dyn FnMut(u64) -> u64| {
            let mut p = Poly::default();
            for _ in 0..next(5) {
                let mut m: Vec<AtomId> = (0..next(3))
                    .map(|_| [tid, cta, n][next(3) as usize])
                    .collect();
                m.sort_unstable();
                let coef = next(7) as i128 - 3;
                let coef = match next(10) {
                    0 => i128::MAX,
                    1 => i128::MIN,
                    _ => coef,
                };
                p.add_term(&m, coef);
            }
            p
        };
        let mut cancelled = 0;
        for _ in 0..2000 {
            let (a, mut b) = (poly(&mut next), poly(&mut next));
            if next(3) == 0 {
                // Sharing terms with `a`, which then cancel.
                b = a.add(&b);
            }
            let difference = a.sub(&b);
            assert_eq!(difference, a.add(&b.scale(-1)), "{a:?} - {b:?}");
            assert!(difference.terms().all(|(_, c)| c != 0));
            cancelled += usize::from(difference.terms().count() < a.terms().count());
            let k = next(7) as i128 - 3;
            assert_eq!(a.add_const(k), a.add(&Poly::constant(k)), "{a:?} + {k}");
            let k = b.constant_term().saturating_mul(-1);
            assert_eq!(a.add_const(k), a.add(&Poly::constant(k)), "{a:?} + {k}");
        }
        assert!(cancelled > 50, "{cancelled}");
    }

    #[test]
    fn display_names_atoms() {
        let (t, tid, cta, _) = atoms();
        let p = Poly::atom(cta)
            .scale(2048)
            .add(&Poly::atom(tid).scale(8))
            .add_const(8);
        assert_eq!(
            p.display(&t).to_string(),
            "8 * thread_id(0) + 2048 * cta_id(0) + 8"
        );
    }
}
