//! Device tensors: one whole cudarc allocation plus the shape the kernel
//! language checks launches against.

use std::any::type_name;

use cudarc::driver::CudaSlice;
use tile_kernel_lowering::DType;

use crate::{Element, Error, Result};

/// A dense, row-major tensor of `T` in GPU memory.
///
/// A `DeviceTensor` always owns a whole cudarc allocation (never a view into
/// one), so its base pointer has the driver's allocation alignment, at least
/// 256 bytes. The kernel language's compile-time alignment checks (vector
/// loads and stores of up to 16 bytes at shape-derived offsets) rely on this;
/// launches re-check the 16 bytes they need.
///
/// An empty tensor (a shape with a zero extent) is backed by a one-element
/// allocation, because the driver refuses zero-byte allocations; [`len`](Self::len)
/// is still 0 and no element of it is ever read or written.
pub struct DeviceTensor<T: Element> {
    slice: CudaSlice<T>,
    shape: Box<[usize]>,
    len: usize,
}

impl<T: Element> DeviceTensor<T> {
    /// Wraps an allocation of `max(len, 1)` elements made for `shape`.
    pub(crate) fn from_parts(slice: CudaSlice<T>, shape: Box<[usize]>, len: usize) -> Self {
        DeviceTensor { slice, shape, len }
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements (the product of the shape).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element dtype.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Copies the tensor back to the host. Waits for all work queued before
    /// it on the tensor's stream, kernels included.
    pub fn download(&self) -> Result<Vec<T>> {
        if self.len == 0 {
            return Ok(Vec::new());
        }
        let stream = self.slice.stream();
        let host = stream
            .clone_dtoh(&self.slice)
            .map_err(Error::driver("copying a tensor to the host"))?;
        stream
            .synchronize()
            .map_err(Error::driver("copying a tensor to the host"))?;
        Ok(host)
    }

    /// Overwrites the tensor with `host`, which must have [`len`](Self::len)
    /// elements. Returns once the copy has finished, so `host` may be reused.
    pub fn upload_from(&mut self, host: &[T]) -> Result<()> {
        if host.len() != self.len {
            return Err(Error::LengthMismatch {
                shape: self.shape.to_vec(),
                expected: self.len,
                actual: host.len(),
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        let stream = self.slice.stream().clone();
        stream
            .memcpy_htod(host, &mut self.slice)
            .map_err(Error::driver("copying host data into a tensor"))?;
        stream
            .synchronize()
            .map_err(Error::driver("copying host data into a tensor"))
    }

    /// The underlying cudarc allocation, for work the kernel language does
    /// not cover (cuBLAS, custom launches).
    ///
    /// It holds [`len`](Self::len) elements, or one unused element when the
    /// tensor is empty.
    pub fn cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// Mutable access to the underlying cudarc allocation.
    ///
    /// Writing through it is fine. Replacing the allocation itself (for
    /// example with [`std::mem::swap`]) with one of another length or from
    /// another device makes later launches with this tensor fail with
    /// [`Error::ArgumentMismatch`] or [`Error::WrongContext`]: launches check
    /// the allocation, not just the shape.
    pub fn cuda_slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }

    /// The raw `CUcontext` the allocation belongs to: tensors are comparable
    /// with a [`Device`](crate::Device) by this key.
    pub(crate) fn context_key(&self) -> usize {
        self.slice.context().cu_ctx() as usize
    }

    /// How many elements the backing allocation must hold for the shape.
    pub(crate) fn allocation_len(len: usize) -> usize {
        len.max(1)
    }
}

impl<T: Element> std::fmt::Debug for DeviceTensor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceTensor")
            .field("dtype", &type_name::<T>())
            .field("shape", &self.shape)
            .field("ordinal", &self.slice.ordinal())
            .finish()
    }
}

/// The element count of `shape`, checking that it and its byte size fit in
/// `usize` (cudarc multiplies lengths by the element size unchecked).
pub(crate) fn element_count(shape: &[usize], dtype: DType) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |count, &extent| count.checked_mul(extent))
        .filter(|count| count.checked_mul(dtype.size_bytes()).is_some())
        .ok_or_else(|| Error::TooLarge {
            shape: shape.to_vec(),
            dtype,
        })
}

/// Checks that a host slice of `actual` elements fills `shape` exactly;
/// returns the element count.
pub(crate) fn check_host_len(shape: &[usize], dtype: DType, actual: usize) -> Result<usize> {
    let expected = element_count(shape, dtype)?;
    if expected == actual {
        Ok(expected)
    } else {
        Err(Error::LengthMismatch {
            shape: shape.to_vec(),
            expected,
            actual,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_count_is_the_product() {
        assert_eq!(element_count(&[4, 2], DType::F32).ok(), Some(8));
        assert_eq!(element_count(&[], DType::F32).ok(), Some(1));
        assert_eq!(element_count(&[3, 0, 5], DType::U8).ok(), Some(0));
    }

    #[test]
    fn element_count_rejects_overflow() {
        assert!(matches!(
            element_count(&[usize::MAX, 2], DType::U8),
            Err(Error::TooLarge { .. })
        ));
        // The count fits, its byte size does not.
        assert!(matches!(
            element_count(&[usize::MAX / 2], DType::F32),
            Err(Error::TooLarge { .. })
        ));
    }

    #[test]
    fn host_len_must_fill_the_shape() {
        assert_eq!(check_host_len(&[4, 2], DType::F32, 8).ok(), Some(8));
        match check_host_len(&[4, 2], DType::F32, 7) {
            Err(Error::LengthMismatch {
                shape,
                expected,
                actual,
            }) => {
                assert_eq!(shape, vec![4, 2]);
                assert_eq!(expected, 8);
                assert_eq!(actual, 7);
            }
            other => panic!("expected LengthMismatch, got {other:?}"),
        }
    }

    #[test]
    fn empty_tensors_get_a_one_element_allocation() {
        assert_eq!(DeviceTensor::<f32>::allocation_len(0), 1);
        assert_eq!(DeviceTensor::<f32>::allocation_len(7), 7);
    }
}
