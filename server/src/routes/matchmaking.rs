//! Matchmaking for APPROVED members (403 E004 for anyone else): today's introductions, another
//! member's profile, likes and passes, matches, blocks, reports, and the morning-push setting.
//!
//! Another member is only ever shown through kizuna-core's `PublicProfile` (nickname, age, city,
//! distance band, occupation, the verified-employer badge, tags, about-me and Q&A, photo file
//! names): the core type cannot hold a name, birthday, address, coordinates, e-mail, income,
//! employer name or the verification. Members are named by their profile id; one who is not
//! among the caller's introductions or matches, or who blocked or was blocked, is E003 like an
//! unknown id.

use anyhow::Context;
use kizuna_core::{date::Date, line::LineUserId, matching::PublicProfile, report::Report};
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::{ApiTags, State, auth::Session, body::JsonBody};
use crate::{
    chat::ChatEvent,
    error::ApiError,
    identity::Auth,
    line::{
        messages::{PushText, liff_url, push_messages},
        push,
    },
    matchmaking,
    storage::{
        self, chat,
        entity::{pair_match, profile, reaction, user},
        locale, matchmaking as store, profiles,
    },
};

/// What one member sees of another (kizuna-core's `PublicProfile`).
#[derive(Debug, Object, Clone)]
#[oai(rename_all = "camelCase")]
pub struct MemberView {
    /// The member's id (their profile id).
    pub member_id: i64,
    pub nickname: String,
    /// Age in completed years today (never the birthday).
    pub age: u16,
    /// City code of the catalogue.
    pub city: String,
    /// UNDER_5_KM, FROM_5_TO_20_KM, FROM_20_TO_50_KM or OVER_50_KM (never a finer distance).
    pub distance_band: String,
    pub occupation_type: String,
    /// The job title.
    pub occupation: String,
    /// The employer was verified (its name stays private).
    pub verified_employer: bool,
    pub personality_tag_ids: Vec<u32>,
    pub exercise_tag_ids: Vec<u32>,
    pub hobby_tag_ids: Vec<u32>,
    pub marriage_type_tag_ids: Vec<u32>,
    pub fertility_plan_tag_ids: Vec<u32>,
    pub pet_tag_ids: Vec<u32>,
    pub about_me: String,
    pub dating_question: Option<String>,
    pub daily_life: Option<String>,
    pub surprise_point: Option<String>,
    /// Photo file names for `/api/file/fetch/{name}` and the image proxy, in order.
    pub photo_name_list: Vec<String>,
}

impl MemberView {
    fn new(member_id: i64, p: PublicProfile) -> MemberView {
        MemberView {
            member_id,
            nickname: p.nickname,
            age: p.age,
            city: p.city,
            distance_band: p.distance_band.code().to_string(),
            occupation_type: p.occupation_type.as_str().to_string(),
            occupation: p.occupation,
            verified_employer: p.verified_employer,
            personality_tag_ids: p.personality_tag_ids,
            exercise_tag_ids: p.exercise_tag_ids,
            hobby_tag_ids: p.hobby_tag_ids,
            marriage_type_tag_ids: p.marriage_type_tag_ids,
            fertility_plan_tag_ids: p.fertility_plan_tag_ids,
            pet_tag_ids: p.pet_tag_ids,
            about_me: p.about_me,
            dating_question: p.dating_question,
            daily_life: p.daily_life,
            surprise_point: p.surprise_point,
            photo_name_list: p.photo_name_list,
        }
    }
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Introduction {
    pub member: MemberView,
    /// The caller's answer so far: LIKE, PASS or null.
    pub reaction: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Introductions {
    /// The Asia/Taipei day of the list (YYYY-MM-DD).
    pub day: String,
    /// Best first; at most 5. Someone blocked or no longer approved since drops out.
    pub introductions: Vec<Introduction>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Liked {
    /// The like made (or had made) a match.
    pub matched: bool,
    pub match_id: Option<i64>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MatchItem {
    pub match_id: i64,
    /// Unix seconds.
    pub matched_at: i64,
    pub member: MemberView,
    /// The conversation's newest message (null before the first).
    pub last_message: Option<LastMessage>,
    /// Messages from the other member after the caller's read marker.
    pub unread: u32,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LastMessage {
    pub text: String,
    /// Unix seconds.
    pub sent_at: i64,
    /// The caller sent it.
    pub mine: bool,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockBody {
    /// The member to block: one of the caller's introductions or matches.
    pub member_id: i64,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportBody {
    /// The member to report: one of the caller's introductions or matches.
    pub member_id: i64,
    /// kizuna-core report reason codes (FAKE_PROFILE, HARASSMENT, …), at least one, distinct.
    pub reasons: Vec<String>,
    /// What happened (`rules::REPORT_TEXT`); required with OTHER.
    pub text: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Reported {
    pub report_id: i64,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotificationSettings {
    /// The morning LINE push "N new introductions today".
    pub introductions: bool,
}

#[derive(ApiResponse)]
pub enum IntroductionsResponse {
    /// Today's list (made now if it did not exist yet; the same all day).
    #[oai(status = 200)]
    Ok(Json<Introductions>),
}

#[derive(ApiResponse)]
pub enum LikeResponse {
    /// Liked (a second like changes nothing); `matched` when the other had liked back.
    #[oai(status = 200)]
    Ok(Json<Liked>),
}

#[derive(ApiResponse)]
pub enum DoneResponse {
    /// Done (doing it again changes nothing).
    #[oai(status = 204)]
    Done,
}

#[derive(ApiResponse)]
pub enum MemberResponse {
    /// What the caller may see of the member.
    #[oai(status = 200)]
    Ok(Json<MemberView>),
}

#[derive(ApiResponse)]
pub enum MatchesResponse {
    /// The caller's active matches, newest first.
    #[oai(status = 200)]
    Ok(Json<Vec<MatchItem>>),
}

#[derive(ApiResponse)]
pub enum ReportResponse {
    /// Stored for the reviewers; the member is blocked too.
    #[oai(status = 201)]
    Created(Json<Reported>),
}

#[derive(ApiResponse)]
pub enum NotificationsResponse {
    /// The caller's push settings.
    #[oai(status = 200)]
    Ok(Json<NotificationSettings>),
}

/// The caller's profile id when they are an APPROVED member; 403 E004 otherwise.
pub(crate) async fn approved_member(state: &State, auth: &Auth) -> Result<i64, ApiError> {
    match profiles::find_row(&state.db, auth.user.id).await? {
        Some(row) if row.status == profile::Status::Approved => Ok(row.id),
        _ => Err(ApiError::Forbidden(
            "only approved members take part in matchmaking".into(),
        )),
    }
}

/// A member id from the path; anything but a positive integer is E003 like an unknown id.
pub(crate) fn member_id(text: &str) -> Result<i64, ApiError> {
    text.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or(ApiError::NotFound)
}

/// What `viewer` sees of `target`, None when the target has no readable profile.
async fn view_of(
    state: &State,
    viewer: i64,
    target: i64,
    today: Date,
) -> Result<Option<MemberView>, ApiError> {
    let Some(row) = store::member(&state.db, target).await? else {
        return Ok(None);
    };
    let Some(owner) = user::Entity::find_by_id(row.user_id)
        .one(&state.db)
        .await
        .context("reading a member")?
    else {
        return Ok(None);
    };
    let Some(stored) = profiles::load(&state.db, &owner).await? else {
        return Ok(None);
    };
    let bands = matchmaking::bands(&state.db, viewer, &[target]).await?;
    let Some(band) = bands.get(&target).copied() else {
        return Ok(None);
    };
    let public = PublicProfile::new(&stored.profile, today, band);
    Ok(Some(MemberView::new(target, public)))
}

/// The LINE user and language of a member, for a push.
pub(crate) async fn push_target(
    txn: &impl sea_orm::ConnectionTrait,
    member: i64,
) -> Result<Option<(LineUserId, crate::locale::Locale)>, ApiError> {
    let Some(row) = store::member(txn, member).await? else {
        return Ok(None);
    };
    let Some(owner) = user::Entity::find_by_id(row.user_id)
        .one(txn)
        .await
        .context("reading a member")?
    else {
        return Ok(None);
    };
    let locale = locale::locale_of_user(txn, owner.id).await?;
    Ok(LineUserId::parse(&owner.line_user_id).map(|id| (id, locale)))
}

/// Holds both members' rows until the transaction ends, lower id first: two likes of the same
/// pair run one after the other, so the second sees the first and exactly one match is made.
async fn lock_pair(txn: &sea_orm::DatabaseTransaction, a: i64, b: i64) -> Result<(), ApiError> {
    use sea_orm::QuerySelect;
    profile::Entity::find()
        .filter(profile::Column::Id.is_in([a, b]))
        .order_by_asc(profile::Column::Id)
        .lock_exclusive()
        .all(txn)
        .await
        .context("locking two members")?;
    Ok(())
}

/// The target must be one of the viewer's introductions and visible to them (E003 otherwise).
async fn introduced_target(state: &State, me: i64, target: i64) -> Result<(), ApiError> {
    if me == target
        || !store::introduced(&state.db, me, target).await?
        || !visible_unless_passed(state, me, target).await?
    {
        return Err(ApiError::NotFound);
    }
    Ok(())
}

/// Visible apart from the viewer's own pass: not blocked either way and still APPROVED.
async fn visible_unless_passed(state: &State, me: i64, target: i64) -> Result<bool, ApiError> {
    if store::may_see(&state.db, me, target).await? {
        return Ok(true);
    }
    let passed = store::reaction_of(&state.db, me, target)
        .await?
        .is_some_and(|r| r.kind == reaction::PASS);
    if !passed {
        return Ok(false);
    }
    let relations = store::relations_of(&state.db, me, state.settings.clock.taipei_today()).await?;
    let blocked = relations.get(&(target as u64)).is_some_and(|r| r.blocked);
    let approved = store::member(&state.db, target)
        .await?
        .is_some_and(|p| p.status == profile::Status::Approved);
    Ok(!blocked && approved)
}

/// Tells both members' open chat pages that their match ended.
pub(crate) async fn ended(state: &State, m: &pair_match::Model) {
    state
        .chat
        .publish(
            &state.db,
            ChatEvent::Ended {
                match_id: m.id,
                low: m.low_id,
                high: m.high_id,
            },
        )
        .await;
}

#[derive(Default)]
pub struct IntroductionsApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl IntroductionsApi {
    /// Today's introductions
    ///
    /// Up to 5 members a day (Asia/Taipei), fixed for the day: the daily job makes the list, or
    /// this call does when it does not exist yet. 403 E004 unless the caller is APPROVED.
    #[oai(path = "/introductions", method = "get")]
    async fn list(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<IntroductionsResponse, ApiError> {
        let auth = caller.0;
        let me = approved_member(&state, &auth).await?;
        let now = state.now();
        let today = state.settings.clock.taipei_today();
        store::touch_active(&state.db, auth.user.id, now).await?;
        let list = matchmaking::todays_list(&state.db, &state.pool, me, today, now)
            .await?
            .ok_or_else(|| {
                ApiError::Forbidden("only approved members take part in matchmaking".into())
            })?;
        let mut introductions = Vec::with_capacity(list.len());
        for target in list {
            let reaction = store::reaction_of(&state.db, me, target).await?;
            let visible = match &reaction {
                Some(r) if r.kind == reaction::PASS => {
                    visible_unless_passed(&state, me, target).await?
                }
                _ => store::may_see(&state.db, me, target).await?,
            };
            if !visible {
                continue;
            }
            if let Some(member) = view_of(&state, me, target, today).await? {
                introductions.push(Introduction {
                    member,
                    reaction: reaction.map(|r| r.kind),
                });
            }
        }
        Ok(IntroductionsResponse::Ok(Json(Introductions {
            day: today.to_string(),
            introductions,
        })))
    }

    /// Like an introduction
    ///
    /// A like back makes a match, and both members get a LINE push. Liking again answers the
    /// same; liking someone the caller passed is E005; anyone not among the caller's
    /// introductions is E003.
    #[oai(path = "/introductions/:memberId/like", method = "post")]
    async fn like(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "memberId")] member: Path<String>,
    ) -> Result<LikeResponse, ApiError> {
        let auth = caller.0;
        let me = approved_member(&state, &auth).await?;
        let target = member_id(&member.0)?;
        introduced_target(&state, me, target).await?;
        let now = state.now();
        let today = state.settings.clock.taipei_today();

        let txn = storage::begin_write(&state.db)
            .await
            .context("starting a like")?;
        lock_pair(&txn, me, target).await?;
        match store::reaction_of(&txn, me, target).await? {
            Some(r) if r.kind == reaction::PASS => {
                return Err(ApiError::Conflict("you passed this introduction".into()));
            }
            Some(_) => {
                let pair = store::pair(&txn, me, target).await?;
                return Ok(LikeResponse::Ok(Json(Liked {
                    matched: pair.is_some(),
                    match_id: pair.map(|m| m.id),
                })));
            }
            None => {}
        }
        store::set_reaction(&txn, me, target, reaction::LIKE, today, now).await?;
        let liked_back = store::reaction_of(&txn, target, me)
            .await?
            .is_some_and(|r| r.kind == reaction::LIKE);
        let mut match_id = None;
        if liked_back && let Some(id) = store::create_match(&txn, me, target, now).await? {
            match_id = Some(id);
            let url = liff_url(&state.settings.line.liff_id);
            for member in [me, target] {
                if let Some((to, locale)) = push_target(&txn, member).await? {
                    let messages = push_messages(locale, &PushText::NewMatch, Some(&url));
                    push::enqueue(&txn, &to, &messages).await?;
                }
            }
        }
        txn.commit().await.context("committing a like")?;
        if match_id.is_some() {
            state.push.wake();
        }
        Ok(LikeResponse::Ok(Json(Liked {
            matched: match_id.is_some(),
            match_id,
        })))
    }

    /// Pass an introduction
    ///
    /// The member is not introduced again for 30 days and drops out of the caller's view.
    /// Passing again changes nothing; passing someone the caller liked is E005.
    #[oai(path = "/introductions/:memberId/pass", method = "post")]
    async fn pass(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "memberId")] member: Path<String>,
    ) -> Result<DoneResponse, ApiError> {
        let auth = caller.0;
        let me = approved_member(&state, &auth).await?;
        let target = member_id(&member.0)?;
        introduced_target(&state, me, target).await?;
        let txn = storage::begin_write(&state.db)
            .await
            .context("starting a pass")?;
        lock_pair(&txn, me, target).await?;
        match store::reaction_of(&txn, me, target).await? {
            Some(r) if r.kind == reaction::LIKE => {
                return Err(ApiError::Conflict("you liked this introduction".into()));
            }
            Some(_) => return Ok(DoneResponse::Done),
            None => {}
        }
        let today = state.settings.clock.taipei_today();
        store::set_reaction(&txn, me, target, reaction::PASS, today, state.now()).await?;
        txn.commit().await.context("committing a pass")?;
        Ok(DoneResponse::Done)
    }
}

#[derive(Default)]
pub struct MembersApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl MembersApi {
    /// Another member's profile
    ///
    /// Only a member among the caller's introductions (not passed) or active matches, neither
    /// having blocked the other; E003 for anyone else.
    #[oai(path = "/members/:memberId", method = "get")]
    async fn member(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "memberId")] member: Path<String>,
    ) -> Result<MemberResponse, ApiError> {
        let auth = caller.0;
        let me = approved_member(&state, &auth).await?;
        let target = member_id(&member.0)?;
        if target == me || !store::may_see(&state.db, me, target).await? {
            return Err(ApiError::NotFound);
        }
        let today = state.settings.clock.taipei_today();
        let view = view_of(&state, me, target, today)
            .await?
            .ok_or(ApiError::NotFound)?;
        Ok(MemberResponse::Ok(Json(view)))
    }
}

#[derive(Default)]
pub struct MatchesApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl MatchesApi {
    /// The caller's matches
    #[oai(path = "/matches", method = "get")]
    async fn list(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<MatchesResponse, ApiError> {
        let auth = caller.0;
        let me = approved_member(&state, &auth).await?;
        let today = state.settings.clock.taipei_today();
        let mut items = Vec::new();
        for (row, other) in store::active_matches(&state.db, me).await? {
            if !store::may_see(&state.db, me, other).await? {
                continue;
            }
            if let Some(member) = view_of(&state, me, other, today).await? {
                let last_message =
                    chat::last_message(&state.db, row.id)
                        .await?
                        .map(|m| LastMessage {
                            text: m.text,
                            sent_at: m.sent_at,
                            mine: m.sender_id == me,
                        });
                items.push(MatchItem {
                    match_id: row.id,
                    matched_at: row.created_at,
                    member,
                    last_message,
                    unread: chat::unread(&state.db, row.id, me).await?,
                });
            }
        }
        Ok(MatchesResponse::Ok(Json(items)))
    }

    /// Unmatch
    ///
    /// Ends the match for both members. Again: nothing changes. E003 for someone else's match.
    #[oai(path = "/matches/:matchId", method = "delete")]
    async fn unmatch(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "matchId")] match_id: Path<String>,
    ) -> Result<DoneResponse, ApiError> {
        let auth = caller.0;
        let me = approved_member(&state, &auth).await?;
        let id = member_id(&match_id.0)?;
        let found = store::match_of(&state.db, me, id)
            .await?
            .ok_or(ApiError::NotFound)?;
        let other = if found.low_id == me {
            found.high_id
        } else {
            found.low_id
        };
        store::end_match(&state.db, me, other, me, state.now()).await?;
        if found.ended_at.is_none() {
            ended(&state, &found).await;
        }
        Ok(DoneResponse::Done)
    }
}

#[derive(Default)]
pub struct BlocksApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl BlocksApi {
    /// Block a member
    ///
    /// Both disappear from each other at once: introductions, matches (ended), profiles and
    /// photos. Only someone among the caller's introductions or matches (E003 otherwise);
    /// blocking again changes nothing.
    #[oai(path = "/blocks", method = "post")]
    async fn block(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<BlockBody>>,
    ) -> Result<DoneResponse, ApiError> {
        let auth = caller.0;
        let body = body.0.read()?;
        let me = approved_member(&state, &auth).await?;
        if !store::knows(&state.db, me, body.member_id).await? {
            return Err(ApiError::NotFound);
        }
        let now = state.now();
        let txn = storage::begin_write(&state.db)
            .await
            .context("starting a block")?;
        let live = store::pair(&txn, me, body.member_id)
            .await?
            .filter(|m| m.ended_at.is_none());
        store::insert_block(&txn, me, body.member_id, now).await?;
        store::end_match(&txn, me, body.member_id, me, now).await?;
        txn.commit().await.context("committing a block")?;
        if let Some(m) = live {
            ended(&state, &m).await;
        }
        Ok(DoneResponse::Done)
    }
}

#[derive(Default)]
pub struct ReportsApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl ReportsApi {
    /// Report a member
    ///
    /// Reasons from kizuna-core's catalogue (422 E002 for unknown or repeated ones, or OTHER
    /// without a text), for the reviewers' report queue. Reporting also blocks. Only someone
    /// among the caller's introductions or matches (E003 otherwise); a second report of the same
    /// member while the first is open is E005.
    #[oai(path = "/reports", method = "post")]
    async fn report(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<ReportBody>>,
    ) -> Result<ReportResponse, ApiError> {
        let auth = caller.0;
        let body = body.0.read()?;
        let me = approved_member(&state, &auth).await?;
        let report = Report::parse(&body.reasons, body.text.as_deref())
            .map_err(|fields| ApiError::validation("the report failed validation", &fields))?;
        if !store::knows(&state.db, me, body.member_id).await? {
            return Err(ApiError::NotFound);
        }
        let now = state.now();
        let txn = storage::begin_write(&state.db)
            .await
            .context("starting a report")?;
        if store::open_report(&txn, me, body.member_id)
            .await?
            .is_some()
        {
            return Err(ApiError::Conflict(
                "you already reported this member; the reviewers have it".into(),
            ));
        }
        let reasons: Vec<&str> = report.reasons.iter().map(|r| r.code()).collect();
        let id = store::insert_report(
            &txn,
            me,
            body.member_id,
            &reasons,
            report.text.as_deref().unwrap_or_default(),
            now,
        )
        .await?;
        let live = store::pair(&txn, me, body.member_id)
            .await?
            .filter(|m| m.ended_at.is_none());
        store::insert_block(&txn, me, body.member_id, now).await?;
        store::end_match(&txn, me, body.member_id, me, now).await?;
        txn.commit().await.context("committing a report")?;
        if let Some(m) = live {
            ended(&state, &m).await;
        }
        tracing::info!(report = id, "member report stored");
        Ok(ReportResponse::Created(Json(Reported { report_id: id })))
    }
}

#[derive(Default)]
pub struct NotificationsApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl NotificationsApi {
    /// The caller's push settings
    #[oai(path = "/user/notifications", method = "get")]
    async fn get(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<NotificationsResponse, ApiError> {
        let auth = caller.0;
        let on = store::introduction_push(&state.db, auth.user.id).await?;
        Ok(NotificationsResponse::Ok(Json(NotificationSettings {
            introductions: on,
        })))
    }

    /// Change the caller's push settings
    ///
    /// `introductions: false` turns the morning "new introductions" push off.
    #[oai(path = "/user/notifications", method = "put")]
    async fn put(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<NotificationSettings>>,
    ) -> Result<NotificationsResponse, ApiError> {
        let auth = caller.0;
        let body = body.0.read()?;
        store::set_introduction_push(&state.db, auth.user.id, body.introductions).await?;
        Ok(NotificationsResponse::Ok(Json(body)))
    }
}
