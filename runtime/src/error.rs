//! The one error type of the runtime: every failure a user can reach comes back
//! as an [`Error`], never as a panic.

use std::fmt;

use cudarc::driver::DriverError;
use tile_kernel_lowering::DType;

/// Everything that can go wrong between the host and the GPU.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `libcuda` could not be loaded. Checked before any cudarc call, because
    /// cudarc panics rather than fails when the driver library is missing.
    #[error(
        "no CUDA driver found (libcuda could not be loaded), so GPU work is unavailable on this machine"
    )]
    NoDriver,

    /// The driver is present but has no device with this ordinal.
    #[error("no CUDA device with ordinal {ordinal}: the driver reports {count} device(s)")]
    NoDevice { ordinal: usize, count: usize },

    /// A driver call failed; `during` says what the runtime was doing.
    #[error("CUDA driver error while {during}: {}", DriverMessage(source))]
    Driver {
        during: &'static str,
        source: DriverError,
    },

    /// The driver refused a kernel's PTX. `log` is the driver JIT's error log,
    /// `ptx` the full text that was handed to it.
    #[error(
        "kernel `{kernel}`: the CUDA driver could not load its PTX: {}\nJIT error log:\n{log}\nPTX:\n{ptx}",
        DriverMessage(source)
    )]
    ModuleLoad {
        kernel: &'static str,
        source: DriverError,
        log: String,
        ptx: &'static str,
    },

    /// A tensor's shape cannot be the shape the kernel was compiled for: a
    /// wrong rank, a wrong constant dim, or an extent that no value of its
    /// size symbol gives (an odd extent for `{2 * N}`, 0 for `{N + 1}`).
    /// `expected` is the shape as the kernel's signature spells it, e.g.
    /// `[4, 2]`, `[N, 2]` or `[{N / 2}]`.
    #[error(
        "kernel `{kernel}`: argument `{param}` has shape {actual:?}, but the kernel was compiled for shape {expected}"
    )]
    ShapeMismatch {
        kernel: &'static str,
        param: &'static str,
        expected: String,
        actual: Vec<usize>,
    },

    /// Two tensor arguments (or two dims of one) imply different values of
    /// one size symbol. `param` (whose shape is `shape`) implies `actual`;
    /// `bound_by`, an earlier parameter, bound `expected`.
    #[error(
        "kernel `{kernel}`: argument `{param}` has {symbol} = {actual} (from its shape {shape:?}), but `{bound_by}` bound {symbol} = {expected}"
    )]
    SymbolMismatch {
        kernel: &'static str,
        symbol: &'static str,
        param: &'static str,
        shape: Vec<usize>,
        bound_by: &'static str,
        expected: u64,
        actual: u64,
    },

    /// A size symbol's value breaks a launch-time requirement: above
    /// [`MAX_SYMBOL_VALUE`](crate::MAX_SYMBOL_VALUE), not a multiple of a
    /// `{N / d}` divisor, or not the multiple the kernel's aligned vector
    /// accesses need. `detail` continues the sentence `SYMBOL = VALUE ...`.
    /// `value` is exact even where it does not fit in 64 bits (a `{N / 4}`
    /// dim near `usize::MAX`).
    #[error("kernel `{kernel}`: {symbol} = {value} {detail}")]
    SymbolRequirement {
        kernel: &'static str,
        symbol: &'static str,
        value: u128,
        detail: String,
    },

    /// The grid size computed from the size symbols has no value (a
    /// subtraction below zero, an overflow, a division by zero) or exceeds
    /// CUDA's limits (x at most 2^31 - 1, y and z at most 65535).
    #[error("kernel `{kernel}`: invalid launch size: {detail}")]
    LaunchSize {
        kernel: &'static str,
        detail: String,
    },

    /// An argument's element type differs from the kernel's parameter type.
    #[error(
        "kernel `{kernel}`: argument `{param}` has element type {actual}, but the kernel expects {expected}"
    )]
    DTypeMismatch {
        kernel: &'static str,
        param: &'static str,
        expected: DType,
        actual: DType,
    },

    /// A tensor was allocated in another CUDA context (another device) than
    /// the one the kernel is launched on.
    #[error(
        "kernel `{kernel}`: tensor `{param}` was allocated on another device (CUDA context) than the one launching the kernel"
    )]
    WrongContext {
        kernel: &'static str,
        param: &'static str,
    },

    /// The launcher protocol was misused: wrong number or kind of arguments.
    /// Generated launchers never hit this; hand-written calls to
    /// [`Launch`](crate::Launch) can.
    #[error("kernel `{kernel}`: {detail}")]
    ArgumentMismatch {
        kernel: &'static str,
        detail: String,
    },

    /// A host slice's length is not the element count of the requested shape.
    #[error("host data has {actual} elements, but shape {shape:?} holds {expected}")]
    LengthMismatch {
        shape: Vec<usize>,
        expected: usize,
        actual: usize,
    },

    /// The shape's element count, or its size in bytes, overflows `usize`.
    #[error("a tensor of shape {shape:?} with element type {dtype} is too large to address")]
    TooLarge { shape: Vec<usize>, dtype: DType },

    /// One kernel was loaded into more CUDA contexts than its cache has slots.
    #[error("kernel `{kernel}` is already loaded in {limit} CUDA contexts, the most it can cache")]
    TooManyContexts { kernel: &'static str, limit: usize },
}

impl Error {
    /// Wraps a driver error with what the runtime was doing.
    pub(crate) fn driver(during: &'static str) -> impl FnOnce(DriverError) -> Error {
        move |source| Error::Driver { during, source }
    }
}

/// Displays a [`DriverError`] without calling into a missing driver: cudarc's
/// own `Display` asks `libcuda` for the message and panics when it is absent.
struct DriverMessage<'a>(&'a DriverError);

impl fmt::Display for DriverMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.0.0;
        let description = if crate::driver_available() {
            self.0.error_string().ok()
        } else {
            None
        };
        match description {
            Some(text) => write!(f, "{code:?} ({})", text.to_string_lossy()),
            None => write!(f, "{code:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_driver_says_gpu_work_is_unavailable() {
        assert_eq!(
            Error::NoDriver.to_string(),
            "no CUDA driver found (libcuda could not be loaded), so GPU work is unavailable on this machine"
        );
    }

    #[test]
    fn no_device_names_ordinal_and_count() {
        let err = Error::NoDevice {
            ordinal: 3,
            count: 1,
        };
        assert_eq!(
            err.to_string(),
            "no CUDA device with ordinal 3: the driver reports 1 device(s)"
        );
    }

    #[test]
    fn shape_mismatch_names_kernel_param_and_both_shapes() {
        let err = Error::ShapeMismatch {
            kernel: "add",
            param: "x",
            expected: "[4, 2]".into(),
            actual: vec![2, 4],
        };
        assert_eq!(
            err.to_string(),
            "kernel `add`: argument `x` has shape [2, 4], but the kernel was compiled for shape [4, 2]"
        );
        let err = Error::ShapeMismatch {
            kernel: "add",
            param: "x",
            expected: "[N, 2]".into(),
            actual: vec![7],
        };
        assert_eq!(
            err.to_string(),
            "kernel `add`: argument `x` has shape [7], but the kernel was compiled for shape [N, 2]"
        );
    }

    #[test]
    fn symbol_errors_name_kernel_symbol_params_and_values() {
        let err = Error::SymbolMismatch {
            kernel: "k",
            symbol: "N",
            param: "y",
            shape: vec![7],
            bound_by: "x",
            expected: 8,
            actual: 7,
        };
        assert_eq!(
            err.to_string(),
            "kernel `k`: argument `y` has N = 7 (from its shape [7]), but `x` bound N = 8"
        );
        let err = Error::SymbolRequirement {
            kernel: "k",
            symbol: "N",
            value: 7,
            detail: "must be a multiple of 2 (`{N / 2}` in the shape of `y`)".into(),
        };
        assert_eq!(
            err.to_string(),
            "kernel `k`: N = 7 must be a multiple of 2 (`{N / 2}` in the shape of `y`)"
        );
        let err = Error::LaunchSize {
            kernel: "k",
            detail: "grid x is `N - 1`, which goes below zero (N = 0)".into(),
        };
        assert_eq!(
            err.to_string(),
            "kernel `k`: invalid launch size: grid x is `N - 1`, which goes below zero (N = 0)"
        );
    }

    #[test]
    fn dtype_mismatch_uses_rust_type_names() {
        let err = Error::DTypeMismatch {
            kernel: "add",
            param: "y",
            expected: DType::F32,
            actual: DType::Bf16,
        };
        assert_eq!(
            err.to_string(),
            "kernel `add`: argument `y` has element type bf16, but the kernel expects f32"
        );
    }

    #[test]
    fn length_mismatch_names_shape_and_counts() {
        let err = Error::LengthMismatch {
            shape: vec![4, 2],
            expected: 8,
            actual: 7,
        };
        assert_eq!(
            err.to_string(),
            "host data has 7 elements, but shape [4, 2] holds 8"
        );
    }

    #[test]
    fn wrong_context_and_argument_mismatch_name_the_kernel() {
        let err = Error::WrongContext {
            kernel: "add",
            param: "x",
        };
        assert_eq!(
            err.to_string(),
            "kernel `add`: tensor `x` was allocated on another device (CUDA context) than the one launching the kernel"
        );
        let err = Error::ArgumentMismatch {
            kernel: "add",
            detail: "the kernel takes 3 arguments, but more were passed".into(),
        };
        assert_eq!(
            err.to_string(),
            "kernel `add`: the kernel takes 3 arguments, but more were passed"
        );
    }

    /// Formatting a driver error must not call into a missing driver (cudarc's
    /// own `Display` would panic there); the code name is always shown.
    #[test]
    fn module_load_shows_kernel_code_log_and_ptx() {
        let err = Error::ModuleLoad {
            kernel: "add",
            source: DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_PTX),
            log: "ptxas fatal: syntax error".into(),
            ptx: ".version 7.8\nbogus",
        };
        let text = err.to_string();
        assert!(
            text.starts_with(
                "kernel `add`: the CUDA driver could not load its PTX: CUDA_ERROR_INVALID_PTX"
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "\nJIT error log:\nptxas fatal: syntax error\nPTX:\n.version 7.8\nbogus"
            ),
            "{text}"
        );
        assert!(std::error::Error::source(&err).is_some());
    }
}
