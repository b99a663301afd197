//! Opening a device (a GPU, or the CPU interpreter), and making tensors on it.

use std::ffi::OsString;
use std::sync::{Arc, Once, OnceLock};

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaStream, DriverError, PinnedHostSlice};

use crate::tensor::{DeviceTensor, check_host_len, element_count};
use crate::{Element, Error, Result, host};

/// The environment variable that picks what [`Device::new`] opens: `cpu`
/// (the CPU interpreter), `gpu` (CUDA, failing without a driver) or `auto`
/// (unset or empty: CUDA when a driver is present, else the CPU).
pub const DEVICE_ENV: &str = "TILE_KERNEL_DEVICE";

/// What `Device::new` prints (once per process) when it falls back to the
/// CPU interpreter because there is no CUDA driver.
const FALLBACK_NOTICE: &str =
    "tile-kernel: no CUDA driver found; kernels run on the CPU interpreter";

/// Whether the CUDA driver library (`libcuda`) can be loaded.
///
/// The answer is computed once per process. Without a driver,
/// [`Device::cuda`] returns [`Error::NoDriver`] and [`Device::new`] opens
/// the CPU interpreter device; tests use this to skip GPU work.
pub fn driver_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(driver_library_present)
}

/// Whether libcuda can be loaded, where cudarc loads it at run time.
#[cfg(not(feature = "linked-driver"))]
fn driver_library_present() -> bool {
    // SAFETY: this only tries to dlopen libcuda, running its initialisers,
    // which every cudarc driver call would do anyway.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// With `linked-driver` libcuda is a library the binary links: the process
/// could not have started without it.
#[cfg(feature = "linked-driver")]
fn driver_library_present() -> bool {
    true
}

/// Which kind of device [`Device::new`] opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    /// CUDA (an error if there is no driver).
    Cuda,
    /// The CPU interpreter; `fallback` when chosen for lack of a driver
    /// (then `Device::new` says so on stderr), not by the variable.
    Cpu { fallback: bool },
}

/// The choice for the value of [`DEVICE_ENV`] (`None`: unset) and, only
/// where it matters, whether a CUDA driver is present. Values are matched
/// ignoring ASCII case and surrounding whitespace.
pub(crate) fn choose(setting: Option<OsString>, driver: impl FnOnce() -> bool) -> Result<Choice> {
    let setting = setting.map(|value| value.to_string_lossy().trim().to_owned());
    let word = setting.as_deref().unwrap_or("");
    if word.is_empty() || word.eq_ignore_ascii_case("auto") {
        Ok(if driver() {
            Choice::Cuda
        } else {
            Choice::Cpu { fallback: true }
        })
    } else if word.eq_ignore_ascii_case("cpu") {
        Ok(Choice::Cpu { fallback: false })
    } else if word.eq_ignore_ascii_case("gpu") || word.eq_ignore_ascii_case("cuda") {
        Ok(Choice::Cuda)
    } else {
        Err(Error::DeviceSetting {
            value: word.to_owned(),
        })
    }
}

/// Where a [`Device`] runs kernels.
///
/// - A **CUDA device**: one GPU context plus the stream this crate queues
///   work on. Every launch, copy and allocation made through it goes to its
///   one stream, so they run in program order.
/// - The **CPU interpreter device** ([`Device::cpu`]): tensors live in host
///   memory and launches run the kernel's IR (its spec's `program`) on the
///   interpreter (`tile-kernel-interp`), with the PTX semantics of every
///   instruction, blocks spread over the host's cores. A launch runs to
///   completion before it returns. It behaves as one device (ordinal 0):
///   CPU tensors work with every CPU `Device`.
///
/// Cloning is cheap and shares everything.
///
/// - [`Device::new`] opens the GPU's primary context and creates a **new
///   non-blocking stream** in it (never the legacy default stream, which
///   would serialize with every blocking stream of the process), or the
///   CPU device where there is no CUDA driver or `TILE_KERNEL_DEVICE=cpu`.
/// - [`Device::cuda`] opens a GPU and never falls back to the CPU.
/// - [`Device::from_stream`] uses a caller's cudarc stream (and its
///   context): an engine that owns its context and streams launches
///   tile-kernel kernels right into its own stream order.
/// - [`Device::with_stream`] / [`Device::with_new_stream`] give another
///   stream of the same context.
///
/// Tensors cross streams safely: when a tensor used on one stream is used
/// on another, the second waits for the first through cudarc's
/// per-allocation events (see the crate docs, "Streams", and
/// `docs/runtime.md`). The CUDA-only parts of the API (contexts, streams,
/// pinned buffers, asynchronous copies, the compute capability) return
/// [`Error::NotOnGpu`] on the CPU device.
#[derive(Clone)]
pub struct Device {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    Cuda(CudaDevice),
    Cpu,
}

/// A CUDA device's state.
#[derive(Clone)]
pub(crate) struct CudaDevice {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
}

impl CudaDevice {
    /// The cudarc context.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream all work is queued on.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The raw `CUcontext`, the identity kernels cache their modules under.
    pub(crate) fn context_key(&self) -> usize {
        self.context.cu_ctx() as usize
    }
}

impl Device {
    /// Opens device `ordinal` (0 is the first): a GPU, or the CPU
    /// interpreter where there is none.
    ///
    /// The environment variable `TILE_KERNEL_DEVICE` decides:
    ///
    /// - unset, empty or `auto`: a GPU ([`Device::cuda`]) when the CUDA
    ///   driver is present ([`driver_available`]), else the CPU interpreter
    ///   device ([`Device::cpu`]), and then the first such call of the
    ///   process prints `tile-kernel: no CUDA driver found; kernels run on
    ///   the CPU interpreter` on stderr;
    /// - `cpu`: the CPU interpreter device, with or without a driver;
    /// - `gpu` (or `cuda`): a GPU; without a driver that is
    ///   [`Error::NoDriver`];
    /// - anything else: [`Error::DeviceSetting`].
    ///
    /// (Case and surrounding whitespace do not matter.) The CPU device has
    /// only ordinal 0 ([`Error::NoCpuDevice`] for others). Never panics.
    pub fn new(ordinal: usize) -> Result<Device> {
        match choose(std::env::var_os(DEVICE_ENV), driver_available)? {
            Choice::Cuda => Device::cuda(ordinal),
            Choice::Cpu { fallback } => {
                if fallback {
                    static NOTICE: Once = Once::new();
                    NOTICE.call_once(|| eprintln!("{FALLBACK_NOTICE}"));
                }
                if ordinal == 0 {
                    Ok(Device::cpu())
                } else {
                    Err(Error::NoCpuDevice { ordinal })
                }
            }
        }
    }

    /// The CPU interpreter device: tensors in host memory, kernels run by
    /// the interpreter from the IR in their spec. Needs no driver and no
    /// GPU; every CPU `Device` is the same device.
    pub fn cpu() -> Device {
        Device { kind: Kind::Cpu }
    }

    /// Opens GPU `ordinal` (0 is the first): its primary context, and a new
    /// non-blocking stream in it. Never the CPU interpreter.
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
    pub fn cuda(ordinal: usize) -> Result<Device> {
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
        Ok(Device::from_parts(context, stream, ordinal))
    }

    fn from_parts(context: Arc<CudaContext>, stream: Arc<CudaStream>, ordinal: usize) -> Device {
        Device {
            kind: Kind::Cuda(CudaDevice {
                context,
                stream,
                ordinal,
            }),
        }
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
        Ok(Device::from_parts(context, stream, ordinal))
    }

    /// This device with its work queued on `stream` instead, which must
    /// belong to the same CUDA context; otherwise
    /// [`Error::ContextMismatch`] ([`Error::NotOnGpu`] on the CPU device).
    ///
    /// Tensors and loaded kernels stay valid across the two devices.
    pub fn with_stream(&self, stream: Arc<CudaStream>) -> Result<Device> {
        let cuda = self.require_cuda("`Device::with_stream`")?;
        if stream.context().cu_ctx() != cuda.context.cu_ctx() {
            return Err(Error::ContextMismatch {
                what: "the stream passed to `Device::with_stream`",
                other: "the device",
            });
        }
        Device::from_stream(stream)
    }

    /// This device on a new non-blocking stream of the same context (for
    /// work that may overlap with this device's, such as copies during
    /// compute). [`Error::NotOnGpu`] on the CPU device.
    pub fn with_new_stream(&self) -> Result<Device> {
        let stream = self
            .require_cuda("`Device::with_new_stream`")?
            .context
            .new_stream()
            .map_err(Error::driver("creating a stream"))?;
        Device::from_stream(stream)
    }

    /// Whether this is the CPU interpreter device.
    pub fn is_cpu(&self) -> bool {
        matches!(self.kind, Kind::Cpu)
    }

    /// The ordinal of the GPU (0 for the CPU interpreter device).
    pub fn ordinal(&self) -> usize {
        match &self.kind {
            Kind::Cuda(cuda) => cuda.ordinal,
            Kind::Cpu => 0,
        }
    }

    /// The GPU's product name, e.g. `NVIDIA H200`; `CPU interpreter` for
    /// the CPU device.
    pub fn name(&self) -> Result<String> {
        match &self.kind {
            Kind::Cuda(cuda) => cuda
                .context
                .name()
                .map_err(Error::driver("querying the device name")),
            Kind::Cpu => Ok("CPU interpreter".into()),
        }
    }

    /// The compute capability as `(major, minor)`, e.g. `(9, 0)` for sm_90.
    ///
    /// The CPU interpreter device has none: it runs kernels of every
    /// target (there is no arch check on it), so any number would be made
    /// up, and code that picks an arch-specific kernel from it would pick
    /// wrongly. It returns [`Error::NotOnGpu`]; check
    /// [`is_cpu`](Self::is_cpu) first where that matters.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        let (major, minor) = self
            .require_cuda("a compute capability")?
            .context
            .compute_capability()
            .map_err(Error::driver("querying the compute capability"))?;
        Ok((major.unsigned_abs(), minor.unsigned_abs()))
    }

    /// Waits until all work queued on this device's stream has finished, and
    /// reports a failure of any of it (a faulting kernel, for example), or
    /// one cudarc recorded in this context since the last check.
    ///
    /// On the CPU device every launch and copy has finished when its call
    /// returns: this returns `Ok(())` at once.
    pub fn synchronize(&self) -> Result<()> {
        let Kind::Cuda(cuda) = &self.kind else {
            return Ok(());
        };
        cuda.stream
            .synchronize()
            .map_err(Error::driver("synchronizing the device"))?;
        cuda.stream
            .context()
            .check_err()
            .map_err(Error::driver("synchronizing the device"))
    }

    /// The cudarc context, for work outside the kernel language
    /// ([`Error::NotOnGpu`] on the CPU device).
    pub fn context(&self) -> Result<&Arc<CudaContext>> {
        Ok(&self.require_cuda("`Device::context`")?.context)
    }

    /// The stream this device queues all work on ([`Error::NotOnGpu`] on
    /// the CPU device).
    pub fn stream(&self) -> Result<&Arc<CudaStream>> {
        Ok(&self.require_cuda("`Device::stream`")?.stream)
    }

    /// The CUDA state, or [`Error::NotOnGpu`] naming `what` needed it.
    pub(crate) fn require_cuda(&self, what: &'static str) -> Result<&CudaDevice> {
        match &self.kind {
            Kind::Cuda(cuda) => Ok(cuda),
            Kind::Cpu => Err(Error::NotOnGpu { what }),
        }
    }

    /// The CUDA state, if this is a CUDA device.
    pub(crate) fn as_cuda(&self) -> Option<&CudaDevice> {
        match &self.kind {
            Kind::Cuda(cuda) => Some(cuda),
            Kind::Cpu => None,
        }
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
        let cuda = self.require_cuda("`Device::alloc_pinned`")?;
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
        let mut pinned = unsafe { cuda.context.alloc_pinned_with_flags::<T>(len, 0) }
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
        let Kind::Cuda(cuda) = &self.kind else {
            let memory = host::from_values(host, shape)?;
            return Ok(DeviceTensor::from_host(memory, shape.into(), len));
        };
        let slice = if len == 0 {
            cuda.stream
                .alloc_zeros(DeviceTensor::<T>::allocation_len(0))
                .map_err(Error::driver("allocating a tensor"))?
        } else {
            let slice = cuda
                .stream
                .clone_htod(host)
                .map_err(Error::driver("copying host data into a tensor"))?;
            // The caller may reuse `host` as soon as we return.
            cuda.stream
                .synchronize()
                .map_err(Error::driver("copying host data into a tensor"))?;
            slice
        };
        Ok(DeviceTensor::from_cuda(slice, shape.into(), len))
    }

    /// A new tensor of `shape` with every element zero (all bits clear),
    /// allocated and cleared on this device's stream (does not wait; on
    /// the CPU device, zeroed host memory).
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
        let Kind::Cuda(cuda) = &self.kind else {
            // `element_count` checked that the byte size fits.
            let bytes = len.saturating_mul(T::DTYPE.size_bytes());
            let memory = host::zeroed(bytes, shape, T::DTYPE)?;
            return Ok(DeviceTensor::from_host(memory, shape.into(), len));
        };
        let slice = cuda
            .stream
            .alloc_zeros(DeviceTensor::<T>::allocation_len(len))
            .map_err(Error::driver("allocating a tensor"))?;
        Ok(DeviceTensor::from_cuda(slice, shape.into(), len))
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Cuda(cuda) => f
                .debug_struct("Device")
                .field("ordinal", &cuda.ordinal)
                .finish_non_exhaustive(),
            Kind::Cpu => f.write_str("Device(CPU interpreter)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Correct on both kinds of machine: without a driver the error is
    /// `NoDriver` (not a panic); with one, device 0 opens.
    #[test]
    fn cuda_reports_missing_driver_or_opens_device_zero() {
        match Device::cuda(0) {
            Err(Error::NoDriver) => assert!(!driver_available()),
            Ok(device) => {
                assert!(driver_available());
                assert!(!device.is_cpu());
                assert_eq!(device.ordinal(), 0);
            }
            Err(other) => panic!("Device::cuda(0) failed unexpectedly: {other}"),
        }
    }

    #[test]
    fn cuda_never_panics_for_an_absurd_ordinal() {
        match Device::cuda(usize::MAX) {
            Err(Error::NoDriver) => assert!(!driver_available()),
            Err(Error::NoDevice { ordinal, .. }) => assert_eq!(ordinal, usize::MAX),
            other => panic!("expected NoDriver or NoDevice, got {other:?}"),
        }
    }

    fn set(value: &str) -> Option<OsString> {
        Some(value.into())
    }

    /// The variable's logic, for every value and both kinds of machine;
    /// the driver is asked only when the choice depends on it.
    #[test]
    fn the_device_variable_picks_the_device() {
        let no_driver = || false;
        let driver = || true;
        let unasked = || -> bool { panic!("the driver must not be probed here") };
        // Unset, empty or `auto`: CUDA when there is a driver, else the CPU.
        for setting in [None, set(""), set("auto"), set("  AUTO\n")] {
            assert_eq!(choose(setting.clone(), driver).ok(), Some(Choice::Cuda));
            assert_eq!(
                choose(setting, no_driver).ok(),
                Some(Choice::Cpu { fallback: true })
            );
        }
        // `cpu` forces the CPU (no notice), `gpu`/`cuda` force CUDA.
        for setting in ["cpu", "CPU", " cpu "] {
            assert_eq!(
                choose(set(setting), unasked).ok(),
                Some(Choice::Cpu { fallback: false })
            );
        }
        for setting in ["gpu", "GPU", "cuda"] {
            assert_eq!(choose(set(setting), unasked).ok(), Some(Choice::Cuda));
        }
        match choose(set(" tpu "), unasked) {
            Err(Error::DeviceSetting { value }) => assert_eq!(value, "tpu"),
            other => panic!("expected DeviceSetting, got {other:?}"),
        }
    }

    /// What `Device::new` opens here follows the variable as this process
    /// has it (tests do not change the environment: other tests run in
    /// parallel).
    #[test]
    fn new_opens_what_the_variable_and_the_driver_say() {
        let choice = choose(std::env::var_os(DEVICE_ENV), driver_available);
        match (choice, Device::new(0)) {
            (Ok(Choice::Cpu { .. }), Ok(device)) => assert!(device.is_cpu()),
            (Ok(Choice::Cuda), Ok(device)) => assert!(!device.is_cpu()),
            (Ok(Choice::Cuda), Err(Error::NoDriver | Error::NoDevice { .. })) => {}
            (Err(Error::DeviceSetting { .. }), Err(Error::DeviceSetting { .. })) => {}
            (choice, opened) => panic!("chose {choice:?}, but Device::new(0) gave {opened:?}"),
        }
        if let Ok(Choice::Cpu { .. }) = choose(std::env::var_os(DEVICE_ENV), driver_available) {
            assert!(matches!(
                Device::new(1),
                Err(Error::NoCpuDevice { ordinal: 1 })
            ));
        }
    }

    #[test]
    fn the_cpu_device_answers_without_a_driver() {
        let cpu = Device::cpu();
        assert!(cpu.is_cpu());
        assert_eq!(cpu.ordinal(), 0);
        assert_eq!(cpu.name().ok().as_deref(), Some("CPU interpreter"));
        assert!(cpu.synchronize().is_ok());
        assert_eq!(format!("{cpu:?}"), "Device(CPU interpreter)");
        assert!(matches!(
            cpu.compute_capability(),
            Err(Error::NotOnGpu {
                what: "a compute capability"
            })
        ));
        assert!(matches!(cpu.context(), Err(Error::NotOnGpu { .. })));
        assert!(matches!(cpu.stream(), Err(Error::NotOnGpu { .. })));
        assert!(matches!(cpu.with_new_stream(), Err(Error::NotOnGpu { .. })));
        assert!(matches!(
            cpu.alloc_pinned::<f32>(16),
            Err(Error::NotOnGpu {
                what: "`Device::alloc_pinned`"
            })
        ));
    }
}
