//! The harness: the tiers, the fuzz driver (per-case time bound, hang
//! watchdog, persisted failures) and the outcome invariants of a compile.

use super::*;

/// Without `TILE_KERNEL_FUZZ_CASES`: the CI tier, a few seconds in a debug
/// build (each generator passes its own size: random kernels are the
/// slowest per case).
pub(crate) const SMALL_TIER: u32 = 128;
/// A generated case that takes longer fails. The compile-time budgets
/// admit kernels that took 3.7 s in a release build and 21.1 s in a debug
/// build (`huge_instruction_counts`, measured in `docs/robustness.md`), so the
/// bound sits above those; random cases rarely come near it.
pub(crate) const CASE_TIME_LIMIT: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(60)
} else {
    Duration::from_secs(10)
};
/// A case still running after this is a hang: the watchdog aborts.
pub(crate) const HANG_LIMIT: Duration = Duration::from_secs(180);

/// Whether the long tier runs (`TILE_KERNEL_FUZZ_CASES` above the CI
/// tier): the slowest huge inputs run only then.
pub(crate) fn long_tier() -> bool {
    fuzz_cases().is_some_and(|n| n > SMALL_TIER)
}

/// `TILE_KERNEL_FUZZ_CASES`, if set.
pub(crate) fn fuzz_cases() -> Option<u32> {
    let text = std::env::var("TILE_KERNEL_FUZZ_CASES").ok()?;
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("TILE_KERNEL_FUZZ_CASES={text:?} is not a count")),
    )
}

/// Writes to the process's stderr directly: libtest captures `eprintln!`
/// of passing tests, and the counts must show in CI logs.
pub(crate) fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The case being run, for the watchdog.
pub(crate) struct Current<T> {
    pub(crate) started: Instant,
    pub(crate) case: T,
}

/// Runs `check` on `cases` values of `strategy` (plus replayed persisted
/// failures), with the per-case time bound and a hang watchdog; returns the
/// number of cases run and how many `check` counted as interesting.
pub(crate) fn fuzz<S>(
    name: &str,
    what: &str,
    small_tier: u32,
    strategy: S,
    check: impl Fn(&S::Value) -> Result<bool, TestCaseError>,
) -> (usize, usize)
where
    S: Strategy,
    S::Value: Clone + Debug + Send + 'static,
{
    let cases = fuzz_cases().unwrap_or(small_tier);
    let config = Config {
        cases,
        // Persisted failures live next to this file, in
        // `harness.proptest-regressions`. (`SourceParallel` would now find
        // the binary's `main.rs` above this file and look in
        // `lowering/tests/proptest-regressions/` instead; for the single
        // file it fell back to this.)
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        // A failure is reported within minutes, shrunk as far as it got.
        max_shrink_time: 120_000,
        ..Config::default()
    };
    let current: Arc<Mutex<Option<Current<S::Value>>>> = Arc::new(Mutex::new(None));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let current = Arc::clone(&current);
        let done = Arc::clone(&done);
        let name = name.to_string();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let guard = current.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(c) = guard.as_ref()
                    && c.started.elapsed() > HANG_LIMIT
                {
                    report(&format!(
                        "no_panic: {name}: a case ran for more than {HANG_LIMIT:?} (a hang):\n{:#?}",
                        c.case
                    ));
                    std::process::abort();
                }
            }
        })
    };
    let ran = AtomicUsize::new(0);
    let interesting = AtomicUsize::new(0);
    let slowest = Mutex::new(Duration::ZERO);
    let start = Instant::now();
    // The CI tier is repeatable (a fixed seed); longer runs explore.
    let mut runner = if fuzz_cases().is_none() {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    } else {
        TestRunner::new(config)
    };
    let result = runner.run(&strategy, |value| {
        ran.fetch_add(1, Ordering::Relaxed);
        *current.lock().unwrap_or_else(|e| e.into_inner()) = Some(Current {
            started: Instant::now(),
            case: value.clone(),
        });
        let t = Instant::now();
        let outcome = check(&value);
        let elapsed = t.elapsed();
        *current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        {
            let mut slowest = slowest.lock().unwrap_or_else(|e| e.into_inner());
            *slowest = (*slowest).max(elapsed);
        }
        if elapsed > CASE_TIME_LIMIT {
            return Err(TestCaseError::fail(format!(
                "one case took {elapsed:?} (limit {CASE_TIME_LIMIT:?})"
            )));
        }
        if outcome? {
            interesting.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    let ran = ran.into_inner();
    let interesting = interesting.into_inner();
    let slowest = *slowest.lock().unwrap_or_else(|e| e.into_inner());
    let verdict = match &result {
        Ok(()) => "0 panics, 0 hangs".to_string(),
        Err(e) => format!("FAILED: {e}"),
    };
    report(&format!(
        "no_panic: {name}: {ran} cases ({interesting} {what}) in {:.1?}, slowest case {slowest:.1?}; {verdict}",
        start.elapsed()
    ));
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    assert!(
        ran >= cases as usize,
        "{name}: ran {ran} of {cases} cases (the test must not pass vacuously)"
    );
    (ran, interesting)
}

/// The outcome invariants of one compile: PTX or diagnostics, never both
/// or neither; a program exactly with PTX; one per parameter in
/// `param_writes`. A parameter the parser could not read (and already
/// reported) gives neither PTX nor a second diagnostic.
pub(crate) fn outcome(kernel: &Kernel, out: &Compilation) -> Result<bool, TestCaseError> {
    let unparsed = kernel
        .params
        .iter()
        .any(|p| matches!(p.ty, ParamType::Unparsed));
    if unparsed {
        prop_assert!(out.ptx.is_none());
    } else {
        prop_assert_eq!(out.ptx.is_some(), out.diagnostics.is_empty());
    }
    prop_assert_eq!(out.program.is_some(), out.ptx.is_some());
    prop_assert_eq!(out.param_writes.len(), kernel.params.len());
    Ok(out.ptx.is_some())
}
