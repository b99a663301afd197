//! Shared memory as one block sees it: the bytes of each shared buffer of
//! the program (`alloc_shared`), one instance per block, every access
//! bounds-, alignment-, definedness- and race-checked.
//!
//! - **Bounds and alignment.** An access's offset is relative to its
//!   buffer's start and must lie inside the buffer (its elements, not the
//!   padding up to the next buffer); it must be a multiple of the access's
//!   size (the buffers are 16-byte aligned on the GPU, so that is the
//!   address's alignment).
//! - **Definedness.** Shared memory starts undefined on the GPU (whatever
//!   an earlier block left there): every byte remembers whether a thread
//!   of this block has written it (a store, or an atomic), and a read (a
//!   load, or an atomic reading the old value) of a byte none has written
//!   is a fault, not a silent zero.
//! - **Races.** Every byte has the race shadow of global memory
//!   ([`crate::memory::Shadow`]), with the phases cut by the block's
//!   barriers: a plain access that meets another thread's write (or a
//!   write that meets another thread's read, or a plain access that meets
//!   an atomic one) in the same phase is a race; accesses before a barrier
//!   the block has passed since are ordered. Only the block's threads
//!   reach its buffers, so this is exactly the rule of a tensor that one
//!   block alone touches.
//!
//! The threads of a block run on one host thread, so the bytes are plain
//! bytes and an atomic's read-modify-write needs no lock. A host worker
//! allocates its blocks' shared memory once (fallibly: a host that cannot
//! is reported, not an abort) and resets it between blocks, only the bytes
//! the previous block touched.
//!
//! Guarantee: a value read from shared memory was written by a thread of
//! the same block, inside the buffer, at an aligned offset, and ordered
//! before the read by a barrier unless the same thread wrote it (or both
//! accesses were atomic); anything else is a [`FaultKind`].

use std::ops::Range;

use crate::fault::FaultKind;
use crate::memory::{MAX_EPOCH, RaceAt, Shadow, Touch};

/// A shared buffer as the plan describes it.
#[derive(Debug, Clone)]
pub(crate) struct SharedLayout {
    pub name: String,
    pub bytes: usize,
}

/// One shared buffer of the current block.
struct Buffer {
    bytes: Vec<u8>,
    /// Written by a thread of this block.
    defined: Vec<bool>,
    /// Per byte: 0, or the statement number + 1 of the asynchronous copy
    /// that owns it until its wait.
    in_flight: Vec<u32>,
    shadow: Shadow,
    /// The bytes accessed since the last reset (empty when none).
    touched: Range<usize>,
}

/// A failed shared access, before the executor names the other thread.
pub(crate) enum SharedFault {
    Kind(FaultKind),
    Race { buffer: String, at: RaceAt },
}

/// The shared memory of one block.
pub(crate) struct SharedMemory {
    names: Vec<String>,
    buffers: Vec<Buffer>,
    /// Barrier phase of the accesses, for the shadows: barriers passed
    /// since the block began (or since the shadows were last cleared).
    epoch: u64,
}

/// Bytes of host memory one shared byte takes: the byte, its defined
/// flag, its in-flight owner and its shadow word.
const HOST_BYTES_PER_BYTE: usize = 1 + 1 + 4 + 8;

impl SharedMemory {
    /// Storage for the buffers of `layouts`, in blocks of `block_threads`
    /// threads; a [`FaultKind::HostMemory`] when the host cannot allocate it.
    pub fn new(layouts: &[SharedLayout], block_threads: u64) -> Result<SharedMemory, FaultKind> {
        let mut buffers = Vec::with_capacity(layouts.len());
        for layout in layouts {
            let refused = || FaultKind::HostMemory {
                what: format!("shared buffer `{}`", layout.name),
                bytes: layout.bytes.saturating_mul(HOST_BYTES_PER_BYTE),
            };
            let mut bytes = Vec::new();
            bytes
                .try_reserve_exact(layout.bytes)
                .map_err(|_| refused())?;
            bytes.resize(layout.bytes, 0);
            let mut defined = Vec::new();
            defined
                .try_reserve_exact(layout.bytes)
                .map_err(|_| refused())?;
            defined.resize(layout.bytes, false);
            let shadow = Shadow::new(layout.bytes, block_threads).ok_or_else(refused)?;
            let mut in_flight = Vec::new();
            in_flight
                .try_reserve_exact(layout.bytes)
                .map_err(|_| refused())?;
            in_flight.resize(layout.bytes, 0);
            buffers.push(Buffer {
                bytes,
                defined,
                in_flight,
                shadow,
                touched: 0..0,
            });
        }
        Ok(SharedMemory {
            names: layouts.iter().map(|l| l.name.clone()).collect(),
            buffers,
            epoch: 0,
        })
    }

    /// A new block: every byte undefined and untouched again.
    pub fn reset(&mut self) {
        for buffer in &mut self.buffers {
            let touched = std::mem::replace(&mut buffer.touched, 0..0);
            buffer.defined[touched.clone()].fill(false);
            buffer.in_flight[touched.clone()].fill(0);
            buffer.shadow.clear(touched);
        }
        self.epoch = 0;
    }

    /// The block passed a barrier: earlier accesses are ordered before
    /// later ones. When the shadows' phase counter would run out, they
    /// forget every access instead (all of them are ordered before the
    /// next one, so nothing is lost).
    pub fn barrier(&mut self) {
        if self.epoch + 1 < MAX_EPOCH {
            self.epoch += 1;
            return;
        }
        for buffer in &mut self.buffers {
            let touched = buffer.touched.clone();
            buffer.shadow.clear(touched);
        }
        self.epoch = 0;
    }

    /// Checks that `thread` (its linear index in the block) may access
    /// `size` bytes at byte `offset` of buffer `buffer` as `touch`, records
    /// the access, and returns its start byte.
    pub fn access(
        &mut self,
        buffer: usize,
        offset: i64,
        size: usize,
        thread: u64,
        touch: Touch,
    ) -> Result<usize, SharedFault> {
        let name = || self.names[buffer].clone();
        let memory = &mut self.buffers[buffer];
        let len = memory.bytes.len();
        let in_bounds = offset >= 0 && (offset as u128) + (size as u128) <= len as u128;
        if !in_bounds {
            return Err(SharedFault::Kind(FaultKind::SharedOutOfBounds {
                buffer: name(),
                offset: i128::from(offset),
                bytes: size,
                len,
            }));
        }
        let at = offset as usize;
        if size > 0 && !at.is_multiple_of(size) {
            return Err(SharedFault::Kind(FaultKind::SharedMisaligned {
                buffer: name(),
                offset: i128::from(offset),
                bytes: size,
            }));
        }
        if let Some(i) = memory.in_flight[at..at + size].iter().position(|s| *s != 0) {
            return Err(SharedFault::Kind(FaultKind::AsyncCopyInFlight {
                buffer: name(),
                offset: at + i,
                copy: memory.in_flight[at + i] as usize - 1,
            }));
        }
        memory.touched = if memory.touched.is_empty() {
            at..at + size
        } else {
            memory.touched.start.min(at)..memory.touched.end.max(at + size)
        };
        memory
            .shadow
            .touch(at, size, thread, self.epoch, touch)
            .map_err(|at| SharedFault::Race { buffer: name(), at })?;
        if touch != Touch::Write
            && let Some(i) = memory.defined[at..at + size].iter().position(|d| !d)
        {
            return Err(SharedFault::Kind(FaultKind::UninitializedShared {
                buffer: name(),
                offset: at + i,
            }));
        }
        Ok(at)
    }

    /// An asynchronous copy (of statement number `statement`) into `size`
    /// bytes at `offset`: checked and recorded as a write of `thread` now,
    /// its bytes owned by the copy (any access faults) until
    /// [`Self::complete_copy`].
    pub fn begin_copy(
        &mut self,
        buffer: usize,
        offset: i64,
        size: usize,
        thread: u64,
        statement: usize,
    ) -> Result<usize, SharedFault> {
        let at = self.access(buffer, offset, size, thread, Touch::Write)?;
        let owner = u32::try_from(statement + 1).unwrap_or(u32::MAX);
        // The owner's number names the copy in a fault (`copy`, below).
        self.buffers[buffer].in_flight[at..at + size].fill(owner);
        Ok(at)
    }

    /// The copy into `data.len()` bytes at `at` lands (its thread's wait):
    /// a write of `thread` in the current phase, so other threads see it
    /// only after a barrier.
    pub fn complete_copy(
        &mut self,
        buffer: usize,
        at: usize,
        data: &[u8],
        thread: u64,
    ) -> Result<(), SharedFault> {
        let size = data.len();
        self.buffers[buffer].in_flight[at..at + size].fill(0);
        self.access(buffer, at as i64, size, thread, Touch::Write)?;
        let memory = &mut self.buffers[buffer];
        memory.bytes[at..at + size].copy_from_slice(data);
        memory.defined[at..at + size].fill(true);
        Ok(())
    }

    /// `size` bytes at `at` of buffer `buffer`, little-endian (checked by
    /// [`Self::access`]).
    #[inline]
    pub fn read(&self, buffer: usize, at: usize, size: usize) -> u64 {
        let mut value = 0u64;
        for (i, byte) in self.buffers[buffer].bytes[at..at + size].iter().enumerate() {
            value |= u64::from(*byte) << (8 * i);
        }
        value
    }

    /// Writes the low `size` bytes of `value` at `at` of buffer `buffer`
    /// (checked by [`Self::access`]); they are defined from now on.
    #[inline]
    pub fn write(&mut self, buffer: usize, at: usize, size: usize, value: u64) {
        let memory = &mut self.buffers[buffer];
        for (i, byte) in memory.bytes[at..at + size].iter_mut().enumerate() {
            *byte = (value >> (8 * i)) as u8;
        }
        memory.defined[at..at + size].fill(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One buffer `s` of 16 bytes, blocks of 4 threads.
    fn memory() -> SharedMemory {
        SharedMemory::new(
            &[SharedLayout {
                name: "s".into(),
                bytes: 16,
            }],
            4,
        )
        .unwrap_or_else(|_| panic!("16 bytes"))
    }

    fn fault(result: Result<usize, SharedFault>) -> String {
        match result {
            Ok(at) => format!("ok {at}"),
            Err(SharedFault::Kind(kind)) => format!("{kind:?}"),
            Err(SharedFault::Race { buffer, at }) => {
                format!("race {buffer} byte {} other {}", at.byte, at.other)
            }
        }
    }

    #[test]
    fn a_read_needs_a_write_of_this_block() {
        let mut m = memory();
        assert_eq!(
            fault(m.access(0, 4, 4, 0, Touch::Read)),
            "UninitializedShared { buffer: \"s\", offset: 4 }"
        );
        m.reset();
        assert_eq!(fault(m.access(0, 4, 2, 0, Touch::Write)), "ok 4");
        m.write(0, 4, 2, 0xbeef);
        // Bytes 6 and 7 are still undefined.
        assert_eq!(
            fault(m.access(0, 4, 4, 0, Touch::Read)),
            "UninitializedShared { buffer: \"s\", offset: 6 }"
        );
        assert_eq!(fault(m.access(0, 4, 2, 0, Touch::Read)), "ok 4");
        assert_eq!(m.read(0, 4, 2), 0xbeef);
        // The next block starts undefined again.
        m.reset();
        assert_eq!(
            fault(m.access(0, 4, 2, 4, Touch::Atomic)),
            "UninitializedShared { buffer: \"s\", offset: 4 }"
        );
    }

    #[test]
    fn bounds_and_alignment_are_relative_to_the_buffer() {
        let mut m = memory();
        assert_eq!(
            fault(m.access(0, 16, 4, 0, Touch::Write)),
            "SharedOutOfBounds { buffer: \"s\", offset: 16, bytes: 4, len: 16 }"
        );
        assert_eq!(
            fault(m.access(0, -4, 4, 0, Touch::Write)),
            "SharedOutOfBounds { buffer: \"s\", offset: -4, bytes: 4, len: 16 }"
        );
        assert_eq!(
            fault(m.access(0, 2, 4, 0, Touch::Write)),
            "SharedMisaligned { buffer: \"s\", offset: 2, bytes: 4 }"
        );
        assert_eq!(fault(m.access(0, 0, 16, 0, Touch::Write)), "ok 0");
    }

    #[test]
    fn a_barrier_orders_the_threads_of_the_block() {
        let mut m = memory();
        assert_eq!(fault(m.access(0, 0, 4, 1, Touch::Write)), "ok 0");
        m.write(0, 0, 4, 7);
        assert_eq!(
            fault(m.access(0, 0, 4, 2, Touch::Read)),
            "race s byte 0 other 1"
        );
        m.barrier();
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
        assert_eq!(fault(m.access(0, 0, 4, 3, Touch::Read)), "ok 0");
        assert_eq!(
            fault(m.access(0, 0, 4, 1, Touch::Write)),
            format!("race s byte 0 other {}", u64::MAX)
        );
    }

    #[test]
    fn the_shadows_forget_rather_than_run_out_of_phases() {
        let mut m = memory();
        m.access(0, 0, 4, 1, Touch::Write)
            .unwrap_or_else(|_| panic!("a write"));
        m.write(0, 0, 4, 7);
        for _ in 0..MAX_EPOCH + 5 {
            m.barrier();
        }
        assert!(m.epoch < 10, "{}", m.epoch);
        // Ordered by the barriers; still defined.
        assert_eq!(fault(m.access(0, 0, 4, 2, Touch::Read)), "ok 0");
        assert_eq!(
            fault(m.access(0, 0, 4, 3, Touch::Write)),
            "race s byte 0 other 2"
        );
    }
}
