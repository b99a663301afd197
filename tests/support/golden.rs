//! Golden files: generated PTX compared with `tests/golden/<name>.ptx`.

use std::path::PathBuf;

/// Compares `ptx` with `tests/golden/<name>.ptx` (or rewrites it when
/// `TILE_KERNEL_BLESS=1`).
pub fn golden(name: &str, ptx: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.ptx"));
    if std::env::var("TILE_KERNEL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, ptx).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "missing golden file {} ({e}); run with TILE_KERNEL_BLESS=1 to create it",
            path.display()
        )
    });
    if expected != ptx {
        let first = expected
            .lines()
            .zip(ptx.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(ptx.lines().count()));
        panic!(
            "PTX of `{name}` differs from {} (first difference at line {}):\n  golden: {:?}\n  actual: {:?}\n--- actual PTX ---\n{ptx}\n(rerun with TILE_KERNEL_BLESS=1 if the change is intended)",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            ptx.lines().nth(first),
        );
    }
}
