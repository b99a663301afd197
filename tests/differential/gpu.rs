//! The GPU: batches of kernels loaded as one module through cudarc (or,
//! with `TILE_KERNEL_DIFF_LAUNCH=runtime`, one `tile_kernel::runtime::Kernel`
//! per kernel), launched and read back.

use super::*;
use tile_kernel::Device;
use tile_kernel::runtime::Kernel;
use tile_kernel_lowering::DType;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

/// How kernels reach the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A batch of kernels joined into one module, loaded and launched
    /// through cudarc: one JIT compilation a batch.
    Batched,
    /// Every kernel through the runtime's `Kernel` and typed tensors:
    /// one module load a kernel.
    Runtime,
}

/// Loads modules; shared by the host threads that JIT-compile batches
/// in parallel.
#[derive(Clone)]
pub struct Jit {
    device: Device,
    context: Arc<CudaContext>,
    pub mode: Mode,
}

/// A batch's loaded functions (batched mode), by index in the batch.
#[derive(Default)]
pub struct Loaded {
    functions: BTreeMap<usize, CudaFunction>,
    pub seconds: f64,
}

/// The GPU: the stream launches go to.
pub struct Gpu {
    pub jit: Jit,
    stream: Arc<CudaStream>,
    pub seconds_jit: f64,
    pub seconds_run: f64,
}

impl Gpu {
    /// GPU 0 (never the CPU interpreter: comparing it with itself would
    /// prove nothing); panics where there is none.
    pub fn open() -> Gpu {
        let device = Device::cuda(0).unwrap_or_else(|e| {
            panic!("this test needs an NVIDIA GPU (it compares the interpreter with one): {e}")
        });
        let context = device
            .context()
            .expect("a CUDA device has a context")
            .clone();
        let stream = device.stream().expect("a CUDA device has a stream").clone();
        let cc = device.compute_capability().unwrap_or((0, 0));
        println!(
            "GPU: {} (compute capability {}.{})",
            device.name().unwrap_or_else(|_| "?".into()),
            cc.0,
            cc.1
        );
        if cc != (9, 0) {
            println!(
                "warning: the interpreter is specified against the H200 (sm_90); this GPU is sm_{}{}",
                cc.0, cc.1
            );
        }
        let mode = match std::env::var("TILE_KERNEL_DIFF_LAUNCH").as_deref() {
            Ok("runtime") => Mode::Runtime,
            _ => Mode::Batched,
        };
        Gpu {
            jit: Jit {
                device,
                context,
                mode,
            },
            stream,
            seconds_jit: 0.0,
            seconds_run: 0.0,
        }
    }

    /// Runs every loaded kernel of `batch`, filling `gpu`. An error is
    /// fatal: the context is unusable after a fault.
    pub fn run(
        &mut self,
        cases: &[Case],
        batch: &mut [Built],
        loaded: Loaded,
    ) -> Result<(), String> {
        self.seconds_jit += loaded.seconds;
        match self.jit.mode {
            Mode::Batched => self.run_batched(cases, batch, loaded),
            Mode::Runtime => {
                for built in batch
                    .iter_mut()
                    .filter(|b| b.runtime_kernel.is_some() && b.gpu.is_none())
                {
                    let result = self.run_one(&cases[built.case], built);
                    let fatal = matches!(&result, Err(e) if e.starts_with("fatal"));
                    if fatal {
                        return Err(result.err().unwrap_or_default());
                    }
                    built.gpu = Some(result);
                }
                Ok(())
            }
        }
    }

    fn run_batched(
        &mut self,
        cases: &[Case],
        batch: &mut [Built],
        loaded: Loaded,
    ) -> Result<(), String> {
        if loaded.functions.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        // One arena for every tensor of the batch, 256-byte aligned.
        let mut offsets: Vec<Vec<usize>> = vec![Vec::new(); batch.len()];
        let mut arena = Vec::new();
        for &i in loaded.functions.keys() {
            let case = &cases[batch[i].case];
            for k in 0..batch[i].roles.len() {
                arena.resize(arena.len().next_multiple_of(256), 0);
                offsets[i].push(arena.len());
                arena.extend(batch[i].initial(case, k, GPU_SENTINEL));
            }
        }
        let device_arena = self
            .stream
            .clone_htod(&arena)
            .map_err(|e| format!("fatal: uploading the inputs: {e}"))?;
        {
            let (base, _record) = device_arena.device_ptr(&self.stream);
            for (&i, function) in &loaded.functions {
                let built = &batch[i];
                let case = &cases[built.case];
                let addresses: Vec<u64> = offsets[i].iter().map(|o| base + *o as u64).collect();
                let symbols = built.symbol_args(case);
                let mut launch = self.stream.launch_builder(function);
                for a in &addresses {
                    launch.arg(a);
                }
                for s in &symbols {
                    launch.arg(s);
                }
                let grid = built.grid(case);
                // SAFETY: the entry's parameters are, in order, one
                // `.u64` global address per tensor and one `.u64` per
                // size symbol (value / divisor), as the checker emitted
                // them; each address points at a 256-byte-aligned range
                // of the arena holding exactly that tensor's bytes for
                // `case.rows` rows, the symbol is `case.rows`, and the
                // grid and block are the program's launch shape for it.
                // The checker proved every access in bounds, aligned
                // and race-free for such a launch. (The warp-collective
                // programs replace only register statements; their
                // memory accesses are the checker's.)
                unsafe {
                    launch.launch(LaunchConfig {
                        grid_dim: (grid[0], grid[1], grid[2]),
                        block_dim: (case.block, 1, 1),
                        shared_mem_bytes: 0,
                    })
                }
                .map_err(|e| format!("fatal: launching {}: {e}", case.label))?;
            }
        }
        self.stream
            .synchronize()
            .map_err(|e| format!("fatal: running the batch (a kernel faulted?): {e}"))?;
        let out = self
            .stream
            .clone_dtoh(&device_arena)
            .map_err(|e| format!("fatal: downloading the outputs: {e}"))?;
        self.stream
            .synchronize()
            .map_err(|e| format!("fatal: downloading the outputs: {e}"))?;
        for &i in loaded.functions.keys() {
            let case = &cases[batch[i].case];
            let tensors = (0..batch[i].roles.len())
                .map(|k| {
                    let at = offsets[i][k];
                    out[at..at + batch[i].tensor_len(case, k)].to_vec()
                })
                .collect();
            batch[i].gpu = Some(Ok(tensors));
        }
        self.seconds_run += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// One kernel through the runtime: typed tensors and a checked
    /// launch of the `Kernel` [`Jit::load`] made.
    fn run_one(&mut self, case: &Case, built: &Built) -> Result<Vec<Vec<u8>>, String> {
        let Some(kernel) = built.runtime_kernel else {
            return Err("not loaded".into());
        };
        let started = Instant::now();
        let device = &self.jit.device;
        let mut tensors = Vec::new();
        for k in 0..built.roles.len() {
            let role = &built.roles[k];
            let bytes = built.initial(case, k, GPU_SENTINEL);
            let shape = if role.per_row {
                vec![case.rows, usize::from(role.lanes)]
            } else {
                vec![usize::from(role.lanes)]
            };
            tensors.push(AnyTensor::upload(device, role.dtype, &bytes, &shape)?);
        }
        let mut launch = kernel.launch(device).map_err(|e| format!("fatal: {e}"))?;
        for (tensor, written) in tensors.iter_mut().zip(&built.written) {
            tensor
                .push(&mut launch, *written)
                .map_err(|e| format!("fatal: {e}"))?;
        }
        launch.run().map_err(|e| format!("fatal: launching: {e}"))?;
        let out = tensors
            .iter()
            .map(AnyTensor::download)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("fatal: {e}"))?;
        self.seconds_run += started.elapsed().as_secs_f64();
        Ok(out)
    }
}

impl Jit {
    /// JIT-compiles a batch (of one target): one joined module
    /// (batched mode; where the driver rejects it, each kernel alone,
    /// to name the ones it rejects), or every kernel's own `Kernel`
    /// (runtime mode). Rejected kernels get their `gpu` error here.
    pub fn load(&self, batch: &mut [Built]) -> Loaded {
        let started = Instant::now();
        let mut loaded = Loaded::default();
        let ready: Vec<usize> = (0..batch.len())
            .filter(|&i| batch[i].ptx.is_some())
            .collect();
        match self.mode {
            Mode::Runtime => {
                for &i in &ready {
                    let kernel = self.kernel(&batch[i]);
                    match kernel.function(&self.device) {
                        Ok(_) => batch[i].runtime_kernel = Some(kernel),
                        Err(e) => {
                            batch[i].gpu = Some(Err(format!("the driver rejects the PTX: {e}")))
                        }
                    }
                }
            }
            Mode::Batched if !ready.is_empty() => {
                let modules: Vec<String> = ready
                    .iter()
                    .map(|&i| batch[i].ptx.clone().unwrap_or_default())
                    .collect();
                let joined = form_kernels::join_modules(&modules);
                let whole = self.context.load_module(Ptx::from_src(joined));
                for &i in &ready {
                    let module = match &whole {
                        Ok(module) => Ok(module.clone()),
                        Err(_) => self
                            .context
                            .load_module(Ptx::from_src(batch[i].ptx.clone().unwrap_or_default())),
                    };
                    let function = module
                        .map_err(|_| ())
                        .and_then(|m| m.load_function(&batch[i].entry).map_err(|_| ()));
                    match function {
                        Ok(f) => {
                            loaded.functions.insert(i, f);
                        }
                        Err(()) => {
                            // The runtime reads the driver's JIT log.
                            let why = match self.kernel(&batch[i]).function(&self.device) {
                                Ok(_) => "the kernel loads on its own, but not in its batch".into(),
                                Err(e) => format!("the driver rejects the PTX: {e}"),
                            };
                            batch[i].gpu = Some(Err(why));
                        }
                    }
                }
            }
            Mode::Batched => {}
        }
        loaded.seconds = started.elapsed().as_secs_f64();
        loaded
    }

    /// The runtime's `Kernel` for a built case (leaked: the runtime
    /// keeps kernels in statics).
    fn kernel(&self, built: &Built) -> &'static Kernel {
        let (Some(program), Some(ptx)) = (&built.program, &built.ptx) else {
            unreachable!("only built kernels are loaded");
        };
        // SAFETY: the spec comes from the checker's own program and
        // the PTX it emitted for it (`spec_for` copies its parameters,
        // size symbols and launch shape), and the checker proved every
        // access of that program in bounds, aligned and race-free for
        // every launch the runtime's checks accept.
        Box::leak(Box::new(unsafe {
            Kernel::new(form_kernels::spec_for(program, ptx))
        }))
    }
}

/// A device tensor of one of the four container dtypes.
enum AnyTensor {
    U8(tile_kernel::DeviceTensor<u8>),
    U16(tile_kernel::DeviceTensor<u16>),
    U32(tile_kernel::DeviceTensor<u32>),
    U64(tile_kernel::DeviceTensor<u64>),
}

impl AnyTensor {
    fn upload(
        device: &Device,
        dtype: DType,
        bytes: &[u8],
        shape: &[usize],
    ) -> Result<AnyTensor, String> {
        let e = |e: tile_kernel::Error| format!("fatal: uploading: {e}");
        Ok(match dtype.size_bytes() {
            1 => AnyTensor::U8(device.upload(bytes, shape).map_err(e)?),
            2 => {
                let v: Vec<u16> = bytes
                    .chunks(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                AnyTensor::U16(device.upload(&v, shape).map_err(e)?)
            }
            4 => {
                let v: Vec<u32> = bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                AnyTensor::U32(device.upload(&v, shape).map_err(e)?)
            }
            _ => {
                let v: Vec<u64> = bytes
                    .chunks(8)
                    .map(|c| u64::from_le_bytes(std::array::from_fn(|i| c[i])))
                    .collect();
                AnyTensor::U64(device.upload(&v, shape).map_err(e)?)
            }
        })
    }

    fn push<'a>(
        &'a mut self,
        launch: &mut tile_kernel::runtime::LaunchBuilder<'a>,
        written: bool,
    ) -> tile_kernel::Result<()> {
        match (self, written) {
            (AnyTensor::U8(t), true) => launch.push_tensor_mut(t),
            (AnyTensor::U8(t), false) => launch.push_tensor(t),
            (AnyTensor::U16(t), true) => launch.push_tensor_mut(t),
            (AnyTensor::U16(t), false) => launch.push_tensor(t),
            (AnyTensor::U32(t), true) => launch.push_tensor_mut(t),
            (AnyTensor::U32(t), false) => launch.push_tensor(t),
            (AnyTensor::U64(t), true) => launch.push_tensor_mut(t),
            (AnyTensor::U64(t), false) => launch.push_tensor(t),
        }
    }

    fn download(&self) -> tile_kernel::Result<Vec<u8>> {
        Ok(match self {
            AnyTensor::U8(t) => t.download()?,
            AnyTensor::U16(t) => t
                .download()?
                .into_iter()
                .flat_map(u16::to_le_bytes)
                .collect(),
            AnyTensor::U32(t) => t
                .download()?
                .into_iter()
                .flat_map(u32::to_le_bytes)
                .collect(),
            AnyTensor::U64(t) => t
                .download()?
                .into_iter()
                .flat_map(u64::to_le_bytes)
                .collect(),
        })
    }
}
