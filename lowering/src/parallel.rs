//! Independent proofs of one kernel on more than one thread.
//!
//! The obligations the checker discharges after its walk (registers
//! defined, races, asynchronous copies) read the same checked kernel and
//! write nothing they share, so a large kernel proves them side by side:
//! the expansion's wall time is the slowest proof's, not their sum. Where
//! no error was found before the proofs, the kernel is lowered, emitted
//! and encoded beside them too, and the result thrown away if a proof
//! fails. The result does not depend on it: each proof returns its
//! diagnostics and the caller appends them in one fixed order.
//!
//! Guarantees: [`join`] returns what running its two closures one after
//! the other would return; a panic in either is resumed on the caller's
//! thread (the macro's panic guard sees it as before); where a thread
//! cannot be started, both run on the caller's thread.

/// The stack of a proof's thread: the walks recurse once per nesting level
/// of the kernel (bounded by `sema::limits`), and an unoptimized build (a
/// user's proc macro) takes far more stack per frame than an optimized
/// one. rustc gives the macro's own thread 8 MiB; this is twice that, as
/// address space only.
const PROOF_STACK_BYTES: usize = 16 << 20;

/// Checked statements from which a kernel's proofs run on their own
/// threads: below it, starting a thread (tens of microseconds) costs more
/// than it saves.
pub(crate) const PARALLEL_FROM_STATEMENTS: usize = 512;

/// `(a(), b())`, `a` on a thread of its own while `b` runs on this one
/// when `parallel`; both on this thread otherwise, or when no thread can
/// be started.
pub(crate) fn join<A, B>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (A, B)
where
    A: Send,
{
    if !parallel {
        let a = a();
        return (a, b());
    }
    // `a` moves into the thread only if it starts; the slot gives it back
    // otherwise.
    let slot = std::sync::Mutex::new(Some(a));
    std::thread::scope(|scope| {
        let started = std::thread::Builder::new()
            .name("tile-kernel-proof".into())
            .stack_size(PROOF_STACK_BYTES)
            .spawn_scoped(scope, || {
                let a = slot
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take();
                a.map(|a| a())
            });
        let b = b();
        let a = match started {
            Ok(handle) => match handle.join() {
                Ok(Some(a)) => a,
                // The closure was taken by the thread, which returned.
                Ok(None) => unreachable_taken(),
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => {
                let a = slot
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take();
                match a {
                    Some(a) => a(),
                    None => unreachable_taken(),
                }
            }
        };
        (a, b)
    })
}

/// The thread took the closure out of its slot exactly once, and only a
/// thread that started can have: neither branch that calls this is
/// reachable.
#[cold]
fn unreachable_taken() -> ! {
    unreachable!("the proof's closure is taken once, by the thread that runs it")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_returns_both_results_in_order_either_way() {
        for parallel in [false, true] {
            let shared = [1u64, 2, 3];
            let (a, b) = join(
                parallel,
                || shared.iter().sum::<u64>(),
                || shared.iter().product::<u64>(),
            );
            assert_eq!((a, b), (6, 6));
        }
    }

    #[test]
    fn a_panic_on_the_proof_thread_reaches_the_caller() {
        let caught =
            std::panic::catch_unwind(|| join(true, || -> u8 { panic!("proof thread") }, || 1u8));
        let payload = caught.expect_err("the panic is resumed on the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"proof thread"));
    }

    #[test]
    fn the_proof_runs_on_its_own_thread_only_when_asked() {
        let here = std::thread::current().id();
        let (there, _) = join(true, || std::thread::current().id(), || ());
        assert_ne!(there, here);
        let (there, _) = join(false, || std::thread::current().id(), || ());
        assert_eq!(there, here);
    }
}
