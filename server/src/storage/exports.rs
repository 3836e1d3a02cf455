//! Copies of a member's data (`data_exports`) and the reading of everything that is theirs for
//! one. Table access only: what goes into the archive is `usecases::export`'s.

use anyhow::Context;
use sea_orm::{ConnectionTrait, QueryResult};

use super::{StorageError, statements::sql};

pub const PREPARING: &str = "PREPARING";
pub const READY: &str = "READY";
pub const FAILED: &str = "FAILED";

async fn run(
    db: &impl ConnectionTrait,
    text: &str,
    values: Vec<sea_orm::Value>,
    what: &'static str,
) -> Result<u64, StorageError> {
    let done = db
        .execute_raw(sql(db.get_database_backend(), text, values))
        .await
        .context(what)?;
    Ok(done.rows_affected())
}

async fn rows(
    db: &impl ConnectionTrait,
    text: &str,
    values: Vec<sea_orm::Value>,
    what: &'static str,
) -> Result<Vec<QueryResult>, StorageError> {
    Ok(db
        .query_all_raw(sql(db.get_database_backend(), text, values))
        .await
        .context(what)?)
}

fn get<T: sea_orm::TryGetable>(row: &QueryResult, col: &str) -> Result<T, StorageError> {
    Ok(row
        .try_get::<T>("", col)
        .with_context(|| format!("decoding {col}"))?)
}

/// One request for a copy, without its archive.
#[derive(Debug, Clone)]
pub struct ExportRow {
    pub id: i64,
    pub user_id: i64,
    pub status: String,
    pub requested_at: i64,
    pub ready_at: Option<i64>,
    pub size_bytes: Option<i64>,
}

const EXPORT_COLUMNS: &str = "id, user_id, status, requested_at, ready_at, size_bytes";

fn export_row(row: &QueryResult) -> Result<ExportRow, StorageError> {
    Ok(ExportRow {
        id: get(row, "id")?,
        user_id: get(row, "user_id")?,
        status: get(row, "status")?,
        requested_at: get(row, "requested_at")?,
        ready_at: get(row, "ready_at")?,
        size_bytes: get(row, "size_bytes")?,
    })
}

/// When the user asked for copies since `since`.
pub async fn requested_since(
    db: &impl ConnectionTrait,
    user_id: i64,
    since: i64,
) -> Result<Vec<i64>, StorageError> {
    rows(
        db,
        "SELECT requested_at FROM data_exports WHERE user_id = $1 AND requested_at >= $2",
        vec![user_id.into(), since.into()],
        "counting data exports",
    )
    .await?
    .iter()
    .map(|r| get(r, "requested_at"))
    .collect()
}

/// Records a request (PREPARING); answers its id.
pub async fn insert(
    db: &impl ConnectionTrait,
    user_id: i64,
    token_hash: &str,
    now: i64,
) -> Result<i64, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "INSERT INTO data_exports (user_id, token_hash, status, requested_at) \
             VALUES ($1, $2, $3, $4) RETURNING id",
            vec![
                user_id.into(),
                token_hash.into(),
                PREPARING.into(),
                now.into(),
            ],
        ))
        .await
        .context("recording a data export")?
        .context("the insert answered no id")?;
    get(&row, "id")
}

/// The user's latest request, if any.
pub async fn latest(
    db: &impl ConnectionTrait,
    user_id: i64,
) -> Result<Option<ExportRow>, StorageError> {
    let found = rows(
        db,
        &format!(
            "SELECT {EXPORT_COLUMNS} FROM data_exports WHERE user_id = $1 \
             ORDER BY requested_at DESC, id DESC LIMIT 1"
        ),
        vec![user_id.into()],
        "reading a data export",
    )
    .await?;
    found.first().map(export_row).transpose()
}

/// One request by id, if it is still there.
pub async fn find(db: &impl ConnectionTrait, id: i64) -> Result<Option<ExportRow>, StorageError> {
    let found = rows(
        db,
        &format!("SELECT {EXPORT_COLUMNS} FROM data_exports WHERE id = $1"),
        vec![id.into()],
        "reading a data export",
    )
    .await?;
    found.first().map(export_row).transpose()
}

/// Stores the finished archive (READY from `now`). Answers false when the request is gone (its
/// user left meanwhile).
pub async fn finish(
    db: &impl ConnectionTrait,
    id: i64,
    archive: Vec<u8>,
    now: i64,
) -> Result<bool, StorageError> {
    let size = i64::try_from(archive.len()).unwrap_or(i64::MAX);
    let done = run(
        db,
        "UPDATE data_exports SET status = $2, archive = $3, size_bytes = $4, ready_at = $5 \
         WHERE id = $1 AND status = $6",
        vec![
            id.into(),
            READY.into(),
            archive.into(),
            size.into(),
            now.into(),
            PREPARING.into(),
        ],
        "storing a data export",
    )
    .await?;
    Ok(done == 1)
}

/// The request could not be prepared.
pub async fn fail(db: &impl ConnectionTrait, id: i64) -> Result<(), StorageError> {
    run(
        db,
        "UPDATE data_exports SET status = $2 WHERE id = $1 AND status = $3",
        vec![id.into(), FAILED.into(), PREPARING.into()],
        "failing a data export",
    )
    .await?;
    Ok(())
}

/// The archive behind a download token, while its link works (READY since `ready_since` or
/// later).
pub async fn archive(
    db: &impl ConnectionTrait,
    token_hash: &str,
    ready_since: i64,
) -> Result<Option<(ExportRow, Vec<u8>)>, StorageError> {
    let found = rows(
        db,
        &format!(
            "SELECT {EXPORT_COLUMNS}, archive FROM data_exports \
             WHERE token_hash = $1 AND status = $2 AND ready_at >= $3 AND archive IS NOT NULL"
        ),
        vec![token_hash.into(), READY.into(), ready_since.into()],
        "reading a data export",
    )
    .await?;
    let Some(row) = found.first() else {
        return Ok(None);
    };
    Ok(Some((export_row(row)?, get(row, "archive")?)))
}

/// Requests still PREPARING that were made before `before` (their process may have died).
pub async fn stalled(
    db: &impl ConnectionTrait,
    before: i64,
) -> Result<Vec<ExportRow>, StorageError> {
    let found = rows(
        db,
        &format!(
            "SELECT {EXPORT_COLUMNS} FROM data_exports WHERE status = $1 AND requested_at < $2 \
             ORDER BY requested_at LIMIT 20"
        ),
        vec![PREPARING.into(), before.into()],
        "reading stalled data exports",
    )
    .await?;
    found.iter().map(export_row).collect()
}

/// Clears archives whose link expired (ready before `expired_before`) and forgets requests made
/// before `forget_before` (they no longer count towards the daily allowance).
pub async fn sweep(
    db: &impl ConnectionTrait,
    expired_before: i64,
    forget_before: i64,
) -> Result<(), StorageError> {
    run(
        db,
        "UPDATE data_exports SET archive = NULL WHERE archive IS NOT NULL AND ready_at < $1",
        vec![expired_before.into()],
        "clearing expired data exports",
    )
    .await?;
    run(
        db,
        "DELETE FROM data_exports WHERE requested_at < $1",
        vec![forget_before.into()],
        "forgetting old data exports",
    )
    .await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// What the service holds about one user

/// The user's account row.
pub struct AccountData {
    pub line_user_id: String,
    pub display_name: Option<String>,
    pub created_at: i64,
    pub locale: Option<String>,
}

/// A status change of the user's profile, without the reviewer's identity or internal note.
pub struct DecisionData {
    pub from_status: Option<String>,
    pub to_status: String,
    pub reasons: Option<String>,
    pub reason: Option<String>,
    pub at: i64,
}

/// Another member as the export names them: their id and nickname (public), nothing else.
pub struct OtherData {
    pub member_id: i64,
    pub nickname: Option<String>,
}

pub struct IntroductionData {
    pub day: i32,
    pub member: OtherData,
}

pub struct ReactionData {
    pub kind: String,
    pub at: i64,
    pub member: OtherData,
    /// A like's comment, and which Q&A answer it was about (a photo is not named: it is the
    /// other member's file).
    pub comment: Option<String>,
    pub comment_answer: Option<String>,
    pub comment_on_photo: bool,
}

pub struct MatchData {
    pub match_id: i64,
    pub member: OtherData,
    pub created_at: i64,
    pub ended_at: Option<i64>,
}

pub struct MessageData {
    pub match_id: i64,
    pub mine: bool,
    pub text: String,
    pub sent_at: i64,
}

pub struct BlockData {
    pub at: i64,
    pub member: OtherData,
}

pub struct ReportData {
    pub reasons: String,
    pub text: String,
    pub status: String,
    pub at: i64,
    pub member: Option<OtherData>,
}

/// An appeal of a suspension, as the member wrote it and how it was answered (never the answering
/// reviewer's note: nothing of a reviewer is in the copy).
pub struct AppealData {
    pub text: String,
    pub status: String,
    pub at: i64,
    pub decided_at: Option<i64>,
}

pub struct FileData {
    pub id: String,
    pub purpose: String,
    pub content_type: String,
    pub created_at: i64,
}

/// Everything the service holds about one user that is theirs to have.
pub struct MemberData {
    pub account: AccountData,
    pub profile: Option<super::entity::profile::Model>,
    pub decisions: Vec<DecisionData>,
    pub appeals: Vec<AppealData>,
    pub introductions: Vec<IntroductionData>,
    pub reactions: Vec<ReactionData>,
    pub matches: Vec<MatchData>,
    pub messages: Vec<MessageData>,
    pub blocks: Vec<BlockData>,
    pub reports: Vec<ReportData>,
    /// Their own "We met" answers (never another member's answer about them).
    pub we_met: Vec<super::we_met::OwnAnswer>,
    pub files: Vec<FileData>,
}

fn other(row: &QueryResult) -> Result<OtherData, StorageError> {
    Ok(OtherData {
        member_id: get(row, "other_id")?,
        nickname: get(row, "other_nickname")?,
    })
}

/// Reads what the user `user_id` has (None when the user is gone).
pub async fn gather(
    db: &impl ConnectionTrait,
    user_id: i64,
) -> Result<Option<MemberData>, StorageError> {
    let found = rows(
        db,
        "SELECT line_user_id, display_name, created_at, locale FROM users WHERE id = $1",
        vec![user_id.into()],
        "reading a user",
    )
    .await?;
    let Some(row) = found.first() else {
        return Ok(None);
    };
    let account = AccountData {
        line_user_id: get(row, "line_user_id")?,
        display_name: get(row, "display_name")?,
        created_at: get(row, "created_at")?,
        locale: get(row, "locale")?,
    };
    let files = rows(
        db,
        "SELECT id, purpose, content_type, created_at FROM files WHERE owner_id = $1 \
         ORDER BY created_at, id",
        vec![user_id.into()],
        "reading a user's files",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(FileData {
            id: get(r, "id")?,
            purpose: get(r, "purpose")?,
            content_type: get(r, "content_type")?,
            created_at: get(r, "created_at")?,
        })
    })
    .collect::<Result<Vec<_>, StorageError>>()?;
    let profile = super::profiles::find_row(db, user_id).await?;
    let mut data = MemberData {
        account,
        profile: None,
        decisions: Vec::new(),
        appeals: Vec::new(),
        introductions: Vec::new(),
        reactions: Vec::new(),
        matches: Vec::new(),
        messages: Vec::new(),
        blocks: Vec::new(),
        reports: Vec::new(),
        we_met: Vec::new(),
        files,
    };
    let Some(profile) = profile else {
        return Ok(Some(data));
    };
    let me = profile.id;
    data.we_met = super::we_met::own(db, me).await?;
    data.decisions = rows(
        db,
        "SELECT from_status, to_status, reasons, reason, created_at FROM review_history \
         WHERE profile_id = $1 ORDER BY created_at, id",
        vec![me.into()],
        "reading review history",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(DecisionData {
            from_status: get(r, "from_status")?,
            to_status: get(r, "to_status")?,
            reasons: get(r, "reasons")?,
            reason: get(r, "reason")?,
            at: get(r, "created_at")?,
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.appeals = rows(
        db,
        "SELECT text, status, created_at, decided_at FROM appeals \
         WHERE profile_id = $1 ORDER BY created_at, id",
        vec![me.into()],
        "reading appeals",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(AppealData {
            text: get(r, "text")?,
            status: get(r, "status")?,
            at: get(r, "created_at")?,
            decided_at: get(r, "decided_at")?,
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.introductions = rows(
        db,
        "SELECT i.day, i.target_id AS other_id, p.nickname AS other_nickname \
         FROM introductions i JOIN profiles p ON p.id = i.target_id \
         WHERE i.viewer_id = $1 ORDER BY i.day, i.rank",
        vec![me.into()],
        "reading introductions",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(IntroductionData {
            day: get(r, "day")?,
            member: other(r)?,
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.reactions = rows(
        db,
        "SELECT r.kind, r.created_at, r.comment, r.comment_answer, r.comment_photo, \
         r.target_id AS other_id, p.nickname AS other_nickname \
         FROM reactions r JOIN profiles p ON p.id = r.target_id \
         WHERE r.viewer_id = $1 ORDER BY r.created_at",
        vec![me.into()],
        "reading reactions",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(ReactionData {
            kind: get(r, "kind")?,
            at: get(r, "created_at")?,
            member: other(r)?,
            comment: get(r, "comment")?,
            comment_answer: get(r, "comment_answer")?,
            comment_on_photo: get::<Option<String>>(r, "comment_photo")?.is_some(),
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.matches = rows(
        db,
        "SELECT m.id, m.created_at, m.ended_at, p.id AS other_id, p.nickname AS other_nickname \
         FROM matches m JOIN profiles p \
           ON p.id = CASE WHEN m.low_id = $1 THEN m.high_id ELSE m.low_id END \
         WHERE m.low_id = $1 OR m.high_id = $1 ORDER BY m.created_at, m.id",
        vec![me.into()],
        "reading matches",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(MatchData {
            match_id: get(r, "id")?,
            created_at: get(r, "created_at")?,
            ended_at: get(r, "ended_at")?,
            member: other(r)?,
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.messages = rows(
        db,
        "SELECT c.match_id, c.sender_id, c.text, c.sent_at FROM chat_messages c \
         JOIN matches m ON m.id = c.match_id \
         WHERE m.low_id = $1 OR m.high_id = $1 ORDER BY c.match_id, c.sent_at, c.id",
        vec![me.into()],
        "reading messages",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(MessageData {
            match_id: get(r, "match_id")?,
            mine: get::<i64>(r, "sender_id")? == me,
            text: get(r, "text")?,
            sent_at: get(r, "sent_at")?,
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.blocks = rows(
        db,
        "SELECT b.created_at, b.blocked_id AS other_id, p.nickname AS other_nickname \
         FROM blocks b JOIN profiles p ON p.id = b.blocked_id \
         WHERE b.blocker_id = $1 ORDER BY b.created_at",
        vec![me.into()],
        "reading blocks",
    )
    .await?
    .iter()
    .map(|r| {
        Ok(BlockData {
            at: get(r, "created_at")?,
            member: other(r)?,
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.reports = rows(
        db,
        "SELECT r.reasons, r.text, r.status, r.created_at, r.target_id AS other_id, \
           p.nickname AS other_nickname \
         FROM reports r LEFT JOIN profiles p ON p.id = r.target_id \
         WHERE r.reporter_id = $1 ORDER BY r.created_at, r.id",
        vec![me.into()],
        "reading reports",
    )
    .await?
    .iter()
    .map(|r| {
        let target: Option<i64> = get(r, "other_id")?;
        Ok(ReportData {
            reasons: get(r, "reasons")?,
            text: get(r, "text")?,
            status: get(r, "status")?,
            at: get(r, "created_at")?,
            member: match target {
                Some(member_id) => Some(OtherData {
                    member_id,
                    nickname: get(r, "other_nickname")?,
                }),
                None => None,
            },
        })
    })
    .collect::<Result<_, StorageError>>()?;
    data.profile = Some(profile);
    Ok(Some(data))
}
