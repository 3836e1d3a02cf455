//! Who may see whom, answered in one place. A request's [`Viewer`] is made once from its verified
//! session (member, profile, status, role); each question below reads the facts it needs from
//! the tables (`storage::access`) and asks kizuna-core's `access` for the decision. Every route,
//! the file fetch and the image proxy ask here; nothing else decides.

use std::collections::HashMap;

use kizuna_core::{
    access::{self, FileUse, Parties, Standing, Ties},
    review::ReviewStatus,
};
use sea_orm::ConnectionTrait;

use crate::{
    error::ApiError,
    identity::Auth,
    storage::{
        self, StorageError,
        chat::LiveMatch,
        entity::{file, pair_match},
        rate_limits::Take,
    },
};

/// The caller as the access rule sees them, built once per request from the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewer {
    pub user_id: i64,
    /// Their profile id, if they registered one.
    pub member: Option<i64>,
    pub standing: Standing,
}

impl From<&Auth> for Viewer {
    fn from(auth: &Auth) -> Viewer {
        let status = auth
            .profile
            .as_ref()
            .and_then(|p| ReviewStatus::parse(&p.status));
        Viewer {
            user_id: auth.user.id,
            member: auth.profile.as_ref().map(|p| p.id),
            standing: Standing {
                approved: status == Some(ReviewStatus::Approved),
                reviewer: auth.reviewer,
            },
        }
    }
}

impl Viewer {
    /// The caller's profile id when they are an APPROVED member; 403 E004 otherwise (only
    /// approved members take part in matchmaking and chat).
    pub fn approved_member(&self) -> Result<i64, ApiError> {
        match self.member {
            Some(id) if self.standing.approved => Ok(id),
            _ => Err(ApiError::Forbidden(
                "only approved members take part in matchmaking".into(),
            )),
        }
    }
}

/// The viewer's ties with each of `targets` that names a profile (one statement). A viewer
/// without a profile has none.
pub async fn ties(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    targets: &[i64],
) -> Result<HashMap<i64, Ties>, StorageError> {
    match viewer.member {
        Some(me) => storage::access::ties(db, me, targets).await,
        None => Ok(HashMap::new()),
    }
}

async fn ties_with(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    target: i64,
) -> Result<Option<Ties>, StorageError> {
    Ok(ties(db, viewer, &[target]).await?.remove(&target))
}

/// Whether the viewer may see the member's profile and photos (`access::may_see_profile`).
pub async fn may_see_profile(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    target: i64,
) -> Result<bool, StorageError> {
    Ok(ties_with(db, viewer, target)
        .await?
        .is_some_and(|ties| access::may_see_profile(viewer.standing, &ties)))
}

/// Whether the member stands in the viewer's list, to be shown, liked or passed
/// (`access::stands_in_list`).
pub async fn stands_in_list(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    target: i64,
) -> Result<bool, StorageError> {
    Ok(ties_with(db, viewer, target)
        .await?
        .is_some_and(|ties| access::stands_in_list(viewer.standing, &ties)))
}

/// Whether the viewer may name the member in a block or a report (`access::may_name`).
pub async fn may_name(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    target: i64,
) -> Result<bool, StorageError> {
    Ok(ties_with(db, viewer, target)
        .await?
        .is_some_and(|ties| access::may_name(viewer.standing, &ties)))
}

/// The match `match_id` when the viewer may chat in it now (`access::may_chat`); None for
/// unknown matches and for matches that are not theirs alike.
pub async fn chat(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    match_id: i64,
) -> Result<Option<LiveMatch>, StorageError> {
    let row = storage::chat::match_row(db, match_id).await?;
    live_match(db, viewer, row).await
}

/// [`chat`] inside a send's write transaction, with the match row locked first (`FOR UPDATE`;
/// whatever ends the match takes the same lock, so the answer holds until the commit) and what
/// the send decides on read in the same statement as the ties (`storage::chat::send_context`),
/// which takes the sender's allowance too when given its `take`.
#[allow(clippy::too_many_arguments)]
pub async fn chat_locked(
    txn: &impl ConnectionTrait,
    viewer: &Viewer,
    match_id: i64,
    client_message_id: &str,
    take: Option<&Take>,
    process: i32,
    now: i64,
) -> Result<Option<(LiveMatch, storage::chat::SendRead)>, StorageError> {
    let row = storage::chat::lock_match(txn, match_id).await?;
    let (Some(me), Some(row)) = (viewer.member, row) else {
        return Ok(None);
    };
    let Some(other) = other_member(&row, me) else {
        return Ok(None);
    };
    let Some(read) = storage::chat::send_context(
        txn,
        row.id,
        me,
        other,
        client_message_id,
        take,
        process,
        now,
    )
    .await?
    else {
        return Ok(None);
    };
    Ok(access::may_chat(viewer.standing, &read.context.ties)
        .then_some((live_of(&row, other), read)))
}

/// The other member of a match of `me`; None when the match is not theirs.
fn other_member(row: &pair_match::Model, me: i64) -> Option<i64> {
    if row.low_id == me {
        Some(row.high_id)
    } else if row.high_id == me {
        Some(row.low_id)
    } else {
        None
    }
}

fn live_of(row: &pair_match::Model, other: i64) -> LiveMatch {
    LiveMatch {
        id: row.id,
        other,
        low: row.low_id,
        high: row.high_id,
        matched_at: row.created_at,
    }
}

async fn live_match(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    row: Option<pair_match::Model>,
) -> Result<Option<LiveMatch>, StorageError> {
    let (Some(me), Some(row)) = (viewer.member, row) else {
        return Ok(None);
    };
    let Some(other) = other_member(&row, me) else {
        return Ok(None);
    };
    let allowed = ties_with(db, viewer, other)
        .await?
        .is_some_and(|ties| access::may_chat(viewer.standing, &ties));
    Ok(allowed.then(|| live_of(&row, other)))
}

/// The stored file `id` when the viewer may see it (`access::may_see_file`); None for unknown
/// ids and for files they may not see alike.
pub async fn file(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    id: &str,
) -> Result<Option<file::Model>, StorageError> {
    let Some(row) = storage::files::find(db, id).await? else {
        return Ok(None);
    };
    // No profile claimed it: a temp upload, or one only made the avatar.
    let use_ = match row.profile_id {
        Some(_) if row.purpose == file::PURPOSE_PHOTO => FileUse::ProfilePhoto,
        Some(_) => FileUse::Private,
        None => FileUse::Unclaimed,
    };
    let own = row.owner_id == viewer.user_id;
    let ties = match (use_, row.profile_id) {
        (FileUse::ProfilePhoto, Some(owner)) if !own && !viewer.standing.reviewer => {
            ties_with(db, viewer, owner).await?
        }
        _ => None,
    };
    let allowed = access::may_see_file(viewer.standing, own, use_, ties.as_ref());
    Ok(allowed.then_some(row))
}

/// Whether the viewer may act as a reviewer on the profile (claim it, decide it or its revision,
/// put its employer on record): not their own,
/// and no open report between them and its member either way (`access::may_review`).
pub async fn may_review_profile(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    profile_id: i64,
) -> Result<bool, StorageError> {
    let (filed_by_reviewer, about_reviewer) = match viewer.member {
        Some(me) if me != profile_id => {
            storage::access::open_reports_between(db, me, profile_id).await?
        }
        _ => (false, false),
    };
    let parties = Parties {
        own_profile: viewer.member == Some(profile_id),
        filed_by_reviewer,
        about_reviewer,
    };
    Ok(access::may_review(viewer.standing, parties))
}

/// What a report (its reporter and reported member, None for one who left) has to do with the
/// viewer.
fn report_parties(viewer: &Viewer, reporter: Option<i64>, target: Option<i64>) -> Parties {
    let me = viewer.member;
    Parties {
        own_profile: false,
        filed_by_reviewer: me.is_some() && reporter == me,
        about_reviewer: me.is_some() && target == me,
    }
}

/// Open conversations the screening queued that the viewer may review: none of their own
/// (`access::may_review`, as for reports).
pub async fn safety_queue(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    limit: u64,
) -> Result<Vec<storage::safety::OpenReview>, StorageError> {
    let mut items = storage::safety::open(db, limit, viewer.member).await?;
    items.retain(|i| {
        let parties = report_parties(viewer, Some(i.other_id), Some(i.member_id));
        access::may_review(viewer.standing, parties)
    });
    Ok(items)
}

/// Whether the viewer may settle the queued conversation of match `match_id`: not one of their
/// own; None when no such item exists.
pub async fn may_settle_safety_review(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    match_id: i64,
) -> Result<Option<bool>, StorageError> {
    let Some((member, low, high)) = storage::safety::item(db, match_id).await? else {
        return Ok(None);
    };
    let other = if member == low { high } else { low };
    let parties = report_parties(viewer, Some(other), Some(member));
    Ok(Some(access::may_review(viewer.standing, parties)))
}

/// Whether the viewer may dismiss the report: not one they filed nor one about them
/// (`access::may_review`); None for an unknown report.
pub async fn may_dismiss_report(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    report_id: i64,
) -> Result<Option<bool>, StorageError> {
    let Some((reporter, target)) = storage::access::report_parties(db, report_id).await? else {
        return Ok(None);
    };
    let parties = report_parties(viewer, reporter, target);
    Ok(Some(access::may_review(viewer.standing, parties)))
}

/// The open reports the viewer is shown, oldest first, at most `limit`
/// (`access::may_see_report`): never one they filed nor one about them, with its reporter's name
/// and the pair's conversation. The query already leaves those out, so that a page holds `limit`
/// of the others.
pub async fn report_queue(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    limit: u64,
) -> Result<Vec<storage::reports::ReportEntry>, StorageError> {
    let mut entries = storage::reports::report_queue(db, limit, viewer.member).await?;
    entries.retain(|e| {
        let parties = report_parties(viewer, e.report.reporter_id, Some(e.target_id));
        access::may_see_report(viewer.standing, parties)
    });
    Ok(entries)
}
