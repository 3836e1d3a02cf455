//! LINE pushes through an outbox: written in the transaction of the decision that causes them,
//! delivered at least once by a background worker, deduplicated by LINE's retry key.
//!
//! A push is stored as what it is (kizuna-core's `push::Push`: its kind and ids) and rendered by
//! the worker when it is sent: a Flex Message in the member's language at that moment, the
//! sender's nickname as it is then, checked against LINE's limits (what LINE would refuse is
//! marked failed, not sent). A delivered push is counted per day and kind in `push_days`.
//!
//! ```no_run
//! # use kizuna_server::{line::push, routes::AppState, storage};
//! # async fn decide(state: &AppState, member: kizuna_core::line::LineUserId) -> anyhow::Result<()> {
//! let txn = storage::begin_write(&state.db).await?;
//! // … the decision's own writes …
//! push::enqueue_push(&txn, &member, &kizuna_core::push::Push::Approved, None).await?;
//! txn.commit().await?;
//! state.push.wake(); // deliver now rather than at the next poll
//! # Ok(())
//! # }
//! ```
//!
//! Delivery (`PushWorker`): `POST {KIZUNA_LINE_API_BASE}/v2/bot/message/push` with the channel
//! access token and the row's UUID as `X-Line-Retry-Key`.
//! - 2xx: delivered. 409: LINE had already accepted this retry key (an earlier attempt got through
//!   but its answer was lost): delivered.
//! - 5xx, 429 and transport failures (time-outs, refused connections): retried after
//!   `first_retry × 2^(attempt−1)` (±20 % jitter, at most `max_retry`; at least a 429's
//!   Retry-After), until `give_up_after` (24 h) from when the push was written: then it is marked
//!   expired with an error in the log. LINE keeps a retry key for 24 h, so a later re-send could
//!   double the message.
//! - Any other 4xx: LINE will never take it; marked failed, logged as an error.
//! - A member who unfollowed or blocked the official account (the webhook's newest event) is not
//!   sent anything: the row is marked unfollowed, not delivered.
//!
//! Several processes on one PostgreSQL share the outbox safely: a claim moves the row's due time
//! to the end of a lease (`lease`, 20 s: longer than one request's time-out), so only one worker
//! sends it at a time, and a worker that dies mid-request leaves it to be re-sent (same retry key)
//! when the lease ends. Each worker also polls (`poll_every`), which is how a push written by
//! another process, or left by a crashed one, is found.

use std::{borrow::Cow, sync::Arc, time::Duration};

use anyhow::Context;
use futures_util::StreamExt;
use kizuna_core::line::LineUserId;
use rand::Rng;
use sea_orm::{ConnectionTrait, DatabaseConnection, TransactionTrait};
use tokio::sync::{Notify, watch};

use kizuna_core::push::{Push, render};

use crate::{
    clock::{Clock, now_secs},
    storage::{
        line_events, locale, matches,
        push_outbox::{self, Claimed, PushStatus, What},
    },
};

pub use super::{MAX_MESSAGES, MAX_TEXT_CHARS, Message};

/// How the worker paces itself. The defaults are production's; tests shorten them.
#[derive(Clone, Debug)]
pub struct PushSettings {
    /// How often the outbox is looked at without a wake-up (rows of other processes, retries).
    pub poll_every: Duration,
    /// How long a claimed row is left to its worker before another may send it again.
    pub lease: Duration,
    /// The time-out of one push request.
    pub request_timeout: Duration,
    /// The wait before the first retry; doubled for each further one.
    pub first_retry: Duration,
    /// The longest wait between two attempts.
    pub max_retry: Duration,
    /// A push still failing this long after it was written is given up.
    pub give_up_after: Duration,
    /// Pushes in flight at once per process.
    pub concurrency: usize,
}

impl Default for PushSettings {
    fn default() -> Self {
        PushSettings {
            poll_every: Duration::from_secs(2),
            lease: Duration::from_secs(20),
            request_timeout: Duration::from_secs(10),
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(600),
            give_up_after: Duration::from_secs(24 * 3600),
            concurrency: 8,
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn check_messages(messages: &[Message]) -> anyhow::Result<()> {
    let json = serde_json::to_value(messages).context("encoding push messages")?;
    kizuna_core::push::check_messages(&json).map_err(|r| anyhow::anyhow!("{r}"))
}

fn prerendered(messages: &[Message]) -> anyhow::Result<What> {
    check_messages(messages)?;
    Ok(What {
        messages: serde_json::to_string(messages).context("encoding push messages")?,
        kind: None,
        subject: None,
    })
}

fn stored(push: &Push) -> anyhow::Result<What> {
    Ok(What {
        messages: String::new(),
        kind: Some(push.kind().as_str().to_string()),
        subject: Some(serde_json::to_string(push).context("encoding a push")?),
    })
}

/// Writes pre-rendered messages to the outbox on `conn` (a transaction: the push commits with the
/// decision, or not at all). Answers its retry key. Call [`PushQueue::wake`] after the commit.
/// What the service tells members goes through [`enqueue_push`]; this is the delivery mechanism
/// on its own (and how rows written before pushes were stored by kind are still sent).
pub async fn enqueue(
    conn: &impl ConnectionTrait,
    to: &LineUserId,
    messages: &[Message],
) -> anyhow::Result<uuid::Uuid> {
    write(conn, to, prerendered(messages)?, None).await
}

/// Writes a push as what it is (kizuna-core's [`Push`]: kind and ids), rendered as a Flex Message
/// in the member's language when it is sent. `about_user_id` is the member it names (the sender
/// of a new message): its row, delivered or not, goes with that member's account when they
/// delete it, and the nickname is read at sending time.
pub async fn enqueue_push(
    conn: &impl ConnectionTrait,
    to: &LineUserId,
    push: &Push,
    about_user_id: Option<i64>,
) -> anyhow::Result<uuid::Uuid> {
    write(conn, to, stored(push)?, about_user_id).await
}

async fn write(
    conn: &impl ConnectionTrait,
    to: &LineUserId,
    what: What,
    about_user_id: Option<i64>,
) -> anyhow::Result<uuid::Uuid> {
    let retry_key = uuid::Uuid::new_v4();
    push_outbox::insert(
        conn,
        &retry_key.hyphenated().to_string(),
        to.as_str(),
        what,
        about_user_id,
        now_ms(),
    )
    .await?;
    Ok(retry_key)
}

/// [`enqueue_push`] for many pushes at once, one statement (the daily job's morning pushes:
/// each row is a kind and a count, a few dozen bytes).
pub async fn enqueue_many(
    conn: &impl ConnectionTrait,
    pushes: &[(LineUserId, Push)],
) -> anyhow::Result<()> {
    let mut rows = Vec::with_capacity(pushes.len());
    for (to, push) in pushes {
        rows.push((
            uuid::Uuid::new_v4().hyphenated().to_string(),
            to.as_str().to_string(),
            stored(push)?,
        ));
    }
    push_outbox::insert_many(conn, rows, now_ms()).await
}

/// The in-process doorbell of the push worker (in `AppState`), and whether it is waiting.
#[derive(Clone)]
pub struct PushQueue {
    bell: Arc<Notify>,
    /// While the worker waits: the longest it waits before it looks at the outbox again
    /// unless woken (None: it is looking now).
    waiting: Arc<watch::Sender<Option<Duration>>>,
}

impl Default for PushQueue {
    fn default() -> PushQueue {
        PushQueue {
            bell: Arc::default(),
            waiting: Arc::new(watch::Sender::new(None)),
        }
    }
}

impl PushQueue {
    pub fn new() -> PushQueue {
        PushQueue::default()
    }

    /// Tells this process's worker that a push was committed. A wake-up while the worker is
    /// busy is kept for when it is done.
    pub fn wake(&self) {
        self.bell.notify_one();
    }

    /// Resolves once this process's worker has looked at the outbox and waits, answering the
    /// longest it waits before looking again unless woken: until then, a row committed without
    /// a wake-up is left alone (what a test can count on instead of waiting to see).
    pub async fn idle(&self) -> Duration {
        let mut waiting = self.waiting.subscribe();
        let wait = *waiting
            .wait_for(Option::is_some)
            .await
            .expect("the queue holds the sender");
        wait.unwrap_or_default()
    }

    /// Enqueues a push on its own (no surrounding transaction) and wakes the worker.
    pub async fn send(
        &self,
        db: &DatabaseConnection,
        to: &LineUserId,
        messages: &[Message],
    ) -> anyhow::Result<uuid::Uuid> {
        let txn = db.begin().await.context("starting a transaction")?;
        let key = enqueue(&txn, to, messages).await?;
        txn.commit().await.context("committing a push")?;
        self.wake();
        Ok(key)
    }
}

/// The wait after the `attempts`-th failed attempt: `first_retry × 2^(attempts−1)`, at most
/// `max_retry`, times `jitter` (0.8 to 1.2, so that pushes failing together spread out).
pub fn retry_delay(settings: &PushSettings, attempts: i32, jitter: f64) -> Duration {
    let exponent = attempts.clamp(1, 31) as u32 - 1;
    settings
        .first_retry
        .saturating_mul(2u32.saturating_pow(exponent))
        .min(settings.max_retry)
        .mul_f64(jitter)
}

/// What one delivery attempt came to.
#[derive(Debug)]
enum Attempt {
    Accepted,
    AlreadyAccepted,
    Retry {
        why: String,
        retry_after: Option<Duration>,
    },
    Refused {
        why: String,
    },
}

/// The background deliverer (one per process; see the module doc).
#[derive(Clone)]
pub struct PushWorker {
    db: DatabaseConnection,
    http: reqwest::Client,
    endpoint: String,
    access_token: Arc<str>,
    settings: PushSettings,
    queue: PushQueue,
    liff_id: Arc<str>,
    clock: Clock,
}

impl PushWorker {
    pub fn new(
        db: DatabaseConnection,
        api_base: &str,
        access_token: &str,
        settings: PushSettings,
        queue: PushQueue,
    ) -> anyhow::Result<PushWorker> {
        let http = reqwest::Client::builder()
            .timeout(settings.request_timeout)
            .no_proxy()
            .build()
            .context("building the push HTTP client")?;
        Ok(PushWorker {
            db,
            http,
            endpoint: format!("{}/v2/bot/message/push", api_base.trim_end_matches('/')),
            access_token: access_token.into(),
            settings,
            queue,
            liff_id: "".into(),
            clock: Clock::system(),
        })
    }

    /// The LIFF app whose permanent links the rendered pushes carry.
    pub fn with_liff_id(mut self, liff_id: &str) -> PushWorker {
        self.liff_id = liff_id.into();
        self
    }

    /// The clock whose day a delivered push is counted under (the application's).
    pub fn with_clock(mut self, clock: Clock) -> PushWorker {
        self.clock = clock;
        self
    }

    /// The `messages` of a claimed row: rendered now, in the member's current language, for a
    /// row stored by kind (the sender's nickname as it is now); as written, for an older row.
    async fn messages_of(&self, claim: &Claimed) -> anyhow::Result<serde_json::Value> {
        let Some(subject) = &claim.subject else {
            return serde_json::from_str(&claim.messages).context("stored messages are not JSON");
        };
        let push: Push = serde_json::from_str(subject).context("a stored push is unreadable")?;
        let language = locale::locale_of_line_user(&self.db, &claim.line_user_id).await?;
        let nickname = match claim.about_user_id {
            Some(user) => push_outbox::nickname_of_user(&self.db, user).await?,
            None => None,
        };
        let message = render(&push, language, &self.liff_id, nickname.as_deref());
        serde_json::to_value([message]).context("encoding a rendered push")
    }

    /// Runs until aborted.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move { self.run().await })
    }

    async fn run(self) {
        loop {
            self.queue.waiting.send_replace(None);
            let wait = match self.run_once().await {
                Ok(0) => self.idle_wait().await,
                Ok(_) => continue,
                Err(err) => {
                    tracing::warn!(error = ?err, "push worker: the outbox is unavailable");
                    self.settings.poll_every
                }
            };
            self.queue.waiting.send_replace(Some(wait));
            tokio::select! {
                _ = self.queue.bell.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Until the next row falls due, at most the poll interval, at least a moment (another
    /// process may hold a due row for a few milliseconds).
    async fn idle_wait(&self) -> Duration {
        let poll = self.settings.poll_every;
        match push_outbox::next_due_ms(&self.db).await {
            Ok(Some(due)) => {
                let ms = (due - now_ms()).clamp(50, poll.as_millis() as i64);
                Duration::from_millis(ms as u64)
            }
            Ok(None) => poll,
            Err(err) => {
                tracing::warn!(error = ?err, "push worker: the outbox is unavailable");
                poll
            }
        }
    }

    /// Claims one batch of due pushes and delivers it; answers how many were claimed.
    pub async fn run_once(&self) -> anyhow::Result<usize> {
        let now = now_ms();
        let lease_until = now + self.settings.lease.as_millis() as i64;
        // No more than can be sent at once: a claimed row waiting its turn would eat its lease.
        let batch = self.settings.concurrency.max(1) as u32;
        let claimed = push_outbox::claim_due(&self.db, now, lease_until, batch).await?;
        let count = claimed.len();
        futures_util::stream::iter(claimed)
            .for_each_concurrent(self.settings.concurrency, |claim| async move {
                if let Err(err) = self.deliver(&claim).await {
                    // The lease brings it back.
                    tracing::warn!(outbox = claim.id, error = ?err, "push worker: could not record an outcome");
                }
            })
            .await;
        Ok(count)
    }

    async fn deliver(&self, claim: &Claimed) -> anyhow::Result<()> {
        let deadline_ms = claim.created_at * 1000 + self.settings.give_up_after.as_millis() as i64;
        if now_ms() >= deadline_ms {
            push_outbox::finish(
                &self.db,
                claim,
                PushStatus::Expired,
                Some("not attempted in time"),
                now_secs(),
            )
            .await?;
            count("expired", "none".into());
            tracing::error!(
                outbox = claim.id,
                attempts = claim.attempts,
                "push given up: not delivered within {:?} of being written",
                self.settings.give_up_after
            );
            return Ok(());
        }
        // A push about a match goes only while the match lives: one that ended while the push
        // waited (for the worker, or for LINE to take it again) withdraws it. A match ending
        // while LINE is being asked is too late to stop that one.
        if let Some(match_id) = waits_on_match(claim)
            && !matches::is_live(&self.db, match_id).await?
        {
            push_outbox::finish(
                &self.db,
                claim,
                PushStatus::Withdrawn,
                Some("the match ended"),
                now_secs(),
            )
            .await?;
            count("withdrawn", "none".into());
            tracing::info!(
                outbox = claim.id,
                "push not sent: the match it was about ended"
            );
            return Ok(());
        }
        if line_events::friendship(&self.db, &claim.line_user_id).await? == Some(false) {
            push_outbox::finish(
                &self.db,
                claim,
                PushStatus::Unfollowed,
                Some("unfollowed"),
                now_secs(),
            )
            .await?;
            count("unfollowed", "none".into());
            tracing::info!(
                outbox = claim.id,
                "push not sent: the member unfollowed or blocked the account"
            );
            return Ok(());
        }
        match self.attempt(claim).await {
            Attempt::Accepted | Attempt::AlreadyAccepted => {
                // The day's count commits with the status: a push seen delivered is counted,
                // once, even when the process dies right after.
                let txn = self.db.begin().await.context("finishing a push")?;
                let finished =
                    push_outbox::finish(&txn, claim, PushStatus::Delivered, None, now_secs())
                        .await?;
                if finished && let Some(kind) = &claim.kind {
                    let day = kizuna_core::date::Date::taipei_day(self.clock.now_secs())
                        .map(|d| d.to_string())
                        .unwrap_or_default();
                    push_outbox::count_sent(&txn, &day, kind).await?;
                }
                txn.commit().await.context("finishing a push")?;
                tracing::info!(
                    outbox = claim.id,
                    attempts = claim.attempts,
                    "push delivered"
                );
            }
            Attempt::Refused { why } => {
                push_outbox::finish(&self.db, claim, PushStatus::Failed, Some(&why), now_secs())
                    .await?;
                tracing::error!(outbox = claim.id, attempts = claim.attempts, reason = %why, "push refused by LINE");
            }
            Attempt::Retry { why, retry_after } => {
                let delay = self
                    .backoff(claim.attempts)
                    .max(retry_after.unwrap_or_default());
                let due = now_ms() + delay.as_millis() as i64;
                if due >= deadline_ms {
                    push_outbox::finish(
                        &self.db,
                        claim,
                        PushStatus::Expired,
                        Some(&why),
                        now_secs(),
                    )
                    .await?;
                    count("expired", "none".into());
                    tracing::error!(
                        outbox = claim.id,
                        attempts = claim.attempts,
                        reason = %why,
                        "push given up: still failing {:?} after it was written",
                        self.settings.give_up_after
                    );
                } else {
                    push_outbox::retry_at(&self.db, claim, due, &why).await?;
                    tracing::warn!(outbox = claim.id, attempts = claim.attempts, reason = %why, retry_in_ms = delay.as_millis() as u64, "push failed; will retry");
                }
            }
        }
        Ok(())
    }

    fn backoff(&self, attempts: i32) -> Duration {
        retry_delay(
            &self.settings,
            attempts,
            rand::thread_rng().gen_range(0.8..=1.2),
        )
    }

    /// One delivery attempt, counted by outcome and LINE's status code.
    async fn attempt(&self, claim: &Claimed) -> Attempt {
        let (attempt, code) = self.send_once(claim).await;
        let outcome = match &attempt {
            Attempt::Accepted | Attempt::AlreadyAccepted => "sent",
            Attempt::Retry { .. } => "retried",
            Attempt::Refused { .. } => "refused",
        };
        count(outcome, code);
        attempt
    }

    async fn send_once(&self, claim: &Claimed) -> (Attempt, Cow<'static, str>) {
        let messages = match self.messages_of(claim).await {
            Ok(messages) => messages,
            Err(err) if err.downcast_ref::<serde_json::Error>().is_some() => {
                let why = format!("{err:#}");
                return (Attempt::Refused { why }, "unreadable".into());
            }
            // The member's language or the sender's nickname could not be read: later.
            Err(err) => {
                let why = format!("rendering: {err:#}");
                let retry = Attempt::Retry {
                    why,
                    retry_after: None,
                };
                return (retry, "render".into());
            }
        };
        // What LINE would refuse is not sent (and would never be accepted on a retry).
        if let Err(refusal) = kizuna_core::push::check_messages(&messages) {
            let why = format!("beyond LINE's limits: {refusal}");
            return (Attempt::Refused { why }, "limits".into());
        }
        let body = serde_json::json!({"to": claim.line_user_id, "messages": messages});
        let sent = self
            .http
            .post(&self.endpoint)
            .bearer_auth(&*self.access_token)
            .header("X-Line-Retry-Key", &claim.retry_key)
            .json(&body)
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(err) => {
                let (why, code) = if err.is_timeout() {
                    ("timed out", "timeout")
                } else if err.is_connect() {
                    ("could not connect", "connect")
                } else {
                    ("transport error", "transport")
                };
                let retry = Attempt::Retry {
                    why: why.into(),
                    retry_after: None,
                };
                return (retry, code.into());
            }
        };
        let status = response.status();
        let code: Cow<'static, str> = status.as_u16().to_string().into();
        if status.is_success() {
            return (Attempt::Accepted, code);
        }
        if status.as_u16() == 409 {
            return (Attempt::AlreadyAccepted, code);
        }
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        // LINE's error body names the problem ({message}); never the message text itself.
        let message = response
            .json::<serde_json::Value>()
            .await
            .ok()
            .and_then(|v| {
                v["message"]
                    .as_str()
                    .map(|m| m.chars().take(200).collect::<String>())
            })
            .unwrap_or_default();
        // Logged: a LINE user id LINE might quote is masked.
        let message = crate::telemetry::mask_line_ids(&message);
        let why = format!("HTTP {}: {message}", status.as_u16());
        if status.is_server_error() || status.as_u16() == 429 {
            (Attempt::Retry { why, retry_after }, code)
        } else {
            (Attempt::Refused { why }, code)
        }
    }
}

/// The match a stored push waits on (`Push::only_while_live`); an unreadable subject is left to
/// the render, which refuses it.
fn waits_on_match(claim: &Claimed) -> Option<i64> {
    let subject = claim.subject.as_deref()?;
    serde_json::from_str::<Push>(subject)
        .ok()?
        .only_while_live()
}

/// A push's attempt or end in the metrics: `code` is LINE's HTTP status or a transport failure's
/// kind, never a message.
fn count(outcome: &'static str, code: Cow<'static, str>) {
    metrics::counter!(
        crate::metric_names::LINE_PUSHES,
        "outcome" => outcome,
        "code" => code
    )
    .increment(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_serialise_as_lines_message_objects() {
        assert_eq!(
            serde_json::to_value(Message::text("hi")).unwrap(),
            serde_json::json!({"type": "text", "text": "hi"})
        );
    }

    #[test]
    fn retries_double_from_one_second_up_to_ten_minutes() {
        let settings = PushSettings::default();
        let waits: Vec<u64> = (1..=12)
            .map(|n| retry_delay(&settings, n, 1.0).as_secs())
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600]);
        assert_eq!(retry_delay(&settings, 1000, 1.0).as_secs(), 600);
        assert_eq!(retry_delay(&settings, 3, 1.2), Duration::from_millis(4800));
        // A push that never gets through is tried about 150 times before it is given up.
        let waited = |n| {
            (1..=n)
                .map(|n| retry_delay(&settings, n, 1.0))
                .sum::<Duration>()
        };
        assert!(waited(150) < settings.give_up_after);
        assert!(waited(155) > settings.give_up_after);
    }

    #[test]
    fn a_push_carries_one_to_five_non_empty_messages() {
        assert!(check_messages(&[]).is_err());
        assert!(check_messages(&vec![Message::text("a"); 6]).is_err());
        assert!(check_messages(&[Message::text(" ")]).is_err());
        assert!(check_messages(&[Message::text("x".repeat(MAX_TEXT_CHARS + 1))]).is_err());
        assert!(check_messages(&vec![Message::text("a"); 5]).is_ok());
    }
}
