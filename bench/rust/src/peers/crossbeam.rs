//! crossbeam-channel 0.5: MPMC without an async API, so it runs the thread rows and
//! rows 1-4 through its synchronous send/recv (which never wait there); `bounded(0)` is
//! its zero flavour, a rendezvous channel (row 17).

use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, unbounded, Receiver, Select, Sender};

use super::Peer;
use crate::harness::Job;

/// The `crossbeam` peer.
pub struct Crossbeam;

fn channel(cap: Option<usize>) -> (Sender<u64>, Receiver<u64>) {
    match cap {
        Some(cap) => bounded(cap),
        None => unbounded(),
    }
}

impl Peer for Crossbeam {
    const NAME: &'static str = "crossbeam";
    const SELECT: bool = true;
    const RENDEZVOUS: bool = true;

    fn select_jobs(channels: usize, cap: usize, per_sender: u64) -> Vec<Job> {
        let mut jobs: Vec<Job> = Vec::new();
        let mut rxs = Vec::new();
        for c in 0..channels as u64 {
            let (tx, rx) = bounded(cap);
            rxs.push(rx);
            let first = c * per_sender + 1;
            jobs.push(Box::new(move || {
                for i in first..first + per_sender {
                    tx.send(i).unwrap();
                }
                0
            }));
        }
        jobs.push(Box::new(move || {
            // One Select over every receiver, kept across messages; a channel whose
            // senders are gone is removed from it.
            let mut sel = Select::new();
            for rx in &rxs {
                sel.recv(rx);
            }
            let (mut sum, mut open) = (0, channels);
            while open > 0 {
                let op = sel.select();
                let i = op.index();
                match op.recv(&rxs[i]) {
                    Ok(v) => sum += v,
                    Err(_) => {
                        sel.remove(i);
                        open -= 1;
                    }
                }
            }
            sum
        }));
        jobs
    }

    fn pairs(cap: Option<usize>, pairs: u64) -> Duration {
        let (tx, rx) = channel(cap);
        let mut sum = 0;
        let start = Instant::now();
        for i in 0..pairs {
            tx.send(i).unwrap();
            sum += rx.recv().unwrap();
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
