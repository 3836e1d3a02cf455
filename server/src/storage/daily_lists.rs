//! The daily lists: `introduction_days` (one marker per member and day, with its morning push)
//! and `introductions` (the ranked picks).

use std::collections::HashSet;

use anyhow::Context;
use kizuna_core::date::Date;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult,
    QueryFilter, QueryOrder, QuerySelect, Statement, sea_query::OnConflict,
};

use super::{
    StorageError,
    entity::{introduction, introduction_day},
    statements::{day_number, sql},
};

/// The viewer's list of `day` (ranked best first), or None when none was made yet.
pub async fn list_of_day(
    db: &impl ConnectionTrait,
    viewer: i64,
    day: Date,
) -> Result<Option<Vec<i64>>, StorageError> {
    let marker = introduction_day::Entity::find_by_id((viewer, day_number(day)))
        .one(db)
        .await
        .context("reading a list marker")?;
    if marker.is_none() {
        return Ok(None);
    }
    let rows = introduction::Entity::find()
        .filter(introduction::Column::ViewerId.eq(viewer))
        .filter(introduction::Column::Day.eq(day_number(day)))
        .order_by_asc(introduction::Column::Rank)
        .all(db)
        .await
        .context("reading a list")?;
    Ok(Some(rows.into_iter().map(|r| r.target_id).collect()))
}

/// Today's lists each of `members` already appears in.
pub async fn appearances(
    db: &impl ConnectionTrait,
    day: Date,
    members: &[i64],
) -> Result<Vec<(u64, u32)>, StorageError> {
    if members.is_empty() {
        return Ok(Vec::new());
    }
    #[derive(FromQueryResult)]
    struct Count {
        target_id: i64,
        n: i64,
    }
    let rows = introduction::Entity::find()
        .select_only()
        .column(introduction::Column::TargetId)
        .column_as(introduction::Column::ViewerId.count(), "n")
        .filter(introduction::Column::Day.eq(day_number(day)))
        .filter(introduction::Column::TargetId.is_in(members.iter().copied()))
        .group_by(introduction::Column::TargetId)
        .into_model::<Count>()
        .all(db)
        .await
        .context("counting appearances")?;
    Ok(rows
        .into_iter()
        .map(|c| (c.target_id as u64, c.n as u32))
        .collect())
}

/// Stores lists of `day` (marker and rows), many members at once, in the caller's transaction.
/// A member whose list exists already is left alone; answers how many lists were new.
pub async fn insert_lists(
    db: &impl ConnectionTrait,
    day: Date,
    lists: &[(i64, Vec<i64>)],
    now: i64,
) -> Result<usize, StorageError> {
    Ok(insert_lists_pushed(db, day, lists, &HashSet::new(), now)
        .await?
        .len())
}

/// [`insert_lists`], the markers of the members in `pushed` written with `pushed_at = now`
/// (their morning push is enqueued in the same transaction). Answers the members whose list this
/// call wrote: a list someone else made first (a request racing the job, another process running
/// it) stays as it is, never gets a second set of picks or a second push.
pub async fn insert_lists_pushed(
    db: &impl ConnectionTrait,
    day: Date,
    lists: &[(i64, Vec<i64>)],
    pushed: &HashSet<i64>,
    now: i64,
) -> Result<Vec<i64>, StorageError> {
    if lists.is_empty() {
        return Ok(Vec::new());
    }
    let d = day_number(day);
    if db.get_database_backend() == DbBackend::Postgres {
        return insert_lists_pg(db, d, lists, pushed, now).await;
    }
    let markers = lists
        .iter()
        .map(|(viewer, picks)| introduction_day::ActiveModel {
            viewer_id: Set(*viewer),
            day: Set(d),
            picked: Set(picks.len() as i32),
            created_at: Set(now),
            pushed_at: Set(pushed.contains(viewer).then_some(now)),
        });
    let inserted = introduction_day::Entity::insert_many(markers)
        .on_conflict(
            OnConflict::columns([
                introduction_day::Column::ViewerId,
                introduction_day::Column::Day,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_with_returning_keys(db)
        .await;
    let fresh: HashSet<i64> = match inserted {
        Ok(keys) => keys.into_iter().map(|(viewer, _)| viewer).collect(),
        Err(sea_orm::DbErr::RecordNotInserted) => Default::default(),
        Err(err) => {
            return Err(anyhow::Error::new(err)
                .context("writing list markers")
                .into());
        }
    };
    let rows: Vec<_> = lists
        .iter()
        .filter(|(viewer, _)| fresh.contains(viewer))
        .flat_map(|(viewer, picks)| {
            picks
                .iter()
                .enumerate()
                .map(move |(rank, target)| introduction::ActiveModel {
                    viewer_id: Set(*viewer),
                    day: Set(d),
                    target_id: Set(*target),
                    rank: Set(rank as i32),
                })
        })
        .collect();
    for chunk in rows.chunks(1000) {
        introduction::Entity::insert_many(chunk.to_vec())
            .on_conflict(
                OnConflict::columns([
                    introduction::Column::ViewerId,
                    introduction::Column::Day,
                    introduction::Column::TargetId,
                ])
                .do_nothing()
                .to_owned(),
            )
            .exec_without_returning(db)
            .await
            .context("writing introductions")?;
    }
    Ok(in_order(lists, &fresh))
}

/// Integers joined by commas between `open` and `close`: a PostgreSQL array literal (`{…}`, sent
/// as text and cast on the server) or a JSON array (`[…]`, unpacked by SQLite's `json_each`).
fn int_list(open: char, values: impl Iterator<Item = i64>, close: char) -> String {
    let mut out = String::from(open);
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&v.to_string());
    }
    out.push(close);
    out
}

fn int_array(values: impl Iterator<Item = i64>) -> String {
    int_list('{', values, '}')
}

/// "Is one of the ids bound at `$n`" (bound with [`ids_value`]): one value however many ids.
fn in_ids(backend: DbBackend, n: usize) -> String {
    if backend == DbBackend::Postgres {
        format!("= ANY(${n}::text::bigint[])")
    } else {
        // SQLite's JSON1 unpacks a JSON array.
        format!("IN (SELECT value FROM json_each(${n}))")
    }
}

fn ids_value(backend: DbBackend, ids: &[i64]) -> sea_orm::Value {
    if backend == DbBackend::Postgres {
        int_array(ids.iter().copied()).into()
    } else {
        int_list('[', ids.iter().copied(), ']').into()
    }
}

/// The viewers of `lists` that are in `fresh`, in the lists' order.
fn in_order(lists: &[(i64, Vec<i64>)], fresh: &HashSet<i64>) -> Vec<i64> {
    lists
        .iter()
        .map(|(viewer, _)| *viewer)
        .filter(|viewer| fresh.contains(viewer))
        .collect()
}

/// [`insert_lists_pushed`] on PostgreSQL: two statements of `UNNEST`ed arrays, whatever the
/// number of lists (the daily job's 2,000 lists of a chunk are one marker and one row statement
/// instead of thousands of bound parameters).
async fn insert_lists_pg(
    db: &impl ConnectionTrait,
    d: i32,
    lists: &[(i64, Vec<i64>)],
    pushed: &HashSet<i64>,
    now: i64,
) -> Result<Vec<i64>, StorageError> {
    let markers = Statement::from_sql_and_values(
        DbBackend::Postgres,
        "INSERT INTO introduction_days (viewer_id, day, picked, created_at, pushed_at) \
         SELECT v, $2, p, $3, CASE WHEN u = 1 THEN $3 END \
         FROM UNNEST($1::text::bigint[], $4::text::int[], $5::text::int[]) AS t(v, p, u) \
         ON CONFLICT (viewer_id, day) DO NOTHING RETURNING viewer_id",
        vec![
            int_array(lists.iter().map(|(viewer, _)| *viewer)).into(),
            d.into(),
            now.into(),
            int_array(lists.iter().map(|(_, picks)| picks.len() as i64)).into(),
            int_array(
                lists
                    .iter()
                    .map(|(viewer, _)| i64::from(pushed.contains(viewer))),
            )
            .into(),
        ],
    );
    let fresh: HashSet<i64> = db
        .query_all_raw(markers)
        .await
        .context("writing list markers")?
        .iter()
        .map(|row| row.try_get::<i64>("", "viewer_id"))
        .collect::<Result<_, _>>()
        .context("decoding")?;
    let rows = || {
        lists
            .iter()
            .filter(|(viewer, _)| fresh.contains(viewer))
            .flat_map(|(viewer, picks)| {
                picks
                    .iter()
                    .enumerate()
                    .map(move |(rank, target)| (*viewer, *target, rank as i64))
            })
    };
    if rows().next().is_some() {
        let insert = Statement::from_sql_and_values(
            DbBackend::Postgres,
            // No foreign keys here (migration m20261204_000001): the targets still there are
            // locked as the key check did, once each, and only their rows are written; the
            // viewers are locked by their markers' key above.
            "WITH kept AS (SELECT id FROM profiles WHERE id = ANY($3::text::bigint[]) \
               ORDER BY id FOR KEY SHARE) \
             INSERT INTO introductions (viewer_id, day, target_id, rank) \
             SELECT v, $2, t, r FROM UNNEST($1::text::bigint[], $3::text::bigint[], \
             $4::text::int[]) AS x(v, t, r) WHERE t IN (SELECT id FROM kept) \
             ON CONFLICT (viewer_id, day, target_id) DO NOTHING",
            vec![
                int_array(rows().map(|(v, _, _)| v)).into(),
                d.into(),
                int_array(rows().map(|(_, t, _)| t)).into(),
                int_array(rows().map(|(_, _, r)| r)).into(),
            ],
        );
        db.execute_raw(insert)
            .await
            .context("writing introductions")?;
    }
    Ok(in_order(lists, &fresh))
}

/// What a member's morning push needs: whether they want it and where it goes.
pub struct PushSetting {
    pub viewer: i64,
    pub line_user_id: String,
    /// `users.introduction_push`.
    pub wants_push: bool,
}

/// The morning-push settings of these members (profile ids), one statement.
pub async fn push_settings(
    db: &impl ConnectionTrait,
    viewers: &[i64],
) -> Result<Vec<PushSetting>, StorageError> {
    if viewers.is_empty() {
        return Ok(Vec::new());
    }
    let backend = db.get_database_backend();
    let stmt = sql(
        backend,
        &format!(
            "SELECT p.id AS viewer_id, u.line_user_id AS line_user_id, \
             u.introduction_push AS wants_push \
             FROM profiles p JOIN users u ON u.id = p.user_id WHERE p.id {}",
            in_ids(backend, 1)
        ),
        vec![ids_value(backend, viewers)],
    );
    db.query_all_raw(stmt)
        .await
        .context("reading push settings")?
        .iter()
        .map(|row| {
            Ok(PushSetting {
                viewer: row.try_get("", "viewer_id").context("decoding")?,
                line_user_id: row.try_get("", "line_user_id").context("decoding")?,
                wants_push: row.try_get("", "wants_push").context("decoding")?,
            })
        })
        .collect()
}

/// Members with a list of `day` already.
pub async fn listed_on(db: &impl ConnectionTrait, day: Date) -> Result<Vec<i64>, StorageError> {
    Ok(introduction_day::Entity::find()
        .select_only()
        .column(introduction_day::Column::ViewerId)
        .filter(introduction_day::Column::Day.eq(day_number(day)))
        .into_tuple::<i64>()
        .all(db)
        .await
        .context("reading list markers")?)
}

/// Every appearance count of `day`.
pub async fn all_appearances(
    db: &impl ConnectionTrait,
    day: Date,
) -> Result<Vec<(u64, u32)>, StorageError> {
    let rows: Vec<(i64, i64)> = introduction::Entity::find()
        .select_only()
        .column(introduction::Column::TargetId)
        .column_as(introduction::Column::ViewerId.count(), "n")
        .filter(introduction::Column::Day.eq(day_number(day)))
        .group_by(introduction::Column::TargetId)
        .into_tuple()
        .all(db)
        .await
        .context("counting appearances")?;
    Ok(rows
        .into_iter()
        .map(|(t, n)| (t as u64, n as u32))
        .collect())
}

/// A list of the day as its morning push reads it.
pub struct DayList {
    pub viewer: i64,
    pub picked: i32,
    /// When its morning push was enqueued, if it was.
    pub pushed_at: Option<i64>,
    /// The member wants the morning push (`users.introduction_push`).
    pub wants_push: bool,
    pub line_user_id: String,
    pub locale: Option<String>,
}

/// Every list of `day` whose morning push is not enqueued yet, with its member's push setting,
/// LINE user id and language (the daily job's lists are stored with theirs: what is left is
/// lists made on demand, and lists whose member wants no push or got no introductions).
pub async fn lists_for_push(
    db: &impl ConnectionTrait,
    day: Date,
) -> Result<Vec<DayList>, StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "SELECT d.viewer_id AS viewer_id, u.line_user_id AS line_user_id, u.locale AS locale, \
         d.picked AS picked, d.pushed_at AS pushed_at, u.introduction_push AS wants_push \
         FROM introduction_days d JOIN profiles p ON p.id = d.viewer_id \
         JOIN users u ON u.id = p.user_id WHERE d.day = $1 AND d.pushed_at IS NULL",
        vec![day_number(day).into()],
    );
    let rows = db
        .query_all_raw(stmt)
        .await
        .context("reading the day's lists")?;
    rows.iter()
        .map(|row| {
            Ok(DayList {
                viewer: row.try_get("", "viewer_id").context("decoding")?,
                line_user_id: row.try_get("", "line_user_id").context("decoding")?,
                locale: row.try_get("", "locale").context("decoding")?,
                picked: row.try_get("", "picked").context("decoding")?,
                pushed_at: row.try_get("", "pushed_at").context("decoding")?,
                wants_push: row.try_get("", "wants_push").context("decoding")?,
            })
        })
        .collect()
}

/// Marks the morning push of these members' lists of `day` as enqueued, where it was not yet, and
/// answers the members this call marked: the caller enqueues theirs in the same transaction, so
/// two runs racing over the same lists push each once (on PostgreSQL the second UPDATE waits for
/// the first's commit and then finds the mark).
pub async fn mark_pushed(
    db: &impl ConnectionTrait,
    day: Date,
    viewers: &[i64],
    now: i64,
) -> Result<Vec<i64>, StorageError> {
    if viewers.is_empty() {
        return Ok(Vec::new());
    }
    let backend = db.get_database_backend();
    let stmt = sql(
        backend,
        &format!(
            "UPDATE introduction_days SET pushed_at = $1 \
             WHERE day = $2 AND pushed_at IS NULL AND viewer_id {} RETURNING viewer_id",
            in_ids(backend, 3)
        ),
        vec![
            now.into(),
            day_number(day).into(),
            ids_value(backend, viewers),
        ],
    );
    db.query_all_raw(stmt)
        .await
        .context("marking pushes")?
        .iter()
        .map(|row| Ok(row.try_get::<i64>("", "viewer_id").context("decoding")?))
        .collect()
}
