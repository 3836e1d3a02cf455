//! Members' reports of one another and the reviewers' queue of them. Table access only: who may
//! see or settle a report is `crate::access`'s (kizuna-core's `access`).

use std::collections::HashMap;

use anyhow::Context;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, sea_query::Expr,
};

use super::{
    StorageError,
    entity::{pair_match, profile, report},
};

/// The reporter's open report of the target, if any.
pub async fn open_report(
    db: &impl ConnectionTrait,
    reporter: i64,
    target: i64,
) -> Result<Option<report::Model>, StorageError> {
    Ok(report::Entity::find()
        .filter(report::Column::ReporterId.eq(reporter))
        .filter(report::Column::TargetId.eq(target))
        .filter(report::Column::Status.eq(report::Status::Open))
        .one(db)
        .await
        .context("reading reports")?)
}

/// Stores a report for the reviewers' queue; answers its id.
pub async fn insert_report(
    db: &impl ConnectionTrait,
    reporter: i64,
    target: i64,
    reasons: &[&str],
    text: &str,
    now: i64,
) -> Result<i64, StorageError> {
    let done = report::Entity::insert(report::ActiveModel {
        reporter_id: Set(Some(reporter)),
        target_id: Set(Some(target)),
        reasons: Set(reasons.join(",")),
        text: Set(text.to_string()),
        status: Set(report::Status::Open),
        created_at: Set(now),
        ..Default::default()
    })
    .exec(db)
    .await
    .context("writing a report")?;
    Ok(done.last_insert_id)
}

/// Open reports, oldest first (the reviewer console's queue); a report about a member who left
/// waits outside it for their return. `leave_out`: a member whose reports (filed by or about
/// them) are not read, so that a page of the queue is full of the others.
pub async fn open_reports(
    db: &impl ConnectionTrait,
    limit: u64,
    leave_out: Option<i64>,
) -> Result<Vec<report::Model>, StorageError> {
    let mut query = report::Entity::find()
        .filter(report::Column::Status.eq(report::Status::Open))
        .filter(report::Column::TargetId.is_not_null());
    if let Some(member) = leave_out {
        query = query.filter(report::Column::TargetId.ne(member)).filter(
            Condition::any()
                .add(report::Column::ReporterId.is_null())
                .add(report::Column::ReporterId.ne(member)),
        );
    }
    Ok(query
        .order_by_asc(report::Column::CreatedAt)
        .order_by_asc(report::Column::Id)
        .limit(limit)
        .all(db)
        .await
        .context("reading the report queue")?)
}

/// Settles the open reports about `target` with `status` (a suspension actions them all);
/// answers how many.
pub async fn settle_reports_about(
    db: &impl ConnectionTrait,
    target: i64,
    status: report::Status,
) -> Result<u64, StorageError> {
    let done = report::Entity::update_many()
        .col_expr(report::Column::Status, Expr::value(status))
        .filter(report::Column::TargetId.eq(target))
        .filter(report::Column::Status.eq(report::Status::Open))
        .exec(db)
        .await
        .context("settling reports")?;
    Ok(done.rows_affected)
}

/// What became of a reviewer's dismissal.
#[derive(Debug, PartialEq, Eq)]
pub enum Dismissal {
    Dismissed,
    /// Dismissed or actioned before: nothing changed.
    SettledAlready,
    Unknown,
}

/// Dismisses one open report (a second reviewer's dismissal changes nothing).
pub async fn dismiss_report(db: &impl ConnectionTrait, id: i64) -> Result<Dismissal, StorageError> {
    let done = report::Entity::update_many()
        .col_expr(
            report::Column::Status,
            Expr::value(report::Status::Dismissed),
        )
        .filter(report::Column::Id.eq(id))
        .filter(report::Column::Status.eq(report::Status::Open))
        .exec(db)
        .await
        .context("dismissing a report")?;
    if done.rows_affected == 1 {
        return Ok(Dismissal::Dismissed);
    }
    let known = report::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a report")?
        .is_some();
    Ok(if known {
        Dismissal::SettledAlready
    } else {
        Dismissal::Unknown
    })
}

/// An open report in the reviewers' queue, with both members' nicknames and the reported
/// member's status (a reviewer suspends from there through a decision).
pub struct ReportEntry {
    /// Its `reporter_id` is NULL when the reporter left.
    pub report: report::Model,
    /// The reported member (the queue holds no report about someone who left).
    pub target_id: i64,
    pub reporter_nickname: Option<String>,
    pub target_nickname: Option<String>,
    pub target_status: profile::Status,
    pub target_version: i64,
}

/// Open reports, oldest first, but for those filed by or about `leave_out` (the reviewer asking,
/// when they are a member: `crate::access::report_queue`).
pub async fn report_queue(
    db: &impl ConnectionTrait,
    limit: u64,
    leave_out: Option<i64>,
) -> Result<Vec<ReportEntry>, StorageError> {
    let reports = open_reports(db, limit, leave_out).await?;
    let mut ids: Vec<i64> = reports
        .iter()
        .flat_map(|r| [r.reporter_id, r.target_id])
        .flatten()
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let profiles = super::review::profiles_by_id(db, &ids).await?;
    let mut entries = Vec::with_capacity(reports.len());
    for report in reports {
        let Some((target_id, target)) = report
            .target_id
            .and_then(|id| profiles.get(&id).map(|p| (id, p)))
        else {
            return Err(StorageError::Unreadable(
                "reports: a profile is missing".into(),
            ));
        };
        let reporter = report.reporter_id.and_then(|id| profiles.get(&id));
        entries.push(ReportEntry {
            reporter_nickname: reporter.and_then(|r| r.nickname.clone()),
            target_id,
            target_nickname: target.nickname.clone(),
            target_status: target.status,
            target_version: target.version,
            report,
        });
    }
    Ok(entries)
}

/// The match of each pair of `pairs` that has one, keyed by the pair as given (one statement).
pub async fn matches_between(
    db: &impl ConnectionTrait,
    pairs: &[(i64, i64)],
) -> Result<HashMap<(i64, i64), i64>, StorageError> {
    if pairs.is_empty() {
        return Ok(HashMap::new());
    }
    let mut any = Condition::any();
    for &(a, b) in pairs {
        any = any.add(
            Condition::all()
                .add(pair_match::Column::LowId.eq(a.min(b)))
                .add(pair_match::Column::HighId.eq(a.max(b))),
        );
    }
    let rows = pair_match::Entity::find()
        .filter(any)
        .all(db)
        .await
        .context("reading the reported pairs' matches")?;
    Ok(pairs
        .iter()
        .filter_map(|&(a, b)| {
            rows.iter()
                .find(|m| (m.low_id, m.high_id) == (a.min(b), a.max(b)))
                .map(|m| ((a, b), m.id))
        })
        .collect())
}
