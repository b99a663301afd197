//! Device tensors: one whole cudarc allocation plus the shape the kernel
//! language checks launches against.

use std::any::type_name;

use std::ops::RangeBounds;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, PinnedHostSlice};
use tile_kernel_lowering::DType;

use crate::copy;
use crate::view::{Dims, TensorView, TensorViewMut, rows, sealed, split_rows, sub_view};
use crate::{Device, Element, Error, Result};

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

    /// Copies the tensor back to the host. **Blocking**: queues the copy on
    /// the stream the tensor was allocated on (its [`Device`]'s), after
    /// every write to it queued on any stream (cudarc's events), and waits
    /// for that stream, so it also waits for all other work queued there.
    pub fn download(&self) -> Result<Vec<T>> {
        copy::download_blocking(&self.slice.as_view(), self.len)
    }

    /// Overwrites the tensor with `host`, which must have [`len`](Self::len)
    /// elements. **Blocking**: queues the copy on the tensor's stream and
    /// waits for that stream, so `host` may be reused at once.
    pub fn upload_from(&mut self, host: &[T]) -> Result<()> {
        copy::upload_blocking(self.slice.as_view_mut(), &self.shape, self.len, host)
    }

    /// Queues a copy of the first [`len`](Self::len) elements of the pinned
    /// host buffer `src` into the tensor on `device`'s stream, and returns
    /// at once: **does not synchronize**.
    ///
    /// `src` must hold at least `len` elements ([`Error::LengthMismatch`])
    /// and, like the tensor, belong to `device`'s context
    /// ([`Error::ContextMismatch`]). The copy waits for earlier uses of the
    /// tensor on any stream; later uses wait for the copy. `src` stays
    /// safe to use: cudarc's `PinnedHostSlice` accessors (`as_mut_slice`,
    /// ...) and its drop wait until the copy has read it.
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// let dev = tile_kernel_runtime::Device::new(0)?;
    /// let mut pinned = dev.alloc_pinned::<f32>(1024)?;
    /// pinned.as_mut_slice().unwrap().fill(1.5);
    /// let mut x = dev.zeros::<f32>([1024])?;
    /// x.upload_async(&dev, &pinned)?; // queued, not waited for
    /// // ... launch kernels on `dev` that read `x` ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn upload_async(&mut self, device: &Device, src: &PinnedHostSlice<T>) -> Result<()> {
        copy::upload_async(device, self.slice.as_view_mut(), &self.shape, self.len, src)
    }

    /// Queues a copy of the tensor into the first [`len`](Self::len)
    /// elements of the pinned host buffer `dst` on `device`'s stream, and
    /// returns at once: **does not synchronize**.
    ///
    /// `dst` must hold at least `len` elements and belong to `device`'s
    /// context. The copy waits for earlier writes to the tensor on any
    /// stream. Reading `dst` on the host (`as_slice`) waits for the copy,
    /// and so does dropping it.
    pub fn download_async(&self, device: &Device, dst: &mut PinnedHostSlice<T>) -> Result<()> {
        copy::download_async(device, self.slice.as_view(), &self.shape, self.len, dst)
    }

    /// A shared view of the whole tensor.
    pub fn view(&self) -> TensorView<'_, T> {
        TensorView::from_parts(self.slice.as_view(), Dims::new(&self.shape), self.len)
    }

    /// A mutable view of the whole tensor.
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T> {
        TensorViewMut::from_parts(self.slice.as_view_mut(), Dims::new(&self.shape), self.len)
    }

    /// Rows `range` of the leading axis as a shared view of shape
    /// `[end - start, rest..]`; [`Error::SliceOutOfRange`] if the range is
    /// not inside the axis (or the tensor has rank 0).
    ///
    /// A view starts `start * row_bytes` bytes into the allocation; kernels
    /// accept it only if that keeps its start 16-byte aligned
    /// ([`Error::Misaligned`]).
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// let dev = tile_kernel_runtime::Device::new(0)?;
    /// let cache = dev.zeros::<f32>([64, 128])?;
    /// let rows = cache.slice(8..16)?;
    /// assert_eq!(rows.shape(), &[8, 128]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<TensorView<'_, T>> {
        let rows = rows(&self.shape, range)?;
        let cuda = sub_view(&self.slice.as_view(), rows.first)?;
        Ok(TensorView::from_parts(
            cuda,
            Dims::with_leading(&self.shape, rows.end - rows.start),
            rows.last - rows.first,
        ))
    }

    /// Rows `range` of the leading axis as a mutable view of shape
    /// `[end - start, rest..]` (see [`slice`](Self::slice)).
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<TensorViewMut<'_, T>> {
        let rows = rows(&self.shape, range)?;
        let dims = Dims::with_leading(&self.shape, rows.end - rows.start);
        let available = self.slice.len();
        let cuda = self
            .slice
            .try_slice_mut(rows.first..)
            .ok_or(Error::ViewTooSmall {
                shape: self.shape.to_vec(),
                needed: rows.first,
                available,
            })?;
        Ok(TensorViewMut::from_parts(
            cuda,
            dims,
            rows.last - rows.first,
        ))
    }

    /// Two disjoint mutable views, rows `..row` and rows `row..` of the
    /// leading axis, usable at the same time (for example as two arguments
    /// of one launch). [`Error::SliceOutOfRange`] if `row` is past the end.
    pub fn split_at_mut(
        &mut self,
        row: usize,
    ) -> Result<(TensorViewMut<'_, T>, TensorViewMut<'_, T>)> {
        let (front, back) = split_rows(&self.shape, self.len, row)?;
        let available = self.slice.len();
        let (a, b) = self
            .slice
            .try_split_at_mut(front.1)
            .ok_or(Error::ViewTooSmall {
                shape: self.shape.to_vec(),
                needed: front.1,
                available,
            })?;
        Ok((
            TensorViewMut::from_parts(a, front.0, front.1),
            TensorViewMut::from_parts(b, back.0, back.1),
        ))
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

impl<T: Element> sealed::Sealed<T> for DeviceTensor<T> {
    fn arg_shape(&self) -> &[usize] {
        &self.shape
    }
    fn arg_len(&self) -> usize {
        self.len
    }
    fn arg_view(&self) -> CudaView<'_, T> {
        self.slice.as_view()
    }
}

impl<T: Element> sealed::SealedMut<T> for DeviceTensor<T> {
    fn arg_view_mut(&mut self) -> CudaViewMut<'_, T> {
        self.slice.as_view_mut()
    }
}

impl<T: Element> crate::TensorArg<T> for DeviceTensor<T> {}
impl<T: Element> crate::TensorArgMut<T> for DeviceTensor<T> {}

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
