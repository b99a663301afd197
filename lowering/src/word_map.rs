//! [`WordMap`]: the hash map of the checker's and the proofs' memos,
//! written for a build without optimizations.
//!
//! The macro builds at `opt-level = 0` by default (a user's profile sets
//! it, not this crate), and then `std`'s map runs its generic code
//! unoptimized in this crate: hashbrown's group probing is a chain of
//! small calls, about 800 instructions a lookup in the async walk. This
//! map is open addressing over slices (linear probing, a power of two of
//! slots, at most half full), each slot the position of its entry in a
//! list kept in insertion order: a lookup hashes the key (with
//! [`WordHasher`]), then compares stored hashes and, where they are equal,
//! keys.
//!
//! **Guarantee.** It answers as a `HashMap` would for every operation it
//! offers (a test checks it against one over random operations), and it
//! iterates in insertion order (with a removal moving the last entry into
//! the gap), so nothing that iterates it depends on a hash.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

use crate::sym::WordHasher;

/// A slot with no entry.
const EMPTY: u32 = 0;

/// A hash map from `K` to `V` (module doc).
#[derive(Clone)]
pub(crate) struct WordMap<K, V> {
    /// Per slot: [`EMPTY`], or one more than its entry's position.
    slots: Vec<u32>,
    /// The entries, in insertion order.
    entries: Vec<Item<K, V>>,
}

#[derive(Clone)]
struct Item<K, V> {
    hash: u64,
    key: K,
    value: V,
}

impl<K, V> Default for WordMap<K, V> {
    fn default() -> Self {
        WordMap {
            slots: Vec::new(),
            entries: Vec::new(),
        }
    }
}

impl<K: std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for WordMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The [`WordHasher`] hash of `key`.
fn hash_of<Q: Hash + ?Sized>(key: &Q) -> u64 {
    let mut hasher = WordHasher::default();
    key.hash(&mut hasher);
    hasher.finish()
}

/// The first slot to probe for `hash` in `slots` slots (a power of two):
/// the hash's high bits (a product's low bits depend only on the low bits
/// of what was multiplied, and keys that are addresses share those).
fn home(hash: u64, slots: usize) -> usize {
    let product = hash.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (product >> (64 - slots.trailing_zeros())) as usize
}

impl<K, V> WordMap<K, V> {
    /// The entries in insertion order (module doc).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|item| (&item.key, &item.value))
    }

    /// The keys in insertion order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|item| &item.key)
    }

    /// The values in insertion order.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|item| &mut item.value)
    }

    /// Keeps the entries `keep` accepts, in their order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let before = self.entries.len();
        self.entries
            .retain_mut(|item| keep(&item.key, &mut item.value));
        if self.entries.len() != before {
            self.slots.fill(EMPTY);
            for at in 0..self.entries.len() {
                let hash = self.entries[at].hash;
                self.place(hash, at);
            }
        }
    }

    /// Points the first empty slot from `hash`'s home at position `at`.
    fn place(&mut self, hash: u64, at: usize) {
        let slots: &mut [u32] = &mut self.slots;
        let mask = slots.len() - 1;
        let mut slot = home(hash, slots.len());
        while slots[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        slots[slot] = at as u32 + 1;
    }
}

impl<K: Hash + Eq, V> WordMap<K, V> {
    /// The slot holding `key` (hashed to `hash`), or `Err` with the empty
    /// slot where it would go; `Err(usize::MAX)` where the map has none.
    fn slot_of<Q>(&self, hash: u64, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let slots: &[u32] = &self.slots;
        if slots.is_empty() {
            return Err(usize::MAX);
        }
        let entries: &[Item<K, V>] = &self.entries;
        let mask = slots.len() - 1;
        let mut slot = home(hash, slots.len());
        loop {
            let held = slots[slot];
            if held == EMPTY {
                return Err(slot);
            }
            let item = &entries[held as usize - 1];
            if item.hash == hash && item.key.borrow() == key {
                return Ok(slot);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The position of `key`'s entry.
    fn position<Q>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.slot_of(hash_of(key), key).ok()?;
        Some(self.slots[slot] as usize - 1)
    }

    pub(crate) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let at = self.position(key)?;
        Some(&self.entries[at].value)
    }

    pub(crate) fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let at = self.position(key)?;
        Some(&mut self.entries[at].value)
    }

    pub(crate) fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.position(key).is_some()
    }

    /// Sets `key`'s value, giving back the one it replaced.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        let hash = hash_of(&key);
        match self.slot_of(hash, &key) {
            Ok(slot) => {
                let at = self.slots[slot] as usize - 1;
                Some(std::mem::replace(&mut self.entries[at].value, value))
            }
            Err(_) => {
                self.push(hash, key, value);
                None
            }
        }
    }

    /// `key`'s entry, to read or fill.
    pub(crate) fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let hash = hash_of(&key);
        let found = self
            .slot_of(hash, &key)
            .ok()
            .map(|slot| self.slots[slot] as usize - 1);
        Entry {
            map: self,
            hash,
            key,
            found,
        }
    }

    /// Adds an entry whose key the map does not hold; its position.
    fn push(&mut self, hash: u64, key: K, value: V) -> usize {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let at = self.entries.len();
        self.entries.push(Item { hash, key, value });
        self.place(hash, at);
        at
    }

    /// Removes `key`'s entry, giving back its value: the slots after it
    /// in its probe run shift back over the gap (no tombstones), and the
    /// last entry moves to its position.
    pub(crate) fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let mut gap = self.slot_of(hash_of(key), key).ok()?;
        let at = self.slots[gap] as usize - 1;
        let mask = self.slots.len() - 1;
        self.slots[gap] = EMPTY;
        let mut next = (gap + 1) & mask;
        while self.slots[next] != EMPTY {
            let held = self.slots[next];
            let home = home(self.entries[held as usize - 1].hash, self.slots.len());
            // Whether `home` lies cyclically in (gap, next]: then the
            // entry must stay (its probe from home never passes the gap).
            let stays = if gap <= next {
                gap < home && home <= next
            } else {
                gap < home || home <= next
            };
            if !stays {
                self.slots[gap] = held;
                self.slots[next] = EMPTY;
                gap = next;
            }
            next = (next + 1) & mask;
        }
        let last = self.entries.len() - 1;
        if at != last {
            // The slot that names the last entry names its new position.
            let mut slot = home(self.entries[last].hash, self.slots.len());
            while self.slots[slot] as usize != last + 1 {
                slot = (slot + 1) & mask;
            }
            self.slots[slot] = at as u32 + 1;
        }
        Some(self.entries.swap_remove(at).value)
    }

    /// Twice the slots (at least 8), every entry placed again.
    fn grow(&mut self) {
        let slots = (self.slots.len() * 2).max(8);
        assert!(slots <= u32::MAX as usize, "a memo of over 2^31 entries");
        self.slots = vec![EMPTY; slots];
        for at in 0..self.entries.len() {
            let hash = self.entries[at].hash;
            self.place(hash, at);
        }
    }
}

impl<K, Q, V> std::ops::Index<&Q> for WordMap<K, V>
where
    K: Hash + Eq + Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    type Output = V;

    /// `key`'s value; panics where the map has none (as `std`'s does).
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("a key the map holds")
    }
}

/// A key's entry in a [`WordMap`]: held or not.
pub(crate) struct Entry<'m, K, V> {
    map: &'m mut WordMap<K, V>,
    hash: u64,
    key: K,
    /// The entry's position, where the map holds the key.
    found: Option<usize>,
}

impl<'m, K: Hash + Eq, V> Entry<'m, K, V> {
    /// The value, `make()` stored first where the key has none.
    pub(crate) fn or_insert_with(self, make: impl FnOnce() -> V) -> &'m mut V {
        let at = match self.found {
            Some(at) => at,
            None => self.map.push(self.hash, self.key, make()),
        };
        &mut self.map.entries[at].value
    }

    /// The value, `V::default()` stored first where the key has none.
    pub(crate) fn or_default(self) -> &'m mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Random inserts, entries, lookups, removals and retains over keys that collide in
    /// their low bits (addresses) and in their homes, against `std`'s map;
    /// iteration is insertion order.
    #[test]
    fn answers_what_a_std_map_does() {
        let mut rng = tile_kernel_testkit::Rng::new(0x510e_527f_ade6_82d1);
        for case in 0..200 {
            let mut ours: WordMap<usize, usize> = WordMap::default();
            let mut theirs: HashMap<usize, usize> = HashMap::new();
            let mut order: Vec<usize> = Vec::new();
            let spread = 1 + rng.below(300);
            for step in 0..1 + rng.below(600) {
                // Multiples of 16, like the addresses the memos key by.
                let key = 16 * rng.below(spread);
                let value = step * 7 + case;
                match rng.below(6) {
                    4 => {
                        assert_eq!(ours.remove(&key), theirs.remove(&key));
                        // A removal moves the last entry into the gap.
                        if let Some(at) = order.iter().position(|k| *k == key) {
                            order.swap_remove(at);
                        }
                    }
                    5 if step % 50 == 0 => {
                        ours.retain(|k, v| (k / 16 + *v) % 3 != 0);
                        theirs.retain(|k, v| (k / 16 + *v) % 3 != 0);
                        order.retain(|k| theirs.contains_key(k));
                    }
                    0 => {
                        assert_eq!(ours.insert(key, value), theirs.insert(key, value));
                    }
                    1 => {
                        let a = *ours.entry(key).or_insert_with(|| value);
                        let b = *theirs.entry(key).or_insert(value);
                        assert_eq!(a, b);
                    }
                    2 => {
                        *ours.entry(key).or_default() += 1;
                        *theirs.entry(key).or_default() += 1;
                    }
                    _ => {
                        assert_eq!(ours.get(&key), theirs.get(&key));
                        assert_eq!(ours.contains_key(&key), theirs.contains_key(&key));
                        if let (Some(a), Some(b)) = (ours.get_mut(&key), theirs.get_mut(&key)) {
                            *a += 3;
                            *b += 3;
                        }
                    }
                }
                if !order.contains(&key) && theirs.contains_key(&key) {
                    order.push(key);
                }
                assert_eq!(ours.keys().count(), theirs.len());
            }
            let keys: Vec<usize> = ours.iter().map(|(k, _)| *k).collect();
            assert_eq!(keys, order, "case {case}: insertion order");
            for (key, value) in &theirs {
                assert_eq!(ours.get(key), Some(value));
            }
        }
    }

    /// Keys looked up through a borrowed form (`String` by `&str`), as
    /// the name tables do.
    #[test]
    fn finds_keys_by_their_borrowed_form() {
        let mut map: WordMap<String, usize> = WordMap::default();
        for (i, name) in ["a", "bb", "ccc", "a_longer_name_than_a_word"]
            .iter()
            .enumerate()
        {
            map.insert((*name).to_string(), i);
        }
        assert_eq!(map.get("ccc"), Some(&2));
        assert_eq!(map.get("a_longer_name_than_a_word"), Some(&3));
        assert_eq!(map.get("d"), None);
        assert_eq!(map.remove("bb"), Some(1));
        assert_eq!((map.get("bb"), map.get("a")), (None, Some(&0)));
    }
}
