//! The tokio echo server of row 16: a task per connection on a 2-worker runtime, each
//! reading into a buffer and writing back what it read until the client closes.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Workers of the echo server's runtime: one per core of the 2-core bench machine, as
/// the zchan server's two workers.
const ECHO_WORKERS: usize = 2;

/// Echoes one connection until the client closes it or an error ends it.
async fn echo(mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if stream.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// Serves echo connections on 127.0.0.1:`port` for `seconds` (0: until killed). Prints
/// the bound port on stdout once listening (useful with port 0).
pub fn serve(port: u16, seconds: u64) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(ECHO_WORKERS)
        .enable_io()
        .enable_time()
        .build()
        .expect("tokio runtime");
    rt.block_on(async {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .expect("bind");
        println!("port {}", listener.local_addr().expect("local_addr").port());
        let accept = async {
            loop {
                if let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(echo(stream));
                }
            }
        };
        if seconds == 0 {
            accept.await
        } else {
            let _ = tokio::time::timeout(Duration::from_secs(seconds), accept).await;
        }
    });
    rt.shutdown_timeout(Duration::from_millis(100));
}
