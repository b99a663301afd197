//! Global memory as the interpreter sees it: each tensor argument's bytes,
//! every access bounds- and alignment-checked, and race detection on the
//! tensors a kernel writes.
//!
//! Bytes are `AtomicU8`s accessed with `Relaxed` ordering: blocks run on
//! several host threads, and this keeps even a racy kernel free of undefined
//! behaviour in the interpreter (the race itself is reported).
//!
//! Race detection: every byte of a written tensor has a shadow word that
//! remembers who touched it during the launch: one reading thread, many
//! readers, one writing thread, or atomics only. A plain access that meets
//! another thread's write, a write that meets another thread's read, and a
//! plain access that meets an atomic one (or the reverse) is a race: the
//! GPU gives no order between threads of a launch without barriers, and
//! kernels have none yet.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// How an access touches memory, for race detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Touch {
    Read,
    Write,
    Atomic,
}

// Shadow word: (thread + 1) << 3 | kind; 0 = untouched.
const READ_ONE: u64 = 1;
const READ_MANY: u64 = 2;
const WRITTEN: u64 = 3;
const ATOMIC: u64 = 4;

/// One tensor argument during a launch.
pub(crate) struct TensorMemory<'a> {
    pub bytes: &'a [AtomicU8],
    pub written: bool,
    /// One word per byte when the kernel writes the tensor.
    shadow: Option<Box<[AtomicU64]>>,
}

/// A detected race: the byte and the other thread (global linear index).
pub(crate) struct RaceAt {
    pub byte: usize,
    pub other: u64,
}

impl<'a> TensorMemory<'a> {
    pub fn new(bytes: &'a [AtomicU8], written: bool) -> TensorMemory<'a> {
        let shadow = written.then(|| (0..bytes.len()).map(|_| AtomicU64::new(0)).collect());
        TensorMemory {
            bytes,
            written,
            shadow,
        }
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// `size` bytes at `at`, little-endian (the caller checked bounds).
    #[inline]
    pub fn read(&self, at: usize, size: usize) -> u64 {
        let mut value = 0u64;
        for (i, byte) in self.bytes[at..at + size].iter().enumerate() {
            value |= u64::from(byte.load(Ordering::Relaxed)) << (8 * i);
        }
        value
    }

    /// Writes the low `size` bytes of `value` at `at` (bounds checked by the caller).
    #[inline]
    pub fn write(&self, at: usize, size: usize, value: u64) {
        for (i, byte) in self.bytes[at..at + size].iter().enumerate() {
            byte.store((value >> (8 * i)) as u8, Ordering::Relaxed);
        }
    }

    /// Records that `thread` touches `size` bytes at `at`; a conflict with
    /// another thread's earlier access is a race.
    pub fn touch(&self, at: usize, size: usize, thread: u64, touch: Touch) -> Result<(), RaceAt> {
        let Some(shadow) = &self.shadow else {
            return Ok(());
        };
        let me = (thread + 1) << 3;
        for (i, word) in shadow[at..at + size].iter().enumerate() {
            let mut current = word.load(Ordering::Relaxed);
            loop {
                let owner = (current >> 3).wrapping_sub(1);
                let kind = current & 7;
                let mine = current >> 3 == thread + 1;
                let next = match (touch, kind) {
                    (_, 0) => {
                        me | match touch {
                            Touch::Read => READ_ONE,
                            Touch::Write => WRITTEN,
                            Touch::Atomic => ATOMIC,
                        }
                    }
                    // Atomics combine with atomics of any thread.
                    (Touch::Atomic, ATOMIC) => current,
                    // A thread's own accesses never race with each other.
                    (Touch::Read, READ_ONE | WRITTEN) if mine => current,
                    (Touch::Write, READ_ONE | WRITTEN) if mine => me | WRITTEN,
                    (Touch::Read, READ_ONE) => READ_MANY,
                    (Touch::Read, READ_MANY) => current,
                    (_, READ_MANY) => {
                        // Several readers: name none of them precisely.
                        return Err(RaceAt {
                            byte: at + i,
                            other: u64::MAX,
                        });
                    }
                    _ => {
                        return Err(RaceAt {
                            byte: at + i,
                            other: owner,
                        });
                    }
                };
                if next == current {
                    break;
                }
                match word.compare_exchange_weak(
                    current,
                    next,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break,
                    Err(seen) => current = seen,
                }
            }
        }
        Ok(())
    }
}

/// Locks that make an atomic's read-modify-write indivisible across the
/// host threads running blocks (striped by address).
pub(crate) struct AtomicLocks {
    stripes: Vec<Mutex<()>>,
}

impl AtomicLocks {
    pub fn new() -> AtomicLocks {
        AtomicLocks {
            stripes: (0..64).map(|_| Mutex::new(())).collect(),
        }
    }

    /// Runs `f` holding the lock of `(param, byte)`'s stripe.
    pub fn with<T>(&self, param: usize, byte: usize, f: impl FnOnce() -> T) -> T {
        let stripe = (param.wrapping_mul(0x9e37_79b9) ^ (byte / 16)) % self.stripes.len();
        // A poisoned stripe only means another block's update panicked,
        // which a `Compute` never does; the bytes stay valid either way.
        let _guard = self.stripes[stripe]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f()
    }
}
