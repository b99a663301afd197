//! Device tensors: one whole allocation (cudarc device memory, or the CPU
//! device's host memory) plus the shape the kernel language checks
//! launches against.

use std::any::type_name;
use std::ops::RangeBounds;
use std::sync::atomic::AtomicU8;

use cudarc::driver::{CudaSlice, PinnedHostSlice};
use tile_kernel_lowering::DType;

use crate::view::{
    Dims, HostView, HostViewMut, Memory, MemoryMut, TensorView, TensorViewMut, internal_bounds,
    rows, sealed, split_rows,
};
use crate::{Device, Element, Error, Result, copy};

/// A dense, row-major tensor of `T` on a device: in GPU memory, or in host
/// memory for the CPU interpreter device ([`Device::cpu`]).
///
/// A GPU `DeviceTensor` always owns a whole cudarc allocation (never a view
/// into one), so its base pointer has the driver's allocation alignment, at
/// least 256 bytes. The kernel language's compile-time alignment checks
/// (vector loads and stores of up to 16 bytes at shape-derived offsets)
/// rely on this; launches re-check the 16 bytes they need. A CPU-device
/// tensor owns exactly its bytes (each element little-endian, as on the
/// GPU), as `AtomicU8`s the interpreter shares between its threads.
///
/// An empty GPU tensor (a shape with a zero extent) is backed by a
/// one-element allocation, because the driver refuses zero-byte
/// allocations; [`len`](Self::len) is still 0 and no element of it is ever
/// read or written.
pub struct DeviceTensor<T: Element> {
    storage: Storage<T>,
    shape: Box<[usize]>,
    len: usize,
}

/// Where a tensor's elements live.
enum Storage<T> {
    /// `max(len, 1)` elements of device memory.
    Cuda(CudaSlice<T>),
    /// Exactly `len` elements of host memory, for the CPU device.
    Host(Box<[AtomicU8]>),
}

impl<T: Element> Storage<T> {
    /// The whole memory, exclusive.
    fn memory_mut(&mut self) -> MemoryMut<'_, T> {
        match self {
            Storage::Cuda(slice) => MemoryMut::Cuda(slice.as_view_mut()),
            Storage::Host(bytes) => MemoryMut::Host(HostViewMut { bytes, offset: 0 }),
        }
    }
}

impl<T: Element> DeviceTensor<T> {
    /// Wraps an allocation of `max(len, 1)` elements made for `shape`.
    pub(crate) fn from_cuda(slice: CudaSlice<T>, shape: Box<[usize]>, len: usize) -> Self {
        DeviceTensor {
            storage: Storage::Cuda(slice),
            shape,
            len,
        }
    }

    /// Wraps host memory of exactly `len` elements made for `shape`.
    pub(crate) fn from_host(memory: Box<[AtomicU8]>, shape: Box<[usize]>, len: usize) -> Self {
        debug_assert_eq!(memory.len(), len * T::DTYPE.size_bytes());
        DeviceTensor {
            storage: Storage::Host(memory),
            shape,
            len,
        }
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

    /// Whether the tensor lives on the CPU interpreter device (host memory).
    pub fn is_cpu(&self) -> bool {
        matches!(self.storage, Storage::Host(_))
    }

    /// The memory, shared.
    fn memory(&self) -> Memory<'_, T> {
        match &self.storage {
            Storage::Cuda(slice) => Memory::Cuda(slice.as_view()),
            Storage::Host(bytes) => Memory::Host(HostView { bytes, offset: 0 }),
        }
    }

    /// The memory, exclusive.
    fn memory_mut(&mut self) -> MemoryMut<'_, T> {
        self.storage.memory_mut()
    }

    /// Copies the tensor back to the host. **Blocking**: queues the copy on
    /// the stream the tensor was allocated on (its [`Device`]'s), after
    /// every write to it queued on any stream (cudarc's events), and waits
    /// for that stream, so it also waits for all other work queued there.
    /// On the CPU device, a plain copy.
    pub fn download(&self) -> Result<Vec<T>> {
        self.memory().download(self.len)
    }

    /// Overwrites the tensor with `host`, which must have [`len`](Self::len)
    /// elements. **Blocking**: queues the copy on the tensor's stream and
    /// waits for that stream, so `host` may be reused at once. On the CPU
    /// device, a plain copy.
    pub fn upload_from(&mut self, host: &[T]) -> Result<()> {
        self.storage
            .memory_mut()
            .upload(&self.shape, self.len, host)
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
    /// ...) and its drop wait until the copy has read it. GPU only
    /// ([`Error::NotOnGpu`] for the CPU device or a CPU-device tensor).
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// let dev = tile_kernel_runtime::Device::cuda(0)?;
    /// let mut pinned = dev.alloc_pinned::<f32>(1024)?;
    /// pinned.as_mut_slice().unwrap().fill(1.5);
    /// let mut x = dev.zeros::<f32>([1024])?;
    /// x.upload_async(&dev, &pinned)?; // queued, not waited for
    /// // ... launch kernels on `dev` that read `x` ...
    /// # Ok(())
    /// # }
    /// ```
    pub fn upload_async(&mut self, device: &Device, src: &PinnedHostSlice<T>) -> Result<()> {
        const WHAT: &str = "`DeviceTensor::upload_async`";
        let cuda = device.require_cuda(WHAT)?;
        let Storage::Cuda(slice) = &mut self.storage else {
            return Err(Error::NotOnGpu { what: WHAT });
        };
        copy::upload_async(cuda, slice.as_view_mut(), &self.shape, self.len, src)
    }

    /// Queues a copy of the tensor into the first [`len`](Self::len)
    /// elements of the pinned host buffer `dst` on `device`'s stream, and
    /// returns at once: **does not synchronize**.
    ///
    /// `dst` must hold at least `len` elements and belong to `device`'s
    /// context. The copy waits for earlier writes to the tensor on any
    /// stream. Reading `dst` on the host (`as_slice`) waits for the copy,
    /// and so does dropping it. GPU only ([`Error::NotOnGpu`]).
    pub fn download_async(&self, device: &Device, dst: &mut PinnedHostSlice<T>) -> Result<()> {
        const WHAT: &str = "`DeviceTensor::download_async`";
        let cuda = device.require_cuda(WHAT)?;
        let Storage::Cuda(slice) = &self.storage else {
            return Err(Error::NotOnGpu { what: WHAT });
        };
        copy::download_async(cuda, slice.as_view(), &self.shape, self.len, dst)
    }

    /// A shared view of the whole tensor.
    pub fn view(&self) -> TensorView<'_, T> {
        TensorView::from_parts(self.memory(), Dims::new(&self.shape), self.len)
    }

    /// A mutable view of the whole tensor.
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T> {
        let dims = Dims::new(&self.shape);
        let len = self.len;
        TensorViewMut::from_parts(self.memory_mut(), dims, len)
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
        let memory = self.memory().skip(rows.first)?;
        Ok(TensorView::from_parts(
            memory,
            Dims::with_leading(&self.shape, rows.end - rows.start),
            rows.last - rows.first,
        ))
    }

    /// Rows `range` of the leading axis as a mutable view of shape
    /// `[end - start, rest..]` (see [`slice`](Self::slice)).
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<TensorViewMut<'_, T>> {
        let rows = rows(&self.shape, range)?;
        let dims = Dims::with_leading(&self.shape, rows.end - rows.start);
        let memory = match &mut self.storage {
            Storage::Cuda(slice) => {
                let available = slice.len();
                let view = slice
                    .try_slice_mut(rows.first..)
                    .ok_or(Error::ViewTooSmall {
                        shape: self.shape.to_vec(),
                        needed: rows.first,
                        available,
                    })?;
                MemoryMut::Cuda(view)
            }
            Storage::Host(bytes) => {
                let start = rows.first * T::DTYPE.size_bytes();
                let available = bytes.len();
                let bytes = bytes
                    .get_mut(start..)
                    .ok_or_else(|| internal_bounds(start, available))?;
                MemoryMut::Host(HostViewMut {
                    bytes,
                    offset: start,
                })
            }
        };
        Ok(TensorViewMut::from_parts(
            memory,
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
        let (a, b) = match &mut self.storage {
            Storage::Cuda(slice) => {
                let available = slice.len();
                let (a, b) = slice.try_split_at_mut(front.1).ok_or(Error::ViewTooSmall {
                    shape: self.shape.to_vec(),
                    needed: front.1,
                    available,
                })?;
                (MemoryMut::Cuda(a), MemoryMut::Cuda(b))
            }
            Storage::Host(bytes) => {
                let mid = front.1 * T::DTYPE.size_bytes();
                if mid > bytes.len() {
                    return Err(internal_bounds(mid, bytes.len()));
                }
                let (a, b) = bytes.split_at_mut(mid);
                (
                    MemoryMut::Host(HostViewMut {
                        bytes: a,
                        offset: 0,
                    }),
                    MemoryMut::Host(HostViewMut {
                        bytes: b,
                        offset: mid,
                    }),
                )
            }
        };
        Ok((
            TensorViewMut::from_parts(a, front.0, front.1),
            TensorViewMut::from_parts(b, back.0, back.1),
        ))
    }

    /// The underlying cudarc allocation, for work the kernel language does
    /// not cover (cuBLAS, custom launches); [`Error::NotOnGpu`] for a
    /// CPU-device tensor.
    ///
    /// It holds [`len`](Self::len) elements, or one unused element when the
    /// tensor is empty.
    pub fn cuda_slice(&self) -> Result<&CudaSlice<T>> {
        match &self.storage {
            Storage::Cuda(slice) => Ok(slice),
            Storage::Host(_) => Err(Error::NotOnGpu {
                what: "`DeviceTensor::cuda_slice`",
            }),
        }
    }

    /// Mutable access to the underlying cudarc allocation
    /// ([`Error::NotOnGpu`] for a CPU-device tensor).
    ///
    /// Writing through it is fine. Replacing the allocation itself (for
    /// example with [`std::mem::swap`]) with one of another length or from
    /// another device makes later launches with this tensor fail with
    /// [`Error::ArgumentMismatch`] or [`Error::WrongContext`]: launches check
    /// the allocation, not just the shape.
    pub fn cuda_slice_mut(&mut self) -> Result<&mut CudaSlice<T>> {
        match &mut self.storage {
            Storage::Cuda(slice) => Ok(slice),
            Storage::Host(_) => Err(Error::NotOnGpu {
                what: "`DeviceTensor::cuda_slice_mut`",
            }),
        }
    }

    /// How many elements the backing allocation must hold for the shape.
    pub(crate) fn allocation_len(len: usize) -> usize {
        len.max(1)
    }
}

impl<T: Element> std::fmt::Debug for DeviceTensor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("DeviceTensor");
        out.field("dtype", &type_name::<T>())
            .field("shape", &self.shape);
        match &self.storage {
            Storage::Cuda(slice) => out.field("ordinal", &slice.ordinal()),
            Storage::Host(_) => out.field("device", &"CPU interpreter"),
        };
        out.finish()
    }
}

impl<T: Element> sealed::Sealed<T> for DeviceTensor<T> {
    fn arg_shape(&self) -> &[usize] {
        &self.shape
    }
    fn arg_len(&self) -> usize {
        self.len
    }
    fn arg_memory(&self) -> Memory<'_, T> {
        self.memory()
    }
}

impl<T: Element> sealed::SealedMut<T> for DeviceTensor<T> {
    fn arg_memory_mut(&mut self) -> MemoryMut<'_, T> {
        self.memory_mut()
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
