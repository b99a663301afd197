//! trybuild UI cases for `#[tile_kernel]`: one compile-fail case per legality
//! rule of SPEC §4 (`ruleNN_*`, plus syntax errors) and per rule of SPEC §6
//! (`scale_*`: bounds, views, alignment, races, order independence, control
//! flow, symbols, register budget), each with its committed `.stderr`, and
//! pass cases whose `main` checks the generated PTX (no GPU needed).
//!
//! Every error code of `docs/errors.md` has at least one case that reports
//! that code alone (`syntax_*`, `signature_*`, `name_*`, `tile_*`, `view_*`,
//! `value_*`, `launch_*`, `scope_*` (scopes and warp collectives),
//! `shared_*` (shared memory) and the rule cases); `catalogue.rs` checks it.
//!
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test -p tile-kernel-ui-tests`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile-fail/*.rs");
    t.pass("tests/pass/*.rs");
}
