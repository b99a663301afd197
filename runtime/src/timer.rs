//! Timing work on a device: a pair of CUDA events on the device's own stream,
//! or the wall clock on the CPU interpreter device.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::{Device, Error, Result};

/// What a failure to record the start event is reported as.
const RECORDING_START: &str = "recording the timer's start event on the device's stream";
/// What a failure to record the end event is reported as.
const RECORDING_END: &str = "recording the timer's end event on the device's stream";
/// What a failure while waiting for the end event is reported as: the timed
/// work (or earlier work on the stream) failed, or the wait itself did.
const WAITING: &str = "waiting for the timer's end event (for the timed work to finish)";
/// What a failure to read the time between the two events is reported as.
const READING: &str = "reading the time between the timer's events";

/// A running timer: the start of a timed region on a [`Device`]'s stream,
/// made by [`Device::timer`]. [`stop`](Timer::stop) marks the end.
///
/// On a CUDA device the start is a CUDA event (timing enabled) recorded on
/// the device's stream, the one its launches and copies are queued on, and
/// [`stop`](Timer::stop) records a second one there. The time between them
/// is what that stream ran between the two marks: the launches and copies
/// queued through this device in between, and any time the stream waited
/// (for the host to queue the next launch, or for work on another stream it
/// is ordered after). Work queued on other streams is not measured unless
/// this stream waits for it. Neither call waits for the GPU.
///
/// On the CPU interpreter device every launch and copy has finished when its
/// call returns, so the timer reads the wall clock ([`Instant`]) at both
/// marks: the same benchmark code runs on both kinds of device.
///
/// A timer stops once: [`stop`](Timer::stop) takes it by value.
///
/// ```compile_fail,E0382
/// # fn main() -> tile_kernel_runtime::Result<()> {
/// let dev = tile_kernel_runtime::Device::cpu();
/// let timer = dev.timer()?;
/// let first = timer.stop()?;
/// let second = timer.stop()?; // error: use of moved value `timer`
/// # Ok(()) }
/// ```
#[must_use = "a timer measures nothing until it is stopped"]
pub struct Timer {
    start: Start,
}

enum Start {
    Cuda {
        stream: Arc<CudaStream>,
        event: CudaEvent,
    },
    Cpu(Instant),
}

/// A stopped [`Timer`]: the two marks of a timed region, read with
/// [`elapsed_ms`](StoppedTimer::elapsed_ms).
///
/// On a CUDA device the end event may still be pending on the GPU; many
/// timers can be stopped before any is read, so reading them does not
/// serialize the host with the GPU between timed regions.
#[must_use = "a stopped timer's time is read with `elapsed_ms`"]
pub struct StoppedTimer {
    span: Span,
}

enum Span {
    Cuda { start: CudaEvent, end: CudaEvent },
    Cpu(Duration),
}

impl Device {
    /// Starts a [`Timer`] on this device's stream: on a CUDA device, records
    /// a CUDA event there (does not wait); on the CPU interpreter device,
    /// reads the wall clock.
    ///
    /// ```
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// use tile_kernel_runtime::Device;
    /// let dev = Device::cpu(); // or `Device::new(0)?`: the same code times a GPU
    /// let mut y = dev.zeros::<f32>([1024])?;
    /// let timer = dev.timer()?;
    /// y.upload_from(&vec![1.0; 1024])?; // launches and copies on `dev`
    /// let ms: f64 = timer.stop()?.elapsed_ms()?;
    /// assert!(ms >= 0.0);
    /// # Ok(()) }
    /// ```
    ///
    /// Fails only when the driver cannot create or record the event
    /// ([`Error::Driver`]).
    pub fn timer(&self) -> Result<Timer> {
        let start = match self.as_cuda() {
            Some(cuda) => Start::Cuda {
                stream: cuda.stream().clone(),
                event: record(cuda.stream(), RECORDING_START)?,
            },
            None => Start::Cpu(Instant::now()),
        };
        Ok(Timer { start })
    }

    /// Runs `work` between the two marks of a [`Timer`] on this device's
    /// stream and returns the elapsed time in milliseconds. **Blocking**: it
    /// returns once the timed work has finished (it waits for the end
    /// event, so for everything queued on the stream before it).
    ///
    /// `work` queues launches and copies through this device (any
    /// [`Device`] on the same stream). An error from `work` is returned as
    /// it is, and nothing is waited for. For work that returns another error
    /// type, use [`timer`](Device::timer) and [`Timer::stop`].
    ///
    /// ```
    /// # fn main() -> tile_kernel_runtime::Result<()> {
    /// use tile_kernel_runtime::Device;
    /// let dev = Device::cpu(); // or `Device::new(0)?`
    /// let mut y = dev.zeros::<f32>([1024])?;
    /// let mut times = Vec::new();
    /// for _ in 0..10 {
    ///     times.push(dev.time(|| y.upload_from(&vec![2.0; 1024]))?);
    /// }
    /// times.sort_by(f64::total_cmp);
    /// println!("median {:.4} ms", times[times.len() / 2]);
    /// # Ok(()) }
    /// ```
    pub fn time(&self, work: impl FnOnce() -> Result<()>) -> Result<f64> {
        let timer = self.timer()?;
        work()?;
        timer.stop()?.elapsed_ms()
    }
}

impl Timer {
    /// Marks the end of the timed region: on a CUDA device, records the end
    /// event on the same stream as the start (does not wait for the GPU);
    /// on the CPU interpreter device, reads the wall clock.
    ///
    /// Fails only when the driver cannot create or record the event
    /// ([`Error::Driver`]).
    pub fn stop(self) -> Result<StoppedTimer> {
        let span = match self.start {
            Start::Cuda { stream, event } => Span::Cuda {
                start: event,
                end: record(&stream, RECORDING_END)?,
            },
            Start::Cpu(start) => Span::Cpu(start.elapsed()),
        };
        Ok(StoppedTimer { span })
    }
}

impl StoppedTimer {
    /// The time from the start mark to the end mark, in milliseconds.
    ///
    /// On a CUDA device this first waits for the end event (for the timed
    /// work, and everything queued on the stream before it, to finish),
    /// then reads the time the driver measured between the two events
    /// (`cuEventElapsedTime`, which has a resolution of about half a
    /// microsecond). A failure of the timed work (a faulting kernel, for
    /// example: such errors are sticky in a CUDA context, so an earlier
    /// failure shows too) is [`Error::Driver`] saying it happened while
    /// waiting for the end event. On the CPU interpreter device it is the
    /// wall-clock time between [`Device::timer`] and [`Timer::stop`], and
    /// never fails.
    ///
    /// It can be read any number of times and gives the same value.
    pub fn elapsed_ms(&self) -> Result<f64> {
        match &self.span {
            Span::Cuda { start, end } => {
                end.synchronize().map_err(Error::driver(WAITING))?;
                let ms = start.elapsed_ms(end).map_err(Error::driver(READING))?;
                Ok(f64::from(ms))
            }
            Span::Cpu(elapsed) => Ok(elapsed.as_secs_f64() * 1e3),
        }
    }
}

/// A new timing event recorded on `stream`, or the driver's error as having
/// happened `during`.
fn record(stream: &Arc<CudaStream>, during: &'static str) -> Result<CudaEvent> {
    // `CU_EVENT_DEFAULT`: timing enabled (cudarc's own default disables it).
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(Error::driver(during))
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.start {
            Start::Cuda { .. } => f.write_str("Timer(CUDA events)"),
            Start::Cpu(_) => f.write_str("Timer(CPU wall clock)"),
        }
    }
}

impl fmt::Debug for StoppedTimer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.span {
            Span::Cuda { .. } => f.write_str("StoppedTimer(CUDA events)"),
            Span::Cpu(elapsed) => write!(f, "StoppedTimer(CPU wall clock, {elapsed:?})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::thread::sleep;

    use cudarc::driver::DriverError;
    use cudarc::driver::sys::CUresult;

    use super::*;

    /// Timers cross threads: a benchmark may start one here and read it
    /// elsewhere.
    #[test]
    fn timers_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Timer>();
        send_sync::<StoppedTimer>();
    }

    /// On the CPU device the timer is the wall clock: a sleep of 20 ms
    /// between the marks reads as at least 20 ms, and a bounded amount more.
    #[test]
    fn a_cpu_timer_measures_a_sleep() -> Result<()> {
        let dev = Device::cpu();
        let timer = dev.timer()?;
        sleep(Duration::from_millis(20));
        let stopped = timer.stop()?;
        let ms = stopped.elapsed_ms()?;
        assert!((20.0..10_000.0).contains(&ms), "{ms} ms");
        // Reading again gives the same value: the marks are fixed.
        assert_eq!(stopped.elapsed_ms()?, ms);
        Ok(())
    }

    /// A timer around a longer region reads longer; nested timers are
    /// ordered; `Device::time` measures the closure.
    #[test]
    fn cpu_timers_are_ordered() -> Result<()> {
        let dev = Device::cpu();
        let outer = dev.timer()?;
        sleep(Duration::from_millis(2));
        let inner = dev.timer()?;
        sleep(Duration::from_millis(10));
        let inner = inner.stop()?.elapsed_ms()?;
        sleep(Duration::from_millis(2));
        let outer = outer.stop()?.elapsed_ms()?;
        assert!(inner >= 10.0, "inner {inner} ms");
        assert!(outer >= inner + 4.0, "outer {outer} ms, inner {inner} ms");

        let timed = dev.time(|| {
            sleep(Duration::from_millis(5));
            Ok(())
        })?;
        assert!(timed >= 5.0, "{timed} ms");
        Ok(())
    }

    /// The marks are taken at `timer` and `stop`, not when the time is
    /// read: a stopped timer read later does not grow.
    #[test]
    fn a_stopped_cpu_timer_does_not_grow() -> Result<()> {
        let stopped = Device::cpu().timer()?.stop()?;
        sleep(Duration::from_millis(20));
        let ms = stopped.elapsed_ms()?;
        assert!((0.0..20.0).contains(&ms), "{ms} ms");
        Ok(())
    }

    /// An error of the timed work comes back as it is.
    #[test]
    fn time_returns_the_error_of_the_work() {
        let dev = Device::cpu();
        let result = dev.time(|| {
            // A real error of the work: a host slice of the wrong length.
            dev.upload(&[1.0f32; 3], [4]).map(drop)
        });
        match result {
            Err(Error::LengthMismatch {
                expected: 4,
                actual: 3,
                ..
            }) => {}
            other => panic!("expected the work's LengthMismatch, got {other:?}"),
        }
    }

    #[test]
    fn timers_show_their_clock() -> Result<()> {
        let timer = Device::cpu().timer()?;
        assert_eq!(format!("{timer:?}"), "Timer(CPU wall clock)");
        let stopped = timer.stop()?;
        assert!(
            format!("{stopped:?}").starts_with("StoppedTimer(CPU wall clock, "),
            "{stopped:?}"
        );
        Ok(())
    }

    /// What a failing GPU timer reports, formatted without a driver: the
    /// step, then the driver's code (here: a kernel of the timed region
    /// faulted).
    #[test]
    fn timer_errors_say_what_failed() {
        let err = Error::Driver {
            during: WAITING,
            source: DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
        };
        let text = err.to_string();
        assert!(
            text.starts_with(
                "CUDA driver error while waiting for the timer's end event (for the timed work to finish): CUDA_ERROR_ILLEGAL_ADDRESS"
            ),
            "{text}"
        );
        for during in [RECORDING_START, RECORDING_END, READING] {
            let err = Error::Driver {
                during,
                source: DriverError(CUresult::CUDA_ERROR_INVALID_HANDLE),
            };
            assert!(err.to_string().contains("the timer's"), "{err}");
        }
    }
}
