//! Connections over raw sockets: idle and slow sockets are closed on time, a client beyond the
//! bounds is refused at once, and a normal client is served meanwhile.

use std::{
    net::{IpAddr, SocketAddr},
    time::{Duration, Instant},
};

use kizuna_server::connections::ConnectionLimits;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpSocket, TcpStream},
};

use crate::helpers::{Backend, TestApp, assert_error, spawn_app_with};

const HEAD_TIMEOUT: Duration = Duration::from_secs(2);
const IDLE_TIMEOUT: Duration = Duration::from_secs(2);
const PER_ADDRESS: usize = 12;
const TOTAL: usize = 30;

fn server_address(app: &TestApp) -> SocketAddr {
    app.address
        .trim_start_matches("http://")
        .parse()
        .expect("the test server's address")
}

/// A connection from `from` (any 127.x.y.z is this machine's loopback).
async fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    socket.connect(to).await.unwrap()
}

/// Whether the server closed the connection (read end, or reset) within `limit`.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            // Bytes (an answer): keep reading until the end.
            Ok(Ok(_)) => {}
        }
    }
}

/// What the server answers at once on a fresh connection, without any request sent.
async fn answer_without_asking(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// A normal client from an address of its own: `/healthz` answered within a second.
async fn a_normal_client_is_served(app: &TestApp, from: &str) {
    let client = reqwest::Client::builder()
        .no_proxy()
        .local_address(from.parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    let started = Instant::now();
    let r = client
        .get(app.url("/healthz"))
        .timeout(Duration::from_secs(1))
        .send()
        .await
        .expect("served within a second");
    assert_eq!(r.status(), 200);
    assert!(started.elapsed() < Duration::from_secs(1));
}

async fn slow_and_idle_sockets_never_keep_a_normal_client_waiting(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.connections = ConnectionLimits {
            header_timeout: HEAD_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            per_address: PER_ADDRESS,
            total: TOTAL,
        };
    })
    .await;
    let to = server_address(&app);

    // One address holds its bound of idle sockets; one more from it is refused at once.
    let mut idle = Vec::new();
    for _ in 0..PER_ADDRESS {
        idle.push(connect_from("127.0.0.2", to).await);
    }
    let mut extra = connect_from("127.0.0.2", to).await;
    let refused = answer_without_asking(&mut extra).await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused:?}");
    assert!(refused.contains("retry-after: 5"), "{refused:?}");

    // Another sends a request head one header line at a time, forever.
    let mut slow = Vec::new();
    for _ in 0..8 {
        let mut s = connect_from("127.0.0.3", to).await;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: kizuna\r\n")
            .await
            .unwrap();
        slow.push(s);
    }
    let trickle = {
        let mut slow = std::mem::take(&mut slow);
        tokio::spawn(async move {
            // About twice the head's time.
            for n in 0..14 {
                for s in &mut slow {
                    let _ = s.write_all(format!("X-Slow-{n}: 1\r\n").as_bytes()).await;
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            slow
        })
    };

    // Meanwhile everyone else is served at once.
    a_normal_client_is_served(&app, "127.0.0.4").await;

    // The idle sockets are closed once the head's time is up, the slow ones too, however
    // steadily they trickle.
    for s in &mut idle {
        assert!(
            closed_within(s, HEAD_TIMEOUT + Duration::from_secs(2)).await,
            "an idle socket was kept"
        );
    }
    let mut slow = trickle.await.unwrap();
    for s in &mut slow {
        assert!(
            closed_within(s, Duration::from_millis(500)).await,
            "a slow head was kept"
        );
    }

    // A kept-alive connection without a next request is closed after the idle time.
    let mut kept = connect_from("127.0.0.5", to).await;
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: kizuna\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 512];
    let n = kept.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    let started = Instant::now();
    assert!(closed_within(&mut kept, IDLE_TIMEOUT + Duration::from_secs(2)).await);
    assert!(started.elapsed() >= IDLE_TIMEOUT - Duration::from_millis(200));

    // The bound in all: one connection per address, and the one beyond the total is refused.
    let mut held = Vec::new();
    for n in 0..TOTAL {
        held.push(connect_from(&format!("127.0.1.{}", n + 1), to).await);
    }
    let mut beyond = connect_from("127.0.2.1", to).await;
    let refused = answer_without_asking(&mut beyond).await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused:?}");
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    a_normal_client_is_served(&app, "127.0.0.6").await;
}

/// The header the tests' proxy writes the client's address into.
const FORWARDED_FOR: &str = "x-forwarded-for";

/// `/healthz` from `from`, as a proxy at that address forwards it for the client `client`, with
/// how long it took.
async fn forwarded(app: &TestApp, from: &str, client: &str) -> (reqwest::Response, Duration) {
    let http = reqwest::Client::builder()
        .no_proxy()
        .local_address(from.parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    let started = Instant::now();
    let r = http
        .get(app.url("/healthz"))
        // What the client claimed comes first; the proxy appends the address it saw.
        .header(FORWARDED_FOR, format!("198.51.100.1, {client}"))
        .timeout(Duration::from_secs(1))
        .send()
        .await
        .expect("answered within a second");
    (r, started.elapsed())
}

/// Behind a trusted proxy every connection comes from the proxy's address, so the bound per
/// client is on the requests in flight of each forwarded address instead: one client holding its
/// bound (log lines whose bodies never end) is refused one more (503 E503 with Retry-After, at
/// once) while another client, through the same proxy address, is served within a second; once
/// its requests end the first is served again.
async fn behind_a_proxy_one_client_over_its_bound_is_refused_and_others_are_served(
    backend: Backend,
) {
    let app = spawn_app_with(backend, |s| {
        s.trusted_proxy_header = Some(poem::http::HeaderName::from_static(FORWARDED_FOR));
        s.connections = ConnectionLimits {
            header_timeout: HEAD_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            per_address: PER_ADDRESS,
            // Room for the test's own connections: this bound is not what is tested here.
            total: 4 * TOTAL,
        };
    })
    .await;
    let to = server_address(&app);
    let proxy = "127.0.0.2";
    let (busy, other) = ("203.0.113.7", "203.0.113.8");

    // The busy client's requests, each with a head sent whole and a body that never ends.
    let mut held = Vec::new();
    for _ in 0..PER_ADDRESS {
        let mut s = connect_from(proxy, to).await;
        let head = format!(
            "POST /api/logger HTTP/1.1\r\nHost: kizuna\r\n{FORWARDED_FOR}: {busy}\r\n\
             Content-Type: application/json\r\nContent-Length: 64\r\n\r\n{{\"message\": \"held"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        held.push(s);
    }
    // Its next request is refused at once, once the held ones are in flight.
    let started = Instant::now();
    let refused = loop {
        let (r, took) = forwarded(&app, proxy, busy).await;
        if r.status() == 503 {
            assert!(took < Duration::from_secs(1), "{took:?}");
            break r;
        }
        assert_eq!(r.status(), 200);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the held requests never counted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(refused.headers()["retry-after"], "5");
    assert_error(refused, 503, "E503").await;

    // Another client through the same proxy address (whose connections are beyond the bound
    // per peer address) is served within a second, again and again.
    for _ in 0..3 {
        let (r, took) = forwarded(&app, proxy, other).await;
        assert_eq!(r.status(), 200);
        assert!(took < Duration::from_secs(1), "{took:?}");
    }

    // The held requests end (their connections go): the busy client is served again.
    drop(held);
    let started = Instant::now();
    loop {
        let (r, _) = forwarded(&app, proxy, busy).await;
        if r.status() == 200 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the ended requests still count"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

crate::on_both_backends!(
    slow_and_idle_sockets_never_keep_a_normal_client_waiting,
    behind_a_proxy_one_client_over_its_bound_is_refused_and_others_are_served,
);
