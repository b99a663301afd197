//! `docs/ptx-table.md` is generated from the table; this keeps it current.
//! `TILE_KERNEL_BLESS=1` rewrites it after a table change.

use tile_kernel_lowering::ptx::docs::table_reference;
use tile_kernel_lowering::ptx::{Packing, table::FORMS};

#[test]
fn docs_ptx_table_matches_the_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ptx-table.md");
    let text = table_reference();
    if std::env::var("TILE_KERNEL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).expect("write docs/ptx-table.md");
    }
    let committed = std::fs::read_to_string(&path).expect("read docs/ptx-table.md");
    assert!(
        committed == text,
        "docs/ptx-table.md is stale: rerun with TILE_KERNEL_BLESS=1 and review the diff"
    );
}

#[test]
fn packing_order_is_recorded_per_form() {
    let packing = |id: &str| FORMS.iter().find(|f| f.id == id).map(|f| f.packing);
    assert_eq!(
        packing("cvt.half-pair-from-f32"),
        Some(Packing::FirstSourceHigh)
    );
    assert_eq!(
        packing("cvt.fp8-pair-from-f32"),
        Some(Packing::FirstSourceHigh)
    );
    assert_eq!(packing("cvt.fp8-pair-from-f16x2"), Some(Packing::InPlace));
    assert_eq!(packing("mov.pack2"), Some(Packing::FirstLaneLow));
    assert_eq!(packing("mov.unpack4-split"), Some(Packing::FirstLaneLow));
    assert_eq!(packing("cvt.scalar"), Some(Packing::None));
    assert_eq!(packing("ld"), Some(Packing::None));
}
