//! Timing harness shared by every peer: threads released together, tasks on a
//! tokio runtime, futures polled by hand, and a receiver that merges many channels.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use futures_lite::future::poll_fn;
use tokio::runtime::Runtime;
use tokio::sync::Notify;

/// Work for one thread; returns the sum of the values it received (senders return 0).
pub type Job = Box<dyn FnOnce() -> u64 + Send>;

/// Work for one task; returns the sum of the values it received (senders return 0).
pub type Task = Pin<Box<dyn Future<Output = u64> + Send>>;

/// Runs each job on its own thread, releases them together and returns the time
/// from the first job's start to the last job's finish (each thread reads the clock
/// itself, as the C harness does: the main thread may run again only after the jobs
/// are done on 2 cores) with the sum of the jobs' results. Spawning the threads is not
/// timed.
pub fn time_threads(jobs: Vec<Job>) -> (Duration, u64) {
    let start_line = Arc::new(Barrier::new(jobs.len() + 1));
    let handles: Vec<_> = jobs
        .into_iter()
        .map(|job| {
            let start_line = Arc::clone(&start_line);
            thread::spawn(move || {
                start_line.wait();
                let start = Instant::now();
                let sum = job();
                (start, Instant::now(), sum)
            })
        })
        .collect();
    start_line.wait();
    let runs: Vec<_> = handles.into_iter().map(|h| h.join().expect("bench thread panicked")).collect();
    let first = runs.iter().map(|r| r.0).min().expect("no jobs");
    let last = runs.iter().map(|r| r.1).max().expect("no jobs");
    (last - first, runs.iter().map(|r| r.2).sum())
}

/// Spawns every task on `rt` and returns the time from the first task's first poll to
/// the last task's end (each task reads the clock itself, as the C harness's tasks and
/// the Go peers' goroutines do) with the sum of the tasks' results. The spawning task
/// waits for one notification from the last task to end, not for each handle in turn
/// (which woke it once per task still running: 540 futex calls at 13a-N512). A task
/// that panics (a failed check) counts as ended, so the panic reaches the caller
/// through its handle instead of leaving the spawning task waiting.
pub fn time_tasks(rt: &Runtime, tasks: Vec<Task>) -> (Duration, u64) {
    rt.block_on(async {
        let left = Arc::new(AtomicUsize::new(tasks.len()));
        let all_done = Arc::new(Notify::new());
        let handles: Vec<_> = tasks
            .into_iter()
            .map(|task| {
                let (left, all_done) = (Arc::clone(&left), Arc::clone(&all_done));
                tokio::spawn(async move {
                    let ended = Ended { left, all_done };
                    let start = Instant::now();
                    let sum = task.await;
                    let end = Instant::now();
                    drop(ended);
                    (start, end, sum)
                })
            })
            .collect();
        all_done.notified().await;
        let mut runs = Vec::with_capacity(handles.len());
        for handle in handles {
            runs.push(handle.await.expect("bench task panicked"));
        }
        let first = runs.iter().map(|r| r.0).min().expect("no tasks");
        let last = runs.iter().map(|r| r.1).max().expect("no tasks");
        (last - first, runs.iter().map(|r| r.2).sum())
    })
}

/// Dropped when a task of `time_tasks` ends, normally or by a panic: counts the task
/// out and wakes the spawning task after the last one.
struct Ended {
    left: Arc<AtomicUsize>,
    all_done: Arc<Notify>,
}

impl Drop for Ended {
    fn drop(&mut self) {
        // AcqRel: the last task's decrement follows every other task's end.
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.all_done.notify_one(); // kept as a permit if nobody waits yet
        }
    }
}

/// A tokio runtime with `workers` worker threads, or a current-thread runtime for `None`.
pub fn runtime(workers: Option<usize>) -> Runtime {
    let mut builder = match workers {
        Some(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
        None => tokio::runtime::Builder::new_current_thread(),
    };
    builder.build().expect("cannot build tokio runtime")
}

fn noop_raw_waker() -> RawWaker {
    RawWaker::new(std::ptr::null(), &NOOP_VTABLE)
}
fn noop_clone(_: *const ()) -> RawWaker {
    noop_raw_waker()
}
fn noop(_: *const ()) {}
static NOOP_VTABLE: RawWakerVTable = RawWakerVTable::new(noop_clone, noop, noop, noop);

/// A waker that does nothing: rows 1 and 2 poll futures that must complete at once.
pub fn noop_waker() -> Waker {
    // SAFETY: every vtable function ignores the null data pointer.
    unsafe { Waker::from_raw(noop_raw_waker()) }
}

/// Polls `fut` once and returns its output; panics if it is not ready, which in
/// rows 1 and 2 would mean the channel blocked where it must not.
#[inline]
pub fn poll_once<F: Future>(fut: F, cx: &mut Context<'_>) -> F::Output {
    futures_lite::pin!(fut);
    match fut.poll(cx) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("a send or receive that must complete at once is pending"),
    }
}

/// The receivers of a merge that were woken since the merging task last looked,
/// and that task's waker.
struct Woken {
    state: Mutex<(Vec<usize>, Option<Waker>)>,
}

/// The waker handed to receiver `index` of a merge.
struct Slot {
    index: usize,
    /// True while `index` is in the woken list (or being drained), so a burst of
    /// wakes queues it once. Swapped with AcqRel: the merge's clearing swap reads the
    /// waking swap and so sees what the waker published before waking.
    queued: AtomicBool,
    woken: Arc<Woken>,
}

impl Wake for Slot {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::AcqRel) {
            let mut state = self.woken.state.lock().unwrap();
            state.0.push(self.index);
            if let Some(task) = &state.1 {
                task.wake_by_ref();
            }
        }
    }
}

/// Receives from all of `rxs` until every one is closed and returns the sum of the
/// values received (a checksum, as the other receivers return).
/// Each receiver gets its own waker; one task polls only the receivers woken since
/// its last turn (all of them at first) and drains each until it is pending, as
/// futures' `select_all` does. None of the Debian-packaged peers offers a select over
/// a run-time number of channels (futures-util and tokio-stream are not packaged),
/// so this is the merge every async peer uses in row 13b.
pub async fn merge_count<R>(
    mut rxs: Vec<R>,
    mut poll: impl FnMut(&mut R, &mut Context<'_>) -> Poll<Option<u64>>,
) -> u64 {
    let woken = Arc::new(Woken { state: Mutex::new(((0..rxs.len()).collect(), None)) });
    let slots: Vec<Arc<Slot>> = (0..rxs.len())
        .map(|index| Arc::new(Slot { index, queued: AtomicBool::new(true), woken: Arc::clone(&woken) }))
        .collect();
    let wakers: Vec<Waker> = slots.iter().map(|slot| Waker::from(Arc::clone(slot))).collect();
    let mut closed = vec![false; rxs.len()];
    let mut open = rxs.len();
    let mut sum = 0;
    let mut turn = Vec::new();
    poll_fn(move |cx| {
        {
            let mut state = woken.state.lock().unwrap();
            if !state.1.as_ref().map_or(false, |w| w.will_wake(cx.waker())) {
                state.1 = Some(cx.waker().clone());
            }
            std::mem::swap(&mut state.0, &mut turn);
        }
        // One turn per poll: a receiver woken meanwhile has woken this task already,
        // and returning lets tokio's cooperative budget refill.
        for i in turn.drain(..) {
            slots[i].queued.swap(false, Ordering::AcqRel);
            if closed[i] {
                continue;
            }
            let mut rx_cx = Context::from_waker(&wakers[i]);
            loop {
                match poll(&mut rxs[i], &mut rx_cx) {
                    Poll::Ready(Some(v)) => sum += v,
                    Poll::Ready(None) => {
                        closed[i] = true;
                        open -= 1;
                        break;
                    }
                    Poll::Pending => break,
                }
            }
        }
        if open == 0 {
            Poll::Ready(sum)
        } else {
            Poll::Pending
        }
    })
    .await
}
