//! The checker of a chaos run: what the clients were told and saw against what the database, the
//! bucket and the mock LINE platform hold. Prints each finding and answers whether all held.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::atomic::Ordering,
    time::{Duration, Instant},
};

use anyhow::Context;
use reqwest::Method;
use sea_orm::{ConnectionTrait, DatabaseConnection, Statement};

use crate::{
    Sent,
    members::{Balancer, Line, Member},
    sse::Stream,
};

pub struct Run<'a> {
    pub db: &'a DatabaseConnection,
    pub lb: &'a Balancer,
    pub line: &'a Line,
    pub bases: &'a [String],
    pub members: &'a [Member],
    pub match_ids: &'a [i64],
    pub sent: &'a [Sent],
    pub streams: &'a [std::sync::Arc<Stream>],
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1000.0
}

/// When each message id first reached the stream of `member`.
fn arrivals(stream: &Stream) -> HashMap<i64, Instant> {
    let mut first = HashMap::new();
    for e in stream.events.lock().expect("events").iter() {
        if let Some(id) = e.message_id {
            first.entry(id).or_insert(e.at);
        }
    }
    first
}

/// What a measured window timed.
pub struct Figures {
    /// Acknowledged messages a second: a send refused or given up is not counted.
    pub per_sec: f64,
    /// Send-to-delivery p99, ms (a message acknowledged but never delivered is not in it: it is
    /// printed beside, and the checker fails the run on it).
    pub delivery_p99_ms: f64,
    /// Sends begun in the window that were refused (a 4xx) or given up: timed answers that failed.
    pub failed: usize,
}

/// Messages a second and send-to-delivery latency (at the recipient's stream) of the messages
/// whose sending began within `[from, to)`, with the sends of the window that failed.
pub fn print_figures(
    label: &str,
    from: Instant,
    to: Instant,
    streams_open: usize,
    sent: &[Sent],
    streams: &[std::sync::Arc<Stream>],
) -> Figures {
    let arrivals: Vec<HashMap<i64, Instant>> = streams.iter().map(|s| arrivals(s)).collect();
    let mut latencies = Vec::new();
    let mut sends = Vec::new();
    let (mut acked, mut failed, mut undelivered) = (0usize, 0usize, 0usize);
    let mut first_failure = None;
    for s in sent.iter().filter(|s| s.started >= from && s.started < to) {
        let Some((at, id)) = s.acked else {
            failed += 1;
            first_failure = first_failure.or(s.refused.clone());
            continue;
        };
        acked += 1;
        sends.push(at.saturating_duration_since(s.started));
        let recipient = s.sender ^ 1;
        match arrivals[recipient].get(&id) {
            Some(at) => latencies.push(at.saturating_duration_since(s.started)),
            None => undelivered += 1,
        }
    }
    latencies.sort();
    if std::env::var("CHAOS_SERIES").is_ok() {
        let mut buckets: BTreeMap<u64, Vec<Duration>> = BTreeMap::new();
        for s in sent.iter().filter(|s| s.started >= from && s.started < to) {
            if let Some((at, _)) = s.acked {
                buckets
                    .entry((s.started - from).as_secs() / 3)
                    .or_default()
                    .push(at.saturating_duration_since(s.started));
            }
        }
        for (b, mut v) in buckets {
            v.sort();
            println!(
                "  {label} t={:>3}s n={:>4} send p50 {:>8.1} p90 {:>8.1} max {:>8.1}",
                b * 3,
                v.len(),
                percentile(&v, 0.5),
                percentile(&v, 0.9),
                percentile(&v, 1.0)
            );
        }
    }
    sends.sort();
    let secs = (to - from).as_secs_f64();
    let figures = Figures {
        per_sec: acked as f64 / secs,
        delivery_p99_ms: percentile(&latencies, 0.99),
        failed,
    };
    println!(
        "{label}: {:.1} messages/s sustained ({acked} acknowledged in {secs:.1} s; {failed} sends refused or given up, {undelivered} acknowledged but not delivered), delivery p50 {:.1} ms p99 {:.1} ms (the send's answer p50 {:.1} ms p99 {:.1} ms), {streams_open} streams open",
        figures.per_sec,
        percentile(&latencies, 0.5),
        figures.delivery_p99_ms,
        percentile(&sends, 0.5),
        percentile(&sends, 0.99),
    );
    if let Some(first) = first_failure {
        println!("  {label}: first failed send: {first}");
    }
    figures
}

async fn rows(db: &DatabaseConnection, sql: &str) -> anyhow::Result<Vec<sea_orm::QueryResult>> {
    Ok(db
        .query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await?)
}

/// Runs every check; answers true when all held.
pub async fn run(run: Run<'_>) -> anyhow::Result<bool> {
    let mut ok = true;
    let mut finding = |held: bool, what: String| {
        println!("{} {what}", if held { "  ok  " } else { "  FAIL" });
        ok &= held;
    };

    // Messages: every acknowledged one stored exactly once, under its id, in its sender's order;
    // nothing stored that no client sent.
    let stored = rows(
        run.db,
        "SELECT id, match_id, client_message_id FROM chat_messages ORDER BY id",
    )
    .await?;
    let mut by_client: HashMap<(i64, String), Vec<i64>> = HashMap::new();
    let mut of_match: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for r in &stored {
        let (id, m, c) = (
            r.try_get::<i64>("", "id")?,
            r.try_get::<i64>("", "match_id")?,
            r.try_get::<String>("", "client_message_id")?,
        );
        by_client.entry((m, c)).or_default().push(id);
        of_match.entry(m).or_default().push(id);
    }
    let attempted: HashSet<(i64, String)> = run
        .sent
        .iter()
        .map(|s| (s.match_id, s.client_id.clone()))
        .collect();
    let acked: Vec<&Sent> = run.sent.iter().filter(|s| s.acked.is_some()).collect();
    let refused: Vec<&Sent> = run.sent.iter().filter(|s| s.refused.is_some()).collect();
    let mut lost = 0;
    let mut doubled = 0;
    for s in &acked {
        match by_client
            .get(&(s.match_id, s.client_id.clone()))
            .map(Vec::as_slice)
        {
            Some([id]) if Some(*id) == s.acked.map(|a| a.1) => {}
            Some([_]) => lost += 1,
            Some(_) => doubled += 1,
            None => lost += 1,
        }
    }
    let invented = by_client.keys().filter(|k| !attempted.contains(*k)).count();
    finding(
        lost == 0 && doubled == 0,
        format!(
            "{} acknowledged messages: {lost} lost, {doubled} stored twice ({} stored in all)",
            acked.len(),
            stored.len()
        ),
    );
    finding(
        invented == 0,
        format!("{invented} stored messages no client sent"),
    );
    if let Some(first) = refused.first() {
        println!(
            "        {} sends refused or given up (first: {})",
            refused.len(),
            first.refused.as_deref().unwrap_or_default()
        );
    }
    let mut out_of_order = 0;
    let mut last: HashMap<usize, i64> = HashMap::new();
    for s in &acked {
        let id = s.acked.map(|a| a.1).unwrap_or_default();
        if last.insert(s.sender, id).is_some_and(|before| before >= id) {
            out_of_order += 1;
        }
    }
    finding(
        out_of_order == 0,
        format!("{out_of_order} messages stored out of their sender's order"),
    );

    // Delivery: each stream took every one of its member's events once, in order (1, 2, 3, …
    // up to the member's last number), and with them every message of the member's match.
    let heads: HashMap<i64, i64> = rows(run.db, "SELECT member_id, seq FROM chat_event_heads")
        .await?
        .iter()
        .map(|r| {
            Ok((
                r.try_get::<i64>("", "member_id")?,
                r.try_get::<i64>("", "seq")?,
            ))
        })
        .collect::<Result<_, sea_orm::DbErr>>()?;
    let (mut gaps, mut twice, mut undelivered, mut resets) = (0, 0, 0, 0);
    for (member, stream) in run.members.iter().zip(run.streams) {
        resets += stream.resets.load(Ordering::SeqCst);
        let events = stream.events.lock().expect("events");
        let head = heads.get(&member.profile_id).copied().unwrap_or(0);
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        let want: Vec<i64> = (1..=head).collect();
        if seqs != want {
            let distinct: HashSet<i64> = seqs.iter().copied().collect();
            twice += seqs.len() - distinct.len();
            gaps += want.iter().filter(|s| !distinct.contains(s)).count();
        }
        let match_id = run.match_ids[member.index / 2];
        let got: Vec<i64> = events
            .iter()
            .filter(|e| e.kind == "message" && e.match_id == match_id)
            .filter_map(|e| e.message_id)
            .collect();
        let want = of_match.get(&match_id).cloned().unwrap_or_default();
        if got != want {
            let got: HashSet<i64> = got.into_iter().collect();
            undelivered += want.iter().filter(|id| !got.contains(id)).count();
        }
    }
    finding(
        gaps == 0 && twice == 0 && resets == 0,
        format!(
            "{} streams: {gaps} events missed, {twice} taken twice, {resets} resets",
            run.streams.len()
        ),
    );
    finding(
        undelivered == 0,
        format!(
            "{undelivered} stored messages that did not reach a stream of their match, in order"
        ),
    );

    // Matches and decisions: one each, exactly.
    let matches = rows(run.db, "SELECT id, low_id, high_id FROM matches").await?;
    let mut pairs_matched: HashMap<(i64, i64), usize> = HashMap::new();
    for r in &matches {
        *pairs_matched
            .entry((r.try_get("", "low_id")?, r.try_get("", "high_id")?))
            .or_default() += 1;
    }
    let wrong = run
        .members
        .chunks(2)
        .filter(|pair| {
            let (x, y) = (pair[0].profile_id, pair[1].profile_id);
            pairs_matched.get(&(x.min(y), x.max(y))) != Some(&1)
        })
        .count();
    finding(
        wrong == 0 && matches.len() == run.match_ids.len(),
        format!(
            "{} matches for {} pairs ({wrong} pairs without exactly one)",
            matches.len(),
            run.match_ids.len()
        ),
    );
    let approvals = rows(
        run.db,
        "SELECT profile_id, COUNT(*) AS n FROM review_history WHERE to_status = 'APPROVED' GROUP BY profile_id",
    )
    .await?;
    let once = approvals
        .iter()
        .filter(|r| r.try_get::<i64>("", "n").is_ok_and(|n| n == 1))
        .count();
    finding(
        once == run.members.len() && approvals.len() == run.members.len(),
        format!(
            "{once} of {} members approved exactly once",
            run.members.len()
        ),
    );

    // LINE pushes: every outbox row delivered to the platform under its retry key once, nothing
    // the outbox does not hold, no push written twice, and each member's approval and match.
    let waiting = Instant::now();
    loop {
        let pending = rows(
            run.db,
            "SELECT COUNT(*) AS n FROM push_outbox WHERE status = 'pending'",
        )
        .await?[0]
            .try_get::<i64>("", "n")?;
        if pending == 0 || waiting.elapsed() > Duration::from_secs(60) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let outbox = rows(
        run.db,
        "SELECT retry_key, line_user_id, messages, subject, status FROM push_outbox",
    )
    .await?;
    let pushed = run.line.pushes().await?;
    let mut pushed_keys: HashMap<String, usize> = HashMap::new();
    for p in &pushed {
        *pushed_keys
            .entry(p["retryKey"].as_str().unwrap_or("none").to_string())
            .or_default() += 1;
    }
    let mut written: HashSet<(String, String)> = HashSet::new();
    let (mut undelivered_pushes, mut written_twice) = (0, 0);
    let mut per_member: HashMap<String, usize> = HashMap::new();
    for r in &outbox {
        let key: String = r.try_get("", "retry_key")?;
        let to: String = r.try_get("", "line_user_id")?;
        let status: String = r.try_get("", "status")?;
        if status != "delivered" || pushed_keys.get(&key) != Some(&1) {
            undelivered_pushes += 1;
        }
        // What a push is: its stored subject (kind and ids), or an older row's rendered text.
        let what = format!(
            "{}{}",
            r.try_get::<String>("", "messages")?,
            r.try_get::<Option<String>>("", "subject")?
                .unwrap_or_default()
        );
        if !written.insert((to.clone(), what)) {
            written_twice += 1;
        }
        *per_member.entry(to).or_default() += 1;
    }
    let keys: HashSet<String> = outbox
        .iter()
        .map(|r| r.try_get::<String>("", "retry_key"))
        .collect::<Result<_, _>>()?;
    let strays = pushed_keys.keys().filter(|k| !keys.contains(*k)).count();
    let short = run
        .members
        .iter()
        .filter(|m| per_member.get(&m.line_id).copied().unwrap_or(0) < 2)
        .count();
    finding(
        undelivered_pushes == 0 && written_twice == 0 && strays == 0 && short == 0,
        format!(
            "{} pushes written, {} received by LINE: {undelivered_pushes} not delivered exactly once, {written_twice} written twice, {strays} the outbox never wrote, {short} members without their approval and match pushes",
            outbox.len(),
            pushed.len()
        ),
    );

    // Photos: each member's photo reads the same through every process.
    let mut unreadable = 0;
    for m in run.members {
        let mut bodies = Vec::new();
        for base in run.bases {
            let r = run
                .lb
                .client
                .request(Method::GET, format!("{base}/api/file/fetch/{}", m.photo))
                .bearer_auth(&m.token)
                .header("X-Forwarded-For", &m.address)
                .send()
                .await
                .context("a photo fetch")?;
            if r.status().is_success() {
                bodies.push(r.bytes().await?);
            }
        }
        if bodies.len() != run.bases.len() || bodies.iter().any(|b| b.is_empty() || *b != bodies[0])
        {
            unreadable += 1;
        }
    }
    finding(
        unreadable == 0,
        format!(
            "{} photos read through {} processes: {unreadable} unreadable or different",
            run.members.len(),
            run.bases.len()
        ),
    );
    Ok(ok)
}
