//! Devices for the semantic tests: the CPU interpreter in every run, the
//! GPU on request.
//!
//! A semantic test is a function `fn name(dev: &Device) -> Result<()>`;
//! [`on_both_devices!`] turns it into a test module `name` with two tests:
//!
//! - `name::on_cpu` runs it on the CPU interpreter ([`Device::cpu`]), which
//!   is meant to be bit-exact with the H200, so it runs everywhere (CI has
//!   no GPU) and a semantic regression fails there;
//! - `name::on_gpu` runs it on GPU 0. It is `#[ignore]`d, so a machine
//!   without a GPU reports it as ignored; `--include-ignored` runs it, and
//!   then a missing GPU is a failure, never a silent pass.
//!
//! Tests that only make sense on a GPU (timings, module loads, streams)
//! are plain `#[ignore]`d tests that open the GPU with [`device`].

use tile_kernel::Device;

/// GPU 0; panics (failing the test) where none is usable.
pub fn gpu(test: &str) -> Device {
    match Device::cuda(0) {
        Ok(device) => device,
        Err(error) => panic!("{test}: needs a GPU, but none is usable: {error}"),
    }
}

/// GPU 0 (never `None`); panics (failing the test) where none is usable.
pub fn device(test: &str) -> Option<Device> {
    Some(gpu(test))
}

/// `on_both_devices!(a, b, ..)`: for each `fn a(dev: &Device) ->
/// tile_kernel::Result<()>` in scope, a module `a` with the tests
/// `a::on_cpu` (on the CPU interpreter, always run) and `a::on_gpu` (on GPU
/// 0, ignored unless `--include-ignored`).
///
/// Attributes written before a name go on its CPU test only, e.g.
/// `#[ignore = "interpreter: <why>"] a` while the interpreter is known to
/// fail it (the GPU twin stays as it is).
// Not every test file that includes `support` uses it.
#[allow(unused_macros)]
macro_rules! on_both_devices {
    ($($(#[$cpu:meta])* $name:ident),+ $(,)?) => {$(
        mod $name {
            #[test]
            $(#[$cpu])*
            fn on_cpu() -> ::tile_kernel::Result<()> {
                super::$name(&::tile_kernel::Device::cpu())
            }

            #[test]
            #[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
            fn on_gpu() -> ::tile_kernel::Result<()> {
                super::$name(&crate::support::gpu::gpu(stringify!($name)))
            }
        }
    )+};
}
#[allow(unused_imports)]
pub(crate) use on_both_devices;
