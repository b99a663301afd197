//! Kernels as generated code sees them: a [`KernelSpec`] written by the
//! `#[tile_kernel]` macro next to its PTX, a per-context module cache, and a
//! checked argument builder whose only `unsafe` is the final driver launch.
//!
//! Invariant this module establishes: a [`Launch`] reaches the driver only
//! when every argument matched its [`ParamSpec`] (kind, dtype, exact shape,
//! access, context, allocation size), in order, and all were given.

use std::ffi::{CString, c_void};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction_attribute, CUjit_option, CUresult};
use cudarc::driver::{CudaEvent, CudaFunction, DevicePtr, DevicePtrMut, DriverError, SyncOnDrop};
use cudarc::nvrtc::Ptx;
use tile_kernel_lowering::DType;

use crate::tensor::DeviceTensor;
use crate::{Device, Element, Error, Result, ScalarArg};

/// The most parameters one kernel may take; [`Launch`] keeps its arguments
/// in fixed arrays of this size so that a launch does not allocate.
pub const MAX_PARAMS: usize = 32;

/// The most CUDA contexts one kernel caches a module for. `Device` only opens
/// primary contexts, one per GPU, so this bounds the GPUs a kernel runs on.
const MAX_CONTEXTS: usize = 64;

/// Dynamic shared memory above this needs an explicit opt-in per function.
const DEFAULT_DYNAMIC_SHARED_LIMIT: u32 = 48 * 1024;

/// Size of the buffer the driver JIT writes its error log into.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// A kernel as the `#[tile_kernel]` macro emits it: PTX text plus the launch
/// configuration and parameter list it was compiled for.
///
/// **This is the macro's contract, not a user API.** Launches trust a spec
/// completely: a spec whose `params` do not match its PTX entry's parameters
/// (count, order, types), or whose shapes are not the ones the PTX was proven
/// in-bounds for, makes [`Launch::run`] unsound. Only the macro, which
/// produces both from one kernel definition, should build one.
#[derive(Debug, Clone, Copy)]
pub struct KernelSpec {
    /// The PTX `.entry` name.
    pub name: &'static str,
    /// The whole PTX module.
    pub ptx: &'static str,
    /// Grid size in blocks, `[x, y, z]`.
    pub grid: [u32; 3],
    /// Block size in threads, `[x, y, z]`.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
    /// The entry's parameters, in PTX order.
    pub params: &'static [ParamSpec],
}

/// One kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// The name in the kernel's Rust signature, used in error messages.
    pub name: &'static str,
    /// What is passed.
    pub kind: ParamKind,
}

/// What a kernel parameter receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A [`DeviceTensor`] of exactly this dtype and shape, passed as its
    /// device address (a `.u64` PTX parameter).
    Tensor {
        dtype: DType,
        shape: &'static [usize],
        access: Access,
    },
    /// A value of this dtype, passed by value.
    Scalar { dtype: DType },
}

/// How a kernel uses a tensor parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only loads from it: the launcher borrows the tensor shared.
    Read,
    /// Stores into it: the launcher borrows the tensor exclusively.
    Write,
}

/// A kernel's function, loaded into one context.
struct LoadedFunction {
    context: usize,
    function: CudaFunction,
}

/// A [`KernelSpec`] plus the driver modules loaded for it, one per context.
///
/// Generated code keeps one `Kernel` per kernel in a `static`, so the PTX is
/// JIT-compiled by the driver once per context for the life of the process.
/// A cached function keeps its context alive, which also keeps the context's
/// identity (its `CUcontext` handle), the cache key, from being reused.
pub struct Kernel {
    spec: KernelSpec,
    /// Filled front to back, never emptied: a hit is a scan of atomic loads.
    slots: [OnceLock<LoadedFunction>; MAX_CONTEXTS],
    /// Serialises loads so that a context is loaded into one slot only once.
    load_lock: Mutex<()>,
    loads: AtomicUsize,
}

impl Kernel {
    /// Wraps a spec. `const` so generated code can put the kernel in a `static`.
    #[doc(hidden)]
    pub const fn new(spec: KernelSpec) -> Kernel {
        Kernel {
            spec,
            slots: [const { OnceLock::new() }; MAX_CONTEXTS],
            load_lock: Mutex::new(()),
            loads: AtomicUsize::new(0),
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
    /// first use there.
    ///
    /// A failed load is reported as [`Error::ModuleLoad`] and not cached: the
    /// next call tries again.
    pub fn function(&self, device: &Device) -> Result<&CudaFunction> {
        let key = device.context_key();
        for slot in &self.slots {
            match slot.get() {
                Some(loaded) if loaded.context == key => return Ok(&loaded.function),
                Some(_) => {}
                None => break,
            }
        }
        self.load(device, key)
    }

    /// The slow path of [`function`](Self::function).
    #[cold]
    fn load(&self, device: &Device, key: usize) -> Result<&CudaFunction> {
        // The lock guards no data, so a panic elsewhere cannot leave it torn.
        let _guard = self
            .load_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for slot in &self.slots {
            if let Some(loaded) = slot.get() {
                if loaded.context == key {
                    return Ok(&loaded.function);
                }
                continue;
            }
            let function = load_function(&self.spec, device)?;
            self.loads.fetch_add(1, Ordering::Relaxed);
            // The slot is empty and only lock holders fill slots: this sets it.
            let loaded = slot.get_or_init(|| LoadedFunction {
                context: key,
                function,
            });
            return Ok(&loaded.function);
        }
        Err(Error::TooManyContexts {
            kernel: self.spec.name,
            limit: MAX_CONTEXTS,
        })
    }

    /// Starts a launch on `device`: push every argument in parameter order,
    /// then [`run`](Launch::run).
    pub fn launch<'a>(&'a self, device: &'a Device) -> Result<Launch<'a>> {
        if self.spec.params.len() > MAX_PARAMS {
            return Err(Error::ArgumentMismatch {
                kernel: self.spec.name,
                detail: format!(
                    "the kernel takes {} parameters, but a launch supports at most {MAX_PARAMS}",
                    self.spec.params.len()
                ),
            });
        }
        let function = self.function(device)?;
        Ok(Launch {
            kernel: self,
            device,
            function,
            pushed: 0,
            device_ptrs: [0; MAX_PARAMS],
            params: [ptr::null_mut(); MAX_PARAMS],
            events: [None; MAX_PARAMS],
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

/// Loads `spec`'s module into `device`'s context and looks up its entry.
fn load_function(spec: &KernelSpec, device: &Device) -> Result<CudaFunction> {
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
    if spec.shared_mem_bytes > DEFAULT_DYNAMIC_SHARED_LIMIT {
        let bytes = i32::try_from(spec.shared_mem_bytes).unwrap_or(i32::MAX);
        function
            .set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
            .map_err(Error::driver(
                "raising the kernel's dynamic shared memory limit",
            ))?;
    }
    Ok(function)
}

/// Loads the PTX once more through `cuModuleLoadDataEx` with an error-log
/// buffer, because cudarc's `load_module` reports only the error code.
/// Returns a placeholder when the driver leaves the log empty.
fn jit_error_log(device: &Device, ptx: &CString) -> String {
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
/// pushed (kind, dtype, exact shape, read/write access, device), so a
/// mismatch is an [`Error`], never undefined behaviour. Allocation-free:
/// arguments live in fixed arrays of [`MAX_PARAMS`].
#[must_use = "a launch does nothing until `run` is called"]
pub struct Launch<'a> {
    kernel: &'a Kernel,
    device: &'a Device,
    function: &'a CudaFunction,
    pushed: usize,
    /// Device addresses of tensor arguments; the driver reads them through
    /// `params`, which `run` points here.
    device_ptrs: [CUdeviceptr; MAX_PARAMS],
    /// The driver's `kernelParams`: a scalar's address, or null for a tensor
    /// until `run` points it at `device_ptrs`.
    params: [*mut c_void; MAX_PARAMS],
    /// Events cudarc records after the launch when it synchronises streams.
    events: [Option<&'a CudaEvent>; MAX_PARAMS],
}

impl<'a> Launch<'a> {
    /// Passes `tensor` to the next parameter, which the kernel only reads.
    pub fn tensor<T: Element>(self, tensor: &'a DeviceTensor<T>) -> Result<Self> {
        let index = self.check_tensor(tensor, Access::Read)?;
        let len = tensor.len();
        let (address, guard) = tensor.cuda_slice().device_ptr(self.device.stream());
        self.push_device_ptr(index, len, tensor.cuda_slice().len(), address, guard)
    }

    /// Passes `tensor` to the next parameter, which the kernel may write.
    /// Also accepted for a read-only parameter.
    pub fn tensor_mut<T: Element>(self, tensor: &'a mut DeviceTensor<T>) -> Result<Self> {
        let index = self.check_tensor(tensor, Access::Write)?;
        let len = tensor.len();
        let slice = tensor.cuda_slice_mut();
        let allocation_len = slice.len();
        let (address, guard) = slice.device_ptr_mut(self.device.stream());
        self.push_device_ptr(index, len, allocation_len, address, guard)
    }

    /// Passes `value` to the next parameter, a scalar.
    pub fn scalar<T: ScalarArg>(mut self, value: &'a T) -> Result<Self> {
        let index = self.next_param()?;
        check_scalar(
            self.kernel.spec.name,
            &self.kernel.spec.params[index],
            T::DTYPE,
        )?;
        self.params[index] = ptr::from_ref(value).cast_mut().cast();
        self.pushed += 1;
        Ok(self)
    }

    /// Queues the kernel on the device's stream. Does not wait for it: use
    /// [`Device::synchronize`] or [`DeviceTensor::download`].
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
        let count = self.pushed;
        for (param, address) in self.params[..count]
            .iter_mut()
            .zip(&mut self.device_ptrs[..count])
        {
            if param.is_null() {
                *param = ptr::from_mut(address).cast();
            }
        }
        let context = self.device.context();
        let stream = self.device.stream();
        context
            .bind_to_thread()
            .map_err(Error::driver("launching a kernel"))?;
        // SAFETY: the spec was produced by the #[tile_kernel] macro together
        // with the PTX, so the entry takes exactly `spec.params`, in this
        // order, with these types; every argument was checked against its
        // ParamSpec when pushed (kind, dtype, exact shape, access, context,
        // allocation length), and all of them were pushed. `params[i]` points
        // at a scalar borrowed for 'a or at `device_ptrs[i]`, both alive for
        // this call. The kernel's memory accesses were proven in-bounds at
        // compile time for these exact shapes, writes go only to parameters
        // declared `Access::Write`, whose tensors are borrowed `&mut` for 'a,
        // and cudarc's per-allocation events order this launch against other
        // streams and against freeing the tensors.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.function.cu_function(),
                spec.grid.into(),
                spec.block.into(),
                spec.shared_mem_bytes,
                stream.cu_stream(),
                &mut self.params[..count],
            )
        }
        .map_err(Error::driver("launching a kernel"))?;
        // What cudarc's `SyncOnDrop` guards would do, now that the launch is queued.
        if context.is_managing_stream_synchronization() {
            for event in self.events[..count].iter().flatten() {
                context.record_err(event.record(stream));
            }
        }
        Ok(())
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

    /// Checks `tensor` against the next parameter; returns its index.
    fn check_tensor<T: Element>(&self, tensor: &DeviceTensor<T>, access: Access) -> Result<usize> {
        let index = self.next_param()?;
        let kernel = self.kernel.spec.name;
        let param = &self.kernel.spec.params[index];
        check_tensor(kernel, param, T::DTYPE, tensor.shape(), access)?;
        if tensor.context_key() != self.device.context_key() {
            return Err(Error::WrongContext {
                kernel,
                param: param.name,
            });
        }
        Ok(index)
    }

    /// Records a tensor argument whose shape, dtype and context were checked,
    /// after checking its allocation. The guard's event (if cudarc tracks
    /// one) is recorded by `run` after the launch, as dropping the guard
    /// there would; a launch that never runs records nothing.
    fn push_device_ptr(
        mut self,
        index: usize,
        len: usize,
        allocation_len: usize,
        address: CUdeviceptr,
        mut guard: SyncOnDrop<'a>,
    ) -> Result<Self> {
        let param = self.kernel.spec.params[index].name;
        check_allocation(self.kernel.spec.name, param, len, allocation_len, address)?;
        self.device_ptrs[index] = address;
        self.params[index] = ptr::null_mut();
        self.events[index] = match &mut guard {
            SyncOnDrop::Record(target) => target.take().map(|(event, _stream)| event),
            // cudarc only hands out `Record` guards for allocations.
            SyncOnDrop::Sync(_) => None,
        };
        self.pushed += 1;
        Ok(self)
    }
}

impl std::fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel.spec.name)
            .field("pushed", &self.pushed)
            .finish_non_exhaustive()
    }
}

/// Checks a tensor argument of `dtype`, `shape`, borrowed for `access`,
/// against parameter `param` of `kernel`.
fn check_tensor(
    kernel: &'static str,
    param: &ParamSpec,
    dtype: DType,
    shape: &[usize],
    access: Access,
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
    if shape != expected_shape {
        return Err(Error::ShapeMismatch {
            kernel,
            param: param.name,
            expected: expected_shape.to_vec(),
            actual: shape.to_vec(),
        });
    }
    Ok(())
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

/// Checks that the allocation behind a tensor of `len` elements (already
/// matched against the parameter's shape) has the length and alignment the
/// compile-time proofs assumed. Only fails if the allocation was replaced
/// through [`DeviceTensor::cuda_slice_mut`].
fn check_allocation(
    kernel: &'static str,
    param: &'static str,
    len: usize,
    allocation_len: usize,
    address: CUdeviceptr,
) -> Result<()> {
    if allocation_len != DeviceTensor::<u8>::allocation_len(len) {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "tensor `{param}` has {len} elements, but its allocation holds {allocation_len}"
            ),
        });
    }
    if !address.is_multiple_of(16) {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "tensor `{param}` starts at {address:#x}, which is not 16-byte aligned"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: ParamSpec = ParamSpec {
        name: "x",
        kind: ParamKind::Tensor {
            dtype: DType::F32,
            shape: &[4, 2],
            access: Access::Read,
        },
    };
    const Y: ParamSpec = ParamSpec {
        name: "y",
        kind: ParamKind::Tensor {
            dtype: DType::F32,
            shape: &[4, 2],
            access: Access::Write,
        },
    };
    const N: ParamSpec = ParamSpec {
        name: "n",
        kind: ParamKind::Scalar { dtype: DType::U32 },
    };

    static K: Kernel = Kernel::new(KernelSpec {
        name: "k",
        ptx: ".version 7.8\n.target sm_90\n.address_size 64\n",
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_mem_bytes: 0,
        params: &[X, Y, N],
    });

    #[test]
    fn kernel_is_const_constructible_and_starts_unloaded() {
        assert_eq!(K.name(), "k");
        assert!(K.ptx().starts_with(".version 7.8"));
        assert_eq!(K.spec().params.len(), 3);
        assert_eq!(K.load_count(), 0);
    }

    #[test]
    fn matching_tensor_passes() {
        assert!(check_tensor("k", &X, DType::F32, &[4, 2], Access::Read).is_ok());
        assert!(check_tensor("k", &Y, DType::F32, &[4, 2], Access::Write).is_ok());
        // A mutable borrow is stricter than a read needs: allowed.
        assert!(check_tensor("k", &X, DType::F32, &[4, 2], Access::Write).is_ok());
    }

    #[test]
    fn wrong_shape_is_shape_mismatch() {
        let err = check_tensor("k", &X, DType::F32, &[2, 4], Access::Read);
        match err {
            Err(Error::ShapeMismatch {
                kernel: "k",
                param: "x",
                expected,
                actual,
            }) => {
                assert_eq!(expected, vec![4, 2]);
                assert_eq!(actual, vec![2, 4]);
            }
            other => panic!("expected ShapeMismatch, got {other:?}"),
        }
        // Same element count, other rank: still a mismatch.
        assert!(matches!(
            check_tensor("k", &X, DType::F32, &[8], Access::Read),
            Err(Error::ShapeMismatch { .. })
        ));
    }

    #[test]
    fn wrong_dtype_is_dtype_mismatch() {
        assert!(matches!(
            check_tensor("k", &X, DType::F16, &[4, 2], Access::Read),
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
            check_tensor("k", &Y, DType::F32, &[4, 2], Access::Read),
            Err(Error::ArgumentMismatch { kernel: "k", .. })
        ));
    }

    #[test]
    fn kind_mismatch_is_argument_mismatch() {
        assert!(matches!(
            check_tensor("k", &N, DType::U32, &[], Access::Read),
            Err(Error::ArgumentMismatch { .. })
        ));
        assert!(matches!(
            check_scalar("k", &X, DType::F32),
            Err(Error::ArgumentMismatch { .. })
        ));
    }

    #[test]
    fn replaced_or_misaligned_allocation_is_refused() {
        assert!(check_allocation("k", "x", 8, 8, 0x1000).is_ok());
        assert!(check_allocation("k", "x", 0, 1, 0x1000).is_ok());
        assert!(matches!(
            check_allocation("k", "x", 8, 4, 0x1000),
            Err(Error::ArgumentMismatch { .. })
        ));
        assert!(matches!(
            check_allocation("k", "x", 8, 8, 0x1008),
            Err(Error::ArgumentMismatch { .. })
        ));
    }
}
