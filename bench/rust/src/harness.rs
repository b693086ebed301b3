//! Timing harness shared by every peer: threads released together, tasks on a
//! tokio runtime, futures polled by hand, and a receiver that merges many channels.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::thread;
use std::time::{Duration, Instant};

use futures_lite::future::poll_fn;
use tokio::runtime::Runtime;

/// Work for one thread; returns how many messages it received (senders return 0).
pub type Job = Box<dyn FnOnce() -> u64 + Send>;

/// Work for one task; returns how many messages it received (senders return 0).
pub type Task = Pin<Box<dyn Future<Output = u64> + Send>>;

/// Runs each job on its own thread, releases them together and returns the time
/// from the release to the last join with the sum of the jobs' results.
/// Spawning the threads is not timed.
pub fn time_threads(jobs: Vec<Job>) -> (Duration, u64) {
    let start_line = Arc::new(Barrier::new(jobs.len() + 1));
    let handles: Vec<_> = jobs
        .into_iter()
        .map(|job| {
            let start_line = Arc::clone(&start_line);
            thread::spawn(move || {
                start_line.wait();
                job()
            })
        })
        .collect();
    start_line.wait();
    let start = Instant::now();
    let received = handles.into_iter().map(|h| h.join().expect("bench thread panicked")).sum();
    (start.elapsed(), received)
}

/// Spawns every task on `rt` and returns the time from the first spawn to the
/// last completion with the sum of the tasks' results.
pub fn time_tasks(rt: &Runtime, tasks: Vec<Task>) -> (Duration, u64) {
    rt.block_on(async {
        let start = Instant::now();
        let handles: Vec<_> = tasks.into_iter().map(tokio::spawn).collect();
        let mut received = 0;
        for handle in handles {
            received += handle.await.expect("bench task panicked");
        }
        (start.elapsed(), received)
    })
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

/// Receives from all of `rxs` until every one is closed and returns the count: one
/// task sweeps the receivers with `poll`, drains each ready one, and waits only when a
/// whole sweep found nothing (each pending poll registered this task's waker).
/// None of the Debian-packaged peers offers a select over a run-time number of
/// channels (futures' select_all and tokio-stream's StreamMap are not packaged), so
/// this is the merge every async peer uses in row 13b.
pub async fn merge_count<R>(
    mut rxs: Vec<R>,
    mut poll: impl FnMut(&mut R, &mut Context<'_>) -> Poll<Option<u64>>,
) -> u64 {
    let mut received = 0;
    poll_fn(move |cx| loop {
        let mut progressed = false;
        let mut i = 0;
        while i < rxs.len() {
            match poll(&mut rxs[i], cx) {
                Poll::Ready(Some(_)) => {
                    received += 1;
                    progressed = true;
                }
                Poll::Ready(None) => {
                    rxs.swap_remove(i);
                    progressed = true;
                }
                Poll::Pending => i += 1,
            }
        }
        if rxs.is_empty() {
            return Poll::Ready(received);
        }
        if !progressed {
            return Poll::Pending;
        }
    })
    .await
}
