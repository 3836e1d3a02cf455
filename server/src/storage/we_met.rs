//! `we_met`: members' private answers about their matches ("Did you meet?", "Would you like to
//! see them again?") and which of them were asked by push. When a member is due the question
//! is kizuna-core's (`met::question_due`); this module reads the facts and writes rows.

use anyhow::Context;
use kizuna_core::met::{FirstWords, MetAnswer};
use sea_orm::ConnectionTrait;

use super::{StorageError, statements::sql};

/// A live match whose two members have both written, as one of them sees it.
#[derive(Clone, Debug)]
pub struct Conversation {
    pub match_id: i64,
    /// The asked member.
    pub member: i64,
    /// The other member.
    pub other: i64,
    pub first: FirstWords,
    /// The member answered already.
    pub answered: bool,
    /// A row exists for the member (asked by push, or answered).
    pub recorded: bool,
}

const FACTS: &str = "SELECT m.id AS match_id, m.low_id AS low_id, m.high_id AS high_id, \
     (SELECT MIN(c.sent_at) FROM chat_messages c \
      WHERE c.match_id = m.id AND c.sender_id = m.low_id) AS first_low, \
     (SELECT MIN(c.sent_at) FROM chat_messages c \
      WHERE c.match_id = m.id AND c.sender_id = m.high_id) AS first_high, \
     (SELECT w.answered_at FROM we_met w WHERE w.match_id = m.id AND w.member_id = m.low_id) \
       AS answered_low, \
     (SELECT w.answered_at FROM we_met w WHERE w.match_id = m.id AND w.member_id = m.high_id) \
       AS answered_high, \
     EXISTS (SELECT 1 FROM we_met w WHERE w.match_id = m.id AND w.member_id = m.low_id) \
       AS row_low, \
     EXISTS (SELECT 1 FROM we_met w WHERE w.match_id = m.id AND w.member_id = m.high_id) \
       AS row_high \
     FROM matches m";

fn sides(row: &sea_orm::QueryResult) -> Result<[Conversation; 2], StorageError> {
    let get_i = |c: &str| -> Result<i64, StorageError> {
        Ok(row
            .try_get::<i64>("", c)
            .context("decoding a conversation")?)
    };
    let get_o = |c: &str| -> Result<Option<i64>, StorageError> {
        Ok(row
            .try_get::<Option<i64>>("", c)
            .context("decoding a conversation")?)
    };
    let get_b = |c: &str| -> Result<bool, StorageError> {
        Ok(row
            .try_get::<bool>("", c)
            .context("decoding a conversation")?)
    };
    let (match_id, low, high) = (get_i("match_id")?, get_i("low_id")?, get_i("high_id")?);
    let (first_low, first_high) = (get_o("first_low")?, get_o("first_high")?);
    Ok([
        Conversation {
            match_id,
            member: low,
            other: high,
            first: FirstWords {
                mine: first_low,
                theirs: first_high,
            },
            answered: get_o("answered_low")?.is_some(),
            recorded: get_b("row_low")?,
        },
        Conversation {
            match_id,
            member: high,
            other: low,
            first: FirstWords {
                mine: first_high,
                theirs: first_low,
            },
            answered: get_o("answered_high")?.is_some(),
            recorded: get_b("row_high")?,
        },
    ])
}

/// The member's live matches, each as they see it.
pub async fn conversations_of(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<Vec<Conversation>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "{FACTS} WHERE m.ended_at IS NULL AND (m.low_id = $1 OR m.high_id = $1) \
                 ORDER BY m.id"
            ),
            vec![member.into()],
        ))
        .await
        .context("reading a member's conversations")?;
    let mut out = Vec::new();
    for row in &rows {
        out.extend(sides(row)?.into_iter().filter(|c| c.member == member));
    }
    Ok(out)
}

/// Live matches made before `made_before` with a member who has no row yet, oldest first, at
/// most `limit`: the job's candidates (a match is made before either first message, so one made
/// later cannot be due).
pub async fn unasked(
    db: &impl ConnectionTrait,
    made_before: i64,
    after_match: i64,
    limit: u64,
) -> Result<Vec<Conversation>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "{FACTS} WHERE m.ended_at IS NULL AND m.created_at <= $1 AND m.id > $2 \
                 AND (NOT EXISTS (SELECT 1 FROM we_met w \
                        WHERE w.match_id = m.id AND w.member_id = m.low_id) \
                   OR NOT EXISTS (SELECT 1 FROM we_met w \
                        WHERE w.match_id = m.id AND w.member_id = m.high_id)) \
                 ORDER BY m.id LIMIT {limit}"
            ),
            vec![made_before.into(), after_match.into()],
        ))
        .await
        .context("reading matches to ask about")?;
    let mut out = Vec::new();
    for row in &rows {
        out.extend(sides(row)?);
    }
    Ok(out)
}

/// Records that `member` was asked about `match_id` by push: true when this call wrote the row
/// (one statement, so of two processes running the job at once exactly one pushes).
pub async fn ask(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
    about: i64,
    now: i64,
) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "INSERT INTO we_met (match_id, member_id, about_id, asked_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (match_id, member_id) DO NOTHING",
            vec![match_id.into(), member.into(), about.into(), now.into()],
        ))
        .await
        .context("recording a we-met question")?;
    Ok(done.rows_affected() == 1)
}

/// Stores the member's answer unless they answered already: true when this call stored it.
pub async fn answer(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
    about: i64,
    answer: MetAnswer,
    now: i64,
) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "INSERT INTO we_met (match_id, member_id, about_id, met, see_again, answered_at) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (match_id, member_id) DO UPDATE SET met = excluded.met, \
               see_again = excluded.see_again, answered_at = excluded.answered_at \
             WHERE we_met.answered_at IS NULL",
            vec![
                match_id.into(),
                member.into(),
                about.into(),
                answer.met().into(),
                answer.see_again().into(),
                now.into(),
            ],
        ))
        .await
        .context("storing a we-met answer")?;
    Ok(done.rows_affected() == 1)
}

/// The member's stored answer about `match_id`, if they gave one.
pub async fn answer_of(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
) -> Result<Option<MetAnswer>, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT met, see_again FROM we_met \
             WHERE match_id = $1 AND member_id = $2 AND answered_at IS NOT NULL",
            vec![match_id.into(), member.into()],
        ))
        .await
        .context("reading a we-met answer")?;
    let Some(row) = row else { return Ok(None) };
    let met: Option<bool> = row.try_get("", "met").context("decoding an answer")?;
    let again: Option<bool> = row.try_get("", "see_again").context("decoding an answer")?;
    Ok(Some(if met == Some(true) {
        MetAnswer::Met {
            again: again == Some(true),
        }
    } else {
        MetAnswer::NotMet
    }))
}

/// One of the member's own answers, for their data copy.
pub struct OwnAnswer {
    pub match_id: i64,
    /// The other member and their nickname while their profile exists.
    pub about: i64,
    pub nickname: Option<String>,
    pub asked_at: Option<i64>,
    pub met: Option<bool>,
    pub see_again: Option<bool>,
    pub answered_at: Option<i64>,
}

/// Every row of the member's own (never another member's answer about them), oldest first.
pub async fn own(db: &impl ConnectionTrait, member: i64) -> Result<Vec<OwnAnswer>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT w.match_id AS match_id, w.about_id AS about_id, p.nickname AS nickname, \
             w.asked_at AS asked_at, w.met AS met, w.see_again AS see_again, \
             w.answered_at AS answered_at \
             FROM we_met w LEFT JOIN profiles p ON p.id = w.about_id \
             WHERE w.member_id = $1 ORDER BY w.match_id",
            vec![member.into()],
        ))
        .await
        .context("reading a member's we-met answers")?;
    rows.iter()
        .map(|row| {
            let e = "decoding a we-met answer";
            Ok(OwnAnswer {
                match_id: row.try_get("", "match_id").context(e)?,
                about: row.try_get("", "about_id").context(e)?,
                nickname: row.try_get("", "nickname").context(e)?,
                asked_at: row.try_get("", "asked_at").context(e)?,
                met: row.try_get("", "met").context(e)?,
                see_again: row.try_get("", "see_again").context(e)?,
                answered_at: row.try_get("", "answered_at").context(e)?,
            })
        })
        .collect()
}

/// The funnel's counts for answers given in `[from, to)`: (met, want to see again).
pub async fn funnel_counts(
    db: &impl ConnectionTrait,
    from: i64,
    to: i64,
) -> Result<(i64, i64), StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT \
               COALESCE(SUM(CASE WHEN met = $3 THEN 1 ELSE 0 END), 0) AS met, \
               COALESCE(SUM(CASE WHEN see_again = $3 THEN 1 ELSE 0 END), 0) AS again \
             FROM we_met WHERE answered_at >= $1 AND answered_at < $2",
            vec![from.into(), to.into(), true.into()],
        ))
        .await
        .context("counting we-met answers")?
        .context("one row")?;
    Ok((
        row.try_get("", "met").context("decoding a count")?,
        row.try_get("", "again").context("decoding a count")?,
    ))
}
