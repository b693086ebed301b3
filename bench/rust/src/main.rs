//! zchan-peers-rs: the bench rows for the Rust peer channels (async-channel, tokio
//! mpsc, flume, crossbeam-channel). Prints `row,impl,run,value,unit` lines on stdout;
//! see bench/rust/README.md for the rows, the options and what each peer runs.

mod echo;
mod harness;
mod peers;

use std::process::exit;
use std::time::Duration;

use harness::{runtime, time_tasks, time_threads};
use peers::async_channel::AsyncChannel;
use peers::crossbeam::Crossbeam;
use peers::flume::Flume;
use peers::tokio_mpsc::Tokio;
use peers::{AsyncPeer, Peer};

/// What a row measures; `cap: None` is an unbounded channel.
#[derive(Clone, Copy)]
enum Kind {
    Pairs(Option<usize>),
    Batches(Option<usize>),
    Threads { cap: Option<usize>, senders: usize, receivers: usize },
    /// On a multi-threaded runtime with `TASK_WORKERS` workers.
    Tasks { cap: usize, senders: usize, receivers: usize },
    /// Row 13: `senders` tasks share 2^20 messages.
    ManySenders { merged: bool, senders: usize, multi_thread: bool },
    /// Row 13c: `channels` sender threads, one channel each, share 2^14 messages, read
    /// by one thread through a select.
    Select { channels: usize },
    /// Rows 15 and 17: two threads bounce one message over two bounded(`cap`) channels
    /// (`cap` 0: rendezvous channels).
    PingPongThreads { cap: usize },
    /// The same with two tasks on a 2-worker runtime.
    PingPongTasks { cap: usize },
}

struct Row {
    id: String,
    kind: Kind,
    unit: &'static str,
}

/// Message counts of a full run (the same as bench/main.c); `--quick` divides each by 10.
struct Counts {
    pairs: u64,
    batch_reps: u64,
    per_sender: u64,
    many_total: u64,
    select_total: u64,
    rtts: u64,
}

const BATCH: u64 = 1024;
const TASK_WORKERS: usize = 4;

impl Counts {
    fn new(quick: bool) -> Counts {
        let div = if quick { 10 } else { 1 };
        Counts {
            pairs: 1_000_000 / div,
            batch_reps: 1000 / div,
            per_sender: 10_000 / div,
            many_total: (1 << 20) / div,
            select_total: (1 << 14) / div,
            rtts: 20_000 / div,
        }
    }
}

fn rows() -> Vec<Row> {
    let row = |id: &str, kind, unit| Row { id: id.to_string(), kind, unit };
    let threads = |cap, senders, receivers| Kind::Threads { cap, senders, receivers };
    let tasks = |cap, senders, receivers| Kind::Tasks { cap, senders, receivers };
    let mut rows = vec![
        row("1", Kind::Pairs(Some(1)), "ns_per_pair"),
        row("2", Kind::Pairs(None), "ns_per_pair"),
        row("3", Kind::Batches(Some(BATCH as usize)), "us_per_batch"),
        row("4", Kind::Batches(None), "us_per_batch"),
        row("5", threads(Some(16), 4, 4), "ms_total"),
        row("6", threads(None, 4, 4), "ms_total"),
        row("7", tasks(16, 4, 1), "ms_total"),
        row("8", tasks(16, 4, 4), "ms_total"),
        row("9", tasks(16, 1, 1), "ns_per_msg"),
        row("10", threads(Some(16), 1, 1), "ms_total"),
        row("11", threads(Some(1024), 1, 1), "ms_total"),
        row("12", threads(Some(16), 4, 1), "ms_total"),
    ];
    for (variant, merged) in [("a", false), ("b", true)] {
        for senders in [2, 16, 64, 256, 512] {
            for (suffix, multi_thread) in [("mt", true), ("st", false)] {
                rows.push(row(
                    &format!("13{}-N{}-{}", variant, senders, suffix),
                    Kind::ManySenders { merged, senders, multi_thread },
                    "ns_per_msg",
                ));
            }
        }
    }
    for channels in [2, 16, 64, 256, 512] {
        rows.push(row(&format!("13c-N{}-mt", channels), Kind::Select { channels }, "ns_per_msg"));
    }
    rows.push(row("15-threads", Kind::PingPongThreads { cap: 1 }, "ns_per_rtt"));
    rows.push(row("15-tasks", Kind::PingPongTasks { cap: 1 }, "ns_per_rtt"));
    rows.push(row("17-threads", Kind::PingPongThreads { cap: 0 }, "ns_per_rtt"));
    rows.push(row("17-tasks", Kind::PingPongTasks { cap: 0 }, "ns_per_rtt"));
    rows
}

/// The row's value in `unit` from the time of a run and how many pairs, batches,
/// messages or round trips it made.
fn value(unit: &str, d: Duration, ops: u64) -> f64 {
    let ns = d.as_nanos() as f64;
    match unit {
        "ms_total" => ns / 1e6,
        "us_per_batch" => ns / 1e3 / ops as f64,
        _ => ns / ops as f64,
    }
}

/// `1 + 2 + ... + t`: the checksum of a run whose senders (or pinger) together sent the
/// distinct values `1..=t`.
fn sum_to(t: u64) -> u64 {
    t * (t + 1) / 2
}

/// One run of a row that every peer supports: its time and how many pairs, batches,
/// messages or round trips it made.
fn run_sync<P: Peer>(kind: Kind, n: &Counts) -> (Duration, u64) {
    match kind {
        Kind::Pairs(cap) => (P::pairs(cap, n.pairs), n.pairs),
        Kind::Batches(cap) => (P::batches(cap, BATCH, n.batch_reps), n.batch_reps),
        Kind::Threads { cap, senders, receivers } => {
            let (d, sum) = time_threads(P::thread_jobs(cap, senders, receivers, n.per_sender));
            let total = senders as u64 * n.per_sender;
            assert_eq!(sum, sum_to(total), "{}: lost or duplicated messages (checksum)", P::NAME);
            (d, total)
        }
        Kind::PingPongThreads { cap } => {
            let (d, sum) = time_threads(P::ping_pong_threads(cap, n.rtts));
            assert_eq!(sum, sum_to(n.rtts), "{}: lost or duplicated round trips (checksum)", P::NAME);
            (d, n.rtts)
        }
        Kind::Select { channels } => {
            let per_sender = n.select_total / channels as u64;
            let (d, sum) = time_threads(P::select_jobs(channels, 1024 / channels, per_sender));
            let total = channels as u64 * per_sender;
            assert_eq!(sum, sum_to(total), "{}: lost or duplicated messages (checksum)", P::NAME);
            (d, total)
        }
        _ => unreachable!("task rows are filtered out by applies()"),
    }
}

/// One run of any row on an async peer, as `run_sync`.
fn run_async<P: AsyncPeer>(kind: Kind, n: &Counts) -> (Duration, u64) {
    match kind {
        Kind::Tasks { cap, senders, receivers } => {
            let rt = runtime(Some(TASK_WORKERS));
            let (d, sum) = time_tasks(&rt, P::tasks(cap, senders, receivers, n.per_sender));
            let total = senders as u64 * n.per_sender;
            assert_eq!(sum, sum_to(total), "{}: lost or duplicated messages (checksum)", P::NAME);
            (d, total)
        }
        Kind::ManySenders { merged, senders, multi_thread } => {
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            let rt = runtime(if multi_thread { Some(cores) } else { None });
            let per_sender = n.many_total / senders as u64;
            let tasks = if merged {
                P::merged_tasks(senders, 1024 / senders, per_sender)
            } else {
                P::tasks(1024, senders, 1, per_sender)
            };
            let (d, sum) = time_tasks(&rt, tasks);
            // Merged or not, sender (channel) c sent c*per_sender+1 ..= (c+1)*per_sender.
            let total = senders as u64 * per_sender;
            assert_eq!(sum, sum_to(total), "{}: lost or duplicated messages (checksum)", P::NAME);
            (d, total)
        }
        Kind::PingPongTasks { cap } => {
            let rt = runtime(Some(2));
            let (d, sum) = time_tasks(&rt, P::ping_pong_tasks(cap, n.rtts));
            assert_eq!(sum, sum_to(n.rtts), "{}: lost or duplicated round trips (checksum)", P::NAME);
            (d, n.rtts)
        }
        _ => run_sync::<P>(kind, n),
    }
}

struct Impl {
    name: &'static str,
    multi_consumer: bool,
    select: bool,
    rendezvous: bool,
    is_async: bool,
    run: fn(Kind, &Counts) -> (Duration, u64),
}

fn impls() -> [Impl; 4] {
    [
        Impl { name: AsyncChannel::NAME, multi_consumer: AsyncChannel::MULTI_CONSUMER, select: AsyncChannel::SELECT, rendezvous: AsyncChannel::RENDEZVOUS, is_async: true, run: run_async::<AsyncChannel> },
        Impl { name: Tokio::NAME, multi_consumer: Tokio::MULTI_CONSUMER, select: Tokio::SELECT, rendezvous: Tokio::RENDEZVOUS, is_async: true, run: run_async::<Tokio> },
        Impl { name: Flume::NAME, multi_consumer: Flume::MULTI_CONSUMER, select: Flume::SELECT, rendezvous: Flume::RENDEZVOUS, is_async: true, run: run_async::<Flume> },
        Impl { name: Crossbeam::NAME, multi_consumer: Crossbeam::MULTI_CONSUMER, select: Crossbeam::SELECT, rendezvous: Crossbeam::RENDEZVOUS, is_async: false, run: run_sync::<Crossbeam> },
    ]
}

/// Whether `imp` runs `kind`: task rows need an async API, several receivers an MPMC
/// channel, row 17 a rendezvous channel.
fn applies(imp: &Impl, kind: Kind) -> bool {
    match kind {
        Kind::Pairs(_) | Kind::Batches(_) => true,
        Kind::Threads { receivers, .. } => receivers == 1 || imp.multi_consumer,
        Kind::Tasks { receivers, .. } => imp.is_async && (receivers == 1 || imp.multi_consumer),
        Kind::ManySenders { .. } => imp.is_async,
        Kind::Select { .. } => imp.select,
        Kind::PingPongThreads { cap } => cap > 0 || imp.rendezvous,
        Kind::PingPongTasks { cap } => imp.is_async && (cap > 0 || imp.rendezvous),
    }
}

/// Whether `--rows` token `token` selects row `id`: the id itself, or a group such as
/// `13`, `13a`, `13b-N64`, `15` or `17` (a prefix not followed by a digit).
fn selects(token: &str, id: &str) -> bool {
    id.strip_prefix(token)
        .map_or(false, |rest| rest.is_empty() || !rest.starts_with(|c: char| c.is_ascii_digit()))
}

const USAGE: &str = "usage: zchan-peers-rs [--runs K] [--rows LIST] [--impls LIST] [--quick] [--list]
       zchan-peers-rs --echo-server PORT [--seconds S]
  --runs K     measured runs per row and implementation (default 7; 3 with --quick)
  --rows LIST  comma list of row ids (1,2,...,12, 13a-N2-mt ... 13c-N512-mt, 15-threads,
               15-tasks, 17-threads, 17-tasks) or groups (13, 13a, 13b-N64, 15, 17);
               default all
  --impls LIST comma list of peers to run (async-channel, tokio, flume, crossbeam); default all
  --quick      divide message counts by 10
  --list       print the ids of the rows selected that a peer runs, one a line, and exit
  --echo-server PORT  serve row 16's tokio echo server on 127.0.0.1:PORT (0: any free
               port; prints `port N`) until killed, or for S seconds with --seconds
Prints row,impl,run,value,unit lines on stdout.";

fn fail(msg: &str) -> ! {
    eprintln!("zchan-peers-rs: {}\n{}", msg, USAGE);
    exit(2)
}

fn main() {
    let mut runs = None;
    let mut tokens: Option<Vec<String>> = None;
    let mut quick = false;
    let mut list = false;
    let mut wanted: Option<Vec<String>> = None;
    let mut echo_port: Option<u16> = None;
    let mut echo_seconds = 0u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                let k = args.next().and_then(|v| v.parse::<u32>().ok()).filter(|&k| k > 0);
                runs = Some(k.unwrap_or_else(|| fail("--runs needs a positive integer")));
            }
            "--rows" => {
                let list = args.next().unwrap_or_else(|| fail("--rows needs a list"));
                tokens = Some(list.split(',').filter(|t| !t.is_empty()).map(str::to_string).collect());
            }
            "--quick" => quick = true,
            "--list" => list = true,
            "--impls" => {
                let names = args.next().unwrap_or_else(|| fail("--impls needs a list"));
                wanted = Some(names.split(',').filter(|t| !t.is_empty()).map(str::to_string).collect());
            }
            "--echo-server" => {
                let port = args.next().and_then(|v| v.parse::<u16>().ok());
                echo_port = Some(port.unwrap_or_else(|| fail("--echo-server needs a port")));
            }
            "--seconds" => {
                let s = args.next().and_then(|v| v.parse::<u64>().ok());
                echo_seconds = s.unwrap_or_else(|| fail("--seconds needs a number"));
            }
            "--help" | "-h" => {
                println!("{}", USAGE);
                return;
            }
            other => fail(&format!("unknown argument {}", other)),
        }
    }
    if let Some(port) = echo_port {
        echo::serve(port, echo_seconds);
        return;
    }
    let runs = runs.unwrap_or(if quick { 3 } else { 7 });
    let counts = Counts::new(quick);
    let all = rows();
    if let Some(tokens) = &tokens {
        for t in tokens {
            if !all.iter().any(|r| selects(t, &r.id)) {
                fail(&format!("unknown row {}", t));
            }
        }
    }
    let impls = impls();
    for n in wanted.iter().flatten() {
        if !impls.iter().any(|imp| imp.name == n.as_str()) {
            fail(&format!("unknown implementation {}", n));
        }
    }
    for row in all.iter().filter(|r| tokens.as_ref().map_or(true, |ts| ts.iter().any(|t| selects(t, &r.id)))) {
        let runners: Vec<&Impl> = impls
            .iter()
            .filter(|imp| applies(imp, row.kind))
            .filter(|imp| wanted.as_ref().map_or(true, |w| w.iter().any(|n| n == imp.name)))
            .collect();
        if list {
            if !runners.is_empty() {
                println!("{}", row.id);
            }
            continue;
        }
        // One unprinted warm-up run each, then run r of every peer before run r+1.
        for imp in &runners {
            (imp.run)(row.kind, &counts);
        }
        for run in 1..=runs {
            for imp in &runners {
                let (d, ops) = (imp.run)(row.kind, &counts);
                println!("{},{},{},{:.3},{}", row.id, imp.name, run, value(row.unit, d, ops), row.unit);
            }
        }
    }
}
