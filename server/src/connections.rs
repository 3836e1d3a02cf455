//! What one client may hold of the server's connections, so that idle or slow sockets cannot
//! make everyone else wait.
//!
//! Every accepted TCP connection takes a slot: at most [`ConnectionLimits::total`] at once and
//! [`ConnectionLimits::per_address`] from one peer address (behind a trusted proxy the peer is the
//! proxy, so there the bound per client applies to its requests instead: [`PerClient`]). Beyond a
//! bound the connection is answered `503` with `Retry-After` and closed at once: refused, never
//! left hanging, and the process never runs out of file descriptors (an accept that fails for
//! want of one would leave every client waiting).
//!
//! Each connection's IO is watched ([`GuardedIo`]): a request head (request line and headers) must
//! arrive whole within [`ConnectionLimits::header_timeout`] of its first byte (of the connection's
//! opening, for the first request), however slowly it trickles; a kept-alive connection with no
//! new request for [`ConnectionLimits::idle_timeout`] after the last byte written is closed.
//! Bodies and responses have no deadline here (an upload on a slow phone, a chat events stream):
//! their bounds are the body caps and the upload queue.

use std::{
    collections::HashMap,
    future::Future,
    io,
    net::IpAddr,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll, ready},
    time::Duration,
};

use crate::error::ApiError;
use poem::{
    Endpoint, IntoResponse, Middleware, Request, Response,
    error::ResponseError,
    http::HeaderName,
    listener::Acceptor,
    web::{LocalAddr, RemoteAddr},
};
use tokio::{
    io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf},
    time::{Instant, Sleep},
};

/// The bounds on connections (production's defaults; tests shorten the times).
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// How long a request's head may take to arrive, from its first byte.
    pub header_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// Open connections from one peer address (or requests in flight from one client behind a
    /// trusted proxy). Generous: a mobile carrier puts many members behind one address.
    pub per_address: usize,
    /// Open connections in all: the process's open-file limit less [`RESERVED_FILES`]
    /// ([`total_for_open_files`]), so that the database pool, files being served and image work
    /// always find a descriptor.
    pub total: usize,
}

/// Descriptors kept for what is not a client's connection: the database pool (up to 1000), the
/// store's and LINE's HTTP clients, files being read, the SQLite journal.
pub const RESERVED_FILES: usize = 256;
/// The fewest connections in all a setting may ask for.
pub const MIN_CONNECTIONS: usize = 16;
/// Connections in all when the open-file limit cannot be read (the common limit of 1024 less the
/// reserve).
const WITHOUT_KNOWN_LIMIT: usize = 1024 - RESERVED_FILES;

/// The process's soft limit of open files (`RLIMIT_NOFILE`, read from `/proc/self/limits`), if
/// it can be read.
pub fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Connections in all for an open-file limit (`None`: unknown) and a setting
/// (`KIZUNA_MAX_CONNECTIONS`; `None`: unset): the limit less [`RESERVED_FILES`], or the setting,
/// which must lie from [`MIN_CONNECTIONS`] to that.
pub fn total_for_open_files(limit: Option<usize>, setting: Option<usize>) -> Result<usize, String> {
    let most = limit
        .map(|l| l.saturating_sub(RESERVED_FILES))
        .unwrap_or(WITHOUT_KNOWN_LIMIT)
        .max(MIN_CONNECTIONS);
    match setting {
        None => Ok(most),
        Some(n) if (MIN_CONNECTIONS..=most).contains(&n) => Ok(n),
        Some(_) => Err(format!(
            "KIZUNA_MAX_CONNECTIONS must be a number from {MIN_CONNECTIONS} to {most} (the \
             open-file limit less {RESERVED_FILES} kept for the database and files; raise \
             `ulimit -n` for more)"
        )),
    }
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            per_address: 128,
            total: total_for_open_files(open_file_limit(), None).unwrap_or(WITHOUT_KNOWN_LIMIT),
        }
    }
}

/// Seconds a refused client is told to wait.
const RETRY_AFTER_SECS: u64 = 5;

const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\
retry-after: 5\r\nconnection: close\r\ncontent-length: 26\r\n\r\ntoo many connections, wait";

/// The slots taken: in all, and per peer address.
#[derive(Default)]
struct Counts {
    total: usize,
    per_address: HashMap<IpAddr, usize>,
}

/// A connection's place in the counts, given back when the connection ends.
struct Slot {
    counts: Arc<Mutex<Counts>>,
    address: Option<IpAddr>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().expect("connection counts");
        counts.total -= 1;
        if let Some(address) = self.address
            && let Some(n) = counts.per_address.get_mut(&address)
        {
            *n -= 1;
            if *n == 0 {
                counts.per_address.remove(&address);
            }
        }
    }
}

/// An acceptor that bounds and watches the connections of the one it wraps.
pub struct BoundedAcceptor<A> {
    inner: A,
    limits: ConnectionLimits,
    /// Whether to bound connections per peer address (not behind a proxy, whose address every
    /// connection has).
    per_peer: bool,
    counts: Arc<Mutex<Counts>>,
}

impl<A> BoundedAcceptor<A> {
    pub fn new(inner: A, limits: ConnectionLimits, behind_proxy: bool) -> Self {
        BoundedAcceptor {
            inner,
            limits,
            per_peer: !behind_proxy,
            counts: Arc::default(),
        }
    }

    fn take_slot(&self, address: Option<IpAddr>) -> Option<Slot> {
        let mut counts = self.counts.lock().expect("connection counts");
        if counts.total >= self.limits.total {
            metrics::counter!(crate::metric_names::LIMIT_REFUSALS, "limit" => "connections")
                .increment(1);
            return None;
        }
        let address = address.filter(|_| self.per_peer);
        if let Some(address) = address {
            let n = counts.per_address.entry(address).or_insert(0);
            if *n >= self.limits.per_address {
                metrics::counter!(
                    crate::metric_names::LIMIT_REFUSALS,
                    "limit" => "connections-address"
                )
                .increment(1);
                return None;
            }
            *n += 1;
        }
        counts.total += 1;
        Some(Slot {
            counts: self.counts.clone(),
            address,
        })
    }
}

impl<A> Acceptor for BoundedAcceptor<A>
where
    A: Acceptor,
{
    type Io = GuardedIo<A::Io>;

    fn local_addr(&self) -> Vec<LocalAddr> {
        self.inner.local_addr()
    }

    async fn accept(
        &mut self,
    ) -> io::Result<(Self::Io, LocalAddr, RemoteAddr, poem::http::uri::Scheme)> {
        loop {
            let (io, local, remote, scheme) = self.inner.accept().await?;
            let address = remote.as_socket_addr().map(|a| a.ip());
            match self.take_slot(address) {
                Some(slot) => {
                    let io = GuardedIo::new(io, &self.limits, slot);
                    return Ok((io, local, remote, scheme));
                }
                None => {
                    tracing::warn!("connection refused: too many open connections");
                    tokio::spawn(refuse(io));
                }
            }
        }
    }
}

/// Answers 503 on a connection beyond the bounds and closes it, without reading its request.
async fn refuse(mut io: impl AsyncWrite + Unpin) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        io.write_all(REFUSAL).await?;
        io.shutdown().await
    })
    .await;
}

/// Where a connection is in its request/response cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Reading a request head: it must be whole by the deadline.
    Head,
    /// The head has arrived: its body, the handler and the response have no deadline here.
    Served,
    /// A response head was written: the next request may begin until the deadline, refreshed by
    /// every byte written (a streamed response is not idle).
    Idle,
}

/// A connection's IO with the deadlines of its phase.
pub struct GuardedIo<T> {
    inner: T,
    phase: Phase,
    deadline: Pin<Box<Sleep>>,
    header_timeout: Duration,
    idle_timeout: Duration,
    /// The end of what was read so far, to find the blank line that ends a head across reads.
    tail: [u8; 3],
    _slot: Slot,
}

impl<T> GuardedIo<T> {
    fn new(inner: T, limits: &ConnectionLimits, slot: Slot) -> Self {
        GuardedIo {
            inner,
            phase: Phase::Head,
            deadline: Box::pin(tokio::time::sleep(limits.header_timeout)),
            header_timeout: limits.header_timeout,
            idle_timeout: limits.idle_timeout,
            tail: [0; 3],
            _slot: slot,
        }
    }

    /// Follows what was read: the first byte of a request starts its head's deadline, the blank
    /// line after the headers ends it.
    fn read(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.phase == Phase::Idle {
            self.phase = Phase::Head;
            self.tail = [0; 3];
            let deadline = Instant::now() + self.header_timeout;
            self.deadline.as_mut().reset(deadline);
        }
        if self.phase != Phase::Head {
            return;
        }
        let mut seen: Vec<u8> = Vec::with_capacity(3 + bytes.len().min(64 * 1024));
        seen.extend_from_slice(&self.tail);
        seen.extend_from_slice(bytes);
        if seen.windows(4).any(|w| w == b"\r\n\r\n") {
            self.phase = Phase::Served;
        } else {
            let n = seen.len();
            self.tail.copy_from_slice(&seen[n - 3..]);
        }
    }

    /// Follows what was written: a final response head (not `100 Continue`) ends the request.
    fn wrote(&mut self, first: &[u8]) {
        let final_head = first.starts_with(b"HTTP/1.") && first.get(9).is_some_and(|&b| b != b'1');
        if final_head {
            self.phase = Phase::Idle;
        }
        if self.phase == Phase::Idle {
            let deadline = Instant::now() + self.idle_timeout;
            self.deadline.as_mut().reset(deadline);
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for GuardedIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.phase != Phase::Served && this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(match this.phase {
                // An idle connection just ends, as if the client had closed it.
                Phase::Idle => Ok(()),
                _ => Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the request head did not arrive in time",
                )),
            });
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        let after = buf.filled().len();
        // Borrow the bytes only after the inner read, then follow them.
        let fresh = buf.filled()[before..after].to_vec();
        this.read(&fresh);
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for GuardedIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let n = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        this.wrote(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let n = ready!(Pin::new(&mut this.inner).poll_write_vectored(cx, bufs))?;
        if n > 0 {
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &b[..]);
            this.wrote(&first[..first.len().min(n)]);
        }
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Behind a trusted proxy: requests in flight per client address (from the proxy's header),
/// bounded like connections are without one; beyond it, 503 E503 with `Retry-After` (the API's
/// error body: the proxy keeps the connection, so the answer is an ordinary one).
pub struct PerClient {
    header: Option<HeaderName>,
    limit: usize,
}

impl PerClient {
    pub fn new(header: Option<HeaderName>, limit: usize) -> PerClient {
        PerClient { header, limit }
    }
}

impl<E: Endpoint> Middleware<E> for PerClient {
    type Output = PerClientEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        PerClientEndpoint {
            inner: ep,
            header: self.header.clone(),
            limit: self.limit,
            in_flight: Arc::default(),
        }
    }
}

pub struct PerClientEndpoint<E> {
    inner: E,
    header: Option<HeaderName>,
    limit: usize,
    in_flight: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// A request's place in the in-flight counts, given back when it is answered.
struct InFlight {
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
    address: IpAddr,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().expect("in-flight counts");
        if let Some(n) = counts.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.address);
            }
        }
    }
}

impl<E: Endpoint> Endpoint for PerClientEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let Some(header) = &self.header else {
            return self.inner.call(req).await.map(IntoResponse::into_response);
        };
        let Some(address) = crate::client_address::client_ip(&req, Some(header)) else {
            return self.inner.call(req).await.map(IntoResponse::into_response);
        };
        let _in_flight = {
            let mut counts = self.in_flight.lock().expect("in-flight counts");
            let n = counts.entry(address).or_insert(0);
            if *n >= self.limit {
                tracing::warn!("request refused: too many in flight from one client address");
                return Ok(ApiError::Busy {
                    cause: "too many requests in flight from this address; retry later".into(),
                    retry_after: RETRY_AFTER_SECS,
                }
                .as_response());
            }
            *n += 1;
            InFlight {
                counts: self.in_flight.clone(),
                address,
            }
        };
        self.inner.call(req).await.map(IntoResponse::into_response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io() -> GuardedIo<tokio::io::Empty> {
        let limits = ConnectionLimits::default();
        let counts = Arc::new(Mutex::new(Counts {
            total: 1,
            ..Counts::default()
        }));
        GuardedIo::new(
            tokio::io::empty(),
            &limits,
            Slot {
                counts,
                address: None,
            },
        )
    }

    #[tokio::test]
    async fn a_head_ends_at_its_blank_line_even_split_across_reads() {
        let mut io = io();
        io.read(b"GET / HTTP/1.1\r\nHost: x\r");
        assert_eq!(io.phase, Phase::Head);
        io.read(b"\n\r");
        assert_eq!(io.phase, Phase::Head);
        io.read(b"\n");
        assert_eq!(io.phase, Phase::Served);
        io.wrote(b"HTTP/1.1 100 Continue\r\n\r\n");
        assert_eq!(io.phase, Phase::Served, "100 Continue ends nothing");
        io.wrote(b"HTTP/1.1 200 OK\r\n");
        assert_eq!(io.phase, Phase::Idle);
        io.read(b"P");
        assert_eq!(io.phase, Phase::Head, "the next request's first byte");
    }

    #[test]
    fn connections_follow_the_open_file_limit_unless_set_within_it() {
        assert_eq!(total_for_open_files(Some(1024), None), Ok(768));
        assert_eq!(total_for_open_files(Some(20_000), None), Ok(19_744));
        assert_eq!(total_for_open_files(None, None), Ok(768));
        assert_eq!(total_for_open_files(Some(100), None), Ok(MIN_CONNECTIONS));
        assert_eq!(total_for_open_files(Some(20_000), Some(4000)), Ok(4000));
        assert_eq!(total_for_open_files(Some(20_000), Some(16)), Ok(16));
        for refused in [Some(15), Some(19_745)] {
            let cause = total_for_open_files(Some(20_000), refused).unwrap_err();
            assert!(cause.contains("KIZUNA_MAX_CONNECTIONS"), "{cause}");
        }
    }

    #[test]
    fn the_refusal_is_a_whole_http_answer() {
        let text = std::str::from_utf8(REFUSAL).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 503"));
        assert!(head.contains(&format!("retry-after: {RETRY_AFTER_SECS}")));
        assert!(head.contains(&format!("content-length: {}", body.len())));
    }
}
