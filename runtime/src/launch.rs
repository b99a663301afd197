//! The checked launch builder, [`LaunchBuilder`], and the two backends that run
//! it: the driver (the kernel's function in the device's context) and the CPU
//! interpreter (the kernel's prepared program).
//!
//! Guarantee: a [`LaunchBuilder`] reaches the driver only when every argument
//! matched its [`ParamSpec`](crate::spec::ParamSpec) (kind, dtype, shape,
//! borrow, context, memory holding the shape, 16-byte aligned start), in order,
//! and all were given; every size symbol is bound, consistently across
//! parameters, and meets its [`SymbolSpec`](crate::spec::SymbolSpec) and
//! [`MAX_SYMBOL_VALUE`](crate::spec::MAX_SYMBOL_VALUE); and the grid computed
//! from the symbols is within CUDA's limits. A launch with no work (a zero grid
//! extent, or only empty tensors) returns `Ok` without reaching the driver. The
//! one `unsafe` block, the driver launch, relies on exactly these checks
//! (`spec_check` makes the per-argument ones).
//!
//! On the CPU interpreter device the same checks pass or fail the same way
//! (the device check: every tensor in host memory), and then the
//! interpreter runs the spec's `program` instead of the driver running the
//! PTX: no `unsafe` is involved, and the program is checked to describe the
//! spec's kernel when it is prepared (once per `Kernel`).

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaEvent, CudaStream, CudaView, CudaViewMut, DeviceSlice, SyncOnDrop};
use tile_kernel_interp::{Arg, Prepared, RunOptions};

use crate::copy::{after_ordering_failure, check_recorded, needs_join, record_use, take_event};
use crate::device::CudaDevice;
use crate::module::LoadedFunction;
use crate::spec::{Borrow, KernelSpec, partial_cluster_axis};
use crate::spec_check::{check_memory, check_scalar, check_tensor};
use crate::symbols::{Bindings, MAX_SYMBOLS, check_symbols, dynamic_shared_size, grid_size};
use crate::tensor_maps::{self, MAX_TENSOR_MAPS, MapLayout};
use crate::view::{HostView, Memory, MemoryMut, host_prefix};
use crate::{Device, Element, Error, Kernel, Result, ScalarArg, TensorArg, TensorArgMut};

/// The most parameters one kernel's PTX entry may take, the hidden symbol
/// parameters included; [`LaunchBuilder`] keeps its arguments in fixed
/// arrays of this size so that a launch does not allocate.
pub const MAX_PARAMS: usize = 32;

/// A kernel launch being assembled: one checked argument per parameter, in
/// order, then [`run`](Self::run).
///
/// Every argument is checked against the kernel's
/// [`ParamSpec`](crate::spec::ParamSpec) as it is pushed: kind, dtype, shape, read/write access, device (a GPU tensor's
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
pub struct LaunchBuilder<'a> {
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
    /// The hidden tensor-map arguments, encoded by `run` on a GPU.
    tensor_maps: [cudarc::driver::sys::CUtensorMap; MAX_TENSOR_MAPS],
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

impl<'a> LaunchBuilder<'a> {
    /// An empty launch of `kernel` on `device`, on the driver (loading the
    /// module into the device's context on first use) or the interpreter
    /// (preparing the kernel's program on first use). The caller checked
    /// the spec's parameter counts (`check_param_counts`).
    pub(crate) fn new(kernel: &'a Kernel, device: &'a Device) -> Result<LaunchBuilder<'a>> {
        let backend = match device.as_cuda() {
            Some(cuda) => Backend::Cuda {
                device: cuda,
                loaded: kernel.loaded(device)?,
            },
            None => Backend::Cpu(kernel.prepared()?),
        };
        Ok(LaunchBuilder {
            kernel,
            backend,
            host_args: [Arg::Scalar(0); MAX_PARAMS],
            pushed: 0,
            device_ptrs: [0; MAX_PARAMS],
            params: [ptr::null_mut(); MAX_PARAMS],
            events: [None; MAX_PARAMS],
            joins: [const { None }; MAX_PARAMS],
            bound: [None; MAX_SYMBOLS],
            symbol_args: [0; MAX_SYMBOLS],
            tensor_maps: [cudarc::driver::sys::CUtensorMap { opaque: [0; 16] }; MAX_TENSOR_MAPS],
            tensors: 0,
            nonempty_tensors: 0,
        })
    }

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
        let (index, bound) = self.check_tensor::<T>(tensor.arg_shape(), Borrow::Shared)?;
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
        let (index, bound) = self.check_tensor::<T>(tensor.arg_shape(), Borrow::Exclusive)?;
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
            self.kernel.spec().name,
            &self.kernel.spec().params[index],
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
        let spec = self.kernel.spec();
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
            kernel: self.kernel.spec().name,
            param: self.kernel.spec().params[index].name,
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

    /// Whether the size symbols bound by the arguments pushed so far break
    /// only the alignment requirements of the kernel's vector accesses
    /// ([`SymbolSpec::multiple_of`](crate::spec::SymbolSpec::multiple_of)):
    /// every other check of the symbols passes. A kernel compiled with
    /// `fallback = "scalar"` then launches its scalar twin instead, which
    /// has no such requirement; nothing has been launched.
    pub fn misaligned(&self) -> bool {
        let spec = self.kernel.spec();
        if check_symbols(spec.name, spec.symbols, &self.bound).is_ok() {
            return false;
        }
        let relaxed: Vec<crate::spec::SymbolSpec> = spec
            .symbols
            .iter()
            .map(|symbol| crate::spec::SymbolSpec {
                multiple_of: 1,
                ..*symbol
            })
            .collect();
        check_symbols(spec.name, &relaxed, &self.bound).is_ok()
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
        let spec = self.kernel.spec();
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
        // `check_param_counts` kept the maps within both arrays.
        let maps = spec.tensor_maps.len().min(MAX_TENSOR_MAPS);
        for (i, map) in spec.tensor_maps[..maps].iter().enumerate() {
            let (Some(layout), Some(address)) = (plan.maps[i], self.device_ptrs.get(map.param))
            else {
                return Err(Error::ArgumentMismatch {
                    kernel: spec.name,
                    detail: format!("tensor map {i} has no tensor argument"),
                });
            };
            self.tensor_maps[i] = tensor_maps::encode(&layout, *address)?;
        }
        let with_maps = total + maps;
        for (param, map) in self.params[total..with_maps]
            .iter_mut()
            .zip(&mut self.tensor_maps)
        {
            *param = ptr::from_mut(map).cast();
        }
        let total = with_maps;
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
        // per `spec.symbols` entry (value / divisor), then one 128-byte
        // tensor map per `spec.tensor_maps` entry (each encoded just above
        // from its tensor argument's address and this launch's shape, so
        // the hardware clips every tensor copy to that tensor), and that the PTX is
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
        // (so of the memory) for all symbol values that pass these checks.
        // `params[..total]` point at scalars borrowed for 'a, or at
        // `device_ptrs` and `symbol_args`, owned by `self` and alive for
        // this call. Writes go only to parameters declared
        // `Borrow::Exclusive`, whose tensors are borrowed `&mut` for 'a, so
        // no other view of
        // their elements exists. The stream waits for earlier conflicting
        // uses of every tensor on other streams (cudarc's events, checked
        // just above, or the joins in `order_after`), and `finish` below
        // makes later uses and the tensors' frees wait for this launch.
        // A kernel with a cluster also launches with its cluster shape
        // (`plan_launch` checked the grid is whole clusters).
        unsafe {
            if spec.cluster == [1, 1, 1] {
                cudarc::driver::result::launch_kernel(
                    function.cu_function(),
                    (gx, gy, gz),
                    spec.block.into(),
                    plan.shared_bytes,
                    stream.cu_stream(),
                    &mut self.params[..total],
                )
            } else {
                launch_with_cluster(
                    function.cu_function(),
                    plan.grid,
                    spec.block,
                    spec.cluster,
                    plan.shared_bytes,
                    stream.cu_stream(),
                    &mut self.params[..total],
                )
            }
        }
        .map_err(Error::driver("launching a kernel"))?;
        self.finish(stream)
    }

    /// Runs the launch on the CPU interpreter (every check passed).
    fn run_on_cpu(&self, prepared: &Prepared, plan: &LaunchPlan) -> Result<()> {
        let spec = self.kernel.spec();
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
        let spec = self.kernel.spec();
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
        borrow: Borrow,
    ) -> Result<(usize, Bindings)> {
        let index = self.next_param()?;
        let spec = self.kernel.spec();
        let param = &spec.params[index];
        let mut bound = self.bound;
        check_tensor(
            spec.name,
            param,
            spec.symbols,
            T::DTYPE,
            shape,
            borrow,
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
                kernel: self.kernel.spec().name,
                param: self.kernel.spec().params[index].name,
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
        let param = self.kernel.spec().params[index].name;
        check_memory(self.kernel.spec().name, param, len, available, address)?;
        self.device_ptrs[index] = address;
        self.params[index] = ptr::null_mut();
        self.events[index] = event;
        self.joins[index] = join;
        self.record_tensor(bound, len);
        Ok(())
    }
}

/// `cuLaunchKernelEx` with the cluster dimension attribute: what
/// `launch_kernel` does for a kernel declared with a cluster shape.
///
/// # Safety
///
/// As `cudarc::driver::result::launch_kernel`: `function` is a loaded
/// kernel whose parameters `params` point at, alive until the launch is
/// enqueued, and `stream` belongs to the current context.
unsafe fn launch_with_cluster(
    function: cudarc::driver::sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    cluster: [u32; 3],
    shared_bytes: u32,
    stream: cudarc::driver::sys::CUstream,
    params: &mut [*mut std::ffi::c_void],
) -> std::result::Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    let mut attribute = sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue {
            clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
                x: cluster[0],
                y: cluster[1],
                z: cluster[2],
            },
        },
    };
    let config = sys::CUlaunchConfig {
        gridDimX: grid[0],
        gridDimY: grid[1],
        gridDimZ: grid[2],
        blockDimX: block[0],
        blockDimY: block[1],
        blockDimZ: block[2],
        sharedMemBytes: shared_bytes,
        hStream: stream,
        attrs: &raw mut attribute,
        numAttrs: 1,
    };
    // SAFETY: `config` and its one attribute live on this frame until the
    // call returns (the driver copies them when it enqueues the launch);
    // the function, parameters and stream are valid per this function's
    // contract, which the caller upholds.
    unsafe {
        sys::cuLaunchKernelEx(
            &raw const config,
            function,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
        .result()
    }
}

/// What [`LaunchBuilder::run`] hands the driver once every check passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LaunchPlan {
    grid: [u32; 3],
    /// Dynamic shared memory per block, in bytes (within the limit).
    shared_bytes: u32,
    /// The hidden symbol arguments: value / divisor, by symbol index.
    symbol_args: [u64; MAX_SYMBOLS],
    /// The tensor maps' layouts, in `spec.tensor_maps` order.
    maps: [Option<MapLayout>; MAX_TENSOR_MAPS],
}

/// The checks of [`LaunchBuilder::run`] that need no driver, once all arguments
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
    if let Some(axis) = partial_cluster_axis(grid, spec.cluster) {
        let (name, extent, cluster) = (["x", "y", "z"][axis], grid[axis], spec.cluster[axis]);
        return Err(Error::LaunchSize {
            kernel: spec.name,
            detail: format!(
                "grid {name} is {extent}, which is not a multiple of the kernel's cluster extent {cluster} along {name}"
            ),
        });
    }
    let shared_bytes = dynamic_shared_size(
        spec.name,
        spec.shared_mem_bytes,
        spec.symbols,
        &values,
        shared_limit,
    )?;
    let mut maps = [None; MAX_TENSOR_MAPS];
    for (layout, map) in maps.iter_mut().zip(spec.tensor_maps) {
        *layout = Some(tensor_maps::layout(spec, map, &values)?);
    }
    let mut symbol_args = [0; MAX_SYMBOLS];
    for ((arg, value), symbol) in symbol_args.iter_mut().zip(values).zip(spec.symbols) {
        // `check_symbols` refused a zero divisor.
        *arg = value.checked_div(symbol.divisor).unwrap_or_default();
    }
    Ok(Some(LaunchPlan {
        grid,
        shared_bytes,
        symbol_args,
        maps,
    }))
}

impl std::fmt::Debug for LaunchBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchBuilder")
            .field("kernel", &self.kernel.spec().name)
            .field("pushed", &self.pushed)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{LaunchFormulaSpec, LaunchOp};
    use crate::test_specs::{HALF, K, bind_half};

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
                symbol_args,
                maps: [None; MAX_TENSOR_MAPS],
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
            shared_mem_bytes: LaunchFormulaSpec(&[
                LaunchOp::Const(4),
                LaunchOp::Symbol(0),
                LaunchOp::Mul,
            ]),
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
                LaunchFormulaSpec::ONE,
                LaunchFormulaSpec(&[LaunchOp::Symbol(0), LaunchOp::Const(16), LaunchOp::Div]),
                LaunchFormulaSpec::ONE,
            ],
            ..HALF
        };
        assert_eq!(plan_launch(&ZERO_Y, &bound, 2, 2, NO_SHARED)?, None);
        // Without tensor parameters, only the grid decides.
        assert!(plan_launch(K.spec(), &[None; MAX_SYMBOLS], 0, 0, NO_SHARED)?.is_some());
        // The grid is not evaluated when all tensors are empty: `N - 1`
        // would go below zero for N = 0.
        const MINUS_ONE: KernelSpec = KernelSpec {
            grid: [
                LaunchFormulaSpec(&[LaunchOp::Symbol(0), LaunchOp::Const(1), LaunchOp::Sub]),
                LaunchFormulaSpec::ONE,
                LaunchFormulaSpec::ONE,
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
                LaunchFormulaSpec::ONE,
                LaunchFormulaSpec(&[LaunchOp::Symbol(0)]),
                LaunchFormulaSpec::ONE,
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
}
