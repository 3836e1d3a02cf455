//! The facts the access rule needs between one viewer and other members, read in one statement
//! whatever the number of members (kizuna-core's `access::Ties`). The rule itself is the core's;
//! `crate::access` asks it.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::{
    access::Ties,
    matching::{Workplace, colleagues_kept_apart},
};
use sea_orm::{ActiveEnum, ConnectionTrait};

use super::{
    StorageError,
    entity::{profile, reaction, report},
    statements::sql,
};

/// The ties between `viewer` (a profile id) and each of `targets` that names a profile; an id
/// without a profile is left out. One statement, the viewer's own workplace included.
pub async fn ties(
    db: &impl ConnectionTrait,
    viewer: i64,
    targets: &[i64],
) -> Result<HashMap<i64, Ties>, StorageError> {
    if targets.is_empty() {
        return Ok(HashMap::new());
    }
    let first_target = 3;
    let placeholders: Vec<String> = (0..targets.len())
        .map(|n| format!("${}", n + first_target))
        .collect();
    let text = format!(
        "SELECT {} FROM profiles p WHERE p.id IN ({})",
        ties_columns(),
        placeholders.join(", ")
    );
    let mut values = ties_values(viewer);
    values.extend(targets.iter().map(|id| sea_orm::Value::from(*id)));
    let rows = db
        .query_all_raw(sql(db.get_database_backend(), &text, values))
        .await
        .context("reading who may see whom")?;
    rows.iter().map(|row| decode_ties(row, viewer)).collect()
}

/// The select list of the ties between the viewer (`$1`) and the profile `p`, and the viewer's
/// own workplace, for a statement that binds [`ties_values`] as `$1` and `$2` and reads each row
/// with [`decode_ties`].
pub(crate) fn ties_columns() -> String {
    let pair = |table: &str, a: &str, b: &str| {
        format!(
            "(({table}.{a} = $1 AND {table}.{b} = p.id) OR ({table}.{a} = p.id AND {table}.{b} = $1))"
        )
    };
    let flag = |condition: String| format!("CASE WHEN EXISTS ({condition}) THEN 1 ELSE 0 END");
    format!(
        "p.id AS id, p.status AS status, \
         {introduced} AS introduced, {passed} AS passed, {live} AS live_match, \
         {matched} AS matched, {blocked} AS blocked, {paused} AS paused, \
         p.employer_id AS employer_id, p.hide_colleagues AS hide_colleagues, \
         (SELECT v.employer_id FROM profiles v WHERE v.id = $1) AS my_employer_id, \
         (SELECT v.hide_colleagues FROM profiles v WHERE v.id = $1) AS my_hide_colleagues",
        introduced = flag(
            "SELECT 1 FROM introductions i WHERE i.viewer_id = $1 AND i.target_id = p.id".into()
        ),
        passed = flag(
            "SELECT 1 FROM reactions r WHERE r.viewer_id = $1 AND r.target_id = p.id \
             AND r.kind = $2"
                .into()
        ),
        live = flag(format!(
            "SELECT 1 FROM matches m WHERE {} AND m.ended_at IS NULL",
            pair("m", "low_id", "high_id")
        )),
        matched = flag(format!(
            "SELECT 1 FROM matches m WHERE {}",
            pair("m", "low_id", "high_id")
        )),
        blocked = flag(format!(
            "SELECT 1 FROM blocks b WHERE {}",
            pair("b", "blocker_id", "blocked_id")
        )),
        paused = flag("SELECT 1 FROM pauses ps WHERE ps.profile_id = p.id".into()),
    )
}

/// `$1` and `$2` of [`ties_columns`].
pub(crate) fn ties_values(viewer: i64) -> Vec<sea_orm::Value> {
    vec![viewer.into(), reaction::PASS.into()]
}

/// A row of [`ties_columns`]: the member and the viewer's ties with them.
pub(crate) fn decode_ties(
    row: &sea_orm::QueryResult,
    viewer: i64,
) -> Result<(i64, Ties), StorageError> {
    let flag = |column: &str| -> Result<bool, StorageError> {
        Ok(row
            .try_get::<i32>("", column)
            .context("decoding an access fact")?
            == 1)
    };
    let id: i64 = row.try_get("", "id").context("decoding a member")?;
    let status: String = row.try_get("", "status").context("decoding a status")?;
    // A viewer without a profile has the default workplace (no employer on record).
    let my_employer: Option<String> = row
        .try_get("", "my_employer_id")
        .context("decoding the viewer's employer")?;
    let my_hides: Option<bool> = row
        .try_get("", "my_hide_colleagues")
        .context("decoding the viewer's colleagues switch")?;
    let mine = Workplace::of(my_employer.as_deref(), my_hides.unwrap_or(false));
    Ok((
        id,
        Ties {
            oneself: id == viewer,
            approved: status == profile::Status::Approved.to_value(),
            introduced: flag("introduced")?,
            passed: flag("passed")?,
            live_match: flag("live_match")?,
            matched: flag("matched")?,
            blocked: flag("blocked")?,
            paused: flag("paused")?,
            colleagues_apart: colleagues_kept_apart(mine, super::colleagues::decode(row)?),
        },
    ))
}

/// Whether `reviewer` (a profile id) has an open report about `member`, and `member` one about
/// `reviewer`: a decision on `member` would settle the first, and answer the second in kind.
pub async fn open_reports_between(
    db: &impl ConnectionTrait,
    reviewer: i64,
    member: i64,
) -> Result<(bool, bool), StorageError> {
    use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter};
    let open = report::Entity::find()
        .filter(report::Column::Status.eq(report::Status::Open))
        .filter(
            Condition::any()
                .add(
                    Condition::all()
                        .add(report::Column::ReporterId.eq(reviewer))
                        .add(report::Column::TargetId.eq(member)),
                )
                .add(
                    Condition::all()
                        .add(report::Column::ReporterId.eq(member))
                        .add(report::Column::TargetId.eq(reviewer)),
                ),
        )
        .all(db)
        .await
        .context("reading the reports between a reviewer and a member")?;
    let by_reviewer = open.iter().any(|r| r.reporter_id == Some(reviewer));
    let about_reviewer = open.iter().any(|r| r.target_id == Some(reviewer));
    Ok((by_reviewer, about_reviewer))
}

/// A report's reporter and reported member (profile ids; None for one who left), if it exists.
pub async fn report_parties(
    db: &impl ConnectionTrait,
    report_id: i64,
) -> Result<Option<(Option<i64>, Option<i64>)>, StorageError> {
    use sea_orm::EntityTrait;
    Ok(report::Entity::find_by_id(report_id)
        .one(db)
        .await
        .context("reading a report")?
        .map(|r| (r.reporter_id, r.target_id)))
}
