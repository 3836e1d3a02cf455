//! Matchmaking for APPROVED members (403 E004 for anyone else): today's introductions, another
//! member's profile, likes and passes, matches, blocks, reports, and the morning-push setting.
//!
//! Another member is only ever shown through kizuna-core's `PublicProfile` (nickname, age, city,
//! distance band, occupation, the verified badge, height, education, marriage record, children,
//! smoking, drinking, tattoo, MBTI, tags, about-me and Q&A, photo file names): the core type
//! cannot hold a name, birthday, address, coordinates, e-mail, income, school, employer name or
//! the verification. Members are named by their profile id; one who is not
//! among the caller's introductions or matches, or who blocked or was blocked, is E003 like an
//! unknown id.

use kizuna_core::{access::CardOffer, matching::PublicProfile, report::Report};
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};

use super::{ApiTags, State};
use crate::{
    access::Viewer,
    error::ApiError,
    extract::{
        auth::Session,
        body::{JsonBody, OptionalJsonBody},
        path_id,
    },
    usecases::matchmaking,
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
    /// A reviewer checked the member's proof of employment and approved them: true for every
    /// APPROVED member (the employer's name and the proof stay private).
    pub verified_employer: bool,
    /// Height in centimetres.
    pub height: u32,
    /// HIGH_SCHOOL, ASSOCIATE, BACHELOR, MASTER or DOCTORATE.
    pub education: String,
    /// 0 never married, 1 divorced, 2 widowed.
    pub marriage_record: u8,
    /// 0 none, 1 living together, 2 living apart (the plans are `fertilityPlanTagIds`).
    pub has_children: u8,
    /// 0 never, 1 quit, 2 socially, 3 regularly.
    pub smoke: u8,
    /// 0 never, 1 socially, 2 regularly.
    pub drink: u8,
    /// NONE, HIDDEN or VISIBLE.
    pub tattoo: String,
    /// The Myers–Briggs type (ISTJ … ENTJ) when the member shares it.
    pub mbti: Option<String>,
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
            height: p.height,
            education: p.education.as_str().to_string(),
            marriage_record: p.marriage_record.code(),
            has_children: p.has_children.code(),
            smoke: p.smoke.code(),
            drink: p.drink.code(),
            tattoo: p.tattoo.as_str().to_string(),
            mbti: p.mbti.map(|m| m.as_str().to_string()),
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

/// A like as its receiver or sender sees it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LikeView {
    /// Unix seconds.
    pub liked_at: i64,
    /// The like's comment, if it carried one.
    #[oai(nullable)]
    pub comment: Option<LikeCommentView>,
}

/// A like's comment: its text, about one photo (`photoName`) or one Q&A answer (`answer`) of the
/// member liked.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LikeCommentView {
    pub text: String,
    /// A file name of the liked member's `photoNameList`.
    #[oai(nullable)]
    pub photo_name: Option<String>,
    /// DATING_QUESTION, DAILY_LIFE or SURPRISE_POINT.
    #[oai(nullable)]
    pub answer: Option<String>,
}

impl LikeView {
    fn new(like: matchmaking::LikeSeen) -> LikeView {
        LikeView {
            liked_at: like.liked_at,
            comment: like.comment.map(|text| LikeCommentView {
                text,
                photo_name: like.photo_name,
                answer: like.answer,
            }),
        }
    }
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Introduction {
    pub member: MemberView,
    /// The caller's answer so far: LIKE or null (a passed member leaves the list).
    pub reaction: Option<String>,
    /// The member liked the caller (with the like's comment, if any).
    #[oai(nullable)]
    pub their_like: Option<LikeView>,
    /// What the card offers: ANSWER (Like and Pass), WAITING (liked, no like back yet), CHAT
    /// (a match: the card leaves discovery and only offers the chat until the list renews) or
    /// DONE (the match ended since).
    pub offer: String,
    /// The pair's live match when `offer` is CHAT (the chat is `/chat?match=…`).
    #[oai(nullable)]
    pub match_id: Option<i64>,
}

/// Another member's profile page: what the caller may see of them and where the two stand.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MemberProfile {
    pub member: MemberView,
    /// The caller's answer: LIKE, PASS or null.
    #[oai(nullable)]
    pub reaction: Option<String>,
    /// The member liked the caller (shown only for someone among the caller's introductions and
    /// not yet a match).
    #[oai(nullable)]
    pub their_like: Option<LikeView>,
    /// Their live match, if they have one (the chat is `/chat?match=…`).
    #[oai(nullable)]
    pub match_id: Option<i64>,
}

/// One like in the caller's likes lists.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LikeItem {
    pub member: MemberView,
    pub like: LikeView,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Likes {
    /// The caller's likes not (yet) answered by a match, newest first, at most 100.
    pub sent: Vec<LikeItem>,
    /// Likes of the caller from members among the caller's introductions (a like makes nobody
    /// visible who was not), not yet a match, newest first, at most 100.
    pub received: Vec<LikeItem>,
}

/// A like's optional comment on one of the member's photos or Q&A answers.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LikeBody {
    pub comment: Option<LikeCommentBody>,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LikeCommentBody {
    /// 1 to 140 characters after trimming (`rules::LIKE_COMMENT`).
    pub text: String,
    /// One of the member's photos (a file name of their `photoNameList`); or `answer`.
    pub photo_name: Option<String>,
    /// One of the member's Q&A answers: DATING_QUESTION, DAILY_LIFE or SURPRISE_POINT; or
    /// `photoName`.
    pub answer: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Introductions {
    /// The Asia/Taipei day of the list (YYYY-MM-DD).
    pub day: String,
    /// Best first; at most 5. Someone blocked, paused or no longer approved since drops out.
    /// Empty while the caller is paused.
    pub introductions: Vec<Introduction>,
    /// How many of them still wait for a Like or Pass ("3 left today").
    pub left: u32,
    /// Since when the caller is paused (Unix seconds): no introductions until they resume
    /// (`PUT /user/pause`).
    #[oai(nullable)]
    pub paused_since: Option<i64>,
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
    /// The caller has not opened the conversation yet (`PUT /matches/{matchId}/read` opens it).
    pub is_new: bool,
    /// The conversation waits on the caller's reply: the other wrote last, over a day ago
    /// (kizuna-core's `conversation::waits_on_reply`). From 5 of them a new like is held
    /// (409 E005, `fields.yourTurn`).
    pub your_turn: bool,
}

/// A match of the caller's that closed because nobody wrote within 7 days: shown for 14 days
/// after, by the other member's nickname only.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ExpiredMatchView {
    pub match_id: i64,
    /// Unix seconds.
    pub matched_at: i64,
    /// Unix seconds.
    pub expired_at: i64,
    /// The other member's nickname.
    pub nickname: String,
}

#[derive(ApiResponse)]
pub enum ExpiredMatchesResponse {
    /// The caller's matches that expired in the last 14 days, newest first.
    #[oai(status = 200)]
    Ok(Json<Vec<ExpiredMatchView>>),
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
    /// The LINE push "You have a new match".
    pub matches: bool,
    /// The LINE push "New message from …" while away from the chat.
    pub messages: bool,
}

/// The push settings to change; the ones left out stay as they are.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotificationChange {
    pub introductions: Option<bool>,
    pub matches: Option<bool>,
    pub messages: Option<bool>,
}

impl From<matchmaking::PushSettings> for NotificationSettings {
    fn from(s: matchmaking::PushSettings) -> NotificationSettings {
        NotificationSettings {
            introductions: s.introductions,
            matches: s.matches,
            messages: s.messages,
        }
    }
}

/// Makes or takes back a pass: the two pass routes differ only in the step they ask for.
async fn pass_step(
    state: &State,
    caller: Session,
    member: &str,
    step: matchmaking::PassStep,
) -> Result<DoneResponse, ApiError> {
    let viewer = Viewer::from(&caller.0);
    viewer.approved_member()?;
    let target = path_id(member)?;
    matchmaking::pass(&state.db, &viewer, target, step, state.now())
        .await?
        .apply(state)
        .await;
    Ok(DoneResponse::Done)
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
    /// What the caller may see of the member, and where the two stand.
    #[oai(status = 200)]
    Ok(Json<MemberProfile>),
}

#[derive(ApiResponse)]
pub enum LikesResponse {
    /// The likes the caller sent and received.
    #[oai(status = 200)]
    Ok(Json<Likes>),
}

#[derive(ApiResponse)]
pub enum MatchesResponse {
    /// The caller's active matches, newest first.
    #[oai(status = 200)]
    Ok(Json<Vec<MatchItem>>),
}

/// A notice that someone the caller was matched with was removed for breaking the rules. It
/// says nothing of why nor of the decision.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RemovalNoticeView {
    /// The ended match (its chat page shows the notice too).
    pub match_id: i64,
    /// The removed member's nickname, which the caller knew; null once they left Kizuna.
    #[oai(nullable)]
    pub nickname: Option<String>,
    /// When the caller was told (Unix seconds).
    pub created_at: i64,
}

#[derive(ApiResponse)]
pub enum RemovalNoticesResponse {
    /// The caller's notices they have not dismissed, newest first.
    #[oai(status = 200)]
    Ok(Json<Vec<RemovalNoticeView>>),
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
        let viewer = Viewer::from(&caller.0);
        let (list, left, paused_since) =
            match matchmaking::todays_list(&state.db, &state.pool, &viewer, state.now()).await? {
                matchmaking::TodaysList::Entries { list, left } => (list, left, None),
                matchmaking::TodaysList::Paused { since } => (Vec::new(), 0, Some(since)),
            };
        Ok(IntroductionsResponse::Ok(Json(Introductions {
            day: state.settings.clock.taipei_today().to_string(),
            introductions: list
                .into_iter()
                .map(|entry| Introduction {
                    member: MemberView::new(entry.member, entry.profile),
                    reaction: entry.reaction,
                    their_like: entry.their_like.map(LikeView::new),
                    offer: match entry.offer {
                        CardOffer::Answer => "ANSWER",
                        CardOffer::Waiting => "WAITING",
                        CardOffer::Chat => "CHAT",
                        CardOffer::Done => "DONE",
                    }
                    .to_string(),
                    match_id: entry.match_id,
                })
                .collect(),
            left,
            paused_since,
        })))
    }

    /// Like an introduction
    ///
    /// The body is optional: a comment of 1 to 140 characters on one of the member's photos or
    /// Q&A answers (422 E002 with `fields` when refused), which the member sees with the like.
    /// A like back makes a match, and both members get a LINE push. Liking again answers the
    /// same (the first comment stays); liking someone the caller passed is E005; anyone not
    /// among the caller's introductions is E003. A new like while 5 or more conversations wait
    /// on the caller's reply (`yourTurn` in `GET /matches`) is 409 E005 with
    /// `fields: {yourTurn: ["too_many"]}`: nothing is stored; reply to or end some first.
    #[oai(path = "/introductions/:memberId/like", method = "post")]
    async fn like(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "memberId")] member: Path<String>,
        body: OptionalJsonBody<LikeBody>,
    ) -> Result<LikeResponse, ApiError> {
        let body = body.read()?;
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let target = path_id(&member.0)?;
        let comment = body
            .and_then(|b| b.comment)
            .map(|c| matchmaking::CommentInput {
                text: c.text,
                photo_name: c.photo_name,
                answer: c.answer,
            });
        let liked = matchmaking::like(&state.db, &viewer, target, comment, state.now())
            .await?
            .apply(&state)
            .await;
        Ok(LikeResponse::Ok(Json(Liked {
            matched: liked.match_id.is_some(),
            match_id: liked.match_id,
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
        pass_step(&state, caller, &member.0, matchmaking::PassStep::Make).await
    }

    /// Take back a pass
    ///
    /// Within 10 seconds of the pass (`rules::PASS_UNDO_SECS`) the member is back in the list,
    /// on every device of the caller. Without a pass nothing changes; an older pass is E005;
    /// anyone not among the caller's introductions is E003.
    #[oai(path = "/introductions/:memberId/pass", method = "delete")]
    async fn undo_pass(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "memberId")] member: Path<String>,
    ) -> Result<DoneResponse, ApiError> {
        pass_step(&state, caller, &member.0, matchmaking::PassStep::TakeBack).await
    }

    /// The caller's likes
    ///
    /// "Likes you sent" and "Liked you", each with the like's comment. "Liked you" only shows
    /// members already among the caller's introductions: a like makes nobody visible.
    #[oai(path = "/likes", method = "get")]
    async fn likes(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<LikesResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        let (sent, received) = matchmaking::likes(&state.db, &viewer, state.now()).await?;
        let items = |entries: Vec<matchmaking::LikeEntry>| {
            entries
                .into_iter()
                .map(|e| LikeItem {
                    member: MemberView::new(e.member, e.profile),
                    like: LikeView::new(e.like),
                })
                .collect()
        };
        Ok(LikesResponse::Ok(Json(Likes {
            sent: items(sent),
            received: items(received),
        })))
    }
}

#[derive(Default)]
pub struct MembersApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl MembersApi {
    /// Another member's profile
    ///
    /// Only a member among the caller's introductions (not passed) or active matches, neither
    /// having blocked the other; E003 for anyone else. With the caller's answer to them, their
    /// like of the caller (while not a match) and the pair's live match.
    #[oai(path = "/members/:memberId", method = "get")]
    async fn member(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "memberId")] member: Path<String>,
    ) -> Result<MemberResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let target = path_id(&member.0)?;
        let page = matchmaking::member(&state.db, &viewer, target, state.now()).await?;
        Ok(MemberResponse::Ok(Json(MemberProfile {
            member: MemberView::new(target, page.profile),
            reaction: page.reaction,
            their_like: page.their_like.map(LikeView::new),
            match_id: page.match_id,
        })))
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
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let items = matchmaking::matches(&state.db, &viewer, state.now())
            .await?
            .into_iter()
            .map(|entry| MatchItem {
                match_id: entry.match_id,
                matched_at: entry.matched_at,
                member: MemberView::new(entry.member, entry.profile),
                last_message: entry.last_message.map(|m| LastMessage {
                    text: m.text,
                    sent_at: m.sent_at,
                    mine: m.mine,
                }),
                unread: entry.unread,
                is_new: entry.is_new,
                your_turn: entry.your_turn,
            })
            .collect();
        Ok(MatchesResponse::Ok(Json(items)))
    }

    /// The caller's expired matches
    ///
    /// Matches where nobody wrote within 7 days of matching close for both as expired (after
    /// one reminder on day 3); each is listed here for 14 days after, by the other member's
    /// nickname only, unless either blocked the other since or the other is no longer approved.
    /// 403 E004 unless the caller is APPROVED.
    #[oai(path = "/expired-matches", method = "get")]
    async fn expired(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<ExpiredMatchesResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let items = matchmaking::expired_matches(&state.db, &viewer, state.now())
            .await?
            .into_iter()
            .map(|m| ExpiredMatchView {
                match_id: m.match_id,
                matched_at: m.matched_at,
                expired_at: m.expired_at,
                nickname: m.nickname,
            })
            .collect();
        Ok(ExpiredMatchesResponse::Ok(Json(items)))
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
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let id = path_id(&match_id.0)?;
        matchmaking::unmatch(&state.db, &viewer, id, state.now())
            .await?
            .apply(&state)
            .await;
        Ok(DoneResponse::Done)
    }

    /// Notices of removed matches
    ///
    /// When a reviewer suspends a member for a reason that warrants it, everyone whose match with
    /// them was live in the last 30 days is told: the match, the nickname they knew, and when.
    /// Dismissed ones are not listed. 403 E004 unless the caller is APPROVED.
    #[oai(path = "/removal-notices", method = "get")]
    async fn removal_notices(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<RemovalNoticesResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let notices = matchmaking::removal_notices(&state.db, &viewer)
            .await?
            .into_iter()
            .map(|n| RemovalNoticeView {
                match_id: n.match_id,
                nickname: n.nickname,
                created_at: n.created_at,
            })
            .collect();
        Ok(RemovalNoticesResponse::Ok(Json(notices)))
    }

    /// Dismiss a removal notice
    ///
    /// Remembered for good (again: nothing changes). E003 when the caller has no notice about
    /// this match; 429 E007 beyond `rules::SWITCH_CHANGES_PER_MINUTE` a minute.
    #[oai(path = "/removal-notices/:matchId/dismiss", method = "post")]
    async fn dismiss_removal_notice(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "matchId")] match_id: Path<String>,
    ) -> Result<DoneResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let id = path_id(&match_id.0)?;
        super::switch_allowed(&state, viewer.user_id).await?;
        matchmaking::dismiss_removal_notice(&state.db, state.now(), &viewer, id).await?;
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
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        matchmaking::block(&state.db, &viewer, body.member_id, state.now())
            .await?
            .apply(&state)
            .await;
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
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let report = Report::parse(&body.reasons, body.text.as_deref())
            .map_err(|fields| ApiError::validation("the report failed validation", &fields))?;
        let id = matchmaking::report(&state.db, &viewer, body.member_id, &report, state.now())
            .await?
            .apply(&state)
            .await;
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
        let settings = matchmaking::push_settings(&state.db, caller.0.user.id).await?;
        Ok(NotificationsResponse::Ok(Json(settings.into())))
    }

    /// Change the caller's push settings
    ///
    /// Each kind on its own: `introductions` (the morning "new introductions" push), `matches`
    /// ("a new match"), `messages` ("a new message" while away). Kinds left out stay as they are.
    #[oai(path = "/user/notifications", method = "put")]
    async fn put(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<NotificationChange>>,
    ) -> Result<NotificationsResponse, ApiError> {
        let body = body.0.read()?;
        let change = matchmaking::PushChange {
            introductions: body.introductions,
            matches: body.matches,
            messages: body.messages,
        };
        let settings =
            matchmaking::change_push_settings(&state.db, caller.0.user.id, change).await?;
        Ok(NotificationsResponse::Ok(Json(settings.into())))
    }
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PauseBody {
    /// True: take a break; false: come back.
    pub paused: bool,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PauseState {
    pub paused: bool,
    /// Since when (Unix seconds), while paused.
    #[oai(nullable)]
    pub paused_since: Option<i64>,
}

#[derive(ApiResponse)]
pub enum PauseResponse {
    /// Whether the caller is taking a break.
    #[oai(status = 200)]
    Ok(Json<PauseState>),
}

#[derive(Default)]
pub struct PauseApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl PauseApi {
    /// Whether I am taking a break
    #[oai(path = "/user/pause", method = "get")]
    async fn get(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<PauseResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        let since = matchmaking::paused_since(&state.db, &viewer).await?;
        Ok(PauseResponse::Ok(Json(PauseState {
            paused: since.is_some(),
            paused_since: since,
        })))
    }

    /// Take a break, or come back
    ///
    /// `paused: true` takes the caller out of everyone's introductions at once (today's lists
    /// made for others drop them too) and stops their own lists and introduction pushes; their
    /// matches and chats go on. `paused: false` brings them back from their next list (and into
    /// lists made from then on). Approved members only (403 E004).
    #[oai(path = "/user/pause", method = "put")]
    async fn put(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<PauseBody>>,
    ) -> Result<PauseResponse, ApiError> {
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        let since =
            crate::usecases::membership::pause(&state.db, &viewer, body.paused, state.now())
                .await?
                .apply(&state)
                .await;
        Ok(PauseResponse::Ok(Json(PauseState {
            paused: since.is_some(),
            paused_since: since,
        })))
    }
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ColleaguesBody {
    /// True: never introduce me to people of my employer (nor them to me).
    pub hide_colleagues: bool,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ColleaguesState {
    /// Never introduced to (nor shown) members of the caller's employer; on unless switched off.
    pub hide_colleagues: bool,
    /// Whether review put an employer on record for the caller: without one, nobody is their
    /// colleague yet. Which employer is never said here (nor to anyone else).
    pub employer_on_record: bool,
}

#[derive(ApiResponse)]
pub enum ColleaguesResponse {
    /// The caller's switch.
    #[oai(status = 200)]
    Ok(Json<ColleaguesState>),
}

#[derive(Default)]
pub struct ColleaguesApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl ColleaguesApi {
    /// Whether I am hidden from my colleagues
    #[oai(path = "/user/colleagues", method = "get")]
    async fn get(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<ColleaguesResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        let (hides, employer_on_record) =
            matchmaking::colleagues_switch(&state.db, &viewer).await?;
        Ok(ColleaguesResponse::Ok(Json(ColleaguesState {
            hide_colleagues: hides,
            employer_on_record,
        })))
    }

    /// Never introduce me to people of my employer, or do
    ///
    /// `hideColleagues: true`: the caller and the members with the same employer on record are
    /// never introduced and never see each other when either of them asked; `false` leaves it to
    /// the other. It filters every list from then on (and cards already shown today); a match
    /// made before goes on. Approved members only (403 E004).
    #[oai(path = "/user/colleagues", method = "put")]
    async fn put(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<ColleaguesBody>>,
    ) -> Result<ColleaguesResponse, ApiError> {
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        super::switch_allowed(&state, viewer.user_id).await?;
        let (hides, employer_on_record) = crate::usecases::membership::hide_from_colleagues(
            &state.db,
            &viewer,
            body.hide_colleagues,
        )
        .await?
        .apply(&state)
        .await;
        Ok(ColleaguesResponse::Ok(Json(ColleaguesState {
            hide_colleagues: hides,
            employer_on_record,
        })))
    }
}
