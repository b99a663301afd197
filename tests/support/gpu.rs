//! GPU test gate: skip with a printed reason where no CUDA driver is present,
//! fail instead when `TILE_KERNEL_REQUIRE_GPU=1`.

use tile_kernel::Device;

/// The device to test on, or `None` (after printing why) when tests should skip.
pub fn device(test: &str) -> Option<Device> {
    let required = std::env::var("TILE_KERNEL_REQUIRE_GPU").is_ok_and(|v| v == "1");
    match Device::new(0) {
        Ok(device) => Some(device),
        Err(error) if required => {
            panic!("{test}: TILE_KERNEL_REQUIRE_GPU=1 but no GPU is usable: {error}")
        }
        Err(error) => {
            println!("skipping {test}: {error}");
            None
        }
    }
}
