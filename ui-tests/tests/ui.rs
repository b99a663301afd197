//! trybuild UI cases for `#[tile_kernel]`: one compile-fail case per legality
//! rule of SPEC §4 (plus syntax errors), each with its committed `.stderr`, and
//! pass cases whose `main` checks the generated PTX (no GPU needed).
//!
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test -p tile-kernel-ui-tests`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile-fail/*.rs");
    t.pass("tests/pass/*.rs");
}
