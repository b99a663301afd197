//! The one error type of the runtime: every failure a user can reach comes back
//! as an [`Error`], never as a panic.

use std::fmt;

use cudarc::driver::DriverError;
use tile_kernel_lowering::DType;

/// Everything that can go wrong between the host and the GPU (or the CPU
/// interpreter device).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `libcuda` could not be loaded, by [`Device::cuda`](crate::Device::cuda)
    /// or by [`Device::new`](crate::Device::new) with `TILE_KERNEL_DEVICE=gpu`
    /// (otherwise `Device::new` falls back to the CPU interpreter). Checked
    /// before any cudarc call, because cudarc panics rather than fails when
    /// the driver library is missing.
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
    ///
    /// `Display` shows the kernel, the driver's error code, the log, and a
    /// bounded excerpt of the PTX: its first 40 lines (each cut at 200
    /// characters), the lines around the first `line N` the log names if
    /// that is further down, and a count of the lines left out. The full
    /// text stays in the `ptx` field.
    #[error(
        "kernel `{kernel}`: the CUDA driver could not load its PTX: {}\nJIT error log:\n{log}\n{}",
        DriverMessage(source),
        PtxExcerpt { ptx, log }
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
    /// [`MAX_SYMBOL_VALUE`](crate::spec::MAX_SYMBOL_VALUE), not a multiple of a
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
    /// subtraction below zero, an overflow, a division by zero), exceeds
    /// CUDA's limits (x at most 2^31 - 1, y and z at most 65535), or is not
    /// a whole number of the kernel's clusters along an axis.
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
    /// [`LaunchBuilder`](crate::LaunchBuilder) can.
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

    /// The kernel's PTX targets an architecture the device cannot run: PTX
    /// for `sm_XY` loads on compute capability X.Y and newer, PTX for an
    /// arch-specific `sm_XYa` only on exactly X.Y. Checked before the module
    /// is handed to the driver. `target` is the kernel's (`"sm_100"`),
    /// `device` the GPU's (`"sm_90"`).
    #[error(
        "kernel `{kernel}` is compiled for {target}, which this GPU ({device}) cannot run: PTX runs on the architecture it targets and newer ones (an arch-specific `a` target only on exactly its own); compile it with `arch = \"{device}\"` or an older target"
    )]
    ArchMismatch {
        kernel: &'static str,
        target: String,
        device: String,
    },

    /// A non-empty tensor argument does not start at a 16-byte aligned
    /// device address.
    /// The kernel's vector accesses (up to 16 bytes at offsets the compiler
    /// proved multiples of their size) assume that it does. Whole tensors
    /// always are; a view is when its start offset in bytes is a multiple
    /// of 16. Nothing is launched. On the CPU device, `address` is the
    /// view's byte offset in its tensor's host memory, whose start counts
    /// as aligned (as a GPU allocation's does): the same views are accepted
    /// on both.
    #[error(
        "kernel `{kernel}`: tensor `{param}` starts at device address {address:#x}, which is not 16-byte aligned; the kernel's vector accesses assume it is (a view's start offset in bytes must be a multiple of 16)"
    )]
    Misaligned {
        kernel: &'static str,
        param: &'static str,
        address: u64,
    },

    /// A range of rows is not inside the leading axis of a tensor or view
    /// (or the tensor has no axis to slice).
    #[error(
        "rows {start}..{end} are out of range for a tensor of shape {shape:?} (slicing takes rows of the leading axis)"
    )]
    SliceOutOfRange {
        shape: Vec<usize>,
        start: usize,
        end: usize,
    },

    /// A reshape to a shape with another element count.
    #[error(
        "cannot reshape shape {from:?} ({from_len} elements) into shape {to:?} ({to_len} elements): the element count must stay the same"
    )]
    ReshapeMismatch {
        from: Vec<usize>,
        from_len: usize,
        to: Vec<usize>,
        to_len: usize,
    },

    /// A cudarc view is too short for the shape a tensor view is to have.
    #[error("shape {shape:?} needs {needed} elements, but the cudarc view holds only {available}")]
    ViewTooSmall {
        shape: Vec<usize>,
        needed: usize,
        available: usize,
    },

    /// Two things that must share a CUDA context (a device) do not: a
    /// stream given to [`Device::with_stream`](crate::Device::with_stream),
    /// or a tensor or pinned buffer of an asynchronous copy and the device
    /// whose stream queues it.
    #[error("{what} belongs to another CUDA context (device) than {other}")]
    ContextMismatch {
        what: &'static str,
        other: &'static str,
    },

    /// One kernel was loaded into more CUDA contexts than its cache has slots.
    #[error("kernel `{kernel}` is already loaded in {limit} CUDA contexts, the most it can cache")]
    TooManyContexts { kernel: &'static str, limit: usize },

    /// A CUDA-only operation on the CPU interpreter device or one of its
    /// tensors: the cudarc context, stream or memory behind it, streams,
    /// pinned buffers and asynchronous copies, a compute capability, or a
    /// module load. `what` names the operation.
    #[error(
        "{what} needs a CUDA device, but this is the CPU interpreter device (tensors in host memory)"
    )]
    NotOnGpu { what: &'static str },

    /// The CPU interpreter is one device, with ordinal 0: `Device::new`
    /// chose it (no CUDA driver, or `TILE_KERNEL_DEVICE=cpu`) for another
    /// ordinal.
    #[error(
        "no device with ordinal {ordinal}: kernels run on the CPU interpreter here, which is one device (ordinal 0)"
    )]
    NoCpuDevice { ordinal: usize },

    /// The environment variable `TILE_KERNEL_DEVICE` has a value
    /// `Device::new` does not know (it takes `cpu`, `gpu` or `auto`).
    #[error(
        "TILE_KERNEL_DEVICE is `{value}`, but it must be `cpu` (the CPU interpreter), `gpu` (CUDA) or `auto` (CUDA when a driver is present)"
    )]
    DeviceSetting { value: String },

    /// A tensor of one kind of device was passed to a launch on the other:
    /// a CPU-device tensor (host memory) to a kernel launched on a CUDA
    /// device, or a GPU tensor to one launched on the CPU interpreter.
    #[error(
        "kernel `{kernel}`: tensor `{param}` is in {memory}, but the kernel is launched on {device}"
    )]
    WrongDevice {
        kernel: &'static str,
        param: &'static str,
        memory: &'static str,
        device: &'static str,
    },

    /// The kernel's spec has no IR for the CPU interpreter (its `program`
    /// is empty, as in a hand-built spec), so it cannot run on a CPU device.
    #[error(
        "kernel `{kernel}` has no IR for the CPU interpreter (its spec's `program` is empty, as in a hand-built spec), so it cannot run on the CPU device"
    )]
    NoProgram { kernel: &'static str },

    /// The kernel's IR cannot run on the CPU interpreter: it does not
    /// decode (built by another tile-kernel version, or corrupt), does not
    /// describe the same kernel as the spec, or the interpreter cannot
    /// prepare it.
    #[error("kernel `{kernel}` cannot run on the CPU interpreter: {detail}")]
    BadProgram {
        kernel: &'static str,
        detail: String,
    },

    /// The CPU interpreter stopped a kernel: an access out of bounds or
    /// misaligned, a race, a read of an undefined register, ... (the
    /// fault names the statement and the thread). Boxed to keep `Error`
    /// small.
    #[error("the CPU interpreter stopped the launch: {0}")]
    Interpreter(Box<tile_kernel_interp::Fault>),

    /// The host allocator refused the memory of a CPU-device tensor.
    #[error("could not allocate {bytes} bytes of host memory for a CPU-device tensor")]
    HostAllocation { bytes: usize },
}

impl Error {
    /// Wraps a driver error with what the runtime was doing.
    pub(crate) fn driver(during: &'static str) -> impl FnOnce(DriverError) -> Error {
        move |source| Error::Driver { during, source }
    }
}

/// How many leading lines of the PTX a [`Error::ModuleLoad`] message shows.
const PTX_EXCERPT_LINES: usize = 40;

/// How many characters of one PTX line a [`Error::ModuleLoad`] message shows.
const PTX_EXCERPT_LINE_CHARS: usize = 200;

/// How many lines on each side of the line the JIT log names are shown.
const PTX_CONTEXT_LINES: usize = 3;

/// The bounded PTX excerpt of [`Error::ModuleLoad`]'s message.
struct PtxExcerpt<'a> {
    ptx: &'a str,
    log: &'a str,
}

/// The first `line N` (1-based) the JIT log names, as ptxas writes it:
/// `ptxas application ptx input, line 9; error   : ...`.
fn first_log_line(log: &str) -> Option<usize> {
    log.match_indices("line ").find_map(|(at, word)| {
        let digits = &log[at + word.len()..];
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        digits[..end].parse().ok().filter(|&n| n > 0)
    })
}

/// Writes one PTX line, cut at [`PTX_EXCERPT_LINE_CHARS`] characters.
fn write_line(f: &mut fmt::Formatter<'_>, line: &str) -> fmt::Result {
    match line.char_indices().nth(PTX_EXCERPT_LINE_CHARS) {
        None => writeln!(f, "{line}"),
        Some((cut, _)) => writeln!(
            f,
            "{} ... ({} more characters)",
            &line[..cut],
            line[cut..].chars().count()
        ),
    }
}

impl fmt::Display for PtxExcerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.ptx.lines().count();
        let long_line = self
            .ptx
            .lines()
            .any(|line| line.chars().nth(PTX_EXCERPT_LINE_CHARS).is_some());
        if total <= PTX_EXCERPT_LINES && !long_line {
            return write!(f, "PTX:\n{}", self.ptx);
        }
        let head = total.min(PTX_EXCERPT_LINES);
        writeln!(f, "PTX (lines 1-{head} of {total}):")?;
        for line in self.ptx.lines().take(head) {
            write_line(f, line)?;
        }
        // The last line shown so far (1-based).
        let mut end = head;
        // The lines around the error the log points at, if not shown yet.
        if let Some(named) = first_log_line(self.log).filter(|&n| n > head && n <= total) {
            let first = named.saturating_sub(PTX_CONTEXT_LINES).max(head + 1);
            let last = (named + PTX_CONTEXT_LINES).min(total);
            if first > head + 1 {
                writeln!(f, "... {} lines omitted", first - head - 1)?;
            }
            writeln!(
                f,
                "PTX lines {first}-{last} (around line {named}, named in the JIT log):"
            )?;
            for line in self.ptx.lines().skip(first - 1).take(last + 1 - first) {
                write_line(f, line)?;
            }
            end = last;
        }
        if end < total {
            write!(
                f,
                "... {} more lines (the full PTX is in the `ptx` field)",
                total - end
            )
        } else {
            write!(f, "(the full PTX is in the `ptx` field)")
        }
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

    fn module_load(ptx: &'static str, log: &str) -> Error {
        Error::ModuleLoad {
            kernel: "big",
            source: DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_PTX),
            log: log.into(),
            ptx,
        }
    }

    /// The text after the JIT log: the PTX part of the message.
    fn ptx_part(err: &Error) -> String {
        let text = err.to_string();
        let at = text.find("\nJIT error log:\n").expect("log header");
        let rest = &text[at + "\nJIT error log:\n".len()..];
        let log_end = rest.find("\nPTX").expect("PTX header");
        rest[log_end + 1..].to_owned()
    }

    /// A 10,000-line PTX: the message shows 40 lines, the lines around the
    /// one the log names, and counts the rest; the field keeps all of it.
    #[test]
    fn module_load_shows_a_bounded_ptx_excerpt() {
        let lines: Vec<String> = (1..=10_000)
            .map(|i| format!("\tmov.u32 %r{i}, {i};"))
            .collect();
        let ptx: &'static str = lines.join("\n").leak();
        let err = module_load(
            ptx,
            "ptxas application ptx input, line 5000; error   : Unknown symbol 'x'",
        );
        let mut want = String::from("PTX (lines 1-40 of 10000):\n");
        for i in 1..=40 {
            want += &format!("\tmov.u32 %r{i}, {i};\n");
        }
        want += "... 4956 lines omitted\n";
        want += "PTX lines 4997-5003 (around line 5000, named in the JIT log):\n";
        for i in 4997..=5003 {
            want += &format!("\tmov.u32 %r{i}, {i};\n");
        }
        want += "... 4997 more lines (the full PTX is in the `ptx` field)";
        assert_eq!(ptx_part(&err), want);
        assert!(err.to_string().len() < 2_000, "{}", err.to_string().len());
        match &err {
            Error::ModuleLoad { ptx: full, .. } => assert_eq!(full.lines().count(), 10_000),
            other => panic!("{other:?}"),
        }

        // Without a line in the log: the head and a count.
        let err = module_load(ptx, "(the driver JIT wrote no error log)");
        let part = ptx_part(&err);
        assert!(
            part.starts_with("PTX (lines 1-40 of 10000):\n\tmov.u32 %r1, 1;\n"),
            "{part}"
        );
        assert!(
            part.ends_with(
                "\tmov.u32 %r40, 40;\n... 9960 more lines (the full PTX is in the `ptx` field)"
            ),
            "{part}"
        );
        // A line the head already shows adds nothing.
        let err = module_load(ptx, "ptxas application ptx input, line 12; error");
        assert_eq!(ptx_part(&err), part);
        // The named line near the end: the window stops at the last line.
        let err = module_load(ptx, "line 9999; error");
        assert!(
            ptx_part(&err).ends_with(
                "PTX lines 9996-10000 (around line 9999, named in the JIT log):\n\tmov.u32 %r9996, 9996;\n\tmov.u32 %r9997, 9997;\n\tmov.u32 %r9998, 9998;\n\tmov.u32 %r9999, 9999;\n\tmov.u32 %r10000, 10000;\n(the full PTX is in the `ptx` field)"
            ),
            "{}",
            ptx_part(&err)
        );
    }

    /// A few huge lines are cut too: the message stays small.
    #[test]
    fn module_load_cuts_long_ptx_lines() {
        let ptx: &'static str = format!(".version 7.8\n{}\nret;", "x".repeat(1_000_000)).leak();
        let err = module_load(ptx, "");
        let part = ptx_part(&err);
        assert_eq!(
            part,
            format!(
                "PTX (lines 1-3 of 3):\n.version 7.8\n{} ... (999800 more characters)\nret;\n(the full PTX is in the `ptx` field)",
                "x".repeat(200)
            )
        );
    }

    #[test]
    fn the_first_line_number_of_a_jit_log_is_found() {
        assert_eq!(
            first_log_line("ptxas application ptx input, line 9; error   : Unknown"),
            Some(9)
        );
        assert_eq!(first_log_line("no number: line x, then line 12;"), Some(12));
        assert_eq!(first_log_line("nothing"), None);
        assert_eq!(first_log_line("line 0"), None);
    }

    #[test]
    fn new_variants_name_what_went_wrong() {
        assert_eq!(
            Error::ContextMismatch {
                what: "the pinned host buffer",
                other: "the device whose stream queues the copy"
            }
            .to_string(),
            "the pinned host buffer belongs to another CUDA context (device) than the device whose stream queues the copy"
        );
        assert_eq!(
            Error::ViewTooSmall {
                shape: vec![2, 8],
                needed: 16,
                available: 15
            }
            .to_string(),
            "shape [2, 8] needs 16 elements, but the cudarc view holds only 15"
        );
    }

    #[test]
    fn cpu_device_errors_name_what_went_wrong() {
        assert_eq!(
            Error::NotOnGpu {
                what: "`DeviceTensor::cuda_slice`"
            }
            .to_string(),
            "`DeviceTensor::cuda_slice` needs a CUDA device, but this is the CPU interpreter device (tensors in host memory)"
        );
        assert_eq!(
            Error::WrongDevice {
                kernel: "k",
                param: "x",
                memory: "host memory (a CPU-device tensor)",
                device: "a CUDA device",
            }
            .to_string(),
            "kernel `k`: tensor `x` is in host memory (a CPU-device tensor), but the kernel is launched on a CUDA device"
        );
        assert_eq!(
            Error::DeviceSetting {
                value: "tpu".into()
            }
            .to_string(),
            "TILE_KERNEL_DEVICE is `tpu`, but it must be `cpu` (the CPU interpreter), `gpu` (CUDA) or `auto` (CUDA when a driver is present)"
        );
        let fault = tile_kernel_interp::Fault {
            kernel: "k".into(),
            statement: Some((2, "st.global.b32".into())),
            thread: Some(tile_kernel_interp::ThreadId {
                cta: [1, 0, 0],
                thread: [3, 0, 0],
            }),
            kind: tile_kernel_interp::FaultKind::ReadOnlyWrite { param: "x".into() },
        };
        let shown = format!("the CPU interpreter stopped the launch: {fault}");
        assert_eq!(Error::Interpreter(Box::new(fault)).to_string(), shown);
        assert!(size_of::<Error>() <= 128, "{}", size_of::<Error>());
    }
}
