//! The memory of CPU-device tensors: host bytes as `AtomicU8`s, the form
//! the CPU interpreter reads and writes (`tile_kernel_interp::Arg::Tensor`),
//! laid out as on the GPU (row-major, each element little-endian).
//!
//! Atomics keep this path free of `unsafe`: the interpreter's threads share
//! the bytes through `&[AtomicU8]`, and the host side copies elements in
//! and out with relaxed loads and stores (the interpreter's run returns
//! only after its threads are joined, which orders their writes before any
//! later host access).

use std::sync::atomic::{AtomicU8, Ordering};

use tile_kernel_lowering::DType;

use crate::{Element, Error, Result};

/// A new zeroed allocation of `bytes` bytes for a tensor of `shape`;
/// [`Error::TooLarge`] if no allocation can have that size, and
/// [`Error::HostAllocation`] if the allocator refuses it (never an abort).
pub(crate) fn zeroed(bytes: usize, shape: &[usize], dtype: DType) -> Result<Box<[AtomicU8]>> {
    collect(
        bytes,
        shape,
        dtype,
        std::iter::repeat_with(|| AtomicU8::new(0)),
    )
}

/// A new allocation holding `values`, little-endian.
pub(crate) fn from_values<T: Element>(values: &[T], shape: &[usize]) -> Result<Box<[AtomicU8]>> {
    let size = T::DTYPE.size_bytes();
    let bytes = values
        .len()
        .checked_mul(size)
        .ok_or_else(|| Error::TooLarge {
            shape: shape.to_vec(),
            dtype: T::DTYPE,
        })?;
    let iter = values.iter().flat_map(|value| {
        let bits = value.to_raw_bits().to_le_bytes();
        (0..size).map(move |i| AtomicU8::new(bits[i]))
    });
    collect(bytes, shape, T::DTYPE, iter)
}

/// The first `bytes` items of `iter` as a boxed slice, allocated fallibly.
fn collect(
    bytes: usize,
    shape: &[usize],
    dtype: DType,
    iter: impl Iterator<Item = AtomicU8>,
) -> Result<Box<[AtomicU8]>> {
    if bytes > isize::MAX as usize {
        return Err(Error::TooLarge {
            shape: shape.to_vec(),
            dtype,
        });
    }
    let mut memory = Vec::new();
    memory
        .try_reserve_exact(bytes)
        .map_err(|_| Error::HostAllocation { bytes })?;
    memory.extend(iter.take(bytes));
    Ok(memory.into_boxed_slice())
}

/// Copies `values` into `memory` (exactly their size), little-endian.
pub(crate) fn store<T: Element>(memory: &[AtomicU8], values: &[T]) {
    let size = T::DTYPE.size_bytes();
    for (element, value) in memory.chunks_exact(size).zip(values) {
        let bits = value.to_raw_bits().to_le_bytes();
        for (byte, bit) in element.iter().zip(bits) {
            byte.store(bit, Ordering::Relaxed);
        }
    }
}

/// The elements of `memory` (a whole number of them).
pub(crate) fn load<T: Element>(memory: &[AtomicU8]) -> Vec<T> {
    let size = T::DTYPE.size_bytes();
    memory
        .chunks_exact(size)
        .map(|element| {
            let mut bits = [0u8; 8];
            for (bit, byte) in bits.iter_mut().zip(element) {
                *bit = byte.load(Ordering::Relaxed);
            }
            T::from_raw_bits(u64::from_le_bytes(bits))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};

    use super::*;

    #[test]
    fn values_are_stored_little_endian() -> Result<()> {
        let memory = from_values(&[0x0102_0304u32, 0xa0b0_c0d0], &[2])?;
        let bytes: Vec<u8> = memory.iter().map(|b| b.load(Ordering::Relaxed)).collect();
        assert_eq!(bytes, [4, 3, 2, 1, 0xd0, 0xc0, 0xb0, 0xa0]);
        assert_eq!(load::<u32>(&memory), [0x0102_0304, 0xa0b0_c0d0]);
        assert_eq!(load::<u16>(&memory), [0x0304, 0x0102, 0xc0d0, 0xa0b0]);
        store(&memory[4..6], &[f16::from_f32(1.0)]);
        store(&memory[6..], &[bf16::from_f32(-2.0)]);
        let bytes: Vec<u8> = memory.iter().map(|b| b.load(Ordering::Relaxed)).collect();
        assert_eq!(bytes, [4, 3, 2, 1, 0x00, 0x3c, 0x00, 0xc0]);
        Ok(())
    }

    #[test]
    fn zeroed_memory_and_its_limits() -> Result<()> {
        let memory = zeroed(24, &[3], DType::F64)?;
        assert_eq!(load::<f64>(&memory), [0.0; 3]);
        assert!(zeroed(0, &[0], DType::F32)?.is_empty());
        assert!(matches!(
            zeroed(usize::MAX, &[usize::MAX], DType::U8),
            Err(Error::TooLarge { .. })
        ));
        Ok(())
    }
}
