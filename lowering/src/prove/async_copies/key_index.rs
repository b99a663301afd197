//! The positions of a list's items by key, for the async walk's joins.
//!
//! The joins search a state's lists by key at every `if` and back edge:
//! a table of the list's keys is built there and asked once per item of
//! the other path. Built without optimizations (the macro's default), a
//! `std` map's generic code runs unoptimized in this crate, hundreds of
//! instructions a lookup; this table is open addressing over slices
//! (linear probing, power-of-two slots, at most half full), a few dozen.
//!
//! **Guarantee.** [`KeyIndex::find`] answers what scanning the list would:
//! the first position, in the list's order, whose key is the one asked and
//! whose item matches.

/// A key the index can place: `Copy`, compared whole, and hashed from one
/// word ([`IndexKey::word`]; keys with equal words are told apart by `==`).
pub(super) trait IndexKey: Copy + Eq {
    fn word(self) -> u64;
}

impl IndexKey for (usize, u32) {
    fn word(self) -> u64 {
        ((self.0 as u64) << 32) ^ u64::from(self.1)
    }
}

impl IndexKey for (crate::diag::SpanId, u32) {
    fn word(self) -> u64 {
        (u64::from(self.0.0) << 32) ^ u64::from(self.1)
    }
}

impl IndexKey for crate::program::Lane {
    fn word(self) -> u64 {
        ((self.tile as u64) << 40) ^ ((self.byte_offset as u64) << 8) ^ self.bytes as u64
    }
}

/// No position, no key.
const NONE: usize = usize::MAX;

/// A list's positions by key: per distinct key its first and last
/// position, and per position the next one with the same key.
pub(super) struct KeyIndex<K> {
    /// Per slot: the distinct key's number there, or [`NONE`].
    slots: Vec<usize>,
    /// Per distinct key: the key, its first and its last position.
    keys: Vec<(K, usize, usize)>,
    /// Per position: the next position with the same key, or [`NONE`].
    next: Vec<usize>,
}

impl<K: IndexKey> KeyIndex<K> {
    /// The index of `items` by `key`.
    pub(super) fn of<T>(items: &[T], key: impl Fn(&T) -> K) -> KeyIndex<K> {
        let mut index = KeyIndex {
            slots: vec![NONE; slots_for(items.len())],
            keys: Vec::with_capacity(items.len()),
            next: Vec::with_capacity(items.len()),
        };
        for item in items {
            index.push(key(item));
        }
        index
    }

    /// Indexes the next position of the list, with key `key`.
    pub(super) fn push(&mut self, key: K) {
        let at = self.next.len();
        self.next.push(NONE);
        let slot = self.slot_of(key);
        let number = self.slots[slot];
        if number != NONE {
            let last = self.keys[number].2;
            self.next[last] = at;
            self.keys[number].2 = at;
            return;
        }
        self.slots[slot] = self.keys.len();
        self.keys.push((key, at, at));
        if self.keys.len() * 2 > self.slots.len() {
            self.grow();
        }
    }

    /// The first position with key `key` whose item `matches`.
    pub(super) fn find(&self, key: &K, mut matches: impl FnMut(usize) -> bool) -> Option<usize> {
        let number = self.slots[self.slot_of(*key)];
        if number == NONE {
            return None;
        }
        let mut at = self.keys[number].1;
        while at != NONE {
            if matches(at) {
                return Some(at);
            }
            at = self.next[at];
        }
        None
    }

    /// The slot that holds `key`, or the empty one where it would go.
    fn slot_of(&self, key: K) -> usize {
        let slots: &[usize] = &self.slots;
        let keys: &[(K, usize, usize)] = &self.keys;
        let mask = slots.len() - 1;
        // Fibonacci hashing: the high bits of the product.
        let mut slot = (key.word().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        loop {
            let number = slots[slot];
            if number == NONE || keys[number].0 == key {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Twice the slots, every key placed again.
    fn grow(&mut self) {
        self.slots = vec![NONE; self.slots.len() * 2];
        for number in 0..self.keys.len() {
            let slot = self.slot_of(self.keys[number].0);
            self.slots[slot] = number;
        }
    }
}

/// Slots for `keys` keys at most half full: a power of two, at least 8.
fn slots_for(keys: usize) -> usize {
    (keys * 2).next_power_of_two().max(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the index must answer: the first position by scanning.
    fn scan(
        keys: &[(usize, u32)],
        key: (usize, u32),
        matches: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        (0..keys.len()).find(|&i| keys[i] == key && matches(i))
    }

    #[test]
    fn finds_what_a_scan_finds() {
        // Keys with repeats, colliding words, and enough distinct ones to
        // grow the table several times (pushed after `of`, as the joins do).
        let mut keys: Vec<(usize, u32)> = Vec::new();
        let mut x: u64 = 7;
        for _ in 0..600 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            keys.push(((x >> 40) as usize % 97, (x >> 20) as u32 % 3));
        }
        let mut index = KeyIndex::of(&keys[..50], |k| *k);
        for &key in &keys[50..] {
            index.push(key);
        }
        for number in 0..100 {
            for shifts in 0..4 {
                let key = (number, shifts);
                // Every position, then only odd positions, then none.
                assert_eq!(index.find(&key, |_| true), scan(&keys, key, |_| true));
                assert_eq!(
                    index.find(&key, |i| i % 2 == 1),
                    scan(&keys, key, |i| i % 2 == 1)
                );
                assert_eq!(index.find(&key, |_| false), None);
            }
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn keys_of_one_word_are_told_apart() {
        // 2^32 shifts out of the word: (2^32, 0) has the word of (0, 0).
        let (a, b) = ((0usize, 0u32), (1usize << 32, 0u32));
        assert_eq!(a.word(), b.word());
        let keys = [a, b, a, b];
        let index = KeyIndex::of(&keys, |k| *k);
        assert_eq!(index.find(&a, |_| true), Some(0));
        assert_eq!(index.find(&b, |_| true), Some(1));
        assert_eq!(index.find(&b, |i| i > 1), Some(3));
        assert_eq!(index.find(&(2, 0), |_| true), None);
    }
}
