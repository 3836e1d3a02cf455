//! Matchmaking's tables: daily lists (`introduction_days` + `introductions`), likes and passes,
//! matches, blocks and reports, plus the member's activity and push setting on `users`.
//! Members are profile ids throughout. Who may see whom is `crate::access`'s, not this
//! module's.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::{
    date::Date,
    like::{LikeComment, LikedPart},
    matching::Relation,
};
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, Condition, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult, QueryFilter,
    QueryOrder, QuerySelect, Statement,
    sea_query::{Alias, Expr, ExprTrait, OnConflict, Query},
};

use super::{
    StorageError,
    entity::{block, introduction, introduction_day, pair_match, profile, reaction, report, user},
    is_unique_violation,
};

/// Days since 1970 of a date, as stored.
pub fn day_number(day: Date) -> i32 {
    day.days_since_epoch()
}

fn date_of(day: i32) -> Option<Date> {
    Date::from_days_since_epoch(i64::from(day))
}

pub(crate) fn sql(backend: DbBackend, text: &str, values: Vec<sea_orm::Value>) -> Statement {
    // The statements below are written with `$n`; SQLite reads `?n` the same way.
    let text = if backend == DbBackend::Postgres {
        text.to_string()
    } else {
        text.replace('$', "?")
    };
    Statement::from_sql_and_values(backend, text, values)
}

// ---------------------------------------------------------------------------------------------
// Members

/// A member's profile row, if the id names one.
pub async fn member(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<profile::Model>, StorageError> {
    Ok(profile::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a member")?)
}

/// Records that the member used the app (at most one write an hour).
pub async fn touch_active(
    db: &impl ConnectionTrait,
    user_id: i64,
    now: i64,
) -> Result<(), StorageError> {
    let stmt = Query::update()
        .table(user::Entity)
        .value(Alias::new("last_active_at"), now)
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .and_where(
            Expr::col(Alias::new("last_active_at"))
                .is_null()
                .or(Expr::col(Alias::new("last_active_at")).lt(now - 3600)),
        )
        .to_owned();
    db.execute(&stmt).await.context("recording activity")?;
    Ok(())
}

/// A kind of LINE push a member may switch off, and its column on `users`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushKind {
    /// The morning "N new introductions today".
    Introductions,
    /// "You have a new match".
    Matches,
    /// "New message from …" while the member is away from the chat.
    Messages,
}

impl PushKind {
    fn column(self) -> &'static str {
        match self {
            PushKind::Introductions => "introduction_push",
            PushKind::Matches => "match_push",
            PushKind::Messages => "message_push",
        }
    }
}

/// Whether the user wants pushes of `kind` (on unless they switched it off).
pub async fn push_wanted(
    db: &impl ConnectionTrait,
    user_id: i64,
    kind: PushKind,
) -> Result<bool, StorageError> {
    let stmt = Query::select()
        .column(Alias::new(kind.column()))
        .from(user::Entity)
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .to_owned();
    let row = db
        .query_one(&stmt)
        .await
        .context("reading a push setting")?;
    Ok(match row {
        Some(row) => row
            .try_get::<bool>("", kind.column())
            .context("decoding a push setting")?,
        None => true,
    })
}

/// Switches pushes of `kind` on or off.
pub async fn set_push_wanted(
    db: &impl ConnectionTrait,
    user_id: i64,
    kind: PushKind,
    on: bool,
) -> Result<(), StorageError> {
    let stmt = Query::update()
        .table(user::Entity)
        .value(Alias::new(kind.column()), on)
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .to_owned();
    db.execute(&stmt).await.context("storing a push setting")?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Relations

/// What the tables say between `viewer` and everyone they have a relation with, as the core's
/// [`Relation`] from the viewer's side.
pub async fn relations_of(
    db: &impl ConnectionTrait,
    viewer: i64,
    today: Date,
) -> Result<HashMap<u64, Relation>, StorageError> {
    let mut book: HashMap<u64, Relation> = HashMap::new();
    let blocks = block::Entity::find()
        .filter(
            Condition::any()
                .add(block::Column::BlockerId.eq(viewer))
                .add(block::Column::BlockedId.eq(viewer)),
        )
        .all(db)
        .await
        .context("reading blocks")?;
    for b in blocks {
        let other = if b.blocker_id == viewer {
            b.blocked_id
        } else {
            b.blocker_id
        };
        book.entry(other as u64).or_default().blocked = true;
    }
    let reports = report::Entity::find()
        .filter(
            Condition::any()
                .add(report::Column::ReporterId.eq(viewer))
                .add(report::Column::TargetId.eq(viewer)),
        )
        .all(db)
        .await
        .context("reading reports")?;
    for r in reports {
        let other = if r.reporter_id == Some(viewer) {
            r.target_id
        } else {
            r.reporter_id
        };
        // The other side left: nobody to keep apart.
        if let Some(other) = other {
            book.entry(other as u64).or_default().reported = true;
        }
    }
    let matches = pair_match::Entity::find()
        .filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(viewer))
                .add(pair_match::Column::HighId.eq(viewer)),
        )
        .all(db)
        .await
        .context("reading matches")?;
    for m in matches {
        let other = if m.low_id == viewer {
            m.high_id
        } else {
            m.low_id
        };
        book.entry(other as u64).or_default().matched = true;
    }
    let reactions = reaction::Entity::find()
        .filter(
            Condition::any()
                .add(reaction::Column::ViewerId.eq(viewer))
                .add(reaction::Column::TargetId.eq(viewer)),
        )
        .all(db)
        .await
        .context("reading likes and passes")?;
    for r in reactions {
        let mine = r.viewer_id == viewer;
        let other = if mine { r.target_id } else { r.viewer_id };
        let entry = book.entry(other as u64).or_default();
        if r.kind == reaction::LIKE {
            if mine {
                entry.viewer_liked = true;
            } else {
                entry.candidate_liked = true;
            }
        } else if let Some(day) = date_of(r.day) {
            entry.last_pass = entry.last_pass.max(Some(day));
        }
    }
    // Earlier introductions the viewer has not answered yet.
    let pending = sql(
        db.get_database_backend(),
        "SELECT DISTINCT i.target_id AS target_id FROM introductions i \
         WHERE i.viewer_id = $1 AND i.day < $2 AND NOT EXISTS \
         (SELECT 1 FROM reactions r WHERE r.viewer_id = i.viewer_id AND r.target_id = i.target_id)",
        vec![viewer.into(), day_number(today).into()],
    );
    for row in db
        .query_all_raw(pending)
        .await
        .context("reading open introductions")?
    {
        let target: i64 = row
            .try_get("", "target_id")
            .context("decoding an introduction")?;
        book.entry(target as u64).or_default().pending_introduction = true;
    }
    Ok(book)
}

// ---------------------------------------------------------------------------------------------
// Daily lists

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
    if lists.is_empty() {
        return Ok(0);
    }
    let d = day_number(day);
    if db.get_database_backend() == DbBackend::Postgres {
        return insert_lists_pg(db, d, lists, now).await;
    }
    let markers = lists
        .iter()
        .map(|(viewer, picks)| introduction_day::ActiveModel {
            viewer_id: Set(*viewer),
            day: Set(d),
            picked: Set(picks.len() as i32),
            created_at: Set(now),
            pushed_at: Set(None),
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
    // Only the lists whose marker this call wrote: a list someone else made first (a request
    // racing the job) stays as it is, never gets a second set of picks.
    let fresh: std::collections::HashSet<i64> = match inserted {
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
    Ok(fresh.len())
}

/// A PostgreSQL array literal of integers, sent as text and cast on the server.
fn int_array(values: impl Iterator<Item = i64>) -> String {
    let mut out = String::from("{");
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&v.to_string());
    }
    out.push('}');
    out
}

/// [`insert_lists`] on PostgreSQL: two statements of `UNNEST`ed arrays, whatever the number of
/// lists (the daily job's 2,000 lists of a chunk are one marker and one row statement instead of
/// thousands of bound parameters).
async fn insert_lists_pg(
    db: &impl ConnectionTrait,
    d: i32,
    lists: &[(i64, Vec<i64>)],
    now: i64,
) -> Result<usize, StorageError> {
    let markers = Statement::from_sql_and_values(
        DbBackend::Postgres,
        "INSERT INTO introduction_days (viewer_id, day, picked, created_at) \
         SELECT v, $2, p, $3 FROM UNNEST($1::text::bigint[], $4::text::int[]) AS t(v, p) \
         ON CONFLICT (viewer_id, day) DO NOTHING RETURNING viewer_id",
        vec![
            int_array(lists.iter().map(|(viewer, _)| *viewer)).into(),
            d.into(),
            now.into(),
            int_array(lists.iter().map(|(_, picks)| picks.len() as i64)).into(),
        ],
    );
    let fresh: std::collections::HashSet<i64> = db
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
            "INSERT INTO introductions (viewer_id, day, target_id, rank) \
             SELECT v, $2, t, r FROM UNNEST($1::text::bigint[], $3::text::bigint[], \
             $4::text::int[]) AS x(v, t, r) \
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
    Ok(fresh.len())
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

/// Every relation that keeps two members apart or changes a score, for the daily job: one
/// entry per ordered pair (both directions of the symmetric ones).
pub async fn all_relations(
    db: &impl ConnectionTrait,
    today: Date,
) -> Result<HashMap<(u64, u64), Relation>, StorageError> {
    let mut book: HashMap<(u64, u64), Relation> = HashMap::new();
    fn both(book: &mut HashMap<(u64, u64), Relation>, a: i64, b: i64, set: &dyn Fn(&mut Relation)) {
        set(book.entry((a as u64, b as u64)).or_default());
        set(book.entry((b as u64, a as u64)).or_default());
    }
    let blocks: Vec<(i64, i64)> = block::Entity::find()
        .select_only()
        .columns([block::Column::BlockerId, block::Column::BlockedId])
        .into_tuple()
        .all(db)
        .await
        .context("reading blocks")?;
    for (a, b) in blocks {
        both(&mut book, a, b, &|r| r.blocked = true);
    }
    let reports: Vec<(i64, i64)> = report::Entity::find()
        .select_only()
        .columns([report::Column::ReporterId, report::Column::TargetId])
        .filter(report::Column::ReporterId.is_not_null())
        .filter(report::Column::TargetId.is_not_null())
        .into_tuple()
        .all(db)
        .await
        .context("reading reports")?;
    for (a, b) in reports {
        both(&mut book, a, b, &|r| r.reported = true);
    }
    let matches: Vec<(i64, i64)> = pair_match::Entity::find()
        .select_only()
        .columns([pair_match::Column::LowId, pair_match::Column::HighId])
        .into_tuple()
        .all(db)
        .await
        .context("reading matches")?;
    for (a, b) in matches {
        both(&mut book, a, b, &|r| r.matched = true);
    }
    let reactions: Vec<(i64, i64, String, i32)> = reaction::Entity::find()
        .select_only()
        .columns([
            reaction::Column::ViewerId,
            reaction::Column::TargetId,
            reaction::Column::Kind,
            reaction::Column::Day,
        ])
        .into_tuple()
        .all(db)
        .await
        .context("reading likes and passes")?;
    for (viewer, target, kind, day) in reactions {
        if kind == reaction::LIKE {
            book.entry((viewer as u64, target as u64))
                .or_default()
                .viewer_liked = true;
            book.entry((target as u64, viewer as u64))
                .or_default()
                .candidate_liked = true;
        } else if let Some(day) = date_of(day) {
            both(&mut book, viewer, target, &|r| {
                r.last_pass = r.last_pass.max(Some(day))
            });
        }
    }
    let pending = sql(
        db.get_database_backend(),
        "SELECT DISTINCT i.viewer_id AS viewer_id, i.target_id AS target_id FROM introductions i \
         WHERE i.day < $1 AND NOT EXISTS (SELECT 1 FROM reactions r \
         WHERE r.viewer_id = i.viewer_id AND r.target_id = i.target_id)",
        vec![day_number(today).into()],
    );
    for row in db
        .query_all_raw(pending)
        .await
        .context("reading open introductions")?
    {
        let viewer: i64 = row.try_get("", "viewer_id").context("decoding")?;
        let target: i64 = row.try_get("", "target_id").context("decoding")?;
        book.entry((viewer as u64, target as u64))
            .or_default()
            .pending_introduction = true;
    }
    Ok(book)
}

/// A morning push to enqueue.
pub struct DuePush {
    pub viewer: i64,
    pub line_user_id: String,
    pub locale: Option<String>,
    pub picked: i32,
}

/// The members of `day` whose list has picks and no push yet, who want the push, with their
/// LINE user id, language and picks count.
pub async fn due_morning_pushes(
    db: &impl ConnectionTrait,
    day: Date,
) -> Result<Vec<DuePush>, StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "SELECT d.viewer_id AS viewer_id, u.line_user_id AS line_user_id, u.locale AS locale, \
         d.picked AS picked \
         FROM introduction_days d JOIN profiles p ON p.id = d.viewer_id \
         JOIN users u ON u.id = p.user_id \
         WHERE d.day = $1 AND d.picked > 0 AND d.pushed_at IS NULL AND u.introduction_push",
        vec![day_number(day).into()],
    );
    let rows = db.query_all_raw(stmt).await.context("reading due pushes")?;
    rows.iter()
        .map(|row| {
            Ok(DuePush {
                viewer: row.try_get("", "viewer_id").context("decoding")?,
                line_user_id: row.try_get("", "line_user_id").context("decoding")?,
                locale: row.try_get("", "locale").context("decoding")?,
                picked: row.try_get("", "picked").context("decoding")?,
            })
        })
        .collect()
}

/// Marks the morning push of these members' lists of `day` as enqueued.
pub async fn mark_pushed(
    db: &impl ConnectionTrait,
    day: Date,
    viewers: &[i64],
    now: i64,
) -> Result<(), StorageError> {
    introduction_day::Entity::update_many()
        .col_expr(introduction_day::Column::PushedAt, Expr::value(now))
        .filter(introduction_day::Column::Day.eq(day_number(day)))
        .filter(introduction_day::Column::ViewerId.is_in(viewers.iter().copied()))
        .filter(introduction_day::Column::PushedAt.is_null())
        .exec(db)
        .await
        .context("marking pushes")?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Likes, passes and matches

/// The match row of a pair, ended or not.
pub async fn pair(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
) -> Result<Option<pair_match::Model>, StorageError> {
    Ok(pair_match::Entity::find()
        .filter(pair_match::Column::LowId.eq(Ord::min(a, b)))
        .filter(pair_match::Column::HighId.eq(Ord::max(a, b)))
        .one(db)
        .await
        .context("reading a match")?)
}

/// The viewer's reaction on a target, if any.
pub async fn reaction_of(
    db: &impl ConnectionTrait,
    viewer: i64,
    target: i64,
) -> Result<Option<reaction::Model>, StorageError> {
    Ok(reaction::Entity::find_by_id((viewer, target))
        .one(db)
        .await
        .context("reading a reaction")?)
}

/// The viewer's reactions on each of `targets` that has one (one statement).
pub async fn reactions_on(
    db: &impl ConnectionTrait,
    viewer: i64,
    targets: &[i64],
) -> Result<HashMap<i64, reaction::Model>, StorageError> {
    if targets.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(reaction::Entity::find()
        .filter(reaction::Column::ViewerId.eq(viewer))
        .filter(reaction::Column::TargetId.is_in(targets.iter().copied()))
        .all(db)
        .await
        .context("reading reactions")?
        .into_iter()
        .map(|r| (r.target_id, r))
        .collect())
}

/// Writes the viewer's reaction (replacing an older one), with a like's comment.
pub async fn set_reaction(
    db: &impl ConnectionTrait,
    viewer: i64,
    target: i64,
    kind: &str,
    comment: Option<&LikeComment>,
    day: Date,
    now: i64,
) -> Result<(), StorageError> {
    let (photo, answer) = match comment.map(LikeComment::on) {
        Some(LikedPart::Photo(name)) => (Some(name.to_string()), None),
        Some(LikedPart::Answer(answer)) => (None, Some(answer.as_str().to_string())),
        None => (None, None),
    };
    reaction::Entity::insert(reaction::ActiveModel {
        viewer_id: Set(viewer),
        target_id: Set(target),
        kind: Set(kind.to_string()),
        day: Set(day_number(day)),
        created_at: Set(now),
        comment: Set(comment.map(|c| c.text().to_string())),
        comment_photo: Set(photo),
        comment_answer: Set(answer),
    })
    .on_conflict(
        OnConflict::columns([reaction::Column::ViewerId, reaction::Column::TargetId])
            .update_columns([
                reaction::Column::Kind,
                reaction::Column::Day,
                reaction::Column::CreatedAt,
                reaction::Column::Comment,
                reaction::Column::CommentPhoto,
                reaction::Column::CommentAnswer,
            ])
            .to_owned(),
    )
    .exec(db)
    .await
    .context("writing a reaction")?;
    Ok(())
}

/// Takes back the viewer's pass on a target (their like, if any, stays).
pub async fn delete_pass(
    db: &impl ConnectionTrait,
    viewer: i64,
    target: i64,
) -> Result<(), StorageError> {
    reaction::Entity::delete_many()
        .filter(reaction::Column::ViewerId.eq(viewer))
        .filter(reaction::Column::TargetId.eq(target))
        .filter(reaction::Column::Kind.eq(reaction::PASS))
        .exec(db)
        .await
        .context("taking back a pass")?;
    Ok(())
}

/// The likes each of `likers` gave `viewer`, by liker (one statement).
pub async fn likes_from(
    db: &impl ConnectionTrait,
    viewer: i64,
    likers: &[i64],
) -> Result<HashMap<i64, reaction::Model>, StorageError> {
    if likers.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(reaction::Entity::find()
        .filter(reaction::Column::TargetId.eq(viewer))
        .filter(reaction::Column::ViewerId.is_in(likers.iter().copied()))
        .filter(reaction::Column::Kind.eq(reaction::LIKE))
        .all(db)
        .await
        .context("reading likes of a member")?
        .into_iter()
        .map(|r| (r.viewer_id, r))
        .collect())
}

/// The viewer's newest `limit` likes, newest first.
pub async fn likes_sent(
    db: &impl ConnectionTrait,
    viewer: i64,
    limit: u64,
) -> Result<Vec<reaction::Model>, StorageError> {
    Ok(reaction::Entity::find()
        .filter(reaction::Column::ViewerId.eq(viewer))
        .filter(reaction::Column::Kind.eq(reaction::LIKE))
        .order_by_desc(reaction::Column::CreatedAt)
        .order_by_desc(reaction::Column::TargetId)
        .limit(limit)
        .all(db)
        .await
        .context("reading likes sent")?)
}

/// The newest `limit` likes the viewer received from members who were in one of the viewer's
/// own daily lists, newest first (who may be shown is the caller's to decide).
pub async fn likes_received(
    db: &impl ConnectionTrait,
    viewer: i64,
    limit: u64,
) -> Result<Vec<reaction::Model>, StorageError> {
    let introduced = Query::select()
        .expr(Expr::value(1))
        .from(introduction::Entity)
        .and_where(Expr::col((introduction::Entity, introduction::Column::ViewerId)).eq(viewer))
        .and_where(
            Expr::col((introduction::Entity, introduction::Column::TargetId))
                .equals((reaction::Entity, reaction::Column::ViewerId)),
        )
        .to_owned();
    Ok(reaction::Entity::find()
        .filter(reaction::Column::TargetId.eq(viewer))
        .filter(reaction::Column::Kind.eq(reaction::LIKE))
        .filter(Expr::exists(introduced))
        .order_by_desc(reaction::Column::CreatedAt)
        .order_by_desc(reaction::Column::ViewerId)
        .limit(limit)
        .all(db)
        .await
        .context("reading likes received")?)
}

/// Creates the match of a pair; answers None when the pair has one already.
pub async fn create_match(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
    now: i64,
) -> Result<Option<i64>, StorageError> {
    let inserted = pair_match::Entity::insert(pair_match::ActiveModel {
        low_id: Set(Ord::min(a, b)),
        high_id: Set(Ord::max(a, b)),
        created_at: Set(now),
        ended_at: Set(None),
        ended_by: Set(None),
        ..Default::default()
    })
    .exec(db)
    .await;
    match inserted {
        Ok(done) => Ok(Some(done.last_insert_id)),
        Err(err) if is_unique_violation(&err) => Ok(None),
        Err(err) => Err(anyhow::Error::new(err).context("creating a match").into()),
    }
}

/// The member's active matches, newest first, with the other member's id.
pub async fn active_matches(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<Vec<(pair_match::Model, i64)>, StorageError> {
    let rows = pair_match::Entity::find()
        .filter(pair_match::Column::EndedAt.is_null())
        .filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(member))
                .add(pair_match::Column::HighId.eq(member)),
        )
        .order_by_desc(pair_match::Column::CreatedAt)
        .order_by_desc(pair_match::Column::Id)
        .all(db)
        .await
        .context("reading matches")?;
    Ok(rows
        .into_iter()
        .map(|m| {
            let other = if m.low_id == member {
                m.high_id
            } else {
                m.low_id
            };
            (m, other)
        })
        .collect())
}

/// A match of the member by id (ended or not); None for other people's matches.
pub async fn match_of(
    db: &impl ConnectionTrait,
    member: i64,
    match_id: i64,
) -> Result<Option<pair_match::Model>, StorageError> {
    Ok(pair_match::Entity::find_by_id(match_id)
        .one(db)
        .await
        .context("reading a match")?
        .filter(|m| m.low_id == member || m.high_id == member))
}

/// Ends the pair's active match, if there is one.
pub async fn end_match(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
    by: i64,
    now: i64,
) -> Result<(), StorageError> {
    pair_match::Entity::update_many()
        .col_expr(pair_match::Column::EndedAt, Expr::value(now))
        .col_expr(pair_match::Column::EndedBy, Expr::value(by))
        .filter(pair_match::Column::LowId.eq(Ord::min(a, b)))
        .filter(pair_match::Column::HighId.eq(Ord::max(a, b)))
        .filter(pair_match::Column::EndedAt.is_null())
        .exec(db)
        .await
        .context("ending a match")?;
    Ok(())
}

/// Ends every active match of a member (a suspension does this).
pub async fn end_all_matches(
    db: &impl ConnectionTrait,
    member: i64,
    now: i64,
) -> Result<u64, StorageError> {
    let done = pair_match::Entity::update_many()
        .col_expr(pair_match::Column::EndedAt, Expr::value(now))
        .col_expr(pair_match::Column::EndedBy, Expr::value(member))
        .filter(pair_match::Column::EndedAt.is_null())
        .filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(member))
                .add(pair_match::Column::HighId.eq(member)),
        )
        .exec(db)
        .await
        .context("ending matches")?;
    Ok(done.rows_affected)
}

// ---------------------------------------------------------------------------------------------
// Blocks and reports

/// Records a block (a second one of the same pair changes nothing).
pub async fn insert_block(
    db: &impl ConnectionTrait,
    blocker: i64,
    blocked: i64,
    now: i64,
) -> Result<(), StorageError> {
    block::Entity::insert(block::ActiveModel {
        blocker_id: Set(blocker),
        blocked_id: Set(blocked),
        created_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([block::Column::BlockerId, block::Column::BlockedId])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(db)
    .await
    .context("writing a block")?;
    Ok(())
}

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
