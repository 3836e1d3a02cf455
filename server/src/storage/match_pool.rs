//! `match_pool`: each profile's matchable snapshot, the columns kizuna-core's `MatchColumns` is
//! rebuilt from, so the whole pool loads with one scan (no JSON, no child tables). Choices are
//! kept as their index in the core's `ALL` lists, the birthday as days since 1970, the home as
//! its ~1 km grid cell; coordinates, names and texts never enter it.
//!
//! A row is derived from the profile and tagged with its submission hash: [`refresh_stale`]
//! rebuilds the rows of approved profiles that have none or an outdated one, so a profile edited
//! and approved again is matched on what it now says, whoever changed it.

use anyhow::Context;
use futures_util::TryStreamExt;
use kizuna_core::{
    Drink, Education, Gender, HasChildren, IncomeRange, MarriageRecord, MatchGender, Smoke, Tattoo,
    conditions::MatchFacts,
    date::Date,
    geo::{self, GridPoint},
    matching::{
        MatchColumns, MatchProfile, PackedConditions, PoolStanding, Range16, TagSet, Workplace,
    },
    profile::ValidProfile,
    review::ReviewStatus,
};
use sea_orm::{
    ActiveEnum, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult, Statement, StreamTrait,
    sea_query::OnConflict,
};

use super::{
    StorageError,
    entity::{match_pool, profile::Status, user},
    profiles,
};

fn index_of<T: PartialEq + Copy>(all: &[T], value: T) -> i32 {
    all.iter().position(|v| *v == value).unwrap_or(0) as i32
}

fn choice<T: Copy>(all: &[T], index: i32, column: &str) -> Result<T, StorageError> {
    usize::try_from(index)
        .ok()
        .and_then(|i| all.get(i).copied())
        .ok_or_else(|| StorageError::Unreadable(format!("match_pool.{column}")))
}

fn maybe<T: Copy>(all: &[T], index: Option<i32>, column: &str) -> Result<Option<T>, StorageError> {
    index.map(|i| choice(all, i, column)).transpose()
}

fn every_tag(profile: &ValidProfile) -> Vec<u32> {
    let t = &profile.tags;
    t.personality
        .iter()
        .chain(&t.exercise)
        .chain(&t.hobby)
        .chain(&t.marriage_type)
        .chain(std::iter::once(&t.fertility_plan))
        .chain(&t.pet)
        .copied()
        .collect()
}

/// The snapshot row of a validated profile; `None` only for a city unknown to this build
/// without coordinates (a profile this build validated always has a home).
pub fn snapshot(profile_id: i64, source_hash: &str, p: &ValidProfile) -> Option<match_pool::Model> {
    let home = geo::home_point(p.location, &p.city)?;
    let wants = PackedConditions::from_list(&p.conditions);
    let tags = every_tag(p)
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    Some(match_pool::Model {
        profile_id,
        source_hash: source_hash.to_string(),
        gender: index_of(Gender::ALL, p.gender),
        match_gender: index_of(MatchGender::ALL, p.match_gender),
        height: p.height_cm as i32,
        birthday: p.birthday.days_since_epoch(),
        income_range: index_of(IncomeRange::ALL, p.income_range),
        education: index_of(Education::ALL, p.education),
        marriage_record: index_of(MarriageRecord::ALL, p.marriage_record),
        has_children: index_of(HasChildren::ALL, p.has_children),
        smoke: index_of(Smoke::ALL, p.smoke),
        tattoo: index_of(Tattoo::ALL, p.tattoo),
        drink: index_of(Drink::ALL, p.drink),
        want_height_from: i32::from(wants.height.from),
        want_height_to: i32::from(wants.height.to),
        want_age_from: i32::from(wants.age.from),
        want_age_to: i32::from(wants.age.to),
        want_income_from: i32::from(wants.income.from),
        want_income_to: i32::from(wants.income.to),
        want_education: wants.education.map(|v| index_of(Education::ALL, v)),
        want_marriage_record: wants
            .marriage_record
            .map(|v| index_of(MarriageRecord::ALL, v)),
        want_has_children: wants.has_children.map(|v| index_of(HasChildren::ALL, v)),
        want_smoke: wants.smoke.map(|v| index_of(Smoke::ALL, v)),
        want_tattoo: wants.tattoo.map(|v| index_of(Tattoo::ALL, v)),
        want_drink: wants.drink.map(|v| index_of(Drink::ALL, v)),
        home_row: home.row(),
        home_col: home.col(),
        radius_km: p.recommend_distance_km as i32,
        tag_ids: tags,
    })
}

fn range(from: i32, to: i32) -> Range16 {
    Range16::new(from.max(0) as u32, to.max(0) as u32)
}

/// The core's member of a snapshot row. The workplace is read with the row from the profile
/// (not kept in the snapshot): switching "never introduce me to colleagues" is no new
/// submission.
pub fn to_profile(
    row: &match_pool::Model,
    status: ReviewStatus,
    last_active: Date,
    workplace: Workplace,
) -> Result<MatchProfile, StorageError> {
    let unreadable = |column: &str| StorageError::Unreadable(format!("match_pool.{column}"));
    let birthday = Date::from_days_since_epoch(i64::from(row.birthday))
        .ok_or_else(|| unreadable("birthday"))?;
    let home =
        GridPoint::from_cell(row.home_row, row.home_col).ok_or_else(|| unreadable("home"))?;
    let tags = TagSet::from_ids(
        row.tag_ids
            .split(',')
            .filter(|t| !t.is_empty())
            .filter_map(|t| t.parse().ok()),
    );
    Ok(MatchProfile::new(MatchColumns {
        id: row.profile_id as u64,
        status,
        gender: choice(Gender::ALL, row.gender, "gender")?,
        match_gender: choice(MatchGender::ALL, row.match_gender, "match_gender")?,
        facts: MatchFacts {
            height_cm: row.height.max(0) as u32,
            birthday,
            income_range: choice(IncomeRange::ALL, row.income_range, "income_range")?,
            education: choice(Education::ALL, row.education, "education")?,
            marriage_record: choice(MarriageRecord::ALL, row.marriage_record, "marriage_record")?,
            has_children: choice(HasChildren::ALL, row.has_children, "has_children")?,
            smoke: choice(Smoke::ALL, row.smoke, "smoke")?,
            tattoo: choice(Tattoo::ALL, row.tattoo, "tattoo")?,
            drink: choice(Drink::ALL, row.drink, "drink")?,
        },
        wants: PackedConditions {
            height: range(row.want_height_from, row.want_height_to),
            age: range(row.want_age_from, row.want_age_to),
            income: range(row.want_income_from, row.want_income_to),
            education: maybe(Education::ALL, row.want_education, "want_education")?,
            marriage_record: maybe(
                MarriageRecord::ALL,
                row.want_marriage_record,
                "want_marriage_record",
            )?,
            has_children: maybe(HasChildren::ALL, row.want_has_children, "want_has_children")?,
            smoke: maybe(Smoke::ALL, row.want_smoke, "want_smoke")?,
            tattoo: maybe(Tattoo::ALL, row.want_tattoo, "want_tattoo")?,
            drink: maybe(Drink::ALL, row.want_drink, "want_drink")?,
        },
        home,
        recommend_distance_km: row.radius_km.max(0) as u32,
        tags,
        last_active,
        workplace,
    }))
}

/// Writes (or replaces) snapshot rows.
pub async fn upsert(
    db: &impl ConnectionTrait,
    rows: Vec<match_pool::Model>,
) -> Result<(), StorageError> {
    if rows.is_empty() {
        return Ok(());
    }
    use match_pool::Column as C;
    let models = rows
        .into_iter()
        .map(sea_orm::IntoActiveModel::into_active_model);
    let mut all_but_key = vec![C::SourceHash];
    all_but_key.extend(
        <C as sea_orm::Iterable>::iter().filter(|c| !matches!(c, C::ProfileId | C::SourceHash)),
    );
    match_pool::Entity::insert_many(models)
        .on_conflict(
            OnConflict::column(C::ProfileId)
                .update_columns(all_but_key)
                .to_owned(),
        )
        .exec(db)
        .await
        .context("writing match pool rows")?;
    Ok(())
}

#[derive(Debug, FromQueryResult)]
struct StaleRow {
    profile_id: i64,
    user_id: i64,
}

/// Builds the snapshot of every APPROVED profile that has none or one of an older submission.
/// Answers how many were rebuilt.
pub async fn refresh_stale(db: &impl ConnectionTrait) -> Result<usize, StorageError> {
    let sql = format!(
        "SELECT p.id AS profile_id, p.user_id AS user_id FROM profiles p \
         LEFT JOIN match_pool mp ON mp.profile_id = p.id \
         WHERE p.status = '{}' \
         AND (mp.profile_id IS NULL OR mp.source_hash <> p.submission_hash)",
        Status::Approved.to_value()
    );
    let stale = StaleRow::find_by_statement(Statement::from_string(db.get_database_backend(), sql))
        .all(db)
        .await
        .context("finding stale match pool rows")?;
    let mut built = Vec::new();
    for row in &stale {
        let Some(user) = user::Entity::find_by_id(row.user_id)
            .one(db)
            .await
            .context("reading a member")?
        else {
            continue;
        };
        let Some(stored) = profiles::load(db, &user).await? else {
            continue;
        };
        let hash = profiles::find_row(db, user.id)
            .await?
            .map(|r| r.submission_hash)
            .unwrap_or_default();
        match snapshot(row.profile_id, &hash, &stored.profile) {
            Some(snap) => built.push(snap),
            None => tracing::warn!(profile = row.profile_id, "a profile has no home cell"),
        }
    }
    let count = built.len();
    for chunk in built.chunks(500) {
        upsert(db, chunk.to_vec()).await?;
    }
    Ok(count)
}

/// A pool row with its member's last activity (Unix seconds) and workplace.
#[derive(Debug)]
pub struct PoolRow {
    pub row: match_pool::Model,
    pub last_active_at: Option<i64>,
    pub workplace: Workplace,
    /// As the tables say it now (the pool keeps the rows whose standing takes part).
    pub standing: PoolStanding,
    /// Members who met this one and would like to see them again ("We met" answers).
    pub seen_again: i64,
}

impl PoolRow {
    /// The core's member of this row (APPROVED: only approved rows are read).
    pub fn to_profile(&self) -> Result<MatchProfile, StorageError> {
        Ok(to_profile(
            &self.row,
            ReviewStatus::Approved,
            active_day(self.last_active_at),
            self.workplace,
        )?
        .with_seen_again(u32::try_from(self.seen_again).unwrap_or(u32::MAX)))
    }
}

/// The columns of a member's standing, read from `profiles p`.
const STANDING_COLUMNS: &str = "p.status AS status, p.employer_id AS employer_id, \
     p.hide_colleagues AS hide_colleagues, \
     EXISTS (SELECT 1 FROM pauses ps WHERE ps.profile_id = p.id) AS paused";

fn decode_standing(row: &sea_orm::QueryResult) -> Result<PoolStanding, StorageError> {
    let status: Status = row.try_get("", "status").context("decoding a status")?;
    Ok(PoolStanding {
        status: status.into(),
        paused: row.try_get("", "paused").context("decoding a pause")?,
        workplace: super::colleagues::decode(row)?,
    })
}

// The pool's query keeps only APPROVED members who take no break: a pre-filter, for speed; the
// core's `PoolStanding::takes_part` decides on the rows read.
fn select_approved(backend: DbBackend, one: bool) -> Statement {
    let base = format!(
        "SELECT mp.*, u.last_active_at AS last_active_at, {STANDING_COLUMNS}, \
         (SELECT COUNT(*) FROM we_met w WHERE w.about_id = p.id AND w.see_again = TRUE) \
           AS seen_again \
         FROM match_pool mp \
         JOIN profiles p ON p.id = mp.profile_id AND p.status = '{}' \
         AND p.submission_hash = mp.source_hash \
         AND NOT EXISTS (SELECT 1 FROM pauses ps WHERE ps.profile_id = p.id) \
         JOIN users u ON u.id = p.user_id",
        Status::Approved.to_value()
    );
    if one {
        let placeholder = if backend == DbBackend::Postgres {
            "$1"
        } else {
            "?"
        };
        Statement::from_string(
            backend,
            format!("{base} WHERE mp.profile_id = {placeholder}"),
        )
    } else {
        Statement::from_string(backend, base)
    }
}

fn decode(row: &sea_orm::QueryResult) -> Result<PoolRow, StorageError> {
    let standing = decode_standing(row)?;
    Ok(PoolRow {
        row: match_pool::Model::from_query_result(row, "").context("decoding a pool row")?,
        last_active_at: row
            .try_get::<Option<i64>>("", "last_active_at")
            .context("decoding last_active_at")?,
        workplace: standing.workplace,
        standing,
        seen_again: row
            .try_get::<i64>("", "seen_again")
            .context("decoding seen_again")?,
    })
}

/// Every APPROVED member's current snapshot, paused ones left out (call [`refresh_stale`] first).
///
/// Each row is handed to `each` as it arrives and then dropped: at 1M members the whole result
/// held at once was about 1 GB of the loading process's peak (issue 46), the pool itself 160 MB.
/// One statement, so one snapshot, as before.
pub async fn approved(
    db: &(impl ConnectionTrait + StreamTrait),
    mut each: impl FnMut(PoolRow) -> Result<(), StorageError>,
) -> Result<(), StorageError> {
    let backend = ConnectionTrait::get_database_backend(db);
    let rows = db
        .stream_raw(select_approved(backend, false))
        .await
        .context("loading the match pool")?;
    let mut rows = std::pin::pin!(rows);
    while let Some(row) = rows.try_next().await.context("loading the match pool")? {
        each(decode(&row)?)?;
    }
    Ok(())
}

/// One APPROVED member's current snapshot, refreshed when stale; None when not APPROVED or
/// paused.
pub async fn approved_one(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<PoolRow>, StorageError> {
    let backend = db.get_database_backend();
    let mut stmt = select_approved(backend, true);
    stmt.values = Some(sea_orm::Values(vec![profile_id.into()]));
    if let Some(row) = db
        .query_one_raw(stmt.clone())
        .await
        .context("loading a pool row")?
    {
        return Ok(Some(decode(&row)?));
    }
    let status = super::entity::profile::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a profile")?;
    let Some(profile) = status.filter(|p| p.status == Status::Approved) else {
        return Ok(None);
    };
    let Some(user) = user::Entity::find_by_id(profile.user_id)
        .one(db)
        .await
        .context("reading a member")?
    else {
        return Ok(None);
    };
    let Some(stored) = profiles::load(db, &user).await? else {
        return Ok(None);
    };
    if let Some(snap) = snapshot(profile_id, &profile.submission_hash, &stored.profile) {
        upsert(db, vec![snap]).await?;
    }
    match db
        .query_one_raw(stmt.clone())
        .await
        .context("loading a pool row")?
    {
        Some(row) => Ok(Some(decode(&row)?)),
        None => Ok(None),
    }
}

/// The day of a Unix time of last activity, or a day long ago for never.
pub fn active_day(last_active_at: Option<i64>) -> Date {
    last_active_at
        .and_then(Date::taipei_day)
        .unwrap_or_else(|| Date::from_ymd(1970, 1, 1).expect("a valid date"))
}

/// Each of `members`' standing for matchmaking as the tables say it now (one statement); ids
/// without a profile are left out.
pub async fn standings(
    db: &impl ConnectionTrait,
    members: &[i64],
) -> Result<Vec<(i64, PoolStanding)>, StorageError> {
    if members.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders: Vec<String> = (1..=members.len()).map(|n| format!("${n}")).collect();
    let rows = db
        .query_all_raw(super::statements::sql(
            db.get_database_backend(),
            &format!(
                "SELECT p.id AS id, {STANDING_COLUMNS} FROM profiles p WHERE p.id IN ({})",
                placeholders.join(", ")
            ),
            members.iter().map(|id| sea_orm::Value::from(*id)).collect(),
        ))
        .await
        .context("reading members' standing")?;
    rows.iter()
        .map(|row| {
            let id: i64 = row.try_get("", "id").context("decoding a member")?;
            Ok((id, decode_standing(row)?))
        })
        .collect()
}

/// Every member's standing, whatever it is: what the pool would hold without its query's
/// pre-filter (for the test that holds the two equal).
pub async fn all_standings(
    db: &impl ConnectionTrait,
) -> Result<Vec<(i64, PoolStanding)>, StorageError> {
    let rows = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            format!("SELECT p.id AS id, {STANDING_COLUMNS} FROM profiles p"),
        ))
        .await
        .context("reading members' standing")?;
    rows.iter()
        .map(|row| {
            let id: i64 = row.try_get("", "id").context("decoding a member")?;
            Ok((id, decode_standing(row)?))
        })
        .collect()
}

/// The home cells of those of `members` with a pool row.
pub async fn home_cells(
    db: &impl ConnectionTrait,
    members: &[i64],
) -> Result<std::collections::HashMap<i64, GridPoint>, StorageError> {
    use sea_orm::{ColumnTrait, QueryFilter, QuerySelect};
    let rows: Vec<(i64, i32, i32)> = match_pool::Entity::find()
        .select_only()
        .columns([
            match_pool::Column::ProfileId,
            match_pool::Column::HomeRow,
            match_pool::Column::HomeCol,
        ])
        .filter(match_pool::Column::ProfileId.is_in(members.iter().copied()))
        .into_tuple()
        .all(db)
        .await
        .context("reading home cells")?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, row, col)| Some((id, GridPoint::from_cell(row, col)?)))
        .collect())
}

/// Announces a payload on a PostgreSQL notification channel (`NOTIFY`), for the other processes.
pub async fn announce(
    db: &impl ConnectionTrait,
    channel: &str,
    payload: &str,
) -> Result<(), sea_orm::DbErr> {
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [channel.into(), payload.into()],
    ))
    .await
    .map(|_| ())
}
