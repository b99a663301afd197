//! The user-facing side: [`TileOp`] (what a user writes per kernel),
//! [`CandleOp`] (candle's `CustomOp1/2/3` for one output) and [`call`]
//! (any number of outputs), and the dispatch to the CPU or CUDA backend.

use candle::backend::{BackendDevice, BackendStorage};
use candle::op::BackpropOp;
use candle::{CpuStorage, CustomOp1, CustomOp2, CustomOp3, Layout, Shape, Storage, Tensor};
use tile_kernel::runtime::Kernel;

use crate::dtype::Scalar;
use crate::plan::{Plan, output_params, plan};

/// A `#[tile_kernel]` kernel as a candle op: the kernel's read-only tensor
/// parameters are the op's inputs, in order; its written tensor parameters
/// are the op's outputs, allocated by the op (zeroed, with shapes from the
/// size symbols the inputs bind); its scalar parameters come from
/// [`scalars`](Self::scalars).
///
/// ```ignore
/// struct Scale(f32);
///
/// impl TileOp for Scale {
///     fn name(&self) -> &'static str {
///         "scale"
///     }
///     fn kernel(&self, _inputs: &[&[usize]]) -> candle::Result<&'static Kernel> {
///         Ok(&scale::KERNEL) // #[tile_kernel] fn scale(x: Tensor<f32, N>, y: Tensor<f32, N>, s: f32)
///     }
///     fn scalars(&self) -> Vec<Scalar> {
///         vec![Scalar::F32(self.0)]
///     }
/// }
///
/// let y = x.apply_op1_no_bwd(&CandleOp(Scale(2.0)))?;
/// ```
pub trait TileOp: Send + Sync {
    /// The op's name (candle's `CustomOp::name`).
    fn name(&self) -> &'static str;

    /// The kernel to launch for inputs of these shapes (the op's inputs in
    /// order): `&NAME::KERNEL` of a `#[tile_kernel]` fn, or one of several
    /// chosen by size (a kernel for rows of up to 4096 elements, another
    /// for longer ones).
    fn kernel(&self, inputs: &[&[usize]]) -> candle::Result<&'static Kernel>;

    /// The values of the kernel's scalar parameters, in parameter order.
    fn scalars(&self) -> Vec<Scalar> {
        Vec::new()
    }

    /// Whether an input with a strided layout (a transpose, a broadcast)
    /// is first copied into a contiguous tensor by candle. Off by default:
    /// such an input is then an error naming it and its strides.
    fn copy_strided_inputs(&self) -> bool {
        false
    }
}

/// A [`TileOp`] as candle's `CustomOp1`, `CustomOp2` and `CustomOp3`, for
/// kernels that write one tensor: `x.apply_op2_no_bwd(&w, &CandleOp(op))`.
/// A kernel that writes several runs through [`call`].
pub struct CandleOp<K>(pub K);

/// Runs `op` on `inputs` (on candle's CPU or CUDA device) and returns
/// every tensor its kernel writes, in parameter order. The outputs are
/// new tensors outside autograd (as `apply_op*_no_bwd`).
pub fn call(op: &impl TileOp, inputs: &[&Tensor]) -> candle::Result<Vec<Tensor>> {
    let guards: Vec<_> = inputs.iter().map(|t| t.storage_and_layout()).collect();
    let storages: Vec<&Storage> = guards.iter().map(|(s, _)| &**s).collect();
    let layouts: Vec<&Layout> = guards.iter().map(|(_, l)| *l).collect();
    let outputs: Vec<(Storage, Vec<usize>)> = match storages.first() {
        Some(Storage::Cpu(_)) => {
            let cpu = storages
                .iter()
                .map(|s| match s {
                    Storage::Cpu(s) => Ok(s),
                    _ => Err(mixed_devices(op.name())),
                })
                .collect::<candle::Result<Vec<_>>>()?;
            let (storages, shapes) = cpu_forward(op, &pair(&cpu, &layouts))?;
            storages.into_iter().map(Storage::Cpu).zip(shapes).collect()
        }
        #[cfg(feature = "cuda")]
        Some(Storage::Cuda(_)) => {
            let cuda = storages
                .iter()
                .map(|s| match s {
                    Storage::Cuda(s) => Ok(s),
                    _ => Err(mixed_devices(op.name())),
                })
                .collect::<candle::Result<Vec<_>>>()?;
            let (storages, shapes) = cuda_forward(op, &pair(&cuda, &layouts))?;
            storages
                .into_iter()
                .map(Storage::Cuda)
                .zip(shapes)
                .collect()
        }
        Some(other) => candle::bail!(
            "op `{}`: runs on candle's CPU device{}, not on {:?}",
            op.name(),
            if cfg!(feature = "cuda") {
                " and CUDA device"
            } else {
                " (and on its CUDA device with the `cuda` feature)"
            },
            other.device().location()
        ),
        None => candle::bail!(
            "op `{}`: an op needs at least one input (it runs on that input's device)",
            op.name()
        ),
    };
    drop(guards);
    Ok(outputs
        .into_iter()
        .map(|(storage, shape)| Tensor::from_storage(storage, shape, BackpropOp::none(), false))
        .collect())
}

fn pair<'a, S>(storages: &[&'a S], layouts: &[&'a Layout]) -> Vec<(&'a S, &'a Layout)> {
    storages
        .iter()
        .copied()
        .zip(layouts.iter().copied())
        .collect()
}

fn mixed_devices(op: &str) -> candle::Error {
    candle::Error::msg(format!(
        "op `{op}`: its inputs are on different kinds of devices"
    ))
}

/// The inputs of one launch after the opt-in copy of strided ones: the
/// copies, and every input's layout.
struct Contiguous<S> {
    copies: Vec<Option<S>>,
    layouts: Vec<Layout>,
}

impl<S: BackendStorage<Device = D>, D: BackendDevice<Storage = S>> Contiguous<S> {
    /// Copies each strided input into a new contiguous storage when `op`
    /// opts in (candle's own strided copy on that device); keeps the rest.
    fn new(op: &impl TileOp, inputs: &[(&S, &Layout)]) -> candle::Result<Self> {
        let mut copies = Vec::with_capacity(inputs.len());
        let mut layouts = Vec::with_capacity(inputs.len());
        for (storage, layout) in inputs {
            if op.copy_strided_inputs() && layout.contiguous_offsets().is_none() {
                let shape = layout.shape();
                let mut copy = storage.device().zeros_impl(shape, storage.dtype())?;
                storage.copy_strided_src(&mut copy, 0, layout)?;
                copies.push(Some(copy));
                layouts.push(Layout::contiguous(shape));
            } else {
                copies.push(None);
                layouts.push((*layout).clone());
            }
        }
        Ok(Contiguous { copies, layouts })
    }

    /// The storages to launch on, in input order.
    fn storages<'a>(&'a self, inputs: &[(&'a S, &Layout)]) -> Vec<&'a S> {
        self.copies
            .iter()
            .zip(inputs)
            .map(|(copy, (original, _))| copy.as_ref().unwrap_or(original))
            .collect()
    }
}

/// What every backend does first: the opt-in copies, the kernel, the plan.
fn prepare<'a, S: BackendStorage<Device = D>, D: BackendDevice<Storage = S>>(
    op: &impl TileOp,
    inputs: &[(&'a S, &Layout)],
    contiguous: &'a Contiguous<S>,
) -> candle::Result<(&'static Kernel, Plan, Vec<&'a S>, Vec<Scalar>)> {
    let shapes: Vec<&[usize]> = contiguous.layouts.iter().map(Layout::dims).collect();
    let kernel = op.kernel(&shapes)?;
    let layouts: Vec<&Layout> = contiguous.layouts.iter().collect();
    let scalars = op.scalars();
    let plan = plan(op.name(), kernel.spec(), &layouts, scalars.len())?;
    Ok((kernel, plan, contiguous.storages(inputs), scalars))
}

/// The op on candle's CPU device: every output's storage and shape.
fn cpu_forward(
    op: &impl TileOp,
    inputs: &[(&CpuStorage, &Layout)],
) -> candle::Result<(Vec<CpuStorage>, Vec<Vec<usize>>)> {
    let contiguous = Contiguous::new(op, inputs)?;
    let (kernel, plan, storages, scalars) = prepare(op, inputs, &contiguous)?;
    let outputs = crate::cpu::forward(kernel, &plan, &storages, &scalars)?;
    Ok((outputs, plan.outputs.into_iter().map(|(_, s)| s).collect()))
}

/// The op on candle's CUDA device: every output's storage and shape.
#[cfg(feature = "cuda")]
fn cuda_forward(
    op: &impl TileOp,
    inputs: &[(&candle::CudaStorage, &Layout)],
) -> candle::Result<(Vec<candle::CudaStorage>, Vec<Vec<usize>>)> {
    let contiguous = Contiguous::new(op, inputs)?;
    let (kernel, plan, storages, scalars) = prepare(op, inputs, &contiguous)?;
    let outputs = crate::cuda::forward(kernel, &plan, &storages, &scalars)?;
    Ok((outputs, plan.outputs.into_iter().map(|(_, s)| s).collect()))
}

/// For a `CustomOp`: checks, before anything runs, that the kernel `op`
/// picks for `layouts` writes exactly one tensor.
fn check_one_output(op: &impl TileOp, layouts: &[&Layout]) -> candle::Result<()> {
    let shapes: Vec<&[usize]> = layouts.iter().map(|l| l.dims()).collect();
    let kernel = op.kernel(&shapes)?;
    let names: Vec<&str> = output_params(kernel.spec()).map(|p| p.name).collect();
    if names.len() != 1 {
        candle::bail!(
            "op `{}`: kernel `{}` writes {} tensors ({}), but a candle CustomOp returns one: run it with `tile_kernel_candle::call`",
            op.name(),
            kernel.name(),
            names.len(),
            names.join(", ")
        );
    }
    Ok(())
}

/// The one output of a `CustomOp` (`check_one_output` passed).
fn one_output<S>((storages, shapes): (Vec<S>, Vec<Vec<usize>>)) -> candle::Result<(S, Shape)> {
    match (storages.into_iter().next(), shapes.into_iter().next()) {
        (Some(storage), Some(shape)) => Ok((storage, Shape::from(shape))),
        _ => candle::bail!("a tile-kernel op produced no output"),
    }
}

/// `CustomOp1/2/3` for [`CandleOp`]: `$n` inputs `$s: $l`.
macro_rules! custom_op {
    ($trait:ident, $($s:ident $l:ident),+) => {
        impl<K: TileOp> $trait for CandleOp<K> {
            fn name(&self) -> &'static str {
                self.0.name()
            }

            fn cpu_fwd(&self, $($s: &CpuStorage, $l: &Layout),+) -> candle::Result<(CpuStorage, Shape)> {
                check_one_output(&self.0, &[$($l),+])?;
                one_output(cpu_forward(&self.0, &[$(($s, $l)),+])?)
            }

            #[cfg(feature = "cuda")]
            fn cuda_fwd(
                &self,
                $($s: &candle::CudaStorage, $l: &Layout),+
            ) -> candle::Result<(candle::CudaStorage, Shape)> {
                check_one_output(&self.0, &[$($l),+])?;
                one_output(cuda_forward(&self.0, &[$(($s, $l)),+])?)
            }
        }
    };
}
custom_op!(CustomOp1, s1 l1);
custom_op!(CustomOp2, s1 l1, s2 l2);
custom_op!(CustomOp3, s1 l1, s2 l2, s3 l3);
