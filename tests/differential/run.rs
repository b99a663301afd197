//! Driving a run: enumerate, build, run on both sides, compare, and the
//! [`Report`] of it all.

use super::*;

/// What a whole run found.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) test: &'static str,
    pub(crate) variants: usize,
    pub(crate) cases: usize,
    pub(crate) rows: usize,
    pub(crate) skips: Skips,
    /// Case label -> outcome, for cases with mismatches or failures.
    pub(crate) bad: Vec<(String, Outcome)>,
    /// Approximate forms: label -> (max ulp seen, bound).
    pub(crate) approx: BTreeMap<String, (f64, f64)>,
    /// Cases by family, and of them compared for plausibility only.
    pub(crate) plausibility_only: usize,
    pub(crate) seconds: BTreeMap<&'static str, f64>,
    pub(crate) fatal: Option<String>,
}

impl Report {
    pub(crate) fn failed(&self) -> bool {
        !self.bad.is_empty() || self.fatal.is_some()
    }

    /// Fails the test unless every case matched the GPU (naming a fatal
    /// error, if the run had one).
    pub(crate) fn assert_matches_the_gpu(&self) {
        assert!(
            !self.failed(),
            "{} case(s) differ from the GPU or fail (details above){}",
            self.bad.len(),
            self.fatal
                .as_deref()
                .map_or(String::new(), |f| format!("; fatal: {f}"))
        );
    }

    /// Fails the test unless every case ran on the interpreter.
    pub(crate) fn assert_runs_on_the_interpreter(&self) {
        assert!(
            !self.failed(),
            "{} case(s) fail on the interpreter (details above)",
            self.bad.len()
        );
    }

    pub(crate) fn print(&self) {
        println!("== {}", self.test);
        println!(
            "{} usable legal variants; {} cases run (variants x immediates x special registers); {} rows compared; {} compared for plausibility only",
            self.variants, self.cases, self.rows, self.plausibility_only
        );
        self.skips.print();
        if !self.approx.is_empty() {
            println!("approximate forms (largest ULP distance seen / allowed):");
            for (label, (seen, bound)) in &self.approx {
                println!("  {label}: {seen} / {bound}");
            }
        }
        let timing: Vec<String> = self
            .seconds
            .iter()
            .map(|(k, v)| format!("{k} {v:.1}s"))
            .collect();
        println!("time: {}", timing.join(", "));
        println!("mismatching or failing cases: {}", self.bad.len());
        let mut by_mnemonic: BTreeMap<&str, usize> = BTreeMap::new();
        for (label, _) in &self.bad {
            let mnemonic = label.split('.').next().unwrap_or(label);
            *by_mnemonic.entry(mnemonic).or_default() += 1;
        }
        if !by_mnemonic.is_empty() {
            let counts: Vec<String> = by_mnemonic
                .iter()
                .map(|(m, n)| format!("{m}: {n}"))
                .collect();
            println!("  by instruction: {}", counts.join(", "));
        }
        const SHOWN: usize = 400;
        if self.bad.len() > SHOWN {
            println!(
                "  (the first {SHOWN} follow; all are in the JSON summary, TILE_KERNEL_DIFF_OUT)"
            );
        }
        for (label, outcome) in self.bad.iter().take(SHOWN) {
            match &outcome.failure {
                Some(why) => println!("  {label}: {why}"),
                None => {
                    println!(
                        "  {label}: {} of {} rows differ",
                        outcome.mismatched_rows, outcome.rows
                    );
                    for e in &outcome.examples {
                        println!("      {e}");
                    }
                }
            }
        }
        if let Some(fatal) = &self.fatal {
            println!("FATAL: {fatal}");
        }
    }

    pub(crate) fn json(&self) -> String {
        fn s(text: &str) -> String {
            let mut out = String::from("\"");
            for c in text.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(out, "\\u{:04x}", c as u32);
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        let skipped: Vec<String> = self
            .skips
            .0
            .iter()
            .map(|(reason, list)| format!("{}: {}", s(reason), list.len()))
            .collect();
        let approx: Vec<String> = self
            .approx
            .iter()
            .map(|(label, (seen, bound))| {
                format!(
                    "{{\"case\": {}, \"max_ulp\": {seen}, \"allowed_ulp\": {bound}}}",
                    s(label)
                )
            })
            .collect();
        let bad: Vec<String> = self
            .bad
            .iter()
            .map(|(label, o)| {
                let examples: Vec<String> = o.examples.iter().map(|e| s(e)).collect();
                format!(
                    "{{\"case\": {}, \"failure\": {}, \"rows\": {}, \"mismatched_rows\": {}, \"examples\": [{}]}}",
                    s(label),
                    o.failure.as_deref().map_or("null".into(), s),
                    o.rows,
                    o.mismatched_rows,
                    examples.join(", ")
                )
            })
            .collect();
        let seconds: Vec<String> = self
            .seconds
            .iter()
            .map(|(k, v)| format!("{}: {v:.3}", s(k)))
            .collect();
        format!(
            "{{\n  \"test\": {},\n  \"variants\": {},\n  \"cases\": {},\n  \"rows_compared\": {},\n  \"plausibility_only_cases\": {},\n  \"skipped_total\": {},\n  \"skipped\": {{{}}},\n  \"mismatched_cases\": {},\n  \"fatal\": {},\n  \"seconds\": {{{}}},\n  \"approx\": [\n    {}\n  ],\n  \"mismatches\": [\n    {}\n  ]\n}}\n",
            s(self.test),
            self.variants,
            self.cases,
            self.rows,
            self.plausibility_only,
            self.skips.total(),
            skipped.join(", "),
            self.bad.len(),
            self.fatal.as_deref().map_or("null".into(), s),
            seconds.join(", "),
            approx.join(",\n    "),
            bad.join(",\n    ")
        )
    }

    /// Writes the JSON summary where `TILE_KERNEL_DIFF_OUT` says, with
    /// `suffix` before the extension for the tests other than the main one.
    pub(crate) fn write(&self, suffix: &str) {
        let Ok(path) = std::env::var("TILE_KERNEL_DIFF_OUT") else {
            return;
        };
        let path = if suffix.is_empty() {
            path
        } else {
            match path.strip_suffix(".json") {
                Some(stem) => format!("{stem}.{suffix}.json"),
                None => format!("{path}.{suffix}"),
            }
        };
        if let Some(parent) = std::path::Path::new(&path).parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match std::fs::write(&path, self.json()) {
            Ok(()) => println!("summary written to {path}"),
            Err(e) => println!("could not write {path}: {e}"),
        }
    }
}

/// Enumerates, builds, runs (on the GPU unless `gpu` is `None`) and
/// compares everything; prints and returns the report.
pub(crate) fn run_all(
    test: &'static str,
    config: &Config,
    shared: bool,
    gpu: Option<gpu::Gpu>,
) -> Report {
    let (variants, cases, skips) = enumerate(config, shared);
    run_cases(test, config, (variants, cases, skips), gpu)
}

/// Builds, runs (on the GPU unless `gpu` is `None`) and compares `cases`
/// (with the count of variants they come from and what was skipped);
/// prints and returns the report.
pub(crate) fn run_cases(
    test: &'static str,
    config: &Config,
    (variants, mut cases, skips): (usize, Vec<Case>, Skips),
    mut gpu: Option<gpu::Gpu>,
) -> Report {
    let started = Instant::now();
    let smoke = gpu.is_none();
    // Batches share one target (one module each).
    cases.sort_by_key(|c| (c.target.sm, c.target.arch_specific));
    println!(
        "{test}: {variants} variants, {} cases, {} skipped; {} host threads{}",
        cases.len(),
        skips.total(),
        config.threads,
        gpu.as_ref().map_or(String::new(), |g| format!(
            ", GPU launches {:?}",
            g.jit.mode
        ))
    );
    let mut report = Report {
        test,
        variants,
        cases: cases.len(),
        skips,
        ..Report::default()
    };
    let mut batches: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    while start < cases.len() {
        let target = cases[start].target;
        let mut end = start;
        while end < cases.len() && end - start < config.batch && cases[end].target == target {
            end += 1;
        }
        batches.push(start..end);
        start = end;
    }
    let seconds_build = Mutex::new(0.0f64);
    let mut seconds_compare = 0.0;
    let mut done = 0;
    let jit = gpu.as_ref().map(|g| g.jit.clone());
    std::thread::scope(|scope| {
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<(Vec<Built>, gpu::Loaded)>(config.threads);
        let cases = &cases;
        let seconds_build = &seconds_build;
        // The producer builds (and runs on the interpreter) the cases of
        // `threads` batches at a time on all host threads, then JIT-compiles
        // their modules in parallel, while this thread runs the batches
        // before them on the GPU.
        scope.spawn(move || {
            for group in batches.chunks(config.threads.max(1)) {
                let t = Instant::now();
                let indices: Vec<usize> = group.iter().flat_map(|r| r.clone()).collect();
                let mut built =
                    parallel_map(&indices, config.threads, |_, &i| build(i, &cases[i], smoke))
                        .into_iter();
                let mut group_batches: Vec<Vec<Built>> = group
                    .iter()
                    .map(|r| built.by_ref().take(r.len()).collect())
                    .collect();
                *seconds_build.lock().unwrap_or_else(|e| e.into_inner()) +=
                    t.elapsed().as_secs_f64();
                let loaded: Vec<gpu::Loaded> = match &jit {
                    Some(jit) => {
                        let slots: Vec<Mutex<&mut Vec<Built>>> =
                            group_batches.iter_mut().map(Mutex::new).collect();
                        parallel_map(&slots, config.threads, |_, slot| {
                            let mut batch = slot.lock().unwrap_or_else(|e| e.into_inner());
                            jit.load(&mut batch)
                        })
                    }
                    None => group_batches
                        .iter()
                        .map(|_| gpu::Loaded::default())
                        .collect(),
                };
                for pair in group_batches.into_iter().zip(loaded) {
                    if sender.send(pair).is_err() {
                        return;
                    }
                }
            }
        });
        let dump = std::env::var("TILE_KERNEL_DIFF_DUMP").ok();
        for (mut batch, loaded) in receiver {
            if let Some(dir) = &dump {
                let modules: Vec<String> = batch.iter().filter_map(|b| b.ptx.clone()).collect();
                if !modules.is_empty() {
                    let _ = std::fs::create_dir_all(dir);
                    let path = format!("{dir}/batch{}.ptx", batch[0].case);
                    let _ = std::fs::write(path, form_kernels::join_modules(&modules));
                }
            }
            if let Some(gpu) = gpu.as_mut()
                && report.fatal.is_none()
                && let Err(e) = gpu.run(cases, &mut batch, loaded)
            {
                report.fatal = Some(e);
            }
            let t = Instant::now();
            for built in &batch {
                let case = &cases[built.case];
                done += 1;
                if built
                    .checks
                    .iter()
                    .any(|c| matches!(c, Check::Plausible(_) | Check::Opaque))
                {
                    report.plausibility_only += 1;
                }
                let failure = |why: String| Outcome {
                    rows: case.rows,
                    failure: Some(why),
                    ..Outcome::default()
                };
                let outcome = if let Some(e) = &built.error {
                    failure(format!("harness: {e}"))
                } else {
                    match (&built.interp, &built.gpu, &built.interp_again) {
                        (Err(e), ..) => failure(e.clone()),
                        (Ok(_), None, None) if !smoke => continue,
                        (Ok(_), Some(Err(e)), _) => failure(format!("GPU: {e}")),
                        (Ok(interp), Some(Ok(gpu)), _) => compare(case, built, gpu, interp, false),
                        (Ok(_), None, Some(Err(e))) => failure(e.clone()),
                        (Ok(first), None, Some(Ok(second))) => {
                            compare(case, built, first, second, true)
                        }
                        (Ok(_), None, None) => continue,
                    }
                };
                if outcome.failure.is_none() {
                    report.rows += outcome.rows;
                }
                if let Some(approx) = outcome.approx {
                    let entry = report.approx.entry(case.label.clone()).or_insert(approx);
                    entry.0 = entry.0.max(approx.0);
                    entry.1 = entry.1.max(approx.1);
                }
                if outcome.failure.is_some() || outcome.mismatched_rows > 0 {
                    report.bad.push((case.label.clone(), outcome));
                }
            }
            seconds_compare += t.elapsed().as_secs_f64();
            if done % 5000 < batch.len() {
                println!(
                    "  {done}/{} cases, {} bad, {:.0}s",
                    cases.len(),
                    report.bad.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            if report.fatal.is_some() {
                // The context is gone: stop (dropping the receiver stops
                // the producer).
                break;
            }
        }
    });
    report.seconds.insert(
        "build+interpreter (host threads, overlapped)",
        seconds_build.into_inner().unwrap_or(0.0),
    );
    report.seconds.insert("compare", seconds_compare);
    if let Some(gpu) = &gpu {
        report
            .seconds
            .insert("gpu jit (host threads, overlapped)", gpu.seconds_jit);
        report
            .seconds
            .insert("gpu upload+run+download", gpu.seconds_run);
    }
    report
        .seconds
        .insert("total", started.elapsed().as_secs_f64());
    report.print();
    report
}
