//! async-channel 1.8 (smol): MPMC, async send/recv plus send_blocking/recv_blocking.

use std::pin::Pin;
use std::task::Context;
use std::time::{Duration, Instant};

use async_channel::{bounded, unbounded, Receiver, Sender};
use futures_lite::Stream;

use super::{AsyncPeer, Peer};
use crate::harness::{merge_count, noop_waker, poll_once, Job, Task};

/// The `async-channel` peer.
pub struct AsyncChannel;

fn channel(cap: Option<usize>) -> (Sender<u64>, Receiver<u64>) {
    match cap {
        Some(cap) => bounded(cap),
        None => unbounded(),
    }
}

impl Peer for AsyncChannel {
    const NAME: &'static str = "async-channel";

    fn pairs(cap: Option<usize>, pairs: u64) -> Duration {
        let (tx, rx) = channel(cap);
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut sum = 0;
        let start = Instant::now();
        for i in 0..pairs {
            poll_once(tx.send(i), &mut cx).unwrap();
            sum += poll_once(rx.recv(), &mut cx).unwrap();
        }
        let elapsed = start.elapsed();
        assert_eq!(sum, pairs * (pairs - 1) / 2);
        elapsed
    }

    fn batches(cap: Option<usize>, batch: u64, reps: u64) -> Duration {
        let (tx, rx) = channel(cap);
        let mut sum = 0;
        let start = Instant::now();
        for _ in 0..reps {
            for i in 0..batch {
                tx.try_send(i).unwrap();
            }
            for _ in 0..batch {
                sum += rx.try_recv().unwrap();
            }
        }
        let elapsed = start.elapsed();
        assert_eq!(sum, reps * batch * (batch - 1) / 2);
        elapsed
    }

    fn thread_jobs(cap: Option<usize>, senders: usize, receivers: usize, per_sender: u64) -> Vec<Job> {
        let (tx, rx) = channel(cap);
        let mut jobs: Vec<Job> = Vec::new();
        for s in 0..senders as u64 {
            let tx = tx.clone();
            let first = s * per_sender + 1;
            jobs.push(Box::new(move || {
                for i in first..first + per_sender {
                    tx.send_blocking(i).unwrap();
                }
                0
            }));
        }
        for _ in 0..receivers {
            let rx = rx.clone();
            jobs.push(Box::new(move || {
                let mut sum = 0;
                while let Ok(v) = rx.recv_blocking() {
                    sum += v;
                }
                sum
            }));
        }
        jobs
    }

    fn ping_pong_threads(cap: usize, rtts: u64) -> Vec<Job> {
        let (ping_tx, ping_rx) = bounded(cap);
        let (pong_tx, pong_rx) = bounded(cap);
        vec![
            Box::new(move || {
                let mut sum = 0;
                for i in 1..rtts + 1 {
                    ping_tx.send_blocking(i).unwrap();
                    let echo = pong_rx.recv_blocking().unwrap();
                    assert_eq!(echo, i, "ping-pong echo differs from the value sent");
                    sum += echo;
                }
                sum
            }),
            Box::new(move || {
                while let Ok(v) = ping_rx.recv_blocking() {
                    pong_tx.send_blocking(v).unwrap();
                }
                0
            }),
        ]
    }
}

impl AsyncPeer for AsyncChannel {
    fn tasks(cap: usize, senders: usize, receivers: usize, per_sender: u64) -> Vec<Task> {
        let (tx, rx) = bounded(cap);
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
        for _ in 0..receivers {
            let rx = rx.clone();
            tasks.push(Box::pin(async move {
                let mut sum = 0;
                while let Ok(v) = rx.recv().await {
                    sum += v;
                }
                sum
            }));
        }
        tasks
    }

    fn merged_tasks(channels: usize, cap: usize, per_sender: u64) -> Vec<Task> {
        let mut tasks: Vec<Task> = Vec::new();
        let mut rxs = Vec::new();
        for c in 0..channels as u64 {
            let first = c * per_sender + 1;
            let (tx, rx) = bounded(cap);
            rxs.push(rx);
            tasks.push(Box::pin(async move {
                for i in first..first + per_sender {
                    tx.send(i).await.unwrap();
                }
                0
            }));
        }
        tasks.push(Box::pin(merge_count(rxs, |rx: &mut Receiver<u64>, cx| {
            Pin::new(rx).poll_next(cx)
        })));
        tasks
    }

    fn ping_pong_tasks(cap: usize, rtts: u64) -> Vec<Task> {
        let (ping_tx, ping_rx) = bounded(cap);
        let (pong_tx, pong_rx) = bounded(cap);
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
                while let Ok(v) = ping_rx.recv().await {
                    pong_tx.send(v).await.unwrap();
                }
                0
            }),
        ]
    }
}
