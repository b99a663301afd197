//! Opening a GPU, and making tensors on it.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaStream};

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

/// One GPU: its (primary) CUDA context and the stream all work is queued on.
///
/// Everything this crate enqueues (copies, kernel launches) goes to one
/// stream, so it runs in program order. Cloning is cheap and shares both.
/// Two `Device`s with the same ordinal share the driver's primary context,
/// so tensors and loaded kernels of one are valid with the other.
#[derive(Clone)]
pub struct Device {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
}

impl Device {
    /// Opens GPU `ordinal` (0 is the first).
    ///
    /// Fails with [`Error::NoDriver`] when `libcuda` is missing and with
    /// [`Error::NoDevice`] when there is no such GPU; never panics.
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
        let stream = context.default_stream();
        Ok(Device {
            context,
            stream,
            ordinal,
        })
    }

    /// The ordinal this device was opened with.
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
    /// reports a failure of any of it (a faulting kernel, for example).
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(Error::driver("synchronizing the device"))?;
        self.context
            .check_err()
            .map_err(Error::driver("synchronizing the device"))
    }

    /// The cudarc context, for work outside the kernel language.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream this crate queues all work on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Copies `host` into a new tensor of `shape`; `host.len()` must be the
    /// shape's element count. Returns once the copy has finished.
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

    /// A new tensor of `shape` with every element zero (all bits clear).
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
