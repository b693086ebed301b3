//! One module per peer channel; each builds the work of a row and leaves the
//! timing to `harness`.

use std::time::Duration;

use crate::harness::{Job, Task};

pub mod async_channel;
pub mod crossbeam;
pub mod flume;
pub mod tokio_mpsc;

/// Rows every peer runs: one-thread pairs and batches, thread rows, thread ping-pong
/// (row 17's over rendezvous channels only where `RENDEZVOUS`).
/// `cap` is the capacity of a bounded channel, `None` for an unbounded one.
pub trait Peer {
    /// The `impl` column of the output.
    const NAME: &'static str;
    /// Whether several receivers may share one channel (rows 5, 6 and 8).
    const MULTI_CONSUMER: bool = true;
    /// Whether it has a select over a set of channels known at run time (row 13c).
    const SELECT: bool = false;
    /// Whether `bounded(0)` makes a rendezvous channel, where a send completes when a
    /// receiver takes its message (row 17; async-channel's and tokio's `bounded(0)` panic).
    const RENDEZVOUS: bool = false;

    /// Rows 1-2: `pairs` times a send then a receive on the calling thread.
    fn pairs(cap: Option<usize>, pairs: u64) -> Duration;
    /// Rows 3-4: `reps` times `batch` try_sends then `batch` try_recvs; total time.
    fn batches(cap: Option<usize>, batch: u64, reps: u64) -> Duration;
    /// Rows 5, 6, 10-12: `senders` threads send `per_sender` messages each to
    /// `receivers` threads that receive until the channel closes. Sender `s` (from 0)
    /// sends `s*per_sender+1 ..= (s+1)*per_sender`; receivers return their values' sum.
    fn thread_jobs(cap: Option<usize>, senders: usize, receivers: usize, per_sender: u64) -> Vec<Job>;
    /// Rows 15-threads and 17-threads: two threads bounce one message `rtts` times over
    /// two bounded(`cap`) channels (1 in row 15; 0, rendezvous channels, in row 17, only
    /// where `RENDEZVOUS`); the pinger sends `1..=rtts`, checks that each echo is the
    /// value it sent and returns the echoes' sum.
    fn ping_pong_threads(cap: usize, rtts: u64) -> Vec<Job>;
    /// Row 13c (threads): `channels` channels of capacity `cap`, one sender thread
    /// each, read by one thread through the peer's select over all of them until every
    /// channel closes; values and sum as in `AsyncPeer::merged_tasks`. Only where
    /// `SELECT`.
    fn select_jobs(_channels: usize, _cap: usize, _per_sender: u64) -> Vec<Job> {
        unreachable!("no select: filtered out by applies()")
    }
}

/// Rows run as tasks on a tokio runtime (the async API).
pub trait AsyncPeer: Peer {
    /// Rows 7-9 and 13a: `senders` tasks send `per_sender` messages each into one
    /// channel of capacity `cap` read by `receivers` tasks until it closes; values
    /// and sums as in `Peer::thread_jobs`.
    fn tasks(cap: usize, senders: usize, receivers: usize, per_sender: u64) -> Vec<Task>;
    /// Row 13b: `channels` channels of capacity `cap`, one sender task each,
    /// merged by one receiver task (`harness::merge_count`), which returns the sum of
    /// the values; channel `c`'s sender sends `c*per_sender+1 ..= (c+1)*per_sender`.
    fn merged_tasks(channels: usize, cap: usize, per_sender: u64) -> Vec<Task>;
    /// Rows 15-tasks and 17-tasks: two tasks bounce one message `rtts` times over two
    /// bounded(`cap`) channels, as in `Peer::ping_pong_threads`; the pinger checks and
    /// sums the echoes as there.
    fn ping_pong_tasks(cap: usize, rtts: u64) -> Vec<Task>;
}
