//! Copies between host and GPU memory, and the stream ordering that
//! launches and copies share (the CPU device's copies are plain host copies,
//! in `host`).
//!
//! Blocking copies (`download`, `upload_from`) run on the stream the
//! allocation was made on and wait for it. Asynchronous copies
//! (`upload_async`, `download_async`) run on a [`Device`](crate::Device)'s stream, to and
//! from cudarc [`PinnedHostSlice`]s, and return at once: the pinned
//! buffer's event is recorded after the copy, and cudarc's
//! `PinnedHostSlice` waits for that event before any host access
//! (`as_slice`, `as_mut_slice`, ...) and before freeing, so safe code never
//! sees a buffer a copy is still using.
//!
//! Ordering across streams: cudarc makes an allocation's users wait for
//! each other through its read/write events when the allocation's context
//! manages stream synchronization. Where the context tracks events but has
//! never entered multi-stream mode (it only used its default, per-thread or
//! borrowed streams), cudarc orders nothing, so work queued here on another
//! stream than the allocation's own is joined with that stream on both
//! sides ([`needs_join`]).

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DeviceSlice, DriverError, HostSlice, PinnedHostSlice, SyncOnDrop,
};

use crate::device::CudaDevice;
use crate::{Element, Error, Result};

/// Whether work queued on `stream` that uses memory allocated on `home`
/// must be ordered by joining the streams: the allocation's context tracks
/// events (the caller has not taken over ordering with cudarc's `unsafe
/// fn disable_event_tracking`), but is not in multi-stream mode, so cudarc
/// itself orders nothing; and the streams differ.
pub(crate) fn needs_join(home: &CudaStream, stream: &CudaStream) -> bool {
    let context = home.context();
    context.is_event_tracking() && !context.is_in_multi_stream_mode() && home != stream
}

/// Takes the event out of a cudarc guard, so that dropping the guard
/// records nothing; the caller records it once the work is queued (and
/// reports a failure, which the guard would only store in the context).
pub(crate) fn take_event<'a>(guard: &mut SyncOnDrop<'a>) -> Option<&'a CudaEvent> {
    match guard {
        SyncOnDrop::Record(target) => target.take().map(|(event, _stream)| event),
        // Not handed out for device or pinned memory; left to its drop.
        SyncOnDrop::Sync(_) => None,
    }
}

/// Records a use of an allocation (its read or write `event`) on `stream`,
/// after the work that uses it was queued there: where cudarc tracks the
/// allocation's uses (either context involved manages stream
/// synchronization), later users on other streams wait for it.
pub(crate) fn record_use(event: &CudaEvent, stream: &CudaStream) -> Result<(), DriverError> {
    if event.context().is_managing_stream_synchronization()
        || stream.context().is_managing_stream_synchronization()
    {
        event.record(stream)
    } else {
        Ok(())
    }
}

/// Fails if cudarc stored a driver error in `stream`'s context, which is
/// how its stream-ordering helpers (the waits in `device_ptr`,
/// `stream_synced_slice`) report failures.
pub(crate) fn check_recorded(stream: &CudaStream, during: &'static str) -> Result<()> {
    stream.context().check_err().map_err(Error::driver(during))
}

/// Reports a failure to order work that is already queued: first waits for
/// `stream`, so no later user of the memory can overlap with the work.
pub(crate) fn after_ordering_failure(
    stream: &CudaStream,
    during: &'static str,
    source: DriverError,
) -> Error {
    let _ = stream.synchronize();
    Error::Driver { during, source }
}

/// Checks that `context` is the device's CUDA context.
fn check_context(context: &CudaContext, device: &CudaDevice, what: &'static str) -> Result<()> {
    if context.cu_ctx() == device.context().cu_ctx() {
        Ok(())
    } else {
        Err(Error::ContextMismatch {
            what,
            other: "the device whose stream queues the copy",
        })
    }
}

/// The checks both asynchronous copies make: the pinned buffer holds at
/// least `len` elements, and it and the device memory belong to the
/// device's context.
fn check_async<T>(
    device: &CudaDevice,
    memory: &CudaContext,
    pinned: &PinnedHostSlice<T>,
    shape: &[usize],
    len: usize,
) -> Result<()> {
    if pinned.len() < len {
        return Err(Error::LengthMismatch {
            shape: shape.to_vec(),
            expected: len,
            actual: pinned.len(),
        });
    }
    check_context(pinned.context(), device, "the pinned host buffer")?;
    check_context(memory, device, "the tensor")
}

/// Records the pinned buffer's and the device memory's events after a copy
/// on `stream`, and joins the allocation's stream `home` after it where
/// needed.
fn finish_copy(
    stream: &CudaStream,
    pinned_event: Option<&CudaEvent>,
    device_event: Option<&CudaEvent>,
    join: Option<&Arc<CudaStream>>,
    during: &'static str,
) -> Result<()> {
    // The pinned buffer's event always: its host accesses wait on it even
    // where cudarc would skip recording it (a context in single-stream mode).
    let mut done = pinned_event.map_or(Ok(()), |event| event.record(stream));
    if let Some(event) = device_event {
        done = done.and(record_use(event, stream));
    }
    if let Some(home) = join {
        done = done.and(home.join(stream));
    }
    done.map_err(|source| after_ordering_failure(stream, during, source))
}

/// Queues a copy of `src[..len]` into `dst` (at least `len` elements) on
/// `device`'s stream; does not wait for it.
pub(crate) fn upload_async<T: Element>(
    device: &CudaDevice,
    mut dst: CudaViewMut<'_, T>,
    shape: &[usize],
    len: usize,
    src: &PinnedHostSlice<T>,
) -> Result<()> {
    const DURING: &str = "queueing an asynchronous copy to the device";
    check_async(device, dst.stream().context(), src, shape, len)?;
    if len == 0 {
        return Ok(());
    }
    let stream = device.stream();
    let home = dst.stream().clone();
    let join = needs_join(&home, stream).then_some(&home);
    if join.is_some() {
        stream.join(&home).map_err(Error::driver(DURING))?;
    }
    stream
        .context()
        .bind_to_thread()
        .map_err(Error::driver(DURING))?;
    // SAFETY: the slice is used only by the copy queued on `stream` below,
    // and the buffer's event (taken out of the guard) is recorded on
    // `stream` right after that copy by `finish_copy`, so cudarc's
    // `PinnedHostSlice` waits for the copy before any host access or free.
    let (host, mut host_guard) = unsafe { src.stream_synced_slice(stream) };
    let pinned_event = take_event(&mut host_guard);
    let (address, mut device_guard) = dst.device_ptr_mut(stream);
    let device_event = take_event(&mut device_guard);
    // The waits of the two calls above report failures only this way.
    check_recorded(stream, DURING)?;
    let bytes = &host[..len];
    // SAFETY: `bytes` is `len` elements of pinned host memory of this
    // context (checked), which stays allocated and unwritten by the host
    // until the copy is done (the event above). `address` is the start of
    // `dst`, device memory of this context holding at least `len` elements
    // (the caller's invariant), and `dst` is borrowed exclusively, with
    // `stream` made to wait for its earlier uses (cudarc's events, or the
    // join above), so nothing else writes or reads it meanwhile.
    unsafe { result::memcpy_htod_async(address, bytes, stream.cu_stream()) }
        .map_err(Error::driver(DURING))?;
    finish_copy(stream, pinned_event, device_event, join, DURING)
}

/// Queues a copy of `src[..len]` (at least `len` elements) into the first
/// `len` elements of `dst` on `device`'s stream; does not wait for it.
pub(crate) fn download_async<T: Element>(
    device: &CudaDevice,
    src: CudaView<'_, T>,
    shape: &[usize],
    len: usize,
    dst: &mut PinnedHostSlice<T>,
) -> Result<()> {
    const DURING: &str = "queueing an asynchronous copy to the host";
    check_async(device, src.stream().context(), dst, shape, len)?;
    if len == 0 {
        return Ok(());
    }
    let stream = device.stream();
    let home = src.stream().clone();
    let join = needs_join(&home, stream).then_some(&home);
    if join.is_some() {
        stream.join(&home).map_err(Error::driver(DURING))?;
    }
    stream
        .context()
        .bind_to_thread()
        .map_err(Error::driver(DURING))?;
    let (address, mut device_guard) = src.device_ptr(stream);
    let device_event = take_event(&mut device_guard);
    // SAFETY: the slice is used only by the copy queued on `stream` below,
    // and the buffer's event is recorded on `stream` right after it, so
    // cudarc's `PinnedHostSlice` waits for the copy before any host access
    // or free.
    let (host, mut host_guard) = unsafe { dst.stream_synced_mut_slice(stream) };
    let pinned_event = take_event(&mut host_guard);
    check_recorded(stream, DURING)?;
    let bytes = &mut host[..len];
    // SAFETY: `bytes` is `len` elements of pinned host memory of this
    // context, borrowed exclusively for this call and afterwards reachable
    // only through cudarc's accessors, which wait for the copy (the event
    // above); every bit pattern is a valid `T` (`Element` types are plain
    // numbers). `address` is the start of `src`, device memory of this
    // context holding at least `len` elements, and `stream` waits for its
    // earlier writes (cudarc's events, or the join above).
    unsafe { result::memcpy_dtoh_async(bytes, address, stream.cu_stream()) }
        .map_err(Error::driver(DURING))?;
    finish_copy(stream, pinned_event, device_event, join, DURING)
}

/// Copies `view[..len]` to a new `Vec` on the allocation's own stream and
/// waits for it.
pub(crate) fn download_blocking<T: Element>(view: &CudaView<'_, T>, len: usize) -> Result<Vec<T>> {
    const DURING: &str = "copying a tensor to the host";
    if len == 0 {
        return Ok(Vec::new());
    }
    let stream = view.stream();
    let exact = view.try_slice(..len).ok_or(Error::Driver {
        during: DURING,
        source: DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_VALUE),
    })?;
    let host = stream.clone_dtoh(&exact).map_err(Error::driver(DURING))?;
    stream.synchronize().map_err(Error::driver(DURING))?;
    Ok(host)
}

/// Copies `host` (`len` elements) into `dst` on the allocation's own
/// stream and waits for it.
pub(crate) fn upload_blocking<T: Element>(
    mut dst: CudaViewMut<'_, T>,
    shape: &[usize],
    len: usize,
    host: &[T],
) -> Result<()> {
    const DURING: &str = "copying host data into a tensor";
    if host.len() != len {
        return Err(Error::LengthMismatch {
            shape: shape.to_vec(),
            expected: len,
            actual: host.len(),
        });
    }
    if len == 0 {
        return Ok(());
    }
    let stream = dst.stream().clone();
    let mut exact = dst.try_slice_mut(..len).ok_or(Error::Driver {
        during: DURING,
        source: DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_VALUE),
    })?;
    stream
        .memcpy_htod(host, &mut exact)
        .map_err(Error::driver(DURING))?;
    stream.synchronize().map_err(Error::driver(DURING))
}
