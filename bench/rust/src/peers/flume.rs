//! flume 0.10 (default features): MPMC, blocking send/recv plus send_async/recv_async;
//! `bounded(0)` is a rendezvous channel (row 17).

use std::pin::Pin;
use std::task::Context;
use std::time::{Duration, Instant};

use flume::{bounded, r#async::RecvStream, unbounded, Receiver, Sender};
use futures_lite::Stream;

use super::{AsyncPeer, Peer};
use crate::harness::{merge_count, noop_waker, poll_once, Job, Task};

/// The `flume` peer.
pub struct Flume;

fn channel(cap: Option<usize>) -> (Sender<u64>, Receiver<u64>) {
    match cap {
        Some(cap) => bounded(cap),
        None => unbounded(),
    }
}

impl Peer for Flume {
    const NAME: &'static str = "flume";
    const RENDEZVOUS: bool = true;

    fn pairs(cap: Option<usize>, pairs: u64) -> Duration {
        let (tx, rx) = channel(cap);
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut sum = 0;
        let start = Instant::now();
        for i in 0..pairs {
            poll_once(tx.send_async(i), &mut cx).unwrap();
            sum += poll_once(rx.recv_async(), &mut cx).unwrap();
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
                    tx.send(i).unwrap();
                }
                0
            }));
        }
        for _ in 0..receivers {
            let rx = rx.clone();
            jobs.push(Box::new(move || {
                let mut sum = 0;
                while let Ok(v) = rx.recv() {
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
                    ping_tx.send(i).unwrap();
                    let echo = pong_rx.recv().unwrap();
                    assert_eq!(echo, i, "ping-pong echo differs from the value sent");
                    sum += echo;
                }
                sum
            }),
            Box::new(move || {
                while let Ok(v) = ping_rx.recv() {
                    pong_tx.send(v).unwrap();
                }
                0
            }),
        ]
    }
}

impl AsyncPeer for Flume {
    fn tasks(cap: usize, senders: usize, receivers: usize, per_sender: u64) -> Vec<Task> {
        let (tx, rx) = bounded(cap);
        let mut tasks: Vec<Task> = Vec::new();
        for s in 0..senders as u64 {
            let tx = tx.clone();
            let first = s * per_sender + 1;
            tasks.push(Box::pin(async move {
                for i in first..first + per_sender {
                    tx.send_async(i).await.unwrap();
                }
                0
            }));
        }
        for _ in 0..receivers {
            let rx = rx.clone();
            tasks.push(Box::pin(async move {
                let mut sum = 0;
                while let Ok(v) = rx.recv_async().await {
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
            rxs.push(rx.into_stream());
            tasks.push(Box::pin(async move {
                for i in first..first + per_sender {
                    tx.send_async(i).await.unwrap();
                }
                0
            }));
        }
        tasks.push(Box::pin(merge_count(rxs, |rx: &mut RecvStream<'static, u64>, cx| {
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
                    ping_tx.send_async(i).await.unwrap();
                    let echo = pong_rx.recv_async().await.unwrap();
                    assert_eq!(echo, i, "ping-pong echo differs from the value sent");
                    sum += echo;
                }
                sum
            }),
            Box::pin(async move {
                while let Ok(v) = ping_rx.recv_async().await {
                    pong_tx.send_async(v).await.unwrap();
                }
                0
            }),
        ]
    }
}
