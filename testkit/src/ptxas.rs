//! Runs the pinned ptxas over generated PTX. A missing ptxas is a test
//! failure, never a skip: `scripts/install-ptxas.sh` installs it.
//!
//! Two kinds of tests use it:
//!
//! - **assembly tests** (PTX goldens, `tests/ptxas_kernels.rs`, the spill
//!   checks, the `ui-tests/tests/pass` kernels) only need *some* ptxas that
//!   accepts the PTX: they use `$TILE_KERNEL_PTXAS` when it is set (the GPU
//!   machine points it at its own ptxas 13), else the pinned install;
//! - **certification** (`lowering/tests/certify.rs`) makes claims about one
//!   exact release -- the floors, the tolerated spellings -- so it first calls
//!   [`require_pinned_version`]: any ptxas other than release 12.9, V12.9.86
//!   (also one named by `$TILE_KERNEL_PTXAS`) fails it with a message saying
//!   which ptxas was found and how to get the pinned one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The version `scripts/install-ptxas.sh` installs.
pub const PTXAS_VERSION: &str = "12.9.86";

/// The release `PTXAS_VERSION` belongs to, as `ptxas --version` prints it.
pub const PTXAS_RELEASE: &str = "12.9";

/// `$TILE_KERNEL_PTXAS`, else the project-local install under `.tools/` of
/// the workspace root (searched upwards from this crate's directory).
pub fn ptxas_path() -> PathBuf {
    ptxas_source().0
}

/// The ptxas to use and where its path came from (for messages).
fn ptxas_source() -> (PathBuf, &'static str) {
    if let Some(path) = std::env::var_os("TILE_KERNEL_PTXAS") {
        return (PathBuf::from(path), "$TILE_KERNEL_PTXAS");
    }
    (pinned_install_path(), "the pinned install")
}

/// Where `scripts/install-ptxas.sh` puts the pinned ptxas.
fn pinned_install_path() -> PathBuf {
    let install = format!(".tools/nvcc-{PTXAS_VERSION}/nvidia/cuda_nvcc/bin/ptxas");
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|dir| dir.join(&install))
        .find(|candidate| candidate.exists())
        .unwrap_or_else(|| manifest.join(&install))
}

/// A fresh directory for one ptxas run, removed with everything in it
/// when dropped (also when the calling test panics), so concurrent tests
/// never share a file and a run leaves nothing in the temp directory.
fn scratch_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("tile-kernel-ptxas-")
        .tempdir()
        .expect("create a temp dir for ptxas")
}

/// Assembles `ptx` for `arch` (e.g. "sm_90"); returns ptxas's error text on failure.
pub fn try_assemble(ptx: &str, arch: &str) -> Result<(), String> {
    let ptxas = ptxas_path();
    assert!(
        ptxas.exists(),
        "ptxas not found at {} — run `scripts/install-ptxas.sh` (or set TILE_KERNEL_PTXAS)",
        ptxas.display()
    );
    let scratch = scratch_dir();
    let input = scratch.path().join("kernel.ptx");
    let output = scratch.path().join("kernel.cubin");
    std::fs::write(&input, ptx).expect("write ptx");
    let result = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ptxas");
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
    let scratch = scratch_dir();
    let input = scratch.path().join("kernel.ptx");
    let output = scratch.path().join("kernel.cubin");
    std::fs::write(&input, ptx).expect("write ptx");
    let result = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ptxas");
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

/// The version `ptxas --version` output reports, if it has the usual
/// `Cuda compilation tools, release 12.9, V12.9.86` line: `("12.9", "12.9.86")`.
pub fn reported_version(text: &str) -> Option<(&str, &str)> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Cuda compilation tools, release "))?;
    let (release, version) = line.split_once(", V")?;
    Some((release.trim(), version.trim()))
}

/// `Ok` if `ptxas --version` printed `text` for the pinned release 12.9,
/// version 12.9.86; else what it reported instead.
pub fn check_pinned(text: &str) -> Result<(), String> {
    match reported_version(text) {
        Some((release, version)) if release == PTXAS_RELEASE && version == PTXAS_VERSION => Ok(()),
        Some((release, version)) => Err(format!("release {release}, V{version}")),
        None => Err(format!(
            "no `Cuda compilation tools, release ..` line in its `--version` output:\n{text}"
        )),
    }
}

/// The output of `ptxas --version`.
pub fn version_text(ptxas: &Path) -> Result<String, String> {
    let output = Command::new(ptxas)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run `{} --version`: {e}", ptxas.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(text)
    } else {
        Err(format!("`{} --version` failed:\n{text}", ptxas.display()))
    }
}

/// For certification against the pinned ptxas: panics unless the ptxas the
/// tests use ([`ptxas_path`]) reports release 12.9, V12.9.86. Runs
/// `ptxas --version` once per test binary; returns the path.
pub fn require_pinned_version() -> PathBuf {
    static CHECKED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let checked = CHECKED.get_or_init(|| {
        let (ptxas, source) = ptxas_source();
        if !ptxas.exists() {
            return Err(format!(
                "ptxas not found at {} ({source}) -- run `scripts/install-ptxas.sh`",
                ptxas.display()
            ));
        }
        let found = version_text(&ptxas).and_then(|text| check_pinned(&text));
        match found {
            Ok(()) => Ok(ptxas),
            Err(found) => Err(format!(
                "the PTX table is certified against ptxas {PTXAS_VERSION} (release {PTXAS_RELEASE}), \
                 but {} ({source}) reports {found}; certification needs exactly that release: \
                 unset TILE_KERNEL_PTXAS to use the pinned install (`scripts/install-ptxas.sh` puts it in .tools/) \
                 or point it at a ptxas {PTXAS_VERSION} (other assembly tests accept any ptxas)",
                ptxas.display()
            )),
        }
    });
    match checked {
        Ok(path) => path.clone(),
        Err(message) => panic!("{message}"),
    }
}
