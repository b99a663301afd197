//! TODO: soft-float core.
