//! Helpers shared by the integration tests (`mod support;` in each file).
#![allow(dead_code)]

pub mod golden;
pub mod gpu;
pub mod ptxas;
