//! The op on candle's CUDA device (feature `cuda`): the kernel launches on
//! the stream of candle's `CudaDevice` (a tile-kernel [`Device`] made with
//! [`Device::from_stream`]: no stream is created and nothing waits). Inputs
//! are views of candle's `CudaSlice`s at their layouts' offsets, outputs
//! are allocated (zeroed) through candle's device and handed back to candle
//! as its storage. candle 0.11's cudarc is the same crate as tile-kernel's,
//! so the buffers cross without conversion.

use candle::CudaStorage;
use candle::backend::BackendStorage;
use candle::cuda_backend::cudarc::driver::CudaSlice;
use candle::cuda_backend::{CudaDevice, CudaStorageSlice};
use tile_kernel::runtime::Kernel;
use tile_kernel::{Device, TensorView, TensorViewMut};

use crate::dtype::{InputView, OutputView, Scalar, shared_types};
use crate::launch::launch;
use crate::plan::{InputPlan, Plan};

/// Launches `kernel` on the stream of `inputs`' candle device as `plan`
/// says; returns the outputs' storage.
pub(crate) fn forward(
    kernel: &Kernel,
    plan: &Plan,
    inputs: &[&CudaStorage],
    scalars: &[Scalar],
) -> candle::Result<Vec<CudaStorage>> {
    let Some(first) = inputs.first() else {
        candle::bail!(
            "kernel `{}`: an op needs at least one input (it runs on that input's device)",
            kernel.name()
        );
    };
    let candle_device = &first.device;
    let device = Device::from_stream(candle_device.cuda_stream()).map_err(candle::Error::wrap)?;
    let views = inputs
        .iter()
        .zip(&plan.inputs)
        .map(|(storage, input)| input_view(kernel.name(), storage, input))
        .collect::<candle::Result<Vec<_>>>()?;
    let mut outputs = plan
        .outputs
        .iter()
        .map(|(dtype, shape)| Output::zeros(candle_device, *dtype, shape))
        .collect::<candle::Result<Vec<_>>>()?;
    let mut output_views = outputs
        .iter_mut()
        .map(Output::view_mut)
        .collect::<candle::Result<Vec<_>>>()?;
    launch(kernel, &device, &views, &mut output_views, scalars)?;
    drop(output_views);
    Ok(outputs
        .into_iter()
        .map(|output| output.into_storage(candle_device))
        .collect())
}

macro_rules! cuda_bridge {
    ($($candle:ident $tile:ident $ty:ty,)*) => {
        /// A view of `input`'s elements of `storage`, no copy.
        fn input_view<'a>(
            kernel: &str,
            storage: &'a CudaStorage,
            input: &InputPlan,
        ) -> candle::Result<InputView<'a>> {
            match &storage.slice {
                $(CudaStorageSlice::$candle(slice) => {
                    let Some(view) = slice.try_slice(input.start..input.end) else {
                        candle::bail!(
                            "kernel `{kernel}`: an input's layout (elements {}..{}) lies outside its storage of {} elements",
                            input.start,
                            input.end,
                            slice.len()
                        );
                    };
                    TensorView::from_cuda(view, &input.shape)
                        .map(InputView::$candle)
                        .map_err(candle::Error::wrap)
                })*
                _ => candle::bail!(
                    "kernel `{kernel}`: an input is {:?}, which tile-kernel has no element type for",
                    storage.dtype()
                ),
            }
        }

        /// An output allocated through candle's device.
        enum Output {
            $($candle(CudaSlice<$ty>, Vec<usize>),)*
        }

        impl Output {
            /// A zeroed output of `shape` (at least one element is
            /// allocated: cudarc refuses empty allocations).
            fn zeros(device: &CudaDevice, dtype: candle::DType, shape: &[usize]) -> candle::Result<Output> {
                let len = shape.iter().product::<usize>().max(1);
                match dtype {
                    $(candle::DType::$candle => Ok(Output::$candle(device.alloc_zeros::<$ty>(len)?, shape.to_vec())),)*
                    other => candle::bail!("{other:?} has no tile-kernel element type"),
                }
            }

            fn view_mut(&mut self) -> candle::Result<OutputView<'_>> {
                match self {
                    $(Output::$candle(slice, shape) => TensorViewMut::from_slice_mut(slice, &*shape)
                        .map(OutputView::$candle)
                        .map_err(candle::Error::wrap),)*
                }
            }

            fn into_storage(self, device: &CudaDevice) -> CudaStorage {
                match self {
                    $(Output::$candle(slice, _) => CudaStorage::wrap_cuda_slice(slice, device.clone()),)*
                }
            }
        }
    };
}
shared_types!(cuda_bridge);
