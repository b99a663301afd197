//! Runs the pinned ptxas over generated PTX. A missing ptxas is a test
//! failure, never a skip: `scripts/install-ptxas.sh` installs it.

use std::path::PathBuf;
use std::process::Command;

/// The version `scripts/install-ptxas.sh` installs.
pub const PTXAS_VERSION: &str = "12.9.86";

/// `$TILE_KERNEL_PTXAS`, else the project-local install under `.tools/` of
/// the workspace root (this file is shared by the facade's tests and, through
/// `#[path]`, by `lowering/tests`, so the root is searched upwards).
pub fn ptxas_path() -> PathBuf {
    if let Some(path) = std::env::var_os("TILE_KERNEL_PTXAS") {
        return PathBuf::from(path);
    }
    let install = format!(".tools/nvcc-{PTXAS_VERSION}/nvidia/cuda_nvcc/bin/ptxas");
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|dir| dir.join(&install))
        .find(|candidate| candidate.exists())
        .unwrap_or_else(|| manifest.join(&install))
}

/// Assembles `ptx` for `arch` (e.g. "sm_90"); returns ptxas's error text on failure.
pub fn try_assemble(ptx: &str, arch: &str) -> Result<(), String> {
    let ptxas = ptxas_path();
    assert!(
        ptxas.exists(),
        "ptxas not found at {} — run `scripts/install-ptxas.sh` (or set TILE_KERNEL_PTXAS)",
        ptxas.display()
    );
    let dir = std::env::temp_dir().join(format!("tile-kernel-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let unique = format!("{:x}", {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        ptx.hash(&mut h);
        arch.hash(&mut h);
        std::thread::current().id().hash(&mut h);
        h.finish()
    });
    let input = dir.join(format!("{unique}.ptx"));
    let output = dir.join(format!("{unique}.cubin"));
    std::fs::write(&input, ptx).expect("write ptx");
    let result = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ptxas");
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    if result.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr)
        ))
    }
}

/// Assembles `ptx` for `arch`, panicking with ptxas's message and the PTX on failure.
pub fn assemble(ptx: &str, arch: &str) {
    if let Err(message) = try_assemble(ptx, arch) {
        panic!("ptxas -arch={arch} rejected the PTX:\n{message}\n--- PTX ---\n{ptx}");
    }
}

/// `ptxas -v` for `ptx`: the resource-usage report (registers, spills),
/// panicking if ptxas rejects the PTX.
pub fn resource_usage(ptx: &str, arch: &str) -> String {
    let ptxas = ptxas_path();
    assert!(
        ptxas.exists(),
        "ptxas not found at {} — run `scripts/install-ptxas.sh` (or set TILE_KERNEL_PTXAS)",
        ptxas.display()
    );
    let dir = std::env::temp_dir().join(format!("tile-kernel-ptxas-v-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let name = format!("{:?}", std::thread::current().id())
        .replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let input = dir.join(format!("{name}.ptx"));
    let output = dir.join(format!("{name}.cubin"));
    std::fs::write(&input, ptx).expect("write ptx");
    let result = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ptxas");
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(
        result.status.success(),
        "ptxas -arch={arch} -v rejected the PTX:\n{text}\n--- PTX ---\n{ptx}"
    );
    text
}
