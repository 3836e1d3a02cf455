//! The queues beside the profiles': reports of one member by another, conversations the
//! screening flagged, and members without an employer on record. Each queue reads its
//! conversations in one statement, whatever its length.

use kizuna_core::{report::ReportReason, review::ReviewStatus, safety::Kinds};
use sea_orm::ConnectionTrait;

use super::{Party, ReviewError};
use crate::{
    access::{self, Viewer},
    storage::{
        colleagues,
        entity::chat_message,
        matchmaking::{self as store, Dismissal},
        reports,
        review::{self as review_store},
        safety::{self, Settled},
    },
};

/// Messages of a pair's chat shown with a report or a flagged conversation.
pub const REPORT_CONVERSATION: u64 = 50;

/// A member named in a queue.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberRef {
    pub profile_id: i64,
    pub nickname: Option<String>,
}

/// One message of a reported pair's chat.
#[derive(Clone, Debug, PartialEq)]
pub struct ConversationLine {
    /// Whether the reported member wrote it (else the reporter did).
    pub by_reported: bool,
    pub text: String,
    pub sent_at: i64,
}

/// An open report as a reviewer reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportItem {
    pub report_id: i64,
    /// None when the reporter has since left.
    pub reporter: Option<MemberRef>,
    pub target: MemberRef,
    pub target_status: ReviewStatus,
    pub target_version: i64,
    pub reasons: Vec<ReportReason>,
    /// The suspension reason code each report reason suggests, in order, distinct.
    pub suggested_suspension: Vec<&'static str>,
    pub text: String,
    pub created_at: i64,
    /// The pair's last messages, oldest first.
    pub conversation: Vec<ConversationLine>,
}

/// The open reports `viewer` is shown, oldest first, at most `limit`, each with its pair's
/// conversation (all of them read in one statement).
pub async fn report_queue(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    limit: u64,
) -> Result<Vec<ReportItem>, ReviewError> {
    let entries = access::report_queue(db, viewer, limit).await?;
    // A reporter who left took the pair's match and messages with them.
    let pairs: Vec<(i64, i64)> = entries
        .iter()
        .filter_map(|e| e.report.reporter_id.map(|reporter| (reporter, e.target_id)))
        .collect();
    let matches = reports::matches_between(db, &pairs).await?;
    let ids: Vec<i64> = matches.values().copied().collect();
    let mut conversations = review_store::conversations(db, &ids, REPORT_CONVERSATION).await?;
    Ok(entries
        .into_iter()
        .map(|e| {
            let reasons: Vec<ReportReason> = e
                .report
                .reasons
                .split(',')
                .filter_map(ReportReason::parse)
                .collect();
            let mut suggested: Vec<&'static str> = Vec::new();
            for r in &reasons {
                let code = r.suggested_suspension().code();
                if !suggested.contains(&code) {
                    suggested.push(code);
                }
            }
            let conversation = e
                .report
                .reporter_id
                .and_then(|reporter| matches.get(&(reporter, e.target_id)))
                .and_then(|id| conversations.remove(id))
                .unwrap_or_default()
                .into_iter()
                .map(|m| ConversationLine {
                    by_reported: m.sender_id == e.target_id,
                    text: m.text,
                    sent_at: m.sent_at,
                })
                .collect();
            ReportItem {
                report_id: e.report.id,
                reporter: e.report.reporter_id.map(|profile_id| MemberRef {
                    profile_id,
                    nickname: e.reporter_nickname,
                }),
                target: MemberRef {
                    profile_id: e.target_id,
                    nickname: e.target_nickname,
                },
                target_status: ReviewStatus::from(e.target_status),
                target_version: e.target_version,
                reasons,
                suggested_suspension: suggested,
                text: e.report.text,
                created_at: e.report.created_at,
                conversation,
            }
        })
        .collect())
}

/// Closes an open report without action. NotFound for an unknown report; refused for a report
/// the reviewer filed or one about them, and for one settled already.
pub async fn dismiss_report(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    report_id: i64,
) -> Result<(), ReviewError> {
    match access::may_dismiss_report(db, viewer, report_id).await? {
        None => return Err(ReviewError::NotFound),
        Some(false) => return Err(ReviewError::NotAllowed(Party::Report)),
        Some(true) => {}
    }
    match store::dismiss_report(db, report_id).await? {
        Dismissal::Dismissed => {}
        Dismissal::SettledAlready => return Err(ReviewError::SettledAlready("report")),
        Dismissal::Unknown => return Err(ReviewError::NotFound),
    }
    tracing::info!(
        report = report_id,
        reviewer = viewer.user_id,
        "report dismissed"
    );
    Ok(())
}

/// One message of a flagged conversation.
#[derive(Clone, Debug, PartialEq)]
pub struct FlaggedLine {
    /// Whether the flagged member wrote it (else the other did).
    pub by_member: bool,
    pub text: String,
    pub sent_at: i64,
    /// What the screening found in it.
    pub kinds: Vec<&'static str>,
}

/// A conversation the screening put in the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct FlaggedItem {
    pub match_id: i64,
    /// The member whose messages carried the money talk.
    pub member: MemberRef,
    pub member_status: ReviewStatus,
    pub member_version: i64,
    pub other: MemberRef,
    pub cause: String,
    pub created_at: i64,
    pub conversation: Vec<FlaggedLine>,
}

fn line_of(m: chat_message::Model, member: i64) -> FlaggedLine {
    FlaggedLine {
        by_member: m.sender_id == member,
        kinds: Kinds::from_bits(u8::try_from(m.safety_kinds & 0xff).unwrap_or(0)).codes(),
        text: m.text,
        sent_at: m.sent_at,
    }
}

/// The open flagged conversations `viewer` may review, oldest first, at most `limit`, with both
/// members and the conversation (the members in one statement, the conversations in another).
/// An item whose member left is not shown.
pub async fn flagged(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    limit: u64,
) -> Result<Vec<FlaggedItem>, ReviewError> {
    let open = access::safety_queue(db, viewer, limit).await?;
    let mut ids: Vec<i64> = open
        .iter()
        .flat_map(|i| [i.member_id, i.other_id])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let members = review_store::profiles_by_id(db, &ids).await?;
    let matches: Vec<i64> = open.iter().map(|i| i.match_id).collect();
    let mut conversations = review_store::conversations(db, &matches, REPORT_CONVERSATION).await?;
    Ok(open
        .into_iter()
        .filter_map(|item| {
            let (member, other) = (members.get(&item.member_id)?, members.get(&item.other_id)?);
            let conversation = conversations
                .remove(&item.match_id)
                .unwrap_or_default()
                .into_iter()
                .map(|m| line_of(m, item.member_id))
                .collect();
            Some(FlaggedItem {
                match_id: item.match_id,
                member: MemberRef {
                    profile_id: member.id,
                    nickname: member.nickname.clone(),
                },
                member_status: ReviewStatus::from(member.status),
                member_version: member.version,
                other: MemberRef {
                    profile_id: other.id,
                    nickname: other.nickname.clone(),
                },
                cause: item.cause,
                created_at: item.created_at,
                conversation,
            })
        })
        .collect())
}

/// Closes a flagged conversation without action (it never enters the queue again). NotFound
/// for a match never flagged; refused for a conversation of the reviewer's own and for one
/// settled already.
pub async fn dismiss_flagged(
    db: &impl ConnectionTrait,
    now: i64,
    viewer: &Viewer,
    match_id: i64,
) -> Result<(), ReviewError> {
    match access::may_settle_safety_review(db, viewer, match_id).await? {
        None => return Err(ReviewError::NotFound),
        Some(false) => return Err(ReviewError::NotAllowed(Party::Conversation)),
        Some(true) => {}
    }
    match safety::settle(db, match_id, "dismissed", viewer.user_id, now).await? {
        Settled::Done => {}
        Settled::Already => return Err(ReviewError::SettledAlready("conversation")),
        Settled::Unknown => return Err(ReviewError::NotFound),
    }
    tracing::info!(
        conversation = match_id,
        reviewer = viewer.user_id,
        "flagged conversation dismissed"
    );
    Ok(())
}

/// Approved (or suspended) members without an employer on record, oldest first, at most 200:
/// (profile id, nickname).
pub async fn without_employer(db: &impl ConnectionTrait) -> Result<Vec<MemberRef>, ReviewError> {
    Ok(colleagues::without_employer(db)
        .await?
        .into_iter()
        .map(|(profile_id, nickname)| MemberRef {
            profile_id,
            nickname,
        })
        .collect())
}
