//! One launch of a kernel on tile-kernel views, on either kind of device:
//! the views and scalars are pushed in the kernel's parameter order through
//! the runtime's checked [`LaunchBuilder`](tile_kernel::runtime::LaunchBuilder),
//! so every check (dtype, shape, size symbols, device, alignment, the
//! target against the GPU's architecture) is the kernel launcher's own.

use tile_kernel::Device;
use tile_kernel::runtime::Kernel;
use tile_kernel::spec::{Borrow, ParamKindSpec};

use crate::dtype::{InputView, OutputView, Scalar};

/// Launches `kernel` on `device` with `inputs` for its read-only tensor
/// parameters, `outputs` for its written ones and `scalars` for its
/// scalar ones, each in parameter order. The caller planned the counts
/// (`plan::plan`); a mismatch is still an error, never a panic.
pub(crate) fn launch(
    kernel: &Kernel,
    device: &Device,
    inputs: &[InputView<'_>],
    outputs: &mut [OutputView<'_>],
    scalars: &[Scalar],
) -> candle::Result<()> {
    let spec = kernel.spec();
    let mut launch = kernel.launch(device).map_err(candle::Error::wrap)?;
    let mut inputs = inputs.iter();
    let mut outputs = outputs.iter_mut();
    let mut scalars = scalars.iter();
    for param in spec.params {
        let pushed = match param.kind {
            ParamKindSpec::Tensor {
                borrow: Borrow::Shared,
                ..
            } => inputs.next().map(|view| view.push(&mut launch)),
            ParamKindSpec::Tensor {
                borrow: Borrow::Exclusive,
                ..
            } => outputs.next().map(|view| view.push(&mut launch)),
            ParamKindSpec::Scalar { .. } => scalars.next().map(|value| value.push(&mut launch)),
        };
        match pushed {
            Some(result) => result.map_err(candle::Error::wrap)?,
            None => candle::bail!(
                "kernel `{}`: no argument for parameter `{}`",
                spec.name,
                param.name
            ),
        }
    }
    launch.run().map_err(candle::Error::wrap)
}
