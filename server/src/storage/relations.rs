//! The rows two members' relation is made of (blocks, reports, matches, likes and passes, open
//! introductions, pairs kept by a departure), for one member or for everyone. What they mean
//! for an introduction is decided outside storage.

use anyhow::Context;
use kizuna_core::date::Date;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use super::{
    StorageError,
    entity::{block, pair_match, reaction, report},
    statements::{date_of, day_number, sql},
};

/// The rows relations are made of: those naming `of` when given, else everyone's (the daily
/// job's). What they mean for an introduction is the caller's to fold.
#[derive(Debug, Default)]
pub struct RelationRows {
    /// (blocker, blocked).
    pub blocks: Vec<(i64, i64)>,
    /// (reporter, target), both still members.
    pub reports: Vec<(i64, i64)>,
    /// (low, high), ended or not.
    pub matches: Vec<(i64, i64)>,
    /// (viewer, target, a like (else a pass), its day).
    pub reactions: Vec<(i64, i64, bool, Option<Date>)>,
    /// (viewer, target): introductions of a day before `today` the viewer has not answered yet.
    pub pending: Vec<(i64, i64)>,
    /// (low, high, departed at): pairs kept by a departure.
    pub former_pairs: Vec<(i64, i64, i64)>,
}

/// Reads [`RelationRows`], of one member or of everyone.
pub async fn relation_rows(
    db: &impl ConnectionTrait,
    of: Option<i64>,
    today: Date,
) -> Result<RelationRows, StorageError> {
    let mut blocks = block::Entity::find()
        .select_only()
        .columns([block::Column::BlockerId, block::Column::BlockedId]);
    if let Some(m) = of {
        blocks = blocks.filter(
            Condition::any()
                .add(block::Column::BlockerId.eq(m))
                .add(block::Column::BlockedId.eq(m)),
        );
    }
    let blocks: Vec<(i64, i64)> = blocks
        .into_tuple()
        .all(db)
        .await
        .context("reading blocks")?;
    let mut reports = report::Entity::find()
        .select_only()
        .columns([report::Column::ReporterId, report::Column::TargetId])
        .filter(report::Column::ReporterId.is_not_null())
        .filter(report::Column::TargetId.is_not_null());
    if let Some(m) = of {
        reports = reports.filter(
            Condition::any()
                .add(report::Column::ReporterId.eq(m))
                .add(report::Column::TargetId.eq(m)),
        );
    }
    let reports: Vec<(i64, i64)> = reports
        .into_tuple()
        .all(db)
        .await
        .context("reading reports")?;
    let mut matches = pair_match::Entity::find()
        .select_only()
        .columns([pair_match::Column::LowId, pair_match::Column::HighId]);
    if let Some(m) = of {
        matches = matches.filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(m))
                .add(pair_match::Column::HighId.eq(m)),
        );
    }
    let matches: Vec<(i64, i64)> = matches
        .into_tuple()
        .all(db)
        .await
        .context("reading matches")?;
    let mut reactions = reaction::Entity::find().select_only().columns([
        reaction::Column::ViewerId,
        reaction::Column::TargetId,
        reaction::Column::Kind,
        reaction::Column::Day,
    ]);
    if let Some(m) = of {
        reactions = reactions.filter(
            Condition::any()
                .add(reaction::Column::ViewerId.eq(m))
                .add(reaction::Column::TargetId.eq(m)),
        );
    }
    let reactions: Vec<(i64, i64, String, i32)> = reactions
        .into_tuple()
        .all(db)
        .await
        .context("reading likes and passes")?;
    let reactions = reactions
        .into_iter()
        .map(|(viewer, target, kind, day)| (viewer, target, kind == reaction::LIKE, date_of(day)))
        .collect();
    let backend = db.get_database_backend();
    let mut values: Vec<sea_orm::Value> = vec![day_number(today).into()];
    let mut text = String::from(
        "SELECT DISTINCT i.viewer_id AS viewer_id, i.target_id AS target_id FROM introductions i \
         WHERE i.day < $1 AND NOT EXISTS (SELECT 1 FROM reactions r \
         WHERE r.viewer_id = i.viewer_id AND r.target_id = i.target_id)",
    );
    if let Some(m) = of {
        text.push_str(" AND i.viewer_id = $2");
        values.push(m.into());
    }
    let pending = db
        .query_all_raw(sql(backend, &text, values))
        .await
        .context("reading open introductions")?
        .iter()
        .map(|row| -> Result<(i64, i64), StorageError> {
            Ok((
                row.try_get("", "viewer_id").context("decoding")?,
                row.try_get("", "target_id").context("decoding")?,
            ))
        })
        .collect::<Result<_, _>>()?;
    let former = match of {
        Some(m) => sql(
            backend,
            "SELECT low_id, high_id, departed_at FROM former_pairs \
             WHERE low_id = $1 OR high_id = $1",
            vec![m.into()],
        ),
        None => sql(
            backend,
            "SELECT low_id, high_id, departed_at FROM former_pairs",
            vec![],
        ),
    };
    let former_pairs = db
        .query_all_raw(former)
        .await
        .context("reading former pairs")?
        .iter()
        .map(|row| -> Result<(i64, i64, i64), StorageError> {
            Ok((
                row.try_get("", "low_id")
                    .context("decoding a former pair")?,
                row.try_get("", "high_id")
                    .context("decoding a former pair")?,
                row.try_get("", "departed_at")
                    .context("decoding a former pair")?,
            ))
        })
        .collect::<Result<_, _>>()?;
    Ok(RelationRows {
        blocks,
        reports,
        matches,
        reactions,
        pending,
        former_pairs,
    })
}
