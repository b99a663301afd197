//! The op on candle's CPU device: the kernel runs on tile-kernel's CPU
//! interpreter. Inputs are copied into interpreter tensors (the
//! interpreter's memory is its own), keeping each input's byte offset
//! modulo 16 so that the 16-byte alignment check of the launch decides as
//! it would on the GPU; outputs are copied back into new candle storage.

use candle::backend::BackendStorage;
use candle::{CpuStorage, DType as CandleDType};
use tile_kernel::Device;
use tile_kernel::runtime::Kernel;

use crate::dtype::{HostTensor, InputView, OutputView, Scalar, shared_types};
use crate::launch::launch;
use crate::plan::{InputPlan, Plan};

/// Runs `kernel` on the CPU interpreter over `inputs` (candle CPU storage,
/// in the op's order) as `plan` says; returns the outputs' storage.
pub(crate) fn forward(
    kernel: &Kernel,
    plan: &Plan,
    inputs: &[&CpuStorage],
    scalars: &[Scalar],
) -> candle::Result<Vec<CpuStorage>> {
    let device = Device::cpu();
    let copies = inputs
        .iter()
        .zip(&plan.inputs)
        .map(|(storage, input)| upload(&device, kernel.name(), storage, input))
        .collect::<candle::Result<Vec<_>>>()?;
    let views = copies
        .iter()
        .zip(&plan.inputs)
        .map(|((tensor, skip), input)| tensor.view_from(*skip, &input.shape))
        .collect::<tile_kernel::Result<Vec<InputView<'_>>>>()
        .map_err(candle::Error::wrap)?;
    let mut outputs = plan
        .outputs
        .iter()
        .map(|(dtype, shape)| zeros(&device, *dtype, shape))
        .collect::<candle::Result<Vec<_>>>()?;
    let mut output_views: Vec<OutputView<'_>> =
        outputs.iter_mut().map(HostTensor::view_mut).collect();
    launch(kernel, &device, &views, &mut output_views, scalars)?;
    drop(output_views);
    outputs.iter().map(download).collect()
}

macro_rules! cpu_bridge {
    ($($candle:ident $tile:ident $ty:ty,)*) => {
        /// A copy of `input`'s elements of `storage` on the interpreter
        /// device, and how many elements before them it also holds: as
        /// many as put the first at the same byte offset modulo 16 as in
        /// candle's storage.
        fn upload(
            device: &Device,
            kernel: &str,
            storage: &CpuStorage,
            input: &InputPlan,
        ) -> candle::Result<(HostTensor, usize)> {
            match storage {
                $(CpuStorage::$candle(values) => {
                    let size = size_of::<$ty>();
                    let skip = (input.start * size % 16) / size;
                    let Some(elements) = values.get(input.start - skip..input.end) else {
                        candle::bail!(
                            "kernel `{kernel}`: an input's layout (elements {}..{}) lies outside its storage of {} elements",
                            input.start,
                            input.end,
                            values.len()
                        );
                    };
                    let tensor = device
                        .upload(elements, [elements.len()])
                        .map_err(candle::Error::wrap)?;
                    Ok((HostTensor::$candle(tensor), skip))
                })*
                other => candle::bail!(
                    "kernel `{kernel}`: an input is {:?}, which tile-kernel has no element type for",
                    other.dtype()
                ),
            }
        }

        /// A zeroed output of candle dtype `dtype` on the interpreter device.
        fn zeros(device: &Device, dtype: CandleDType, shape: &[usize]) -> candle::Result<HostTensor> {
            match dtype {
                $(CandleDType::$candle => device
                    .zeros::<$ty>(shape)
                    .map(HostTensor::$candle)
                    .map_err(candle::Error::wrap),)*
                other => candle::bail!("{other:?} has no tile-kernel element type"),
            }
        }

        /// An output's elements as candle CPU storage.
        fn download(tensor: &HostTensor) -> candle::Result<CpuStorage> {
            match tensor {
                $(HostTensor::$candle(t) => t
                    .download()
                    .map(CpuStorage::$candle)
                    .map_err(candle::Error::wrap),)*
            }
        }
    };
}
shared_types!(cpu_bridge);
