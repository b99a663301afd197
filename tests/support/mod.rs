//! Helpers shared by the integration tests (`mod support;` in each file).
#![allow(dead_code)]

pub mod golden;
#[cfg(feature = "runtime")]
pub mod gpu;
pub use tile_kernel_testkit::ptxas;

/// `n` deterministic values in [-128, 128) from `seed` (xorshift64).
pub fn xorshift_inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 16) as f32 - 128.0
        })
        .collect()
}

/// The PTX lines that start with `fragment` (after indentation).
pub fn lines_starting<'a>(ptx: &'a str, fragment: &str) -> Vec<&'a str> {
    ptx.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(fragment))
        .collect()
}

/// Each `(name, ptx)` assembles for sm_90 with the pinned ptxas, reports its
/// register use, and spills nothing.
pub fn assert_no_spills(kernels: &[(&str, &str)]) {
    for (name, ptx) in kernels {
        let report = ptxas::resource_usage(ptx, "sm_90");
        assert!(
            report.contains("0 bytes spill stores, 0 bytes spill loads"),
            "{name} spills:\n{report}"
        );
        assert!(
            report.contains("Used "),
            "{name}: no usage line in\n{report}"
        );
    }
}
