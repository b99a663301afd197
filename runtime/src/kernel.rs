//! Kernels as generated code sees them: a [`KernelSpec`] written by the
//! `#[tile_kernel]` macro next to its PTX, a per-context module cache, and a
//! checked argument builder whose only `unsafe` is the final driver launch.
//!
//! The trust boundary is [`Kernel::new`], an `unsafe fn`: whoever builds a
//! [`Kernel`] promises that its spec describes its PTX exactly and that the
//! PTX is memory-safe for every launch the checks below accept. The
//! `#[tile_kernel]` compiler proves that for the code it emits; everything
//! after `new` is safe API.
//!
//! Invariant this module establishes: a [`Launch`] reaches the driver only
//! when every argument matched its [`ParamSpec`] (kind, dtype, shape, access,
//! context, memory holding the shape, 16-byte aligned start), in order, and
//! all were given; every size
//! symbol is bound, consistently across parameters, and meets its
//! [`SymbolSpec`] and [`MAX_SYMBOL_VALUE`](crate::MAX_SYMBOL_VALUE); and the
//! grid computed from the symbols is within CUDA's limits. A launch with no
//! work (a zero grid extent, or only empty tensors) returns `Ok` without
//! reaching the driver.
//!
//! On the CPU interpreter device the same checks pass or fail the same way
//! (the device check: every tensor in host memory), and then the
//! interpreter runs the spec's `program` instead of the driver running the
//! PTX: no `unsafe` is involved, and the program is checked to describe the
//! spec's kernel when it is prepared (once per `Kernel`).

use std::ffi::{CString, c_void};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cudarc::driver::sys::{
    self, CUdevice_attribute, CUdeviceptr, CUfunction_attribute, CUjit_option, CUresult,
};
use cudarc::driver::{
    CudaEvent, CudaFunction, CudaStream, CudaView, CudaViewMut, DeviceSlice, DriverError,
    SyncOnDrop,
};
use cudarc::nvrtc::Ptx;
use tile_kernel_interp::{Arg, Prepared, RunOptions};
use tile_kernel_lowering::DType;
use tile_kernel_lowering::program::{self, Program};
pub use tile_kernel_lowering::spec::{Access, KernelSpec, ParamKind, ParamSpec};

use crate::copy::{after_ordering_failure, check_recorded, needs_join, record_use, take_event};
use crate::device::CudaDevice;
use crate::symbols::{
    Bindings, MAX_SYMBOLS, SymbolSpec, bind_shape, check_symbols, dynamic_shared_size, grid_size,
};
use crate::view::{HostView, Memory, MemoryMut, host_prefix};
use crate::{Device, Element, Error, Result, ScalarArg, Target, TensorArg, TensorArgMut};

/// The most parameters one kernel's PTX entry may take, the hidden symbol
/// parameters included; [`Launch`] keeps its arguments in fixed arrays of
/// this size so that a launch does not allocate.
pub const MAX_PARAMS: usize = 32;

/// The most CUDA contexts one kernel caches a module for. `Device` only opens
/// primary contexts, one per GPU, so this bounds the GPUs a kernel runs on.
const MAX_CONTEXTS: usize = 64;

/// Size of the buffer the driver JIT writes its error log into.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// A kernel's function, loaded into one context.
struct LoadedFunction {
    context: usize,
    function: CudaFunction,
    /// Dynamic shared memory a launch may ask for, in bytes: what the
    /// device lets one block have (opted in) beside the function's static
    /// shared memory.
    dynamic_shared_limit: u32,
}

/// A [`KernelSpec`] plus the driver modules loaded for it, one per context,
/// and its IR prepared for the CPU interpreter.
///
/// Generated code keeps one `Kernel` per kernel in a `static`, so the PTX is
/// JIT-compiled by the driver once per context for the life of the process.
/// A cached function keeps its context alive, which also keeps the context's
/// identity (its `CUcontext` handle), the cache key, from being reused.
/// Likewise the spec's `program` is decoded and prepared for the
/// interpreter once, at the first launch on a CPU device.
pub struct Kernel {
    spec: KernelSpec,
    /// Filled front to back, never emptied: a hit is a scan of atomic loads.
    slots: [OnceLock<LoadedFunction>; MAX_CONTEXTS],
    /// Serialises loads so that a context is loaded into one slot only once.
    load_lock: Mutex<()>,
    loads: AtomicUsize,
    /// The program for the CPU interpreter, or why there is none (the spec
    /// is static data, so the answer never changes).
    prepared: OnceLock<std::result::Result<Prepared, CpuUnavailable>>,
}

/// Why a kernel cannot run on the CPU interpreter.
#[derive(Debug, Clone)]
enum CpuUnavailable {
    /// The spec's `program` is empty.
    NoProgram,
    /// It does not decode, does not match the spec, or does not prepare.
    Bad(String),
}

impl Kernel {
    /// Wraps a spec. `const` so generated code can put the kernel in a `static`.
    ///
    /// # Safety
    ///
    /// Launches trust the spec completely, so the caller must guarantee:
    ///
    /// - **The spec describes its PTX exactly.** `spec.ptx` has an
    ///   `.entry spec.name` whose parameters are, in order: one per
    ///   `spec.params` entry (a `.u64` global address for a tensor, the
    ///   dtype's PTX type for a scalar), then one `.u64` per
    ///   `spec.symbols` entry, in symbol order, receiving that symbol's
    ///   value divided by its `divisor`. `shared_mem_bytes` evaluates, for
    ///   every launch the checks accept, to at least the bytes of dynamic
    ///   shared memory the PTX accesses.
    /// - **The PTX is memory-safe for every launch the checks accept**: for
    ///   all tensors whose dtypes and shapes match the params (constant dims
    ///   equal, symbolic dims consistent with one value per symbol), for all
    ///   symbol values at most [`MAX_SYMBOL_VALUE`](crate::MAX_SYMBOL_VALUE)
    ///   that are multiples of their `divisor` and `multiple_of`, with the
    ///   grid computed from `spec.grid`, the block `spec.block`, and the
    ///   base address of every non-empty tensor 16-byte aligned (an empty
    ///   tensor may start anywhere), every memory access stays in
    ///   bounds, is aligned, writes only tensors declared [`Access::Write`],
    ///   and no two threads race on one location.
    ///
    /// The `#[tile_kernel]` compiler proves both for the spec and PTX it
    /// emits from one kernel definition; a hand-written spec must be argued
    /// the same way. `spec.program` needs no promise: launches on the CPU
    /// device check it against the spec, and the interpreter checks every
    /// access it makes.
    pub const unsafe fn new(spec: KernelSpec) -> Kernel {
        Kernel {
            spec,
            slots: [const { OnceLock::new() }; MAX_CONTEXTS],
            load_lock: Mutex::new(()),
            loads: AtomicUsize::new(0),
            prepared: OnceLock::new(),
        }
    }

    /// The spec the macro wrote.
    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// The PTX text, for inspection.
    pub fn ptx(&self) -> &'static str {
        self.spec.ptx
    }

    /// The PTX entry name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// How many times the driver has loaded this kernel's module, summed over
    /// contexts. Stays 1 across any number of launches on one GPU.
    pub fn load_count(&self) -> usize {
        self.loads.load(Ordering::Relaxed)
    }

    /// The kernel's function in `device`'s context, loading the module on
    /// first use there ([`Error::NotOnGpu`] on the CPU device).
    ///
    /// A failed load is reported as [`Error::ModuleLoad`] and not cached: the
    /// next call tries again.
    pub fn function(&self, device: &Device) -> Result<&CudaFunction> {
        self.loaded(device).map(|loaded| &loaded.function)
    }

    /// [`function`](Self::function) with what was learned loading it.
    fn loaded(&self, device: &Device) -> Result<&LoadedFunction> {
        let cuda = device.require_cuda("`Kernel::function` (loading the PTX module)")?;
        let key = cuda.context_key();
        for slot in &self.slots {
            match slot.get() {
                Some(loaded) if loaded.context == key => return Ok(loaded),
                Some(_) => {}
                None => break,
            }
        }
        self.load(device, cuda, key)
    }

    /// The kernel's program, decoded from the spec and prepared for the
    /// CPU interpreter on first use: [`Error::NoProgram`] when the spec has
    /// none, [`Error::BadProgram`] when it does not decode, does not
    /// describe the spec's kernel, or the interpreter refuses it.
    pub fn prepared(&self) -> Result<&Prepared> {
        match self.prepared.get_or_init(|| prepare(&self.spec)) {
            Ok(prepared) => Ok(prepared),
            Err(CpuUnavailable::NoProgram) => Err(Error::NoProgram {
                kernel: self.spec.name,
            }),
            Err(CpuUnavailable::Bad(detail)) => Err(Error::BadProgram {
                kernel: self.spec.name,
                detail: detail.clone(),
            }),
        }
    }

    /// The slow path of [`function`](Self::function).
    #[cold]
    fn load(&self, device: &Device, cuda: &CudaDevice, key: usize) -> Result<&LoadedFunction> {
        // The lock guards no data, so a panic elsewhere cannot leave it torn.
        let _guard = self
            .load_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for slot in &self.slots {
            if let Some(loaded) = slot.get() {
                if loaded.context == key {
                    return Ok(loaded);
                }
                continue;
            }
            check_arch(&self.spec, device)?;
            let (function, dynamic_shared_limit) = load_function(&self.spec, cuda)?;
            self.loads.fetch_add(1, Ordering::Relaxed);
            // The slot is empty and only lock holders fill slots: this sets it.
            return Ok(slot.get_or_init(|| LoadedFunction {
                context: key,
                function,
                dynamic_shared_limit,
            }));
        }
        Err(Error::TooManyContexts {
            kernel: self.spec.name,
            limit: MAX_CONTEXTS,
        })
    }

    /// Starts a launch on `device`: push every argument in parameter order,
    /// then [`run`](Launch::run).
    ///
    /// On a CUDA device this loads the module into the device's context on
    /// first use; on the CPU device it prepares the kernel's program
    /// ([`prepared`](Self::prepared)).
    pub fn launch<'a>(&'a self, device: &'a Device) -> Result<Launch<'a>> {
        check_param_counts(&self.spec)?;
        let backend = match device.as_cuda() {
            Some(cuda) => Backend::Cuda {
                device: cuda,
                loaded: self.loaded(device)?,
            },
            None => Backend::Cpu(self.prepared()?),
        };
        Ok(Launch {
            kernel: self,
            backend,
            host_args: [Arg::Scalar(0); MAX_PARAMS],
            pushed: 0,
            device_ptrs: [0; MAX_PARAMS],
            params: [ptr::null_mut(); MAX_PARAMS],
            events: [None; MAX_PARAMS],
            joins: [const { None }; MAX_PARAMS],
            bound: [None; MAX_SYMBOLS],
            symbol_args: [0; MAX_SYMBOLS],
            tensors: 0,
            nonempty_tensors: 0,
        })
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.spec.name)
            .field("load_count", &self.load_count())
            .finish_non_exhaustive()
    }
}

/// Checks that the kernel's parameters, hidden symbol parameters included,
/// fit a [`Launch`]'s fixed arrays.
fn check_param_counts(spec: &KernelSpec) -> Result<()> {
    let (params, symbols) = (spec.params.len(), spec.symbols.len());
    let detail = if symbols > MAX_SYMBOLS {
        format!(
            "the kernel has {symbols} size symbols, but a launch supports at most {MAX_SYMBOLS}"
        )
    } else if params + symbols > MAX_PARAMS {
        format!(
            "the kernel takes {params} parameters and {symbols} size symbols, but a launch supports at most {MAX_PARAMS} in all"
        )
    } else {
        return Ok(());
    };
    Err(Error::ArgumentMismatch {
        kernel: spec.name,
        detail,
    })
}

/// The device's architecture as a target name: compute capability 9.0 is
/// `sm_90`, 10.0 is `sm_100`.
pub(crate) fn device_arch(major: u32, minor: u32) -> String {
    format!("sm_{}", major * 10 + minor)
}

/// [`Error::ArchMismatch`] if PTX for `target` cannot run on a device of
/// compute capability `major.minor` ([`Target::runs_on`]).
pub(crate) fn arch_mismatch(
    kernel: &'static str,
    target: Target,
    (major, minor): (u32, u32),
) -> Option<Error> {
    (!target.runs_on(major, minor)).then(|| Error::ArchMismatch {
        kernel,
        target: target.to_string(),
        device: device_arch(major, minor),
    })
}

/// Refuses to load `spec` on a device whose compute capability its target
/// excludes, before the driver sees the PTX.
fn check_arch(spec: &KernelSpec, device: &Device) -> Result<()> {
    match arch_mismatch(spec.name, spec.target, device.compute_capability()?) {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// Loads `spec`'s module into `device`'s context and looks up its entry;
/// also returns the dynamic shared memory a launch may ask for, after
/// opting the function in to all the device allows when the spec asks for
/// dynamic shared memory.
fn load_function(spec: &KernelSpec, device: &CudaDevice) -> Result<(CudaFunction, u32)> {
    let module_error = |source: DriverError, log: String| Error::ModuleLoad {
        kernel: spec.name,
        source,
        log,
        ptx: spec.ptx,
    };
    // cudarc unwraps `CString::new` on both strings; refuse them here instead.
    let Ok(ptx_c) = CString::new(spec.ptx) else {
        return Err(module_error(
            DriverError(CUresult::CUDA_ERROR_INVALID_PTX),
            "(not sent to the driver: the PTX text contains a NUL byte)".into(),
        ));
    };
    if spec.name.contains('\0') {
        return Err(module_error(
            DriverError(CUresult::CUDA_ERROR_NOT_FOUND),
            "(the entry name contains a NUL byte)".into(),
        ));
    }
    let context = device.context();
    let module = match context.load_module(Ptx::from_src(spec.ptx)) {
        Ok(module) => module,
        Err(source) => return Err(module_error(source, jit_error_log(device, &ptx_c))),
    };
    let function = module.load_function(spec.name).map_err(|source| {
        module_error(
            source,
            format!("(the module loaded, but has no `.entry {}`)", spec.name),
        )
    })?;
    if spec.shared_mem_bytes.0 == crate::symbols::LaunchExpr::ZERO.0 {
        return Ok((function, 0));
    }
    let attribute_error = || Error::driver("raising the kernel's dynamic shared memory limit");
    let static_bytes = function
        .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        .map_err(attribute_error())?;
    let per_block = context
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(attribute_error())?;
    let limit = per_block.saturating_sub(static_bytes).max(0);
    function
        .set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            limit,
        )
        .map_err(attribute_error())?;
    Ok((function, u32::try_from(limit).unwrap_or(0)))
}

/// Loads the PTX once more through `cuModuleLoadDataEx` with an error-log
/// buffer, because cudarc's `load_module` reports only the error code.
/// Returns a placeholder when the driver leaves the log empty.
fn jit_error_log(device: &CudaDevice, ptx: &CString) -> String {
    const NO_LOG: &str = "(the driver JIT wrote no error log)";
    if device.context().bind_to_thread().is_err() {
        return NO_LOG.into();
    }
    let mut log = vec![0u8; JIT_LOG_BYTES];
    let mut options = [
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The size option's value travels in the pointer slot itself.
    let mut values: [*mut c_void; 2] = [
        log.as_mut_ptr().cast(),
        ptr::without_provenance_mut(JIT_LOG_BYTES),
    ];
    let mut module: sys::CUmodule = ptr::null_mut();
    // SAFETY: `ptx` is NUL-terminated PTX text; the two options are paired
    // with a writable buffer of exactly the size given; the context is
    // current on this thread. A module that loads after all is unloaded.
    let loaded = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            ptx.as_ptr().cast(),
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if loaded == CUresult::CUDA_SUCCESS && !module.is_null() {
        // SAFETY: `module` was just loaded and nothing else refers to it.
        let _ = unsafe { sys::cuModuleUnload(module) };
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    let text = String::from_utf8_lossy(&log[..end]).trim_end().to_owned();
    if text.is_empty() { NO_LOG.into() } else { text }
}

/// A kernel launch being assembled: one checked argument per parameter, in
/// order, then [`run`](Self::run).
///
/// Every argument is checked against the kernel's [`ParamSpec`] as it is
/// pushed: kind, dtype, shape, read/write access, device (a GPU tensor's
/// CUDA context; a CPU-device tensor only on the CPU device), that the
/// tensor's memory holds its shape, and that it starts 16-byte aligned
/// ([`Error::Misaligned`]; views can start anywhere, the kernel's vector
/// accesses assume this). A tensor's shape binds the size symbols its dims
/// name, or must agree with the values earlier arguments bound. A mismatch
/// is an [`Error`], never undefined behaviour. Allocation-free: arguments
/// live in fixed arrays of [`MAX_PARAMS`] and [`MAX_SYMBOLS`].
///
/// Tensors are any [`TensorArg`] ([`DeviceTensor`](crate::DeviceTensor),
/// [`TensorView`](crate::TensorView), [`TensorViewMut`](crate::TensorViewMut));
/// written ones any [`TensorArgMut`], borrowed `&mut` for the launch.
#[must_use = "a launch does nothing until `run` is called"]
pub struct Launch<'a> {
    kernel: &'a Kernel,
    backend: Backend<'a>,
    /// The CPU device's arguments: each tensor's bytes (exactly its
    /// elements) or scalar's bits, in parameter order.
    host_args: [Arg<'a>; MAX_PARAMS],
    pushed: usize,
    /// Device addresses of tensor arguments; the driver reads them through
    /// `params`, which `run` points here.
    device_ptrs: [CUdeviceptr; MAX_PARAMS],
    /// The driver's `kernelParams`: a scalar's address, or null for a tensor
    /// until `run` points it at `device_ptrs`. After the kernel's own
    /// parameters, `run` points one slot per size symbol at `symbol_args`.
    params: [*mut c_void; MAX_PARAMS],
    /// The tensors' read or write events, recorded after the launch so that
    /// later users on other streams wait for it (cudarc's `SyncOnDrop`).
    events: [Option<&'a CudaEvent>; MAX_PARAMS],
    /// Allocation streams the device's stream was joined with because
    /// cudarc orders nothing for them (see `copy::needs_join`); each waits
    /// for the launch after it is queued. Empty in the usual case.
    joins: [Option<Arc<CudaStream>>; MAX_PARAMS],
    /// The size symbols the tensors pushed so far have bound.
    bound: Bindings,
    /// The hidden symbol arguments (value / divisor), filled by `run`.
    symbol_args: [u64; MAX_SYMBOLS],
    /// How many tensor arguments were pushed, and how many of them have
    /// elements.
    tensors: usize,
    nonempty_tensors: usize,
}

/// What runs a launch.
#[derive(Clone, Copy)]
enum Backend<'a> {
    /// The driver, with the kernel's function loaded in the device's context.
    Cuda {
        device: &'a CudaDevice,
        loaded: &'a LoadedFunction,
    },
    /// The CPU interpreter, with the kernel's prepared program.
    Cpu(&'a Prepared),
}

/// How a launch error names where a tensor's memory is.
const HOST_MEMORY: &str = "host memory (a CPU-device tensor)";
const GPU_MEMORY: &str = "GPU memory";
const ON_CPU: &str = "the CPU interpreter device";
const ON_GPU: &str = "a CUDA device";

impl<'a> Launch<'a> {
    /// Passes `tensor` to the next parameter, which the kernel only reads.
    pub fn tensor<T: Element>(mut self, tensor: &'a (impl TensorArg<T> + ?Sized)) -> Result<Self> {
        self.push_tensor(tensor)?;
        Ok(self)
    }

    /// Passes `tensor` to the next parameter, which the kernel may write.
    /// Also accepted for a read-only parameter.
    pub fn tensor_mut<T: Element>(
        mut self,
        tensor: &'a mut (impl TensorArgMut<T> + ?Sized),
    ) -> Result<Self> {
        self.push_tensor_mut(tensor)?;
        Ok(self)
    }

    /// Passes `value` to the next parameter, a scalar.
    pub fn scalar<T: ScalarArg>(mut self, value: &'a T) -> Result<Self> {
        self.push_scalar(value)?;
        Ok(self)
    }

    /// [`tensor`](Self::tensor) in place: generated launchers push through
    /// `&mut` so the launch (about 1.5 KiB of fixed arrays) is not moved
    /// once per argument.
    pub fn push_tensor<T: Element>(
        &mut self,
        tensor: &'a (impl TensorArg<T> + ?Sized),
    ) -> Result<()> {
        let len = tensor.arg_len();
        let (index, bound) = self.check_tensor::<T>(tensor.arg_shape(), Access::Read)?;
        match (tensor.arg_memory(), self.backend) {
            (Memory::Cuda(view), Backend::Cuda { device, .. }) => {
                self.push_cuda_view(index, bound, len, view, device)
            }
            (Memory::Host(host), Backend::Cpu(_)) => self.push_host::<T>(index, bound, len, host),
            (memory, _) => Err(self.wrong_device(index, matches!(memory, Memory::Host(_)))),
        }
    }

    /// [`tensor_mut`](Self::tensor_mut) in place.
    pub fn push_tensor_mut<T: Element>(
        &mut self,
        tensor: &'a mut (impl TensorArgMut<T> + ?Sized),
    ) -> Result<()> {
        let len = tensor.arg_len();
        let (index, bound) = self.check_tensor::<T>(tensor.arg_shape(), Access::Write)?;
        match (tensor.arg_memory_mut(), self.backend) {
            (MemoryMut::Cuda(view), Backend::Cuda { device, .. }) => {
                self.push_cuda_view_mut(index, bound, len, view, device)
            }
            // The tensor stays borrowed `&mut` for 'a: the interpreter's
            // writes through the shared bytes reach nothing else.
            (MemoryMut::Host(host), Backend::Cpu(_)) => {
                let host = HostView {
                    bytes: host.bytes,
                    offset: host.offset,
                };
                self.push_host::<T>(index, bound, len, host)
            }
            (memory, _) => Err(self.wrong_device(index, matches!(memory, MemoryMut::Host(_)))),
        }
    }

    /// [`scalar`](Self::scalar) in place.
    pub fn push_scalar<T: ScalarArg>(&mut self, value: &'a T) -> Result<()> {
        let index = self.next_param()?;
        check_scalar(
            self.kernel.spec.name,
            &self.kernel.spec.params[index],
            T::DTYPE,
        )?;
        match self.backend {
            Backend::Cuda { .. } => self.params[index] = ptr::from_ref(value).cast_mut().cast(),
            Backend::Cpu(_) => self.host_args[index] = Arg::Scalar(value.to_raw_bits()),
        }
        self.pushed += 1;
        Ok(())
    }

    /// A GPU tensor checked against parameter `index`, on a CUDA device.
    fn push_cuda_view<T: Element>(
        &mut self,
        index: usize,
        bound: Bindings,
        len: usize,
        view: CudaView<'a, T>,
        device: &'a CudaDevice,
    ) -> Result<()> {
        let (available, home) = (view.len(), view.stream());
        let join = self.order_after(index, home, device)?;
        let (address, guard) = view.view_ptr(device.stream());
        self.push_device_ptr(index, bound, len, available, address, guard, join)
    }

    /// [`push_cuda_view`](Self::push_cuda_view) for a tensor the kernel
    /// may write.
    fn push_cuda_view_mut<T: Element>(
        &mut self,
        index: usize,
        bound: Bindings,
        len: usize,
        view: CudaViewMut<'a, T>,
        device: &'a CudaDevice,
    ) -> Result<()> {
        let (available, home) = (view.len(), view.stream());
        let join = self.order_after(index, home, device)?;
        let (address, guard) = view.view_ptr_mut(device.stream());
        self.push_device_ptr(index, bound, len, available, address, guard, join)
    }

    /// A CPU-device tensor of `len` elements of `T`, checked against
    /// parameter `index`, on the CPU device: the same memory checks as on
    /// a GPU, with the view's byte offset in its tensor as the address.
    fn push_host<T: Element>(
        &mut self,
        index: usize,
        bound: Bindings,
        len: usize,
        host: HostView<'a>,
    ) -> Result<()> {
        let spec = &self.kernel.spec;
        let param = spec.params[index].name;
        let available = host.bytes.len() / T::DTYPE.size_bytes();
        let offset = u64::try_from(host.offset).unwrap_or(u64::MAX);
        check_memory(spec.name, param, len, available, offset)?;
        self.host_args[index] = Arg::Tensor(host_prefix::<T>(host.bytes, len)?);
        self.record_tensor(bound, len);
        Ok(())
    }

    /// [`Error::WrongDevice`] for parameter `index`: a tensor in host
    /// memory (`host`) or GPU memory on a device of the other kind.
    fn wrong_device(&self, index: usize, host: bool) -> Error {
        let (memory, device) = if host {
            (HOST_MEMORY, ON_GPU)
        } else {
            (GPU_MEMORY, ON_CPU)
        };
        Error::WrongDevice {
            kernel: self.kernel.spec.name,
            param: self.kernel.spec.params[index].name,
            memory,
            device,
        }
    }

    /// Counts a pushed tensor of `len` elements and keeps the symbols its
    /// shape bound.
    fn record_tensor(&mut self, bound: Bindings, len: usize) {
        self.bound = bound;
        self.tensors += 1;
        if len > 0 {
            self.nonempty_tensors += 1;
        }
        self.pushed += 1;
    }

    /// Queues the kernel on the device's stream. Does not wait for it: use
    /// [`Device::synchronize`] or a blocking download.
    ///
    /// Before that it checks that every argument was passed, that every size
    /// symbol is bound and meets the kernel's requirements
    /// ([`Error::SymbolRequirement`]), and computes the grid from the symbols
    /// ([`Error::LaunchSize`] if it under- or overflows or exceeds CUDA's
    /// limits). Where there is no work, because the kernel has tensor
    /// parameters and all of them are empty or because a grid extent is 0,
    /// it returns `Ok(())` without launching.
    ///
    /// After queueing the kernel it records each tensor's read or write
    /// event on the stream, so that later work on other streams waits for
    /// the kernel; if that fails, it waits for the kernel before returning
    /// the error.
    ///
    /// On the CPU device, after the same checks, the interpreter runs the
    /// kernel's program over the grid and returns when it is done; a fault
    /// it detects (an access out of bounds, a race, ...) is
    /// [`Error::Interpreter`], and the tensors may then hold part of the
    /// kernel's writes.
    pub fn run(mut self) -> Result<()> {
        let spec = &self.kernel.spec;
        if self.pushed != spec.params.len() {
            let missing = spec.params.get(self.pushed).map_or("?", |p| p.name);
            return Err(Error::ArgumentMismatch {
                kernel: spec.name,
                detail: format!(
                    "the kernel takes {} arguments, but only {} were passed (missing `{missing}`)",
                    spec.params.len(),
                    self.pushed,
                ),
            });
        }
        let shared_limit = match self.backend {
            Backend::Cuda { loaded, .. } => loaded.dynamic_shared_limit,
            Backend::Cpu(prepared) => prepared.dynamic_shared_limit(),
        };
        let Some(plan) = plan_launch(
            spec,
            &self.bound,
            self.tensors,
            self.nonempty_tensors,
            shared_limit,
        )?
        else {
            return Ok(());
        };
        let (device, function) = match self.backend {
            Backend::Cuda { device, loaded } => (device, &loaded.function),
            Backend::Cpu(prepared) => return self.run_on_cpu(prepared, &plan),
        };
        let count = self.pushed;
        for (param, address) in self.params[..count]
            .iter_mut()
            .zip(&mut self.device_ptrs[..count])
        {
            if param.is_null() {
                *param = ptr::from_mut(address).cast();
            }
        }
        self.symbol_args = plan.symbol_args;
        let total = count + spec.symbols.len();
        // `Kernel::launch` checked that the symbols fit after the params.
        let Some(symbol_params) = self.params.get_mut(count..total) else {
            return Err(Error::ArgumentMismatch {
                kernel: spec.name,
                detail: format!(
                    "the kernel takes {total} parameters with its size symbols, but a launch supports at most {MAX_PARAMS}"
                ),
            });
        };
        for (param, arg) in symbol_params.iter_mut().zip(&mut self.symbol_args) {
            *param = ptr::from_mut(arg).cast();
        }
        let context = device.context();
        let stream = device.stream();
        // The waits the tensors' `view_ptr` queued report failures only in
        // the context's error state: a failed one would let the kernel
        // overlap with earlier work on another stream.
        check_recorded(stream, "ordering a kernel launch after earlier work")?;
        context
            .bind_to_thread()
            .map_err(Error::driver("launching a kernel"))?;
        let [gx, gy, gz] = plan.grid;
        // SAFETY: whoever called `Kernel::new` guaranteed (its `# Safety`)
        // that the entry takes exactly `spec.params` followed by one `.u64`
        // per `spec.symbols` entry (value / divisor), and that the PTX is
        // memory-safe for every launch the launcher's checks accept. This
        // launch passed them all: every argument was checked against its
        // ParamSpec when pushed (kind, dtype, constant dims, access, context,
        // that its memory holds at least its shape's elements, 16-byte
        // aligned start) and all were pushed; every symbol was bound by the
        // tensors' shapes, consistently across parameters, and passed
        // `check_symbols` (at most MAX_SYMBOL_VALUE, a multiple of its
        // divisor and multiple_of); the grid is `spec.grid` evaluated for
        // exactly these values, within CUDA's limits, the block is
        // `spec.block`, and the dynamic shared memory is
        // `spec.shared_mem_bytes` evaluated for the same values (at least
        // what the PTX accesses, per `Kernel::new`; within the function's
        // opted-in limit, or the driver refuses the launch). The compiler
        // proved every access in bounds of the shapes and shared buffers
        // (so of the memory) for all symbol values that pass these checks. `params[..total]` point at scalars borrowed for 'a, or at
        // `device_ptrs` and `symbol_args`, owned by `self` and alive for
        // this call. Writes go only to parameters declared `Access::Write`,
        // whose tensors are borrowed `&mut` for 'a, so no other view of
        // their elements exists. The stream waits for earlier conflicting
        // uses of every tensor on other streams (cudarc's events, checked
        // just above, or the joins in `order_after`), and `finish` below
        // makes later uses and the tensors' frees wait for this launch.
        unsafe {
            cudarc::driver::result::launch_kernel(
                function.cu_function(),
                (gx, gy, gz),
                spec.block.into(),
                plan.shared_bytes,
                stream.cu_stream(),
                &mut self.params[..total],
            )
        }
        .map_err(Error::driver("launching a kernel"))?;
        self.finish(stream)
    }

    /// Runs the launch on the CPU interpreter (every check passed).
    fn run_on_cpu(&self, prepared: &Prepared, plan: &LaunchPlan) -> Result<()> {
        let spec = &self.kernel.spec;
        let symbols = plan
            .symbol_args
            .get(..spec.symbols.len())
            .unwrap_or_default();
        prepared
            .run(
                plan.grid,
                &self.host_args[..self.pushed],
                symbols,
                &RunOptions::default(),
            )
            .map(|_report| ())
            .map_err(Error::Interpreter)
    }

    /// After the launch is queued on `stream`: records the tensors' events
    /// there (what cudarc's `SyncOnDrop` guards would do, but reporting a
    /// failure) and makes joined allocation streams wait for it.
    fn finish(&self, stream: &CudaStream) -> Result<()> {
        const DURING: &str = "ordering later work after a kernel launch";
        let count = self.pushed;
        let mut done = Ok(());
        for event in self.events[..count].iter().flatten() {
            done = done.and(record_use(event, stream));
        }
        for home in self.joins[..count].iter().flatten() {
            done = done.and(home.join(stream));
        }
        done.map_err(|source| after_ordering_failure(stream, DURING, source))
    }

    /// The index of the next parameter, or an error if all were pushed.
    fn next_param(&self) -> Result<usize> {
        let spec = &self.kernel.spec;
        if self.pushed < spec.params.len() {
            Ok(self.pushed)
        } else {
            Err(Error::ArgumentMismatch {
                kernel: spec.name,
                detail: format!(
                    "the kernel takes {} arguments, but more were passed",
                    spec.params.len()
                ),
            })
        }
    }

    /// Checks a tensor of `shape` and elements `T` against the next
    /// parameter; returns its index and the symbol bindings including the
    /// ones its shape adds.
    fn check_tensor<T: Element>(
        &self,
        shape: &[usize],
        access: Access,
    ) -> Result<(usize, Bindings)> {
        let index = self.next_param()?;
        let spec = &self.kernel.spec;
        let param = &spec.params[index];
        let mut bound = self.bound;
        check_tensor(
            spec.name,
            param,
            spec.symbols,
            T::DTYPE,
            shape,
            access,
            &mut bound,
        )?;
        Ok((index, bound))
    }

    /// Checks that memory whose allocation stream is `home` is in the
    /// device's context, and orders the launch after earlier work on `home`
    /// where cudarc does not (see `copy::needs_join`): then the device's
    /// stream waits for `home` now, and `home` is returned, to wait for
    /// the launch once it is queued.
    fn order_after(
        &self,
        index: usize,
        home: &Arc<CudaStream>,
        device: &CudaDevice,
    ) -> Result<Option<Arc<CudaStream>>> {
        if home.context().cu_ctx() as usize != device.context_key() {
            return Err(Error::WrongContext {
                kernel: self.kernel.spec.name,
                param: self.kernel.spec.params[index].name,
            });
        }
        let stream = device.stream();
        if !needs_join(home, stream) {
            return Ok(None);
        }
        stream
            .join(home)
            .map_err(Error::driver("ordering a kernel launch after earlier work"))?;
        Ok(Some(home.clone()))
    }

    /// Records a tensor argument whose shape, dtype and context were checked,
    /// after checking its memory, and keeps the symbols its shape bound.
    /// The guard's event (if cudarc tracks one) is recorded by `run` after
    /// the launch, as dropping the guard there would; a launch that never
    /// runs records nothing.
    #[allow(clippy::too_many_arguments)]
    fn push_device_ptr(
        &mut self,
        index: usize,
        bound: Bindings,
        len: usize,
        available: usize,
        address: CUdeviceptr,
        mut guard: SyncOnDrop<'a>,
        join: Option<Arc<CudaStream>>,
    ) -> Result<()> {
        let event = take_event(&mut guard);
        let param = self.kernel.spec.params[index].name;
        check_memory(self.kernel.spec.name, param, len, available, address)?;
        self.device_ptrs[index] = address;
        self.params[index] = ptr::null_mut();
        self.events[index] = event;
        self.joins[index] = join;
        self.record_tensor(bound, len);
        Ok(())
    }
}

/// What [`Launch::run`] hands the driver once every check passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LaunchPlan {
    grid: [u32; 3],
    /// Dynamic shared memory per block, in bytes (within the limit).
    shared_bytes: u32,
    /// The hidden symbol arguments: value / divisor, by symbol index.
    symbol_args: [u64; MAX_SYMBOLS],
}

/// The checks of [`Launch::run`] that need no driver, once all arguments
/// are pushed: the bound symbols against their requirements, then the grid,
/// then the dynamic shared memory against `shared_limit` bytes.
/// `Ok(None)` means there is no work: the kernel has tensor parameters and
/// all `tensors` of them are empty, or a grid extent is 0.
fn plan_launch(
    spec: &KernelSpec,
    bound: &Bindings,
    tensors: usize,
    nonempty_tensors: usize,
    shared_limit: u32,
) -> Result<Option<LaunchPlan>> {
    let values = check_symbols(spec.name, spec.symbols, bound)?;
    if tensors > 0 && nonempty_tensors == 0 {
        return Ok(None);
    }
    let grid = grid_size(spec.name, &spec.grid, spec.symbols, &values)?;
    if grid.contains(&0) {
        return Ok(None);
    }
    let shared_bytes = dynamic_shared_size(
        spec.name,
        spec.shared_mem_bytes,
        spec.symbols,
        &values,
        shared_limit,
    )?;
    let mut symbol_args = [0; MAX_SYMBOLS];
    for ((arg, value), symbol) in symbol_args.iter_mut().zip(values).zip(spec.symbols) {
        // `check_symbols` refused a zero divisor.
        *arg = value.checked_div(symbol.divisor).unwrap_or_default();
    }
    Ok(Some(LaunchPlan {
        grid,
        shared_bytes,
        symbol_args,
    }))
}

impl std::fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel.spec.name)
            .field("pushed", &self.pushed)
            .finish_non_exhaustive()
    }
}

/// Decodes `spec.program` and prepares it for the CPU interpreter, after
/// checking that it describes the spec's kernel ([`matches_spec`]).
fn prepare(spec: &KernelSpec) -> std::result::Result<Prepared, CpuUnavailable> {
    if spec.program.is_empty() {
        return Err(CpuUnavailable::NoProgram);
    }
    let program = tile_kernel_lowering::encoding::decode(spec.program)
        .map_err(|e| CpuUnavailable::Bad(format!("its IR does not decode: {e}")))?;
    matches_spec(spec, &program).map_err(|why| {
        CpuUnavailable::Bad(format!(
            "its IR does not describe the kernel of its spec: {why}"
        ))
    })?;
    Prepared::new(program).map_err(|e| CpuUnavailable::Bad(e.message))
}

/// Checks that `program` is the kernel `spec` describes, so that what the
/// launcher checks against the spec (kinds, dtypes, shapes, symbols, the
/// grid, which tensors may be written) is what the program assumes: the
/// same name, block, grid formulas, dynamic shared memory formula, symbols (name, divisor, required
/// multiple) and parameters, and every tensor the program writes declared
/// [`Access::Write`] (so borrowed `&mut` at launch). The program may not
/// write a tensor the spec declares written (a stricter borrow is fine).
fn matches_spec(spec: &KernelSpec, program: &Program) -> std::result::Result<(), String> {
    if program.name != spec.name {
        return Err(format!("the IR is of kernel `{}`", program.name));
    }
    if program.launch.block != spec.block {
        return Err(format!(
            "its block is {:?}, the spec's {:?}",
            program.launch.block, spec.block
        ));
    }
    for (axis, (ir, expr)) in program.launch.grid.iter().zip(&spec.grid).enumerate() {
        if ir.0 != expr.0 {
            return Err(format!("its grid formula {axis} differs from the spec's"));
        }
    }
    if program.dynamic_shared_bytes().0 != spec.shared_mem_bytes.0 {
        return Err("its dynamic shared memory formula differs from the spec's".into());
    }
    if program.symbols.len() != spec.symbols.len() {
        return Err(format!(
            "it has {} size symbols, the spec {}",
            program.symbols.len(),
            spec.symbols.len()
        ));
    }
    for (ir, symbol) in program.symbols.iter().zip(spec.symbols) {
        if ir.name != symbol.name
            || ir.divisor != symbol.divisor
            || ir.multiple_of != symbol.multiple_of
        {
            return Err(format!(
                "its size symbol `{}` differs from the spec's `{}` (name, divisor or required multiple)",
                ir.name, symbol.name
            ));
        }
    }
    if program.params.len() != spec.params.len() {
        return Err(format!(
            "it takes {} parameters, the spec {}",
            program.params.len(),
            spec.params.len()
        ));
    }
    for (ir, param) in program.params.iter().zip(spec.params) {
        let same = ir.name == param.name
            && match (&ir.kind, param.kind) {
                (
                    program::ParamKind::Tensor {
                        dtype,
                        dims,
                        written,
                    },
                    ParamKind::Tensor {
                        dtype: spec_dtype,
                        shape,
                        access,
                    },
                ) => {
                    *dtype == spec_dtype
                        && dims.as_slice() == shape
                        && (!written || access == Access::Write)
                }
                (program::ParamKind::Scalar(dtype), ParamKind::Scalar { dtype: spec_dtype }) => {
                    *dtype == spec_dtype
                }
                _ => false,
            };
        if !same {
            return Err(format!(
                "its parameter `{}` differs from the spec's `{}` (kind, dtype, dims or access)",
                ir.name, param.name
            ));
        }
    }
    Ok(())
}

/// Checks a tensor argument of `dtype`, `shape`, borrowed for `access`,
/// against parameter `param` of `kernel`, whose size symbols are `symbols`;
/// binds the symbols the shape names into `bound` (see [`bind_shape`]).
fn check_tensor(
    kernel: &'static str,
    param: &ParamSpec,
    symbols: &[SymbolSpec],
    dtype: DType,
    shape: &[usize],
    access: Access,
    bound: &mut Bindings,
) -> Result<()> {
    let ParamKind::Tensor {
        dtype: expected_dtype,
        shape: expected_shape,
        access: expected_access,
    } = param.kind
    else {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "parameter `{}` is a scalar, but a tensor was passed",
                param.name
            ),
        });
    };
    if expected_access == Access::Write && access == Access::Read {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "parameter `{}` is written by the kernel, so the tensor must be passed mutably (`tensor_mut`)",
                param.name
            ),
        });
    }
    if dtype != expected_dtype {
        return Err(Error::DTypeMismatch {
            kernel,
            param: param.name,
            expected: expected_dtype,
            actual: dtype,
        });
    }
    bind_shape(kernel, param.name, expected_shape, symbols, shape, bound)
}

/// Checks a scalar argument of `dtype` against parameter `param` of `kernel`.
fn check_scalar(kernel: &'static str, param: &ParamSpec, dtype: DType) -> Result<()> {
    match param.kind {
        ParamKind::Scalar {
            dtype: expected_dtype,
        } if expected_dtype == dtype => Ok(()),
        ParamKind::Scalar {
            dtype: expected_dtype,
        } => Err(Error::DTypeMismatch {
            kernel,
            param: param.name,
            expected: expected_dtype,
            actual: dtype,
        }),
        ParamKind::Tensor { .. } => Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "parameter `{}` is a tensor, but a scalar was passed",
                param.name
            ),
        }),
    }
}

/// Checks that the memory behind a tensor of `len` elements (already
/// matched against the parameter's shape) holds them (`available`
/// elements from its start; only fails for a `DeviceTensor` whose
/// allocation was replaced through
/// [`cuda_slice_mut`](crate::DeviceTensor::cuda_slice_mut)), and that it
/// starts 16-byte aligned, as the compile-time alignment proofs assume
/// (unless it is empty: the kernel then never accesses it). On the CPU
/// device, `address` is the view's byte offset in its tensor's memory.
fn check_memory(
    kernel: &'static str,
    param: &'static str,
    len: usize,
    available: usize,
    address: CUdeviceptr,
) -> Result<()> {
    if len > available {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "tensor `{param}` has {len} elements, but its memory holds only {available}"
            ),
        });
    }
    // An empty tensor is never accessed, wherever it starts.
    if len > 0 && !address.is_multiple_of(16) {
        return Err(Error::Misaligned {
            kernel,
            param,
            address,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::{Binding, DimSpec, LaunchExpr, LaunchOp, SymbolSpec};

    const X: ParamSpec = ParamSpec {
        name: "x",
        kind: ParamKind::Tensor {
            dtype: DType::F32,
            shape: &[DimSpec::Const(4), DimSpec::Const(2)],
            access: Access::Read,
        },
    };
    const Y: ParamSpec = ParamSpec {
        name: "y",
        kind: ParamKind::Tensor {
            dtype: DType::F32,
            shape: &[DimSpec::Const(4), DimSpec::Const(2)],
            access: Access::Write,
        },
    };
    const N: ParamSpec = ParamSpec {
        name: "n",
        kind: ParamKind::Scalar { dtype: DType::U32 },
    };

    // SAFETY: never launched (the tests below only inspect it and check
    // arguments without a device), and its PTX has no `.entry k`, so even a
    // launch would stop at `Error::ModuleLoad` before reaching the driver's
    // launch call.
    static K: Kernel = unsafe {
        Kernel::new(KernelSpec {
            name: "k",
            ptx: ".version 7.8\n.target sm_90\n.address_size 64\n",
            target: crate::Target::SM_90,
            grid: [LaunchExpr::ONE; 3],
            block: [32, 1, 1],
            shared_mem_bytes: LaunchExpr::ZERO,
            params: &[X, Y, N],
            symbols: &[],
            program: &[],
        })
    };

    const SYM_N: DimSpec = DimSpec::Symbolic {
        symbol: 0,
        mul: 1,
        div: 1,
        add: 0,
    };
    const HALF_N: DimSpec = DimSpec::Symbolic {
        symbol: 0,
        mul: 1,
        div: 2,
        add: 0,
    };
    const SYMBOLS: &[SymbolSpec] = &[SymbolSpec {
        name: "N",
        divisor: 2,
        multiple_of: 4,
    }];
    /// `fn half(x: Tensor<f32, N>, y: Tensor<u32, {N / 2}>)`, grid = ceil_div(N, 2048).
    const HX: ParamSpec = ParamSpec {
        name: "x",
        kind: ParamKind::Tensor {
            dtype: DType::F32,
            shape: &[SYM_N],
            access: Access::Read,
        },
    };
    const HY: ParamSpec = ParamSpec {
        name: "y",
        kind: ParamKind::Tensor {
            dtype: DType::U32,
            shape: &[HALF_N],
            access: Access::Write,
        },
    };
    const HALF: KernelSpec = KernelSpec {
        name: "half",
        ptx: "",
        target: crate::Target::SM_90,
        grid: [
            LaunchExpr(&[
                LaunchOp::Symbol(0),
                LaunchOp::Const(2048),
                LaunchOp::CeilDiv,
            ]),
            LaunchExpr::ONE,
            LaunchExpr::ONE,
        ],
        block: [256, 1, 1],
        shared_mem_bytes: LaunchExpr::ZERO,
        params: &[HX, HY],
        symbols: SYMBOLS,
        program: &[],
    };

    /// Pushes `x` and `y` of HALF with these shapes, as a launch would.
    fn bind_half(x: &[usize], y: &[usize]) -> Result<Bindings> {
        let mut bound = [None; MAX_SYMBOLS];
        check_tensor(
            "half",
            &HX,
            SYMBOLS,
            DType::F32,
            x,
            Access::Read,
            &mut bound,
        )?;
        check_tensor(
            "half",
            &HY,
            SYMBOLS,
            DType::U32,
            y,
            Access::Write,
            &mut bound,
        )?;
        Ok(bound)
    }

    fn check_const(param: &ParamSpec, dtype: DType, shape: &[usize], access: Access) -> Result<()> {
        check_tensor(
            "k",
            param,
            &[],
            dtype,
            shape,
            access,
            &mut [None; MAX_SYMBOLS],
        )
    }

    #[test]
    fn kernel_is_const_constructible_and_starts_unloaded() {
        assert_eq!(K.name(), "k");
        assert!(K.ptx().starts_with(".version 7.8"));
        assert_eq!(K.spec().params.len(), 3);
        assert_eq!(K.load_count(), 0);
    }

    #[test]
    fn matching_tensor_passes() {
        assert!(check_const(&X, DType::F32, &[4, 2], Access::Read).is_ok());
        assert!(check_const(&Y, DType::F32, &[4, 2], Access::Write).is_ok());
        // A mutable borrow is stricter than a read needs: allowed.
        assert!(check_const(&X, DType::F32, &[4, 2], Access::Write).is_ok());
    }

    #[test]
    fn wrong_shape_is_shape_mismatch() {
        let err = check_const(&X, DType::F32, &[2, 4], Access::Read);
        match err {
            Err(Error::ShapeMismatch {
                kernel: "k",
                param: "x",
                expected,
                actual,
            }) => {
                assert_eq!(expected, "[4, 2]");
                assert_eq!(actual, vec![2, 4]);
            }
            other => panic!("expected ShapeMismatch, got {other:?}"),
        }
        // Same element count, other rank: still a mismatch.
        assert!(matches!(
            check_const(&X, DType::F32, &[8], Access::Read),
            Err(Error::ShapeMismatch { .. })
        ));
    }

    #[test]
    fn wrong_dtype_is_dtype_mismatch() {
        assert!(matches!(
            check_const(&X, DType::F16, &[4, 2], Access::Read),
            Err(Error::DTypeMismatch {
                expected: DType::F32,
                actual: DType::F16,
                ..
            })
        ));
        assert!(matches!(
            check_scalar("k", &N, DType::I32),
            Err(Error::DTypeMismatch {
                expected: DType::U32,
                actual: DType::I32,
                ..
            })
        ));
        assert!(check_scalar("k", &N, DType::U32).is_ok());
    }

    #[test]
    fn shared_borrow_of_written_tensor_is_refused() {
        assert!(matches!(
            check_const(&Y, DType::F32, &[4, 2], Access::Read),
            Err(Error::ArgumentMismatch { kernel: "k", .. })
        ));
    }

    #[test]
    fn kind_mismatch_is_argument_mismatch() {
        assert!(matches!(
            check_const(&N, DType::U32, &[], Access::Read),
            Err(Error::ArgumentMismatch { .. })
        ));
        assert!(matches!(
            check_scalar("k", &X, DType::F32),
            Err(Error::ArgumentMismatch { .. })
        ));
    }

    #[test]
    fn short_or_misaligned_memory_is_refused() {
        assert!(check_memory("k", "x", 8, 8, 0x1000).is_ok());
        // A view of an empty tensor, or over a longer cudarc view.
        assert!(check_memory("k", "x", 0, 1, 0x1000).is_ok());
        assert!(check_memory("k", "x", 8, 100, 0x1010).is_ok());
        // An empty view may start anywhere.
        assert!(check_memory("k", "x", 0, 0, 0x1004).is_ok());
        let err = check_memory("k", "x", 8, 4, 0x1000).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: tensor `x` has 8 elements, but its memory holds only 4"
        );
        let err = check_memory("k", "x", 8, 8, 0x1008).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Misaligned {
                    kernel: "k",
                    param: "x",
                    address: 0x1008
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: tensor `x` starts at device address 0x1008, which is not 16-byte aligned; the kernel's vector accesses assume it is (a view's start offset in bytes must be a multiple of 16)"
        );
    }

    #[test]
    fn arch_mismatch_names_target_and_device() {
        // Forward compatible: sm_80 PTX on sm_90, sm_90 on sm_90 and sm_100.
        assert!(arch_mismatch("k", Target::sm(80), (9, 0)).is_none());
        assert!(arch_mismatch("k", Target::SM_90, (9, 0)).is_none());
        assert!(arch_mismatch("k", Target::SM_90, (10, 0)).is_none());
        let err = arch_mismatch("k", Target::sm(100), (9, 0)).expect("sm_100 on sm_90");
        match &err {
            Error::ArchMismatch {
                kernel,
                target,
                device,
            } => assert_eq!(
                (*kernel, target.as_str(), device.as_str()),
                ("k", "sm_100", "sm_90")
            ),
            other => panic!("expected ArchMismatch, got {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            "kernel `k` is compiled for sm_100, which this GPU (sm_90) cannot run: PTX runs on the architecture it targets and newer ones (an arch-specific `a` target only on exactly its own); compile it with `arch = \"sm_90\"` or an older target"
        );
        // Arch-specific targets run on exactly their own architecture.
        let sm_90a = Target {
            sm: 90,
            arch_specific: true,
        };
        assert!(arch_mismatch("k", sm_90a, (9, 0)).is_none());
        let err = arch_mismatch("k", sm_90a, (10, 0)).expect("sm_90a on sm_100");
        assert!(
            matches!(&err, Error::ArchMismatch { target, device, .. } if target == "sm_90a" && device == "sm_100"),
            "{err:?}"
        );
        assert!(arch_mismatch("k", Target::sm(89), (8, 6)).is_some());
        assert_eq!(device_arch(8, 6), "sm_86");
        assert_eq!(device_arch(12, 0), "sm_120");
    }

    #[test]
    fn tensors_bind_symbols_across_params() -> Result<()> {
        let bound = bind_half(&[8], &[4])?;
        assert_eq!(bound[0], Some(Binding { value: 8, by: "x" }));
        let err = bind_half(&[8], &[5]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::SymbolMismatch {
                    kernel: "half",
                    symbol: "N",
                    param: "y",
                    bound_by: "x",
                    expected: 8,
                    actual: 10,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `half`: argument `y` has N = 10 (from its shape [5]), but `x` bound N = 8"
        );
        let err = bind_half(&[7], &[3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `half`: N = 7 must be a multiple of 2 (`{N / 2}` in the shape of `y`)"
        );
        // The dtype is checked before the shape binds anything.
        let mut bound = [None; MAX_SYMBOLS];
        assert!(matches!(
            check_tensor(
                "half",
                &HX,
                SYMBOLS,
                DType::U32,
                &[8],
                Access::Read,
                &mut bound
            ),
            Err(Error::DTypeMismatch { .. })
        ));
        assert_eq!(bound, [None; MAX_SYMBOLS]);
        Ok(())
    }

    #[test]
    fn plan_computes_grid_and_hidden_symbol_args() -> Result<()> {
        let bound = bind_half(&[4096 + 8], &[2052])?;
        let plan = plan_launch(&HALF, &bound, 2, 2, NO_SHARED)?;
        let mut symbol_args = [0; MAX_SYMBOLS];
        // N / divisor, not N.
        symbol_args[0] = 2052;
        assert_eq!(
            plan,
            Some(LaunchPlan {
                grid: [3, 1, 1],
                shared_bytes: 0,
                symbol_args
            })
        );
        Ok(())
    }

    /// A launch without dynamic shared memory's limit: none may be asked.
    const NO_SHARED: u32 = 0;

    #[test]
    fn plan_sizes_dynamic_shared_memory_within_the_limit() -> Result<()> {
        // 4 bytes per element of N (a dynamic `alloc_shared::<f32>([N])`).
        const SHARED: KernelSpec = KernelSpec {
            shared_mem_bytes: LaunchExpr(&[LaunchOp::Const(4), LaunchOp::Symbol(0), LaunchOp::Mul]),
            ..HALF
        };
        let bound = bind_half(&[4096], &[2048])?;
        let plan = plan_launch(&SHARED, &bound, 2, 2, 16384)?;
        assert_eq!(plan.map(|p| p.shared_bytes), Some(16384));
        let err = plan_launch(&SHARED, &bound, 2, 2, 16383).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `half`: invalid launch size: the dynamic shared memory is `4 * N` bytes, which is 16384, above the 16383 bytes this device lets a block of this kernel have (N = 4096)"
        );
        // No work: nothing is sized.
        let empty = bind_half(&[0], &[0])?;
        assert_eq!(plan_launch(&SHARED, &empty, 2, 0, 0)?, None);
        Ok(())
    }

    #[test]
    fn plan_checks_symbol_requirements_first() -> Result<()> {
        // N = 6 is even (the {N / 2} dim is fine) but not a multiple of 4.
        let bound = bind_half(&[6], &[3])?;
        let err = plan_launch(&HALF, &bound, 2, 2, NO_SHARED).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `half`: N = 6 must be a multiple of 4 (the kernel's vector accesses are aligned only then)"
        );
        // Also when there is no work.
        assert!(matches!(
            plan_launch(&HALF, &bound, 2, 0, NO_SHARED),
            Err(Error::SymbolRequirement { value: 6, .. })
        ));
        // A symbol no tensor bound.
        let err = plan_launch(&HALF, &[None; MAX_SYMBOLS], 0, 0, NO_SHARED).unwrap_err();
        assert!(
            matches!(err, Error::ArgumentMismatch { kernel: "half", .. }),
            "{err}"
        );
        Ok(())
    }

    #[test]
    fn empty_work_launches_nothing() -> Result<()> {
        // N = 0: both tensors are empty.
        let bound = bind_half(&[0], &[0])?;
        assert_eq!(plan_launch(&HALF, &bound, 2, 0, NO_SHARED)?, None);
        // Only some tensors empty: there is work.
        let bound = bind_half(&[8], &[4])?;
        assert!(plan_launch(&HALF, &bound, 2, 1, NO_SHARED)?.is_some());
        // A zero grid extent, with non-empty tensors.
        const ZERO_Y: KernelSpec = KernelSpec {
            grid: [
                LaunchExpr::ONE,
                LaunchExpr(&[LaunchOp::Symbol(0), LaunchOp::Const(16), LaunchOp::Div]),
                LaunchExpr::ONE,
            ],
            ..HALF
        };
        assert_eq!(plan_launch(&ZERO_Y, &bound, 2, 2, NO_SHARED)?, None);
        // Without tensor parameters, only the grid decides.
        assert!(plan_launch(&K.spec, &[None; MAX_SYMBOLS], 0, 0, NO_SHARED)?.is_some());
        // The grid is not evaluated when all tensors are empty: `N - 1`
        // would go below zero for N = 0.
        const MINUS_ONE: KernelSpec = KernelSpec {
            grid: [
                LaunchExpr(&[LaunchOp::Symbol(0), LaunchOp::Const(1), LaunchOp::Sub]),
                LaunchExpr::ONE,
                LaunchExpr::ONE,
            ],
            ..HALF
        };
        let empty = bind_half(&[0], &[0])?;
        assert_eq!(plan_launch(&MINUS_ONE, &empty, 2, 0, NO_SHARED)?, None);
        assert!(matches!(
            plan_launch(&MINUS_ONE, &empty, 2, 1, NO_SHARED),
            Err(Error::LaunchSize { kernel: "half", .. })
        ));
        Ok(())
    }

    #[test]
    fn grid_limits_refuse_the_launch() -> Result<()> {
        const ROWS: KernelSpec = KernelSpec {
            grid: [
                LaunchExpr::ONE,
                LaunchExpr(&[LaunchOp::Symbol(0)]),
                LaunchExpr::ONE,
            ],
            ..HALF
        };
        let bound = bind_half(&[65536], &[32768])?;
        let err = plan_launch(&ROWS, &bound, 2, 2, NO_SHARED).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `half`: invalid launch size: grid y is `N`, which is 65536, above the CUDA limit 65535 (N = 65536)"
        );
        let bound = bind_half(&[65532], &[32766])?;
        assert_eq!(
            plan_launch(&ROWS, &bound, 2, 2, NO_SHARED)?.map(|p| p.grid),
            Some([1, 65532, 1])
        );
        Ok(())
    }

    #[test]
    fn param_counts_include_the_hidden_symbols() {
        const MANY: &[ParamSpec] = &[N; MAX_PARAMS];
        let too_many = KernelSpec {
            params: MANY,
            ..HALF
        };
        assert!(matches!(
            check_param_counts(&too_many),
            Err(Error::ArgumentMismatch { kernel: "half", .. })
        ));
        let fits = KernelSpec {
            params: &MANY[..MAX_PARAMS - 1],
            ..HALF
        };
        assert!(check_param_counts(&fits).is_ok());
        const NINE: &[SymbolSpec] = &[SYMBOLS[0]; MAX_SYMBOLS + 1];
        let too_many_symbols = KernelSpec {
            symbols: NINE,
            params: &[],
            ..HALF
        };
        assert!(matches!(
            check_param_counts(&too_many_symbols),
            Err(Error::ArgumentMismatch { .. })
        ));
    }
}
