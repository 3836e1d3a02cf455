//! "We met": the questions a member is due about their matches (kizuna-core's
//! `met::question_due`), their answers, and the job that asks each due member once by push.
//! Answers are the asker's alone: nothing here is ever read for the other member; the daily
//! pick reads only a count per candidate (`storage::match_pool`, `met::seen_again_points`).

use kizuna_core::met::{self, MetAnswer};
use kizuna_core::push::Push;
use kizuna_core::review_time::{self, ReviewTime};
use kizuna_core::rules::{self, FieldErrors};
use sea_orm::DatabaseConnection;

use super::{AfterCommit, Outcome, push_target};
use crate::{
    access::{self, Viewer},
    line::push,
    storage::{StorageError, matchmaking as store, review_time as review_waits, we_met},
};

/// Why a "We met" use-case did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum WeMetError {
    /// Only APPROVED members take part in matchmaking.
    #[error("only approved members take part in matchmaking")]
    NotApproved,
    /// No live match of the caller's.
    #[error("not found")]
    NotFound,
    /// The caller is not (yet) asked about this match.
    #[error("you are not asked about this match yet")]
    NotAsked,
    /// They answered already, differently.
    #[error("you answered already")]
    AnsweredAlready,
    /// kizuna-core's `MetAnswer::parse` refused the answer.
    #[error("the answer failed validation")]
    Invalid { fields: FieldErrors },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<sea_orm::DbErr> for WeMetError {
    fn from(err: sea_orm::DbErr) -> Self {
        WeMetError::Storage(StorageError::Db(err.into()))
    }
}

type Result<T, E = WeMetError> = std::result::Result<T, E>;

fn approved(viewer: &Viewer) -> Result<i64> {
    match viewer.member {
        Some(id) if viewer.standing.approved => Ok(id),
        _ => Err(WeMetError::NotApproved),
    }
}

/// A question the member is due: the match and the other member's id and nickname.
pub struct Question {
    pub match_id: i64,
    pub member: i64,
    pub nickname: String,
}

/// The questions the viewer is due now, oldest match first.
pub async fn questions(
    db: &DatabaseConnection,
    viewer: &Viewer,
    now: i64,
) -> Result<Vec<Question>> {
    let me = approved(viewer)?;
    let due: Vec<_> = we_met::conversations_of(db, me)
        .await?
        .into_iter()
        .filter(|c| met::question_due(c.first, true, c.answered, now))
        .collect();
    let others: Vec<i64> = due.iter().map(|c| c.other).collect();
    let ties = access::ties(db, viewer, &others).await?;
    let mut out = Vec::new();
    for c in due {
        let may_chat = ties
            .get(&c.other)
            .is_some_and(|t| kizuna_core::access::may_chat(viewer.standing, t));
        if !may_chat {
            continue;
        }
        if let Some(profile) = store::member(db, c.other).await? {
            out.push(Question {
                match_id: c.match_id,
                member: c.other,
                nickname: profile.nickname.unwrap_or_default(),
            });
        }
    }
    Ok(out)
}

/// Stores the viewer's answer about `match_id` (`met`, `see_again` as sent). The same answer
/// again changes nothing; another one is refused (the first stands). The member whom the answer
/// concerns is re-read by every pool (the daily pick's weight).
pub async fn answer(
    db: &DatabaseConnection,
    viewer: &Viewer,
    match_id: i64,
    met_: bool,
    see_again: Option<bool>,
    now: i64,
) -> Result<Outcome<()>> {
    let me = approved(viewer)?;
    let answer =
        MetAnswer::parse(met_, see_again).map_err(|fields| WeMetError::Invalid { fields })?;
    let Some(live) = access::chat(db, viewer, match_id).await? else {
        return Err(WeMetError::NotFound);
    };
    // One statement stores it (the upsert only fills an unanswered row), so no transaction:
    // of two racing answers one is stored and the other compared with it.
    if let Some(stored) = we_met::answer_of(db, match_id, me).await? {
        return if stored == answer {
            Ok(Outcome::only(()))
        } else {
            Err(WeMetError::AnsweredAlready)
        };
    }
    let conversation = we_met::conversations_of(db, me)
        .await?
        .into_iter()
        .find(|c| c.match_id == match_id);
    let due = conversation.is_some_and(|c| met::question_due(c.first, true, c.answered, now));
    if !due {
        return Err(WeMetError::NotAsked);
    }
    if !we_met::answer(db, match_id, me, live.other, answer, now).await? {
        let stored = we_met::answer_of(db, match_id, me).await?;
        return if stored == Some(answer) {
            Ok(Outcome::only(()))
        } else {
            Err(WeMetError::AnsweredAlready)
        };
    }
    tracing::info!(member = me, match_id, "we-met answer stored");
    let mut after = AfterCommit::default();
    if answer.see_again() == Some(true) {
        after.pool_changed(live.other);
    }
    Ok(Outcome::new((), after))
}

/// Matches the job reads per statement.
const ASK_BATCH: u64 = 500;

/// The job: every member due the question about a live match who has not been asked (nor has
/// answered) gets one row and, when they take match pushes, one push. Any number of processes
/// may run it at once: the row's insert decides who pushes. Answers how many were asked.
pub async fn ask_due(db: &DatabaseConnection, now: i64) -> Result<(usize, AfterCommit)> {
    let made_before = now - rules::WE_MET_ASK_AFTER_DAYS * 86_400;
    let mut after = AfterCommit::default();
    let mut asked = 0;
    let mut last = 0;
    loop {
        let batch = we_met::unasked(db, made_before, last, ASK_BATCH).await?;
        let Some(max) = batch.iter().map(|c| c.match_id).max() else {
            break;
        };
        last = max;
        for c in batch {
            if c.recorded || !met::question_due(c.first, true, c.answered, now) {
                continue;
            }
            let txn = crate::storage::begin_write(db).await?;
            if we_met::ask(&txn, c.match_id, c.member, c.other, now).await? {
                asked += 1;
                if let Some((to, _)) = push_target(&txn, c.member, store::PushKind::Matches).await?
                {
                    // It names the other member: the row goes with their account.
                    let about = store::member(&txn, c.other).await?.map(|p| p.user_id);
                    push::enqueue_push(
                        &txn,
                        &to,
                        &Push::WeMet {
                            match_id: c.match_id,
                        },
                        about,
                    )
                    .await
                    .map_err(StorageError::Db)?;
                    after.pushed();
                }
            }
            txn.commit().await?;
        }
    }
    if asked > 0 {
        tracing::info!(asked, "we-met questions asked");
    }
    Ok((asked, after))
}

/// The usual review time a member waiting for review is told: kizuna-core's `review_time` over
/// the waits of the first decisions of the last `rules::REVIEW_TIME_WINDOW_DAYS` days.
pub async fn usual_review_time(
    db: &DatabaseConnection,
    now: i64,
) -> std::result::Result<ReviewTime, StorageError> {
    let since = now - rules::REVIEW_TIME_WINDOW_DAYS * 86_400;
    let waits = review_waits::first_decision_waits(db, since).await?;
    Ok(review_time::review_time(&waits))
}
