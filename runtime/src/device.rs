//! Opening a GPU, and making tensors on it.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaStream, DriverError, PinnedHostSlice};

use crate::tensor::{DeviceTensor, check_host_len, element_count};
use crate::{Element, Error, Result};

/// Whether the CUDA driver library (`libcuda`) can be loaded.
///
/// The answer is computed once per process. Without a driver every
/// [`Device::new`] returns [`Error::NoDriver`]; tests use this to skip GPU work.
pub fn driver_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    // SAFETY: this only tries to dlopen libcuda, running its initialisers,
    // which every cudarc driver call would do anyway.
    *AVAILABLE.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// One GPU context plus the stream this crate queues work on.
///
/// Every launch, copy and allocation made through a `Device` goes to its one
/// stream, so they run in program order. Cloning is cheap and shares both.
///
/// - [`Device::new`] opens the GPU's primary context and creates a **new
///   non-blocking stream** in it (never the legacy default stream, which
///   would serialize with every blocking stream of the process).
/// - [`Device::from_stream`] uses a caller's cudarc stream (and its
///   context): an engine that owns its context and streams launches
///   tile-kernel kernels right into its own stream order.
/// - [`Device::with_stream`] / [`Device::with_new_stream`] give another
///   stream of the same context.
///
/// Tensors cross streams safely: when a tensor used on one stream is used
/// on another, the second waits for the first through cudarc's
/// per-allocation events (see the crate docs, "Streams", and
/// `docs/runtime.md`).
#[derive(Clone)]
pub struct Device {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
}

impl Device {
    /// Opens GPU `ordinal` (0 is the first): its primary context, and a new
    /// non-blocking stream in it.
    ///
    /// Fails with [`Error::NoDriver`] when `libcuda` is missing and with
    /// [`Error::NoDevice`] when there is no such GPU; never panics.
    ///
    /// Two `Device`s with the same ordinal share the driver's primary
    /// context (so tensors and loaded kernels of one are valid with the
    /// other) but have different streams, ordered through events where a
    /// tensor crosses between them. The context this creates tracks every
    /// allocation's reads and writes with events (cudarc's
    /// `is_managing_stream_synchronization()` is true for it).
    pub fn new(ordinal: usize) -> Result<Device> {
        // cudarc panics on its first call if libcuda cannot be loaded.
        if !driver_available() {
            return Err(Error::NoDriver);
        }
        let count = match CudaContext::device_count() {
            Ok(count) => usize::try_from(count).unwrap_or(0),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NO_DEVICE => 0,
            Err(source) => {
                return Err(Error::Driver {
                    during: "initializing the CUDA driver",
                    source,
                });
            }
        };
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let context =
            CudaContext::new(ordinal).map_err(Error::driver("creating the device context"))?;
        // A fresh cudarc context tracks events from the start (its default);
        // `new_stream` puts it in multi-stream mode, where cudarc makes
        // every use of an allocation wait for conflicting earlier uses on
        // other streams.
        let stream = context
            .new_stream()
            .map_err(Error::driver("creating the device's stream"))?;
        Ok(Device {
            context,
            stream,
            ordinal,
        })
    }

    /// A device that queues its work on the caller's `stream`, in the
    /// stream's context.
    ///
    /// Use this when the caller (an inference engine, say) owns the CUDA
    /// context and its streams: kernels and copies then run in that
    /// stream's order, between the caller's own work. Nothing is created.
    ///
    /// Ordering with the caller's other streams is automatic where cudarc
    /// tracks it: for allocations of a context with event tracking on (the
    /// default) that has created a stream with `new_stream` or `fork`. For
    /// allocations of a context that has never done so (it only uses the
    /// default, per-thread or borrowed streams), launches and copies on a
    /// different stream than the allocation's own join the two streams
    /// (each waits for the other's queued work) around the work. A context
    /// whose event tracking the caller turned off
    /// (`unsafe fn disable_event_tracking`) gets no ordering from this
    /// crate: that call's contract makes it the caller's job.
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// use tile_kernel_runtime::{Device, cudarc::driver::CudaContext};
    /// let ctx = CudaContext::new(0).unwrap();
    /// let stream = ctx.new_stream().unwrap();
    /// let dev = Device::from_stream(stream)?;
    /// let x = dev.zeros::<f32>([1024])?; // allocated on the engine's stream
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_stream(stream: Arc<CudaStream>) -> Result<Device> {
        let context = stream.context().clone();
        let ordinal = context.ordinal();
        Ok(Device {
            context,
            stream,
            ordinal,
        })
    }

    /// This device with its work queued on `stream` instead, which must
    /// belong to the same CUDA context; otherwise
    /// [`Error::ContextMismatch`].
    ///
    /// Tensors and loaded kernels stay valid across the two devices.
    pub fn with_stream(&self, stream: Arc<CudaStream>) -> Result<Device> {
        if stream.context().cu_ctx() != self.context.cu_ctx() {
            return Err(Error::ContextMismatch {
                what: "the stream passed to `Device::with_stream`",
                other: "the device",
            });
        }
        Device::from_stream(stream)
    }

    /// This device on a new non-blocking stream of the same context (for
    /// work that may overlap with this device's, such as copies during
    /// compute).
    pub fn with_new_stream(&self) -> Result<Device> {
        let stream = self
            .context
            .new_stream()
            .map_err(Error::driver("creating a stream"))?;
        Device::from_stream(stream)
    }

    /// The ordinal of the GPU.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The GPU's product name, e.g. `NVIDIA H200`.
    pub fn name(&self) -> Result<String> {
        self.context
            .name()
            .map_err(Error::driver("querying the device name"))
    }

    /// The compute capability as `(major, minor)`, e.g. `(9, 0)` for sm_90.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        let (major, minor) = self
            .context
            .compute_capability()
            .map_err(Error::driver("querying the compute capability"))?;
        Ok((major.unsigned_abs(), minor.unsigned_abs()))
    }

    /// Waits until all work queued on this device's stream has finished, and
    /// reports a failure of any of it (a faulting kernel, for example), or
    /// one cudarc recorded in this context since the last check.
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(Error::driver("synchronizing the device"))?;
        self.stream
            .context()
            .check_err()
            .map_err(Error::driver("synchronizing the device"))
    }

    /// The cudarc context, for work outside the kernel language.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream this device queues all work on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A page-locked ("pinned") host buffer of `len` elements, all zero,
    /// for [`upload_async`](DeviceTensor::upload_async) and
    /// [`download_async`](DeviceTensor::download_async).
    ///
    /// Read and write it through cudarc's `as_slice` / `as_mut_slice`: both
    /// first wait for every asynchronous copy queued with the buffer (its
    /// event), so the host never touches it while a copy runs, and dropping
    /// it waits too. `len` must be at least 1 (the driver refuses empty
    /// host allocations). The memory is ordinary cached memory (not
    /// write-combined), so reading it on the host is fast.
    pub fn alloc_pinned<T: Element>(&self, len: usize) -> Result<PinnedHostSlice<T>> {
        const DURING: &str = "allocating a pinned host buffer";
        // cudarc panics on an empty allocation (a null pointer) and on a
        // byte size of `isize::MAX` or more: refuse both here.
        if len == 0 {
            return Err(Error::Driver {
                during: "allocating a pinned host buffer of 0 elements (the driver refuses empty host allocations)",
                source: DriverError(CUresult::CUDA_ERROR_INVALID_VALUE),
            });
        }
        if len
            .checked_mul(size_of::<T>())
            .is_none_or(|bytes| bytes >= isize::MAX as usize)
        {
            return Err(Error::TooLarge {
                shape: vec![len],
                dtype: T::DTYPE,
            });
        }
        // SAFETY: the memory is uninitialised until the `write_bytes` below,
        // and nothing reads it before: the buffer is not shared yet.
        let mut pinned = unsafe { self.context.alloc_pinned_with_flags::<T>(len, 0) }
            .map_err(Error::driver(DURING))?;
        let ptr = pinned.as_mut_ptr().map_err(Error::driver(DURING))?;
        // SAFETY: cudarc allocated `len * size_of::<T>()` bytes at `ptr`
        // (non-null and aligned for `T`, which it asserts), owned by
        // `pinned` and not yet used by any copy; all-zero bytes are a valid
        // `T` (`Element: ValidAsZeroBits`).
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Ok(pinned)
    }

    /// Copies `host` into a new tensor of `shape`; `host.len()` must be the
    /// shape's element count. **Blocking**: queues the copy on this
    /// device's stream and waits for the stream, so `host` may be reused at
    /// once (use [`DeviceTensor::upload_async`] to not wait).
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// let dev = tile_kernel_runtime::Device::new(0)?;
    /// let x = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [4, 2])?;
    /// assert_eq!(x.shape(), &[4, 2]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn upload<T: Element>(
        &self,
        host: &[T],
        shape: impl AsRef<[usize]>,
    ) -> Result<DeviceTensor<T>> {
        let shape = shape.as_ref();
        let len = check_host_len(shape, T::DTYPE, host.len())?;
        let slice = if len == 0 {
            self.stream
                .alloc_zeros(DeviceTensor::<T>::allocation_len(0))
                .map_err(Error::driver("allocating a tensor"))?
        } else {
            let slice = self
                .stream
                .clone_htod(host)
                .map_err(Error::driver("copying host data into a tensor"))?;
            // The caller may reuse `host` as soon as we return.
            self.stream
                .synchronize()
                .map_err(Error::driver("copying host data into a tensor"))?;
            slice
        };
        Ok(DeviceTensor::from_parts(slice, shape.into(), len))
    }

    /// A new tensor of `shape` with every element zero (all bits clear),
    /// allocated and cleared on this device's stream (does not wait).
    ///
    /// ```no_run
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// let dev = tile_kernel_runtime::Device::new(0)?;
    /// let y = dev.zeros::<u32>([4, 1])?;
    /// assert_eq!(y.download()?, vec![0; 4]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn zeros<T: Element>(&self, shape: impl AsRef<[usize]>) -> Result<DeviceTensor<T>> {
        let shape = shape.as_ref();
        let len = element_count(shape, T::DTYPE)?;
        let slice = self
            .stream
            .alloc_zeros(DeviceTensor::<T>::allocation_len(len))
            .map_err(Error::driver("allocating a tensor"))?;
        Ok(DeviceTensor::from_parts(slice, shape.into(), len))
    }

    /// The raw `CUcontext`, the identity kernels cache their modules under.
    pub(crate) fn context_key(&self) -> usize {
        self.context.cu_ctx() as usize
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("ordinal", &self.ordinal)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Correct on both kinds of machine: without a driver the error is
    /// `NoDriver` (not a panic); with one, device 0 opens.
    #[test]
    fn new_reports_missing_driver_or_opens_device_zero() {
        match Device::new(0) {
            Err(Error::NoDriver) => assert!(!driver_available()),
            Ok(device) => {
                assert!(driver_available());
                assert_eq!(device.ordinal(), 0);
            }
            Err(other) => panic!("Device::new(0) failed unexpectedly: {other}"),
        }
    }

    #[test]
    fn new_never_panics_for_an_absurd_ordinal() {
        match Device::new(usize::MAX) {
            Err(Error::NoDriver) => assert!(!driver_available()),
            Err(Error::NoDevice { ordinal, .. }) => assert_eq!(ordinal, usize::MAX),
            other => panic!("expected NoDriver or NoDevice, got {other:?}"),
        }
    }
}
