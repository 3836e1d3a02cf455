//! `profiles.employer_id` and `profiles.hide_colleagues`: the employer on record as review
//! confirmed it, and the member's "never introduce me to people of my employer".

use anyhow::Context;
use kizuna_core::matching::Workplace;
use sea_orm::{ActiveEnum, ConnectionTrait};

use super::{StorageError, entity::profile::Status, statements::sql};

/// The member's employer on record and switch; the default workplace (no employer) for an id
/// without a profile.
pub async fn workplace(db: &impl ConnectionTrait, member: i64) -> Result<Workplace, StorageError> {
    Ok(workplaces(db, &[member])
        .await?
        .into_iter()
        .next()
        .map(|(_, workplace)| workplace)
        .unwrap_or_default())
}

/// The workplaces of the `members` that have a profile.
pub async fn workplaces(
    db: &impl ConnectionTrait,
    members: &[i64],
) -> Result<Vec<(i64, Workplace)>, StorageError> {
    if members.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders: Vec<String> = (1..=members.len()).map(|n| format!("${n}")).collect();
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT id, employer_id, hide_colleagues FROM profiles WHERE id IN ({})",
                placeholders.join(", ")
            ),
            members.iter().map(|id| sea_orm::Value::from(*id)).collect(),
        ))
        .await
        .context("reading workplaces")?;
    rows.iter()
        .map(|row| {
            let id: i64 = row.try_get("", "id").context("decoding a member")?;
            Ok((id, decode(row)?))
        })
        .collect()
}

/// The workplace in a row holding `employer_id` and `hide_colleagues`.
pub fn decode(row: &sea_orm::QueryResult) -> Result<Workplace, StorageError> {
    let employer: Option<String> = row
        .try_get("", "employer_id")
        .context("decoding an employer on record")?;
    let hides: bool = row
        .try_get("", "hide_colleagues")
        .context("decoding the colleagues switch")?;
    Ok(Workplace::of(employer.as_deref(), hides))
}

/// The member's own view: their switch and whether an employer is on record.
pub async fn own(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<(bool, Option<String>), StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT employer_id, hide_colleagues FROM profiles WHERE id = $1",
            vec![member.into()],
        ))
        .await
        .context("reading the colleagues switch")?
        .ok_or_else(|| StorageError::Unreadable("profiles (colleagues)".into()))?;
    Ok((
        row.try_get("", "hide_colleagues")
            .context("decoding the colleagues switch")?,
        row.try_get("", "employer_id")
            .context("decoding an employer on record")?,
    ))
}

/// Switches "never introduce me to people of my employer" on or off.
pub async fn set_hides(
    db: &impl ConnectionTrait,
    member: i64,
    hides: bool,
) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "UPDATE profiles SET hide_colleagues = $1 WHERE id = $2",
        vec![hides.into(), member.into()],
    ))
    .await
    .context("writing the colleagues switch")?;
    Ok(())
}

/// Records the employer review confirmed.
pub async fn set_employer(
    db: &impl ConnectionTrait,
    member: i64,
    employer_id: &str,
) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "UPDATE profiles SET employer_id = $1 WHERE id = $2",
        vec![employer_id.into(), member.into()],
    ))
    .await
    .context("recording an employer")?;
    Ok(())
}

/// Approved or suspended members without an employer on record (approved before review picked
/// one), oldest first, for a reviewer to set: (profile id, nickname).
pub async fn without_employer(
    db: &impl ConnectionTrait,
) -> Result<Vec<(i64, Option<String>)>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT id, nickname FROM profiles WHERE employer_id IS NULL \
                 AND status IN ('{}', '{}') ORDER BY id LIMIT 200",
                Status::Approved.to_value(),
                Status::Suspended.to_value()
            ),
            Vec::new(),
        ))
        .await
        .context("listing members without an employer")?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("", "id").context("decoding a member")?,
                row.try_get("", "nickname").context("decoding a nickname")?,
            ))
        })
        .collect()
}
