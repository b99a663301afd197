//! Borrowed tensor views: a shape over part of a device allocation, shared
//! ([`TensorView`]) or exclusive ([`TensorViewMut`]), and the sealed
//! [`TensorArg`] / [`TensorArgMut`] traits through which launches accept
//! tensors and views alike.
//!
//! A view of GPU memory holds a cudarc [`CudaView`] / [`CudaViewMut`], so
//! it borrows the allocation exactly as cudarc's own views do: the borrow
//! checker keeps a mutable view from aliasing anything, and cudarc's
//! per-allocation events order its uses across streams. A view of a
//! CPU-device tensor holds `&[AtomicU8]` / `&mut [AtomicU8]` of its host
//! memory, with the same borrow rules. Invariant of both view types: the
//! memory holds at least [`len`](TensorView::len) elements (the product of
//! the shape), starting at the view's first element. Everything that makes
//! a view checks it; slicing and reshaping keep it.

use std::fmt;
use std::ops::{Bound, RangeBounds};
use std::sync::atomic::AtomicU8;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, PinnedHostSlice};
use tile_kernel_lowering::DType;

use crate::tensor::element_count;
use crate::{Device, Element, Error, Result, copy, host};

/// Shapes up to this rank are stored inline, so that making, slicing and
/// reshaping views does not allocate.
const INLINE_RANK: usize = 6;

/// A view's shape: inline up to [`INLINE_RANK`] dims, on the heap above.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Dims {
    Inline {
        rank: usize,
        dims: [usize; INLINE_RANK],
    },
    Heap(Box<[usize]>),
}

impl Dims {
    pub(crate) fn new(shape: &[usize]) -> Dims {
        match shape.len() {
            rank @ 0..=INLINE_RANK => {
                let mut dims = [0; INLINE_RANK];
                dims[..rank].copy_from_slice(shape);
                Dims::Inline { rank, dims }
            }
            _ => Dims::Heap(shape.into()),
        }
    }

    /// `shape` with its leading extent replaced (`shape` is not empty).
    pub(crate) fn with_leading(shape: &[usize], leading: usize) -> Dims {
        let mut dims = Dims::new(shape);
        if let Some(first) = dims.as_mut_slice().first_mut() {
            *first = leading;
        }
        dims
    }

    pub(crate) fn as_slice(&self) -> &[usize] {
        match self {
            Dims::Inline { rank, dims } => &dims[..*rank],
            Dims::Heap(dims) => dims,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [usize] {
        match self {
            Dims::Inline { rank, dims } => &mut dims[..*rank],
            Dims::Heap(dims) => dims,
        }
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A range of rows of a tensor's leading axis, and the elements it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rows {
    /// The rows, `start..end`.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The elements of those rows, `first..last` (exclusive).
    pub(crate) first: usize,
    pub(crate) last: usize,
}

/// Resolves `range` against the leading axis of `shape` (whose element
/// count fits in `usize`): rows `start..end` with `start <= end <= shape[0]`,
/// else [`Error::SliceOutOfRange`] (also for a shape without axes).
pub(crate) fn rows(shape: &[usize], range: impl RangeBounds<usize>) -> Result<Rows> {
    let extent = shape.first().copied();
    let start = match range.start_bound() {
        Bound::Included(&n) => n,
        Bound::Excluded(&n) => n.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&n) => n.saturating_add(1),
        Bound::Excluded(&n) => n,
        Bound::Unbounded => extent.unwrap_or(0),
    };
    let out_of_range = || Error::SliceOutOfRange {
        shape: shape.to_vec(),
        start,
        end,
    };
    let Some(extent) = extent else {
        return Err(out_of_range());
    };
    if start > end || end > extent {
        return Err(out_of_range());
    }
    // The elements per row. The whole count fits, so this product fits
    // unless the leading extent is 0; then the only rows are `0..0`.
    let tail = &shape[1..];
    let row_len = if tail.contains(&0) {
        Some(0)
    } else {
        tail.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    };
    let (first, last) = match row_len {
        Some(row_len) => (
            start.checked_mul(row_len).ok_or_else(out_of_range)?,
            end.checked_mul(row_len).ok_or_else(out_of_range)?,
        ),
        None => (0, 0),
    };
    Ok(Rows {
        start,
        end,
        first,
        last,
    })
}

/// The shape and element count of a view made for `shape`, which must fit
/// in `available` elements.
pub(crate) fn fit_shape<T: Element>(shape: &[usize], available: usize) -> Result<(Dims, usize)> {
    let needed = element_count(shape, T::DTYPE)?;
    if needed > available {
        return Err(Error::ViewTooSmall {
            shape: shape.to_vec(),
            needed,
            available,
        });
    }
    Ok((Dims::new(shape), needed))
}

/// The shape of `from` reshaped to `to`: same element count, else
/// [`Error::ReshapeMismatch`] ([`Error::TooLarge`] if `to` overflows).
pub(crate) fn reshaped<T: Element>(from: &[usize], from_len: usize, to: &[usize]) -> Result<Dims> {
    let to_len = element_count(to, T::DTYPE)?;
    if to_len != from_len {
        return Err(Error::ReshapeMismatch {
            from: from.to_vec(),
            from_len,
            to: to.to_vec(),
            to_len,
        });
    }
    Ok(Dims::new(to))
}

/// The bytes of a CPU-device view: `bytes` start at the view's first
/// element; `offset` is their byte offset in the tensor's host memory
/// (what the launch's 16-byte alignment check looks at).
#[derive(Clone, Copy)]
pub struct HostView<'a> {
    pub(crate) bytes: &'a [AtomicU8],
    pub(crate) offset: usize,
}

/// [`HostView`], exclusive: nothing else reaches these bytes while it lives.
pub struct HostViewMut<'a> {
    pub(crate) bytes: &'a mut [AtomicU8],
    pub(crate) offset: usize,
}

/// Where a shared view's elements are: GPU memory (a cudarc view) or the
/// CPU device's host memory. Holds at least the view's elements.
pub enum Memory<'a, T> {
    Cuda(CudaView<'a, T>),
    Host(HostView<'a>),
}

/// Where an exclusive view's elements are.
pub enum MemoryMut<'a, T> {
    Cuda(CudaViewMut<'a, T>),
    Host(HostViewMut<'a>),
}

/// The byte range of elements `first..` (`..` to the end) of `T` in host
/// bytes, or an internal error if it is not inside (never expected).
fn host_start<T: Element>(bytes: usize, first: usize) -> Result<usize> {
    let size = T::DTYPE.size_bytes();
    first
        .checked_mul(size)
        .filter(|&start| start <= bytes)
        .ok_or_else(|| internal_bounds(first, bytes / size))
}

impl<'a, T: Element> Memory<'a, T> {
    /// How many elements it holds.
    pub(crate) fn elements(&self) -> usize {
        match self {
            Memory::Cuda(view) => view.len(),
            Memory::Host(host) => host.bytes.len() / T::DTYPE.size_bytes(),
        }
    }

    /// Another handle to the same elements.
    pub(crate) fn reborrow(&self) -> Memory<'a, T> {
        match self {
            Memory::Cuda(view) => Memory::Cuda(view.slice(..)),
            Memory::Host(host) => Memory::Host(*host),
        }
    }

    /// The elements from `first` on (at most [`elements`](Self::elements)).
    pub(crate) fn skip(&self, first: usize) -> Result<Memory<'a, T>> {
        match self {
            Memory::Cuda(view) => sub_view(view, first).map(Memory::Cuda),
            Memory::Host(host) => {
                let start = host_start::<T>(host.bytes.len(), first)?;
                Ok(Memory::Host(HostView {
                    bytes: &host.bytes[start..],
                    offset: host.offset + start,
                }))
            }
        }
    }

    /// The first `len` elements, copied to the host (blocking).
    pub(crate) fn download(&self, len: usize) -> Result<Vec<T>> {
        match self {
            Memory::Cuda(view) => copy::download_blocking(view, len),
            Memory::Host(host) => Ok(host::load(host_prefix::<T>(host.bytes, len)?)),
        }
    }

    /// The cudarc view, or [`Error::NotOnGpu`] naming `what` needed it.
    pub(crate) fn cuda(&self, what: &'static str) -> Result<&CudaView<'a, T>> {
        match self {
            Memory::Cuda(view) => Ok(view),
            Memory::Host(_) => Err(Error::NotOnGpu { what }),
        }
    }
}

impl<'a, T: Element> MemoryMut<'a, T> {
    /// How many elements it holds.
    pub(crate) fn elements(&self) -> usize {
        match self {
            MemoryMut::Cuda(view) => view.len(),
            MemoryMut::Host(host) => host.bytes.len() / T::DTYPE.size_bytes(),
        }
    }

    /// A shared handle to the same elements, borrowing this one.
    pub(crate) fn as_shared(&self) -> Memory<'_, T> {
        match self {
            MemoryMut::Cuda(view) => Memory::Cuda(view.as_view()),
            MemoryMut::Host(host) => Memory::Host(HostView {
                bytes: host.bytes,
                offset: host.offset,
            }),
        }
    }

    /// A shared handle for the whole borrow.
    pub(crate) fn into_shared(self) -> Memory<'a, T> {
        match self {
            MemoryMut::Cuda(view) => Memory::Cuda(view.into_view()),
            MemoryMut::Host(host) => Memory::Host(HostView {
                bytes: host.bytes,
                offset: host.offset,
            }),
        }
    }

    /// An exclusive handle to the same elements, borrowing this one.
    pub(crate) fn reborrow(&mut self) -> MemoryMut<'_, T> {
        match self {
            MemoryMut::Cuda(view) => MemoryMut::Cuda(view.slice_mut(..)),
            MemoryMut::Host(host) => MemoryMut::Host(HostViewMut {
                bytes: host.bytes,
                offset: host.offset,
            }),
        }
    }

    /// The elements from `first` on, exclusive, borrowing this handle.
    pub(crate) fn skip(&mut self, first: usize) -> Result<MemoryMut<'_, T>> {
        match self {
            MemoryMut::Cuda(view) => sub_view_mut(view, first).map(MemoryMut::Cuda),
            MemoryMut::Host(host) => {
                let start = host_start::<T>(host.bytes.len(), first)?;
                Ok(MemoryMut::Host(HostViewMut {
                    bytes: &mut host.bytes[start..],
                    offset: host.offset + start,
                }))
            }
        }
    }

    /// Elements `..mid` and `mid..`, both exclusive.
    pub(crate) fn split_at(&mut self, mid: usize) -> Result<(MemoryMut<'_, T>, MemoryMut<'_, T>)> {
        match self {
            MemoryMut::Cuda(view) => {
                let available = view.len();
                let (a, b) = view
                    .try_split_at_mut(mid)
                    .ok_or_else(|| internal_bounds(mid, available))?;
                Ok((MemoryMut::Cuda(a), MemoryMut::Cuda(b)))
            }
            MemoryMut::Host(host) => {
                let start = host_start::<T>(host.bytes.len(), mid)?;
                let offset = host.offset;
                let (a, b) = host.bytes.split_at_mut(start);
                Ok((
                    MemoryMut::Host(HostViewMut { bytes: a, offset }),
                    MemoryMut::Host(HostViewMut {
                        bytes: b,
                        offset: offset + start,
                    }),
                ))
            }
        }
    }

    /// Overwrites the first `len` elements with `host` (blocking), which
    /// must have `len` elements ([`Error::LengthMismatch`]).
    pub(crate) fn upload(&mut self, shape: &[usize], len: usize, values: &[T]) -> Result<()> {
        match self {
            MemoryMut::Cuda(view) => copy::upload_blocking(view.slice_mut(..), shape, len, values),
            MemoryMut::Host(memory) => {
                if values.len() != len {
                    return Err(Error::LengthMismatch {
                        shape: shape.to_vec(),
                        expected: len,
                        actual: values.len(),
                    });
                }
                host::store(host_prefix::<T>(memory.bytes, len)?, values);
                Ok(())
            }
        }
    }

    /// The cudarc view, or [`Error::NotOnGpu`] naming `what` needed it.
    pub(crate) fn cuda(&mut self, what: &'static str) -> Result<&mut CudaViewMut<'a, T>> {
        match self {
            MemoryMut::Cuda(view) => Ok(view),
            MemoryMut::Host(_) => Err(Error::NotOnGpu { what }),
        }
    }
}

/// The bytes of the first `len` elements of `T` in `bytes`.
pub(crate) fn host_prefix<T: Element>(bytes: &[AtomicU8], len: usize) -> Result<&[AtomicU8]> {
    let size = T::DTYPE.size_bytes();
    len.checked_mul(size)
        .and_then(|end| bytes.get(..end))
        .ok_or_else(|| internal_bounds(len, bytes.len() / size))
}

/// A shared, borrowed view of a dense row-major tensor on a device: a
/// shape over a range of a cudarc allocation, or of a CPU-device tensor's
/// host memory.
///
/// Made by [`DeviceTensor::view`](crate::DeviceTensor::view) /
/// [`slice`](crate::DeviceTensor::slice), from a mutable view, or over any
/// cudarc buffer with [`from_cuda`](Self::from_cuda) /
/// [`from_slice`](Self::from_slice). Launches accept it wherever they
/// accept a tensor the kernel only reads; they check its start address is
/// 16-byte aligned ([`Error::Misaligned`]) besides dtype, shape and device.
///
/// Cheap to clone (no allocation up to rank 6).
pub struct TensorView<'a, T: Element> {
    /// At least `len` elements, starting at the view's first.
    memory: Memory<'a, T>,
    dims: Dims,
    len: usize,
}

/// An exclusive, borrowed view of a dense row-major tensor on a device:
/// like [`TensorView`], but kernels may write through it, and while it
/// lives nothing else can reach its elements (Rust's borrow rules, as for
/// `&mut [T]`).
///
/// Made by [`DeviceTensor::view_mut`](crate::DeviceTensor::view_mut) /
/// [`slice_mut`](crate::DeviceTensor::slice_mut) /
/// [`split_at_mut`](crate::DeviceTensor::split_at_mut), or over a cudarc
/// buffer with [`from_cuda`](Self::from_cuda) /
/// [`from_slice_mut`](Self::from_slice_mut).
pub struct TensorViewMut<'a, T: Element> {
    /// At least `len` elements, starting at the view's first.
    memory: MemoryMut<'a, T>,
    dims: Dims,
    len: usize,
}

impl<'a, T: Element> TensorView<'a, T> {
    /// Wraps memory the caller checked: it holds at least `len` elements,
    /// the element count of `dims`.
    pub(crate) fn from_parts(memory: Memory<'a, T>, dims: Dims, len: usize) -> Self {
        debug_assert!(len <= memory.elements());
        TensorView { memory, dims, len }
    }

    /// A tensor of `shape` over the first elements of a cudarc view: the
    /// way to launch kernels on a part of a buffer an engine allocated
    /// itself. Fails with [`Error::ViewTooSmall`] if the shape needs more
    /// elements than `view` holds (fewer is fine: the rest is not part of
    /// the tensor).
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// use tile_kernel_runtime::{Device, TensorView};
    /// let dev = Device::cuda(0)?;
    /// let cache = dev.stream()?.alloc_zeros::<f32>(1 << 20).unwrap();
    /// let block = TensorView::from_cuda(cache.slice(4096..8192), [4096])?;
    /// assert_eq!(block.shape(), &[4096]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_cuda(view: CudaView<'a, T>, shape: impl AsRef<[usize]>) -> Result<Self> {
        let (dims, len) = fit_shape::<T>(shape.as_ref(), view.len())?;
        Ok(TensorView::from_parts(Memory::Cuda(view), dims, len))
    }

    /// A tensor of `shape` over the start of a whole cudarc allocation
    /// (see [`from_cuda`](Self::from_cuda)).
    pub fn from_slice(slice: &'a CudaSlice<T>, shape: impl AsRef<[usize]>) -> Result<Self> {
        Self::from_cuda(slice.as_view(), shape)
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_slice()
    }

    /// The number of elements (the product of the shape).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element dtype.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Whether the elements are in the CPU device's host memory.
    pub fn is_cpu(&self) -> bool {
        matches!(self.memory, Memory::Host(_))
    }

    /// Rows `range` of the leading axis: shape `[end - start, rest..]`.
    /// [`Error::SliceOutOfRange`] if the range is not inside the axis (or
    /// the view has rank 0).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<TensorView<'a, T>> {
        let shape = self.shape();
        let rows = rows(shape, range)?;
        let memory = self.memory.skip(rows.first)?;
        Ok(TensorView::from_parts(
            memory,
            Dims::with_leading(shape, rows.end - rows.start),
            rows.last - rows.first,
        ))
    }

    /// The same elements with another shape of the same element count,
    /// else [`Error::ReshapeMismatch`].
    pub fn reshape(&self, shape: impl AsRef<[usize]>) -> Result<TensorView<'a, T>> {
        let dims = reshaped::<T>(self.shape(), self.len, shape.as_ref())?;
        Ok(TensorView::from_parts(
            self.memory.reborrow(),
            dims,
            self.len,
        ))
    }

    /// The cudarc view of exactly this tensor's elements, for work the
    /// kernel language does not cover ([`Error::NotOnGpu`] for a view of a
    /// CPU-device tensor).
    pub fn cuda_view(&self) -> Result<CudaView<'a, T>> {
        Ok(self
            .memory
            .cuda("`TensorView::cuda_view`")?
            .slice(..self.len))
    }

    /// Copies the view to the host. **Blocking**: queues the copy on the
    /// stream of the allocation the view is part of (after every write to
    /// the allocation queued on any stream, through cudarc's events) and
    /// waits for that stream. On the CPU device, a plain copy.
    pub fn download(&self) -> Result<Vec<T>> {
        self.memory.download(self.len)
    }

    /// Queues a copy of the view into the first [`len`](Self::len) elements
    /// of the pinned buffer `dst` on `device`'s stream, and returns at once
    /// (**does not synchronize**). The copy waits for earlier writes to the
    /// view on any stream; reading `dst` on the host (`as_slice`) waits for
    /// the copy. See [`DeviceTensor::download_async`](crate::DeviceTensor::download_async).
    /// [`Error::NotOnGpu`] on the CPU device.
    pub fn download_async(&self, device: &Device, dst: &mut PinnedHostSlice<T>) -> Result<()> {
        const WHAT: &str = "`TensorView::download_async`";
        let cuda = device.require_cuda(WHAT)?;
        let view = self.memory.cuda(WHAT)?;
        copy::download_async(cuda, view.slice(..), self.shape(), self.len, dst)
    }
}

impl<T: Element> Clone for TensorView<'_, T> {
    fn clone(&self) -> Self {
        TensorView::from_parts(self.memory.reborrow(), self.dims.clone(), self.len)
    }
}

impl<'a, T: Element> TensorViewMut<'a, T> {
    /// Wraps memory the caller checked: it holds at least `len` elements,
    /// the element count of `dims`.
    pub(crate) fn from_parts(memory: MemoryMut<'a, T>, dims: Dims, len: usize) -> Self {
        debug_assert!(len <= memory.elements());
        TensorViewMut { memory, dims, len }
    }

    /// A tensor of `shape` over the first elements of a mutable cudarc
    /// view, e.g. `slice_mut(offset..)` of an engine's buffer. Fails with
    /// [`Error::ViewTooSmall`] if the shape needs more elements than `view`
    /// holds.
    pub fn from_cuda(view: CudaViewMut<'a, T>, shape: impl AsRef<[usize]>) -> Result<Self> {
        let (dims, len) = fit_shape::<T>(shape.as_ref(), view.len())?;
        Ok(TensorViewMut::from_parts(MemoryMut::Cuda(view), dims, len))
    }

    /// A tensor of `shape` over the start of a whole cudarc allocation
    /// (see [`from_cuda`](Self::from_cuda)).
    pub fn from_slice_mut(slice: &'a mut CudaSlice<T>, shape: impl AsRef<[usize]>) -> Result<Self> {
        Self::from_cuda(slice.as_view_mut(), shape)
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_slice()
    }

    /// The number of elements (the product of the shape).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element dtype.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Whether the elements are in the CPU device's host memory.
    pub fn is_cpu(&self) -> bool {
        matches!(self.memory, MemoryMut::Host(_))
    }

    /// A shared view of the same elements, borrowing this one.
    pub fn view(&self) -> TensorView<'_, T> {
        TensorView::from_parts(self.memory.as_shared(), self.dims.clone(), self.len)
    }

    /// Turns this view into a shared one for the whole borrow.
    pub fn into_view(self) -> TensorView<'a, T> {
        TensorView::from_parts(self.memory.into_shared(), self.dims, self.len)
    }

    /// A mutable view of the same elements, borrowing this one (to pass it
    /// on while keeping it).
    pub fn reborrow(&mut self) -> TensorViewMut<'_, T> {
        TensorViewMut::from_parts(self.memory.reborrow(), self.dims.clone(), self.len)
    }

    /// Rows `range` of the leading axis, shared: shape `[end - start, rest..]`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<TensorView<'_, T>> {
        let shape = self.shape();
        let rows = rows(shape, range)?;
        let memory = self.memory.as_shared().skip(rows.first)?;
        Ok(TensorView::from_parts(
            memory,
            Dims::with_leading(shape, rows.end - rows.start),
            rows.last - rows.first,
        ))
    }

    /// Rows `range` of the leading axis, mutable: shape `[end - start, rest..]`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<TensorViewMut<'_, T>> {
        let rows = rows(self.dims.as_slice(), range)?;
        let dims = Dims::with_leading(self.dims.as_slice(), rows.end - rows.start);
        let memory = self.memory.skip(rows.first)?;
        Ok(TensorViewMut::from_parts(
            memory,
            dims,
            rows.last - rows.first,
        ))
    }

    /// Two disjoint mutable views: rows `..row` and rows `row..` of the
    /// leading axis. [`Error::SliceOutOfRange`] if `row` is past its end.
    pub fn split_at_mut(
        &mut self,
        row: usize,
    ) -> Result<(TensorViewMut<'_, T>, TensorViewMut<'_, T>)> {
        let (front, back) = split_rows(self.dims.as_slice(), self.len, row)?;
        let (a, b) = self.memory.split_at(front.1)?;
        Ok((
            TensorViewMut::from_parts(a, front.0, front.1),
            TensorViewMut::from_parts(b, back.0, back.1),
        ))
    }

    /// The same elements with another shape of the same element count,
    /// else [`Error::ReshapeMismatch`].
    pub fn reshape(self, shape: impl AsRef<[usize]>) -> Result<TensorViewMut<'a, T>> {
        let dims = reshaped::<T>(self.shape(), self.len, shape.as_ref())?;
        Ok(TensorViewMut::from_parts(self.memory, dims, self.len))
    }

    /// The cudarc view of exactly this tensor's elements
    /// ([`Error::NotOnGpu`] for a view of a CPU-device tensor).
    pub fn cuda_view_mut(&mut self) -> Result<CudaViewMut<'_, T>> {
        let len = self.len;
        Ok(self
            .memory
            .cuda("`TensorViewMut::cuda_view_mut`")?
            .slice_mut(..len))
    }

    /// Copies the view to the host. **Blocking**, as
    /// [`TensorView::download`].
    pub fn download(&self) -> Result<Vec<T>> {
        self.memory.as_shared().download(self.len)
    }

    /// Overwrites the view with `host`, which must have [`len`](Self::len)
    /// elements ([`Error::LengthMismatch`]). **Blocking**: queues the copy
    /// on the allocation's stream and waits for that stream, so `host` may
    /// be reused at once. On the CPU device, a plain copy.
    pub fn upload_from(&mut self, host: &[T]) -> Result<()> {
        self.memory.upload(self.dims.as_slice(), self.len, host)
    }

    /// Queues a copy of the first [`len`](Self::len) elements of the pinned
    /// buffer `src` into the view on `device`'s stream, and returns at once
    /// (**does not synchronize**). See
    /// [`DeviceTensor::upload_async`](crate::DeviceTensor::upload_async).
    /// [`Error::NotOnGpu`] on the CPU device.
    pub fn upload_async(&mut self, device: &Device, src: &PinnedHostSlice<T>) -> Result<()> {
        const WHAT: &str = "`TensorViewMut::upload_async`";
        let cuda = device.require_cuda(WHAT)?;
        let view = self.memory.cuda(WHAT)?;
        copy::upload_async(
            cuda,
            view.slice_mut(..),
            self.dims.as_slice(),
            self.len,
            src,
        )
    }

    /// Queues a copy of the view into the pinned buffer `dst` on `device`'s
    /// stream and returns at once (**does not synchronize**). See
    /// [`DeviceTensor::download_async`](crate::DeviceTensor::download_async).
    /// [`Error::NotOnGpu`] on the CPU device.
    pub fn download_async(&self, device: &Device, dst: &mut PinnedHostSlice<T>) -> Result<()> {
        const WHAT: &str = "`TensorViewMut::download_async`";
        let cuda = device.require_cuda(WHAT)?;
        let memory = self.memory.as_shared();
        let view = memory.cuda(WHAT)?;
        copy::download_async(cuda, view.slice(..), self.shape(), self.len, dst)
    }
}

/// The shapes and element counts of rows `..row` and `row..` of a tensor
/// of `shape` with `len` elements.
pub(crate) fn split_rows(
    shape: &[usize],
    len: usize,
    row: usize,
) -> Result<((Dims, usize), (Dims, usize))> {
    let front = rows(shape, ..row)?;
    let extent = shape.first().copied().unwrap_or(0);
    Ok((
        (Dims::with_leading(shape, row), front.last),
        (Dims::with_leading(shape, extent - row), len - front.last),
    ))
}

/// `view` from element `first` on. `first` is at most the element count,
/// which the invariant keeps within the view.
pub(crate) fn sub_view<'a, T>(view: &CudaView<'a, T>, first: usize) -> Result<CudaView<'a, T>> {
    view.try_slice(first..)
        .ok_or_else(|| internal_bounds(first, view.len()))
}

/// `view` from element `first` on, mutable.
pub(crate) fn sub_view_mut<'b, T>(
    view: &'b mut CudaViewMut<'_, T>,
    first: usize,
) -> Result<CudaViewMut<'b, T>> {
    let available = view.len();
    view.try_slice_mut(first..)
        .ok_or_else(|| internal_bounds(first, available))
}

/// A broken view invariant (never expected): reported, not panicked on.
pub(crate) fn internal_bounds(first: usize, available: usize) -> Error {
    Error::ViewTooSmall {
        shape: vec![first],
        needed: first,
        available,
    }
}

impl<T: Element> fmt::Debug for TensorView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorView")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.dims)
            .field("cpu", &self.is_cpu())
            .finish_non_exhaustive()
    }
}

impl<T: Element> fmt::Debug for TensorViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorViewMut")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.dims)
            .field("cpu", &self.is_cpu())
            .finish_non_exhaustive()
    }
}

pub(crate) mod sealed {
    use super::{Memory, MemoryMut};

    /// What a launch reads from a tensor argument. Private: launches trust
    /// it (the memory holds at least `arg_len` elements).
    pub trait Sealed<T> {
        /// The shape.
        fn arg_shape(&self) -> &[usize];
        /// The element count of the shape.
        fn arg_len(&self) -> usize;
        /// The memory, starting at the first element; at least `arg_len`
        /// elements long.
        fn arg_memory(&self) -> Memory<'_, T>;
    }

    /// What a launch takes from a tensor argument it may write.
    pub trait SealedMut<T>: Sealed<T> {
        /// As [`Sealed::arg_memory`], exclusive.
        fn arg_memory_mut(&mut self) -> MemoryMut<'_, T>;
    }
}

/// A tensor a kernel can read: [`DeviceTensor`](crate::DeviceTensor),
/// [`TensorView`] or [`TensorViewMut`], of elements `T`.
///
/// Generated launchers take read tensors as `&(impl TensorArg<T> + ?Sized)`.
/// Sealed: a launch trusts what the implementation reports.
#[diagnostic::on_unimplemented(
    message = "this kernel parameter takes a tensor of `{T}` elements, but `{Self}` is not one",
    label = "expected a tensor of `{T}`: `&DeviceTensor<{T}>`, `&TensorView<{T}>` or `&TensorViewMut<{T}>`",
    note = "tensor arguments must have exactly the element type the kernel declares; convert the data with a kernel or on the host first"
)]
pub trait TensorArg<T: Element>: sealed::Sealed<T> {}

/// A tensor a kernel can write: [`DeviceTensor`](crate::DeviceTensor) or
/// [`TensorViewMut`] of elements `T`, borrowed `&mut`.
///
/// Generated launchers take written tensors as
/// `&mut (impl TensorArgMut<T> + ?Sized)`. Sealed.
#[diagnostic::on_unimplemented(
    message = "this kernel parameter is written by the kernel: it takes a mutable tensor of `{T}` elements, but `{Self}` is not one",
    label = "expected `&mut DeviceTensor<{T}>` or `&mut TensorViewMut<{T}>`",
    note = "a shared `TensorView` cannot be written through; take a `TensorViewMut` (`view_mut`, `slice_mut`, `split_at_mut`) instead"
)]
pub trait TensorArgMut<T: Element>: TensorArg<T> + sealed::SealedMut<T> {}

impl<T: Element> sealed::Sealed<T> for TensorView<'_, T> {
    fn arg_shape(&self) -> &[usize] {
        self.dims.as_slice()
    }
    fn arg_len(&self) -> usize {
        self.len
    }
    fn arg_memory(&self) -> Memory<'_, T> {
        self.memory.reborrow()
    }
}
impl<T: Element> TensorArg<T> for TensorView<'_, T> {}

impl<T: Element> sealed::Sealed<T> for TensorViewMut<'_, T> {
    fn arg_shape(&self) -> &[usize] {
        self.dims.as_slice()
    }
    fn arg_len(&self) -> usize {
        self.len
    }
    fn arg_memory(&self) -> Memory<'_, T> {
        self.memory.as_shared()
    }
}
impl<T: Element> sealed::SealedMut<T> for TensorViewMut<'_, T> {
    fn arg_memory_mut(&mut self) -> MemoryMut<'_, T> {
        self.memory.reborrow()
    }
}
impl<T: Element> TensorArg<T> for TensorViewMut<'_, T> {}
impl<T: Element> TensorArgMut<T> for TensorViewMut<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(
        shape: &[usize],
        range: impl RangeBounds<usize>,
    ) -> Result<(usize, usize, usize, usize)> {
        rows(shape, range).map(|r| (r.start, r.end, r.first, r.last))
    }

    #[test]
    fn rows_cover_whole_rows_of_the_leading_axis() -> Result<()> {
        assert_eq!(rows_of(&[10, 3, 4], 2..5)?, (2, 5, 24, 60));
        assert_eq!(rows_of(&[10, 3, 4], ..)?, (0, 10, 0, 120));
        assert_eq!(rows_of(&[10, 3, 4], 7..)?, (7, 10, 84, 120));
        assert_eq!(rows_of(&[10, 3, 4], ..=0)?, (0, 1, 0, 12));
        assert_eq!(rows_of(&[10], 10..10)?, (10, 10, 10, 10));
        assert_eq!(
            rows_of(&[10], (Bound::Excluded(2), Bound::Included(4)))?,
            (3, 5, 3, 5)
        );
        // A tail with a zero extent: every row is empty.
        assert_eq!(rows_of(&[4, 0, 7], 1..3)?, (1, 3, 0, 0));
        // The tail's product overflows, but the tensor is empty (extent 0).
        assert_eq!(rows_of(&[0, usize::MAX, 2], ..)?, (0, 0, 0, 0));
        Ok(())
    }

    #[test]
    fn rows_out_of_range_are_refused_with_the_range() {
        let err = rows(&[10, 3], 4..11).unwrap_err();
        assert_eq!(
            err.to_string(),
            "rows 4..11 are out of range for a tensor of shape [10, 3] (slicing takes rows of the leading axis)"
        );
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = rows(&[10, 3], 5..4);
        assert!(matches!(
            reversed,
            Err(Error::SliceOutOfRange {
                start: 5,
                end: 4,
                ..
            })
        ));
        assert!(matches!(
            rows(&[10], ..=usize::MAX),
            Err(Error::SliceOutOfRange { .. })
        ));
        assert!(matches!(
            rows(&[10], (Bound::Excluded(usize::MAX), Bound::Unbounded)),
            Err(Error::SliceOutOfRange { .. })
        ));
        // Rank 0 has no leading axis.
        let err = rows(&[], ..).unwrap_err();
        assert_eq!(
            err.to_string(),
            "rows 0..0 are out of range for a tensor of shape [] (slicing takes rows of the leading axis)"
        );
    }

    #[test]
    fn split_rows_partitions_shape_and_count() -> Result<()> {
        let (front, back) = split_rows(&[6, 2, 2], 24, 4)?;
        assert_eq!((front.0.as_slice(), front.1), (&[4, 2, 2][..], 16));
        assert_eq!((back.0.as_slice(), back.1), (&[2, 2, 2][..], 8));
        let (front, back) = split_rows(&[6], 6, 0)?;
        assert_eq!((front.0.as_slice(), front.1), (&[0][..], 0));
        assert_eq!((back.0.as_slice(), back.1), (&[6][..], 6));
        let (front, back) = split_rows(&[6], 6, 6)?;
        assert_eq!((front.1, back.1), (6, 0));
        assert!(matches!(
            split_rows(&[6, 2], 12, 7),
            Err(Error::SliceOutOfRange {
                start: 0,
                end: 7,
                ..
            })
        ));
        Ok(())
    }

    #[test]
    fn reshape_keeps_the_element_count() -> Result<()> {
        assert_eq!(
            reshaped::<f32>(&[4, 6], 24, &[2, 3, 4])?.as_slice(),
            &[2, 3, 4]
        );
        assert_eq!(reshaped::<f32>(&[1], 1, &[])?.as_slice(), &[] as &[usize]);
        let err = reshaped::<f32>(&[4, 6], 24, &[5, 5]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot reshape shape [4, 6] (24 elements) into shape [5, 5] (25 elements): the element count must stay the same"
        );
        assert!(matches!(
            reshaped::<f32>(&[4], 4, &[usize::MAX, 4]),
            Err(Error::TooLarge { .. })
        ));
        Ok(())
    }

    #[test]
    fn a_shape_must_fit_its_cudarc_view() -> Result<()> {
        let (dims, len) = fit_shape::<u16>(&[3, 4], 12)?;
        assert_eq!((dims.as_slice(), len), (&[3, 4][..], 12));
        // Fewer elements than the view holds: fine.
        assert_eq!(fit_shape::<u16>(&[2, 4], 12)?.1, 8);
        let err = fit_shape::<u16>(&[4, 4], 12).unwrap_err();
        assert_eq!(
            err.to_string(),
            "shape [4, 4] needs 16 elements, but the cudarc view holds only 12"
        );
        Ok(())
    }

    #[test]
    fn dims_are_inline_up_to_rank_six() {
        assert!(matches!(
            Dims::new(&[1, 2, 3, 4, 5, 6]),
            Dims::Inline { rank: 6, .. }
        ));
        let big = Dims::new(&[1, 2, 3, 4, 5, 6, 7]);
        assert!(matches!(big, Dims::Heap(_)));
        assert_eq!(big.as_slice(), &[1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(
            Dims::with_leading(&[9, 2, 3, 4, 5, 6, 7], 1).as_slice(),
            &[1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(Dims::with_leading(&[9, 2], 0).as_slice(), &[0, 2]);
        assert_eq!(Dims::new(&[]).as_slice(), &[] as &[usize]);
    }
}
