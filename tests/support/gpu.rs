//! GPU test gate. GPU tests are `#[ignore]`d, so a machine without a GPU
//! reports them as ignored; `--include-ignored` runs them, and then a
//! missing GPU is a failure, never a silent pass.

use tile_kernel::Device;

/// GPU 0; panics (failing the test) where none is usable.
pub fn device(test: &str) -> Option<Device> {
    match Device::new(0) {
        Ok(device) => Some(device),
        Err(error) => panic!("{test}: needs a GPU, but none is usable: {error}"),
    }
}
