//! One kernel's per-context module cache: its PTX loaded by the driver into
//! each CUDA context it launches in, and the raw driver call that recovers
//! the JIT's error log when a load fails.
//!
//! Guarantee: a context gets at most one loaded module per kernel (loads
//! are serialised, and a filled slot is never replaced or emptied); a
//! module is loaded only after the spec's target was checked against the
//! device ([`Error::ArchMismatch`]); a failed load is an
//! [`Error::ModuleLoad`] carrying the JIT's log, and is not cached. The
//! only `unsafe` here is the `cuModuleLoadDataEx` call that asks for that
//! log, and the unload of what it loaded.

use std::ffi::{CString, c_void};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use cudarc::driver::sys::{self, CUdevice_attribute, CUfunction_attribute, CUjit_option, CUresult};
use cudarc::driver::{CudaFunction, DriverError};
use cudarc::nvrtc::Ptx;

use crate::device::CudaDevice;
use crate::spec::KernelSpec;
use crate::spec_check::check_arch;
use crate::{Device, Error, Result};

/// The most CUDA contexts one kernel caches a module for. `Device` only opens
/// primary contexts, one per GPU, so this bounds the GPUs a kernel runs on.
const MAX_CONTEXTS: usize = 64;

/// Size of the buffer the driver JIT writes its error log into.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// A kernel's function, loaded into one context.
pub(crate) struct LoadedFunction {
    context: usize,
    pub(crate) function: CudaFunction,
    /// Dynamic shared memory a launch may ask for, in bytes: what the
    /// device lets one block have (opted in) beside the function's static
    /// shared memory.
    pub(crate) dynamic_shared_limit: u32,
}

/// The functions one kernel has loaded, one per context.
///
/// A cached function keeps its context alive, which also keeps the
/// context's identity (its `CUcontext` handle), the cache key, from being
/// reused.
pub(crate) struct ModuleCache {
    /// Filled front to back, never emptied: a hit is a scan of atomic loads.
    slots: [OnceLock<LoadedFunction>; MAX_CONTEXTS],
    /// Serialises loads so that a context is loaded into one slot only once.
    load_lock: Mutex<()>,
    loads: AtomicUsize,
}

impl ModuleCache {
    /// An empty cache. `const` so a `Kernel` can live in a `static`.
    pub(crate) const fn new() -> ModuleCache {
        ModuleCache {
            slots: [const { OnceLock::new() }; MAX_CONTEXTS],
            load_lock: Mutex::new(()),
            loads: AtomicUsize::new(0),
        }
    }

    /// How many times the driver has loaded the module, summed over contexts.
    pub(crate) fn load_count(&self) -> usize {
        self.loads.load(Ordering::Relaxed)
    }

    /// `spec`'s function in `device`'s context, loading the module on first
    /// use there ([`Error::NotOnGpu`] on the CPU device). A failed load is
    /// not cached: the next call tries again.
    pub(crate) fn get(&self, spec: &KernelSpec, device: &Device) -> Result<&LoadedFunction> {
        let cuda = device.require_cuda("`Kernel::function` (loading the PTX module)")?;
        let key = cuda.context_key();
        for slot in &self.slots {
            match slot.get() {
                Some(loaded) if loaded.context == key => return Ok(loaded),
                Some(_) => {}
                None => break,
            }
        }
        self.load(spec, device, cuda, key)
    }

    /// The slow path of [`get`](Self::get).
    #[cold]
    fn load(
        &self,
        spec: &KernelSpec,
        device: &Device,
        cuda: &CudaDevice,
        key: usize,
    ) -> Result<&LoadedFunction> {
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
            check_arch(spec, device)?;
            let (function, dynamic_shared_limit) = load_function(spec, cuda)?;
            self.loads.fetch_add(1, Ordering::Relaxed);
            // The slot is empty and only lock holders fill slots: this sets it.
            return Ok(slot.get_or_init(|| LoadedFunction {
                context: key,
                function,
                dynamic_shared_limit,
            }));
        }
        Err(Error::TooManyContexts {
            kernel: spec.name,
            limit: MAX_CONTEXTS,
        })
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
    if spec.shared_mem_bytes.0 == crate::spec::LaunchFormulaSpec::ZERO.0 {
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
