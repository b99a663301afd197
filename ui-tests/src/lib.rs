//! trybuild harness crate; see tests/.
