//! Helpers shared by the integration tests (`mod support;` in each file).
#![allow(dead_code)]

pub mod golden;
#[cfg(feature = "runtime")]
pub mod gpu;
pub use tile_kernel_testkit::ptxas;
