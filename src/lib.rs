//! tile-kernel: PTX-level GPU kernels in Rust.
