//! Each member's chat events stream, kept open as the web app's `EventSource` keeps it: when it
//! breaks (its process was killed, or stopped) it reconnects through the balancer after a pause,
//! sending the last event id it took as `Last-Event-ID` (unless the run is told to forget it, to
//! show that the checker then finds the loss). Every event taken is recorded with its arrival.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use futures_util::StreamExt;
use serde_json::Value;

use crate::members::{Balancer, Member};

/// EventSource's pause before a reconnect until the server names one (`retry:`).
const RECONNECT_AFTER: Duration = Duration::from_secs(3);

/// One event as a stream took it.
#[derive(Clone, Debug)]
pub struct Received {
    pub seq: i64,
    pub kind: String,
    pub match_id: i64,
    pub message_id: Option<i64>,
    pub at: Instant,
}

#[derive(Default)]
pub struct Stream {
    pub events: Mutex<Vec<Received>>,
    pub open: AtomicBool,
    /// Connections opened (the first and every reconnect).
    pub opens: AtomicUsize,
    /// `reset` events: what was missed could not be replayed.
    pub resets: AtomicUsize,
}

/// Keeps `member`'s stream open until `stop`; answers its record.
pub fn keep_open(
    lb: Arc<Balancer>,
    client: reqwest::Client,
    member: Member,
    forget_last_event_id: bool,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Arc<Stream> {
    let stream = Arc::new(Stream::default());
    let record = stream.clone();
    tokio::spawn(async move {
        let mut last_id: Option<i64> = None;
        let mut reconnect_after = RECONNECT_AFTER;
        while !*stop.borrow() {
            let mut req = client
                .get(format!("{}/api/chat/events", lb.pick()))
                .bearer_auth(&member.token)
                .header("X-Forwarded-For", &member.address);
            if let (Some(id), false) = (last_id, forget_last_event_id) {
                req = req.header("Last-Event-ID", id.to_string());
            }
            let mut stop_now = stop.clone();
            tokio::select! {
                _ = read(req, &record, &mut last_id, &mut reconnect_after) => {}
                _ = stop_now.wait_for(|s| *s) => break,
            }
            record.open.store(false, Ordering::SeqCst);
            tokio::time::sleep(reconnect_after).await;
        }
    });
    stream
}

/// One connection: reads events until the stream ends or breaks. A block with an `id:` and
/// neither an event nor anything else is an event too (a message since deleted: it only moves
/// the number on); the opening block (`retry:`, `id:` and `: connected`) only sets the number.
async fn read(
    req: reqwest::RequestBuilder,
    record: &Stream,
    last_id: &mut Option<i64>,
    reconnect_after: &mut Duration,
) {
    let Ok(r) = req.send().await else { return };
    if !r.status().is_success() {
        return;
    }
    record.opens.fetch_add(1, Ordering::SeqCst);
    record.open.store(true, Ordering::SeqCst);
    let mut body = r.bytes_stream();
    let mut buffer = String::new();
    while let Some(Ok(chunk)) = body.next().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let at = Instant::now();
            let (mut seq, mut kind, mut data, mut other) = (None, None, None, false);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    seq = v.trim().parse::<i64>().ok();
                } else if let Some(v) = line.strip_prefix("event: ") {
                    kind = Some(v.to_string());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = serde_json::from_str::<Value>(v).ok();
                } else if let Some(v) = line.strip_prefix("retry: ") {
                    if let Ok(ms) = v.trim().parse::<u64>() {
                        *reconnect_after = Duration::from_millis(ms);
                    }
                    other = true;
                } else if !line.is_empty() {
                    other = true;
                }
            }
            if kind.as_deref() == Some("reset") {
                record.resets.fetch_add(1, Ordering::SeqCst);
            }
            let Some(seq) = seq else { continue };
            *last_id = Some(seq);
            if kind.is_none() && other {
                continue;
            }
            let data = data.unwrap_or(Value::Null);
            record.events.lock().expect("events").push(Received {
                seq,
                kind: kind.unwrap_or_else(|| "gone".into()),
                match_id: data["matchId"].as_i64().unwrap_or(0),
                message_id: data["message"]["messageId"].as_i64(),
                at,
            });
        }
    }
}
