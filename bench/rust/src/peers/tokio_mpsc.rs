//! tokio 1.24 `sync::mpsc`: MPSC, so rows with several receivers do not apply.
//! Bounded: async send/recv, blocking_send/blocking_recv for threads.
//! Unbounded (rows 2 and 4 only): `send` is synchronous, `recv` is async.

use std::task::Context;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{channel, unbounded_channel, Receiver};

use super::{AsyncPeer, Peer};
use crate::harness::{merge_count, noop_waker, poll_once, Job, Task};

/// The `tokio` peer.
pub struct Tokio;

impl Peer for Tokio {
    const NAME: &'static str = "tokio";
    const MULTI_CONSUMER: bool = false;

    fn pairs(cap: Option<usize>, pairs: u64) -> Duration {
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut sum = 0;
        let elapsed = match cap {
            Some(cap) => {
                let (tx, mut rx) = channel(cap);
                let start = Instant::now();
                for i in 0..pairs {
                    poll_once(tx.send(i), &mut cx).unwrap();
                    sum += poll_once(rx.recv(), &mut cx).unwrap();
                }
                start.elapsed()
            }
            None => {
                let (tx, mut rx) = unbounded_channel();
                let start = Instant::now();
                for i in 0..pairs {
                    tx.send(i).unwrap();
                    sum += poll_once(rx.recv(), &mut cx).unwrap();
                }
                start.elapsed()
            }
        };
        assert_eq!(sum, pairs * (pairs - 1) / 2);
        elapsed
    }

    fn batches(cap: Option<usize>, batch: u64, reps: u64) -> Duration {
        let mut sum = 0;
        let elapsed = match cap {
            Some(cap) => {
                let (tx, mut rx) = channel(cap);
                let start = Instant::now();
                for _ in 0..reps {
                    for i in 0..batch {
                        tx.try_send(i).unwrap();
                    }
                    for _ in 0..batch {
                        sum += rx.try_recv().unwrap();
                    }
                }
                start.elapsed()
            }
            None => {
                let (tx, mut rx) = unbounded_channel();
                let start = Instant::now();
                for _ in 0..reps {
                    for i in 0..batch {
                        tx.send(i).unwrap();
                    }
                    for _ in 0..batch {
                        sum += rx.try_recv().unwrap();
                    }
                }
                start.elapsed()
            }
        };
        assert_eq!(sum, reps * batch * (batch - 1) / 2);
        elapsed
    }

    fn thread_jobs(cap: Option<usize>, senders: usize, receivers: usize, per_sender: u64) -> Vec<Job> {
        assert_eq!(receivers, 1, "tokio mpsc has a single receiver");
        // Only rows 10-12 get here, all bounded (row 6 has four receivers).
        let (tx, mut rx) = channel(cap.expect("tokio thread rows are bounded"));
        let mut jobs: Vec<Job> = Vec::new();
        for s in 0..senders as u64 {
            let tx = tx.clone();
            let first = s * per_sender + 1;
            jobs.push(Box::new(move || {
                for i in first..first + per_sender {
                    tx.blocking_send(i).unwrap();
                }
                0
            }));
        }
        jobs.push(Box::new(move || {
            let mut sum = 0;
            while let Some(v) = rx.blocking_recv() {
                sum += v;
            }
            sum
        }));
        jobs
    }

    fn ping_pong_threads(cap: usize, rtts: u64) -> Vec<Job> {
        let (ping_tx, mut ping_rx) = channel(cap);
        let (pong_tx, mut pong_rx) = channel(cap);
        vec![
            Box::new(move || {
                let mut sum = 0;
                for i in 1..rtts + 1 {
                    ping_tx.blocking_send(i).unwrap();
                    let echo = pong_rx.blocking_recv().unwrap();
                    assert_eq!(echo, i, "ping-pong echo differs from the value sent");
                    sum += echo;
                }
                sum
            }),
            Box::new(move || {
                while let Some(v) = ping_rx.blocking_recv() {
                    pong_tx.blocking_send(v).unwrap();
                }
                0
            }),
        ]
    }
}

impl AsyncPeer for Tokio {
    fn tasks(cap: usize, senders: usize, receivers: usize, per_sender: u64) -> Vec<Task> {
        assert_eq!(receivers, 1, "tokio mpsc has a single receiver");
        let (tx, mut rx) = channel(cap);
        let mut tasks: Vec<Task> = Vec::new();
        for s in 0..senders as u64 {
            let tx = tx.clone();
            let first = s * per_sender + 1;
            tasks.push(Box::pin(async move {
                for i in first..first + per_sender {
                    tx.send(i).await.unwrap();
                }
                0
            }));
        }
        tasks.push(Box::pin(async move {
            let mut sum = 0;
            while let Some(v) = rx.recv().await {
                sum += v;
            }
            sum
        }));
        tasks
    }

    fn merged_tasks(channels: usize, cap: usize, per_sender: u64) -> Vec<Task> {
        let mut tasks: Vec<Task> = Vec::new();
        let mut rxs = Vec::new();
        for c in 0..channels as u64 {
            let first = c * per_sender + 1;
            let (tx, rx) = channel(cap);
            rxs.push(rx);
            tasks.push(Box::pin(async move {
                for i in first..first + per_sender {
                    tx.send(i).await.unwrap();
                }
                0
            }));
        }
        tasks.push(Box::pin(merge_count(rxs, |rx: &mut Receiver<u64>, cx| rx.poll_recv(cx))));
        tasks
    }

    fn ping_pong_tasks(cap: usize, rtts: u64) -> Vec<Task> {
        let (ping_tx, mut ping_rx) = channel(cap);
        let (pong_tx, mut pong_rx) = channel(cap);
        vec![
            Box::pin(async move {
                let mut sum = 0;
                for i in 1..rtts + 1 {
                    ping_tx.send(i).await.unwrap();
                    let echo = pong_rx.recv().await.unwrap();
                    assert_eq!(echo, i, "ping-pong echo differs from the value sent");
                    sum += echo;
                }
                sum
            }),
            Box::pin(async move {
                while let Some(v) = ping_rx.recv().await {
                    pong_tx.send(v).await.unwrap();
                }
                0
            }),
        ]
    }
}
