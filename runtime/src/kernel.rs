//! The [`Kernel`] type: a [`KernelSpec`] written by the `#[tile_kernel]`
//! macro next to its PTX, with what is built from it once and kept for the
//! life of the process (the driver modules, one per context, in a
//! `module::ModuleCache`; the program prepared for the CPU interpreter).
//!
//! The trust boundary is [`Kernel::new`], an `unsafe fn`: whoever builds a
//! [`Kernel`] promises that its spec describes its PTX exactly and that the
//! PTX is memory-safe for every launch the launcher's checks accept. The
//! `#[tile_kernel]` compiler proves that for the code it emits; everything
//! after `new` is safe API. Guarantee: a kernel's CPU program is used only
//! once it was checked to describe the spec's kernel (`spec_check`), and
//! a [`LaunchBuilder`] starts only for a spec whose parameters fit its arrays.

use std::sync::OnceLock;

use cudarc::driver::CudaFunction;
use tile_kernel_interp::Prepared;

use crate::launch::LaunchBuilder;
use crate::module::{LoadedFunction, ModuleCache};
use crate::spec::KernelSpec;
use crate::spec_check::{check_param_counts, matches_spec};
use crate::{Device, Error, Result};

/// A [`KernelSpec`] plus the driver modules loaded for it, one per context,
/// and its IR prepared for the CPU interpreter.
///
/// Generated code keeps one `Kernel` per kernel in a `static`, so the PTX is
/// JIT-compiled by the driver once per context for the life of the process.
/// Likewise the spec's `program` is decoded and prepared for the
/// interpreter once, at the first launch on a CPU device.
pub struct Kernel {
    spec: KernelSpec,
    /// The function loaded in each context the kernel ran in.
    modules: ModuleCache,
    /// The program for the CPU interpreter, or why there is none (the spec
    /// is static data, so the answer never changes).
    prepared: OnceLock<std::result::Result<Prepared, CpuUnavailable>>,
}

/// Why a kernel cannot run on the CPU interpreter.
#[derive(Debug, Clone)]
enum CpuUnavailable {
    /// The spec's `program` is empty.
    NoProgram,
    /// It does not decode, does not match the spec, or does not prepare.
    Bad(String),
}

impl Kernel {
    /// Wraps a spec. `const` so generated code can put the kernel in a `static`.
    ///
    /// # Safety
    ///
    /// Launches trust the spec completely, so the caller must guarantee:
    ///
    /// - **The spec describes its PTX exactly.** `spec.ptx` has an
    ///   `.entry spec.name` whose parameters are, in order: one per
    ///   `spec.params` entry (a `.u64` global address for a tensor, the
    ///   dtype's PTX type for a scalar), then one `.u64` per
    ///   `spec.symbols` entry, in symbol order, receiving that symbol's
    ///   value divided by its `divisor`, then one 64-byte aligned
    ///   128-byte parameter per `spec.tensor_maps` entry, receiving the
    ///   tensor map the launcher encodes for it (its tensor argument's
    ///   address and shape, the entry's box), which the PTX uses only as
    ///   the tensor map of tensor copies of that tensor. `shared_mem_bytes` evaluates, for
    ///   every launch the checks accept, to at least the bytes of dynamic
    ///   shared memory the PTX accesses.
    /// - **The PTX is memory-safe for every launch the checks accept**: for
    ///   all tensors whose dtypes and shapes match the params (constant dims
    ///   equal, symbolic dims consistent with one value per symbol), for all
    ///   symbol values at most [`MAX_SYMBOL_VALUE`](crate::spec::MAX_SYMBOL_VALUE)
    ///   that are multiples of their `divisor` and `multiple_of`, with the
    ///   grid computed from `spec.grid`, the block `spec.block`, and the
    ///   base address of every non-empty tensor 16-byte aligned (an empty
    ///   tensor may start anywhere), every memory access stays in
    ///   bounds, is aligned, writes only tensors declared
    ///   [`Borrow::Exclusive`](crate::spec::Borrow::Exclusive), and no two
    ///   threads race on one location.
    ///
    /// The `#[tile_kernel]` compiler proves both for the spec and PTX it
    /// emits from one kernel definition; a hand-written spec must be argued
    /// the same way. `spec.program` needs no promise: launches on the CPU
    /// device check it against the spec, and the interpreter checks every
    /// access it makes.
    pub const unsafe fn new(spec: KernelSpec) -> Kernel {
        Kernel {
            spec,
            modules: ModuleCache::new(),
            prepared: OnceLock::new(),
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
        self.modules.load_count()
    }

    /// The kernel's function in `device`'s context, loading the module on
    /// first use there ([`Error::NotOnGpu`] on the CPU device).
    ///
    /// A failed load is reported as [`Error::ModuleLoad`] and not cached: the
    /// next call tries again.
    pub fn function(&self, device: &Device) -> Result<&CudaFunction> {
        self.loaded(device).map(|loaded| &loaded.function)
    }

    /// [`function`](Self::function) with what was learned loading it.
    pub(crate) fn loaded(&self, device: &Device) -> Result<&LoadedFunction> {
        self.modules.get(&self.spec, device)
    }

    /// The kernel's program, decoded from the spec and prepared for the
    /// CPU interpreter on first use: [`Error::NoProgram`] when the spec has
    /// none, [`Error::BadProgram`] when it does not decode, does not
    /// describe the spec's kernel, or the interpreter refuses it.
    pub fn prepared(&self) -> Result<&Prepared> {
        match self.prepared.get_or_init(|| prepare(&self.spec)) {
            Ok(prepared) => Ok(prepared),
            Err(CpuUnavailable::NoProgram) => Err(Error::NoProgram {
                kernel: self.spec.name,
            }),
            Err(CpuUnavailable::Bad(detail)) => Err(Error::BadProgram {
                kernel: self.spec.name,
                detail: detail.clone(),
            }),
        }
    }

    /// Starts a launch on `device`: push every argument in parameter order,
    /// then [`run`](LaunchBuilder::run).
    ///
    /// On a CUDA device this loads the module into the device's context on
    /// first use; on the CPU device it prepares the kernel's program
    /// ([`prepared`](Self::prepared)).
    pub fn launch<'a>(&'a self, device: &'a Device) -> Result<LaunchBuilder<'a>> {
        check_param_counts(&self.spec)?;
        LaunchBuilder::new(self, device)
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

/// Decodes `spec.program` and prepares it for the CPU interpreter, after
/// checking that it describes the spec's kernel ([`matches_spec`]).
fn prepare(spec: &KernelSpec) -> std::result::Result<Prepared, CpuUnavailable> {
    if spec.program.is_empty() {
        return Err(CpuUnavailable::NoProgram);
    }
    let program = tile_kernel_lowering::encoding::decode(spec.program)
        .map_err(|e| CpuUnavailable::Bad(format!("its IR does not decode: {e}")))?;
    matches_spec(spec, &program).map_err(|why| {
        CpuUnavailable::Bad(format!(
            "its IR does not describe the kernel of its spec: {why}"
        ))
    })?;
    Prepared::new(program).map_err(|e| CpuUnavailable::Bad(e.message))
}

#[cfg(test)]
mod tests {
    use crate::test_specs::K;

    #[test]
    fn kernel_is_const_constructible_and_starts_unloaded() {
        assert_eq!(K.name(), "k");
        assert!(K.ptx().starts_with(".version 7.8"));
        assert_eq!(K.spec().params.len(), 3);
        assert_eq!(K.load_count(), 0);
    }
}
