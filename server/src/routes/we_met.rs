//! "We met" (APPROVED members): the questions the caller is due about their matches and their
//! private answers. And the usual review time a member waiting for review is told.

use kizuna_core::review_time::ReviewTime;
use kizuna_core::rules;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};

use super::{ApiTags, State};
use crate::{
    access::Viewer,
    error::ApiError,
    extract::{auth::Session, body::JsonBody, path_id},
    rate_limit::LimitKind,
    usecases::we_met,
};

#[derive(ApiResponse)]
pub enum AnswerResponse {
    /// Done (doing it again changes nothing).
    #[oai(status = 204)]
    Done,
}

/// A question the caller is due: did they meet this match?
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WeMetQuestion {
    /// The match asked about.
    pub match_id: i64,
    /// The other member's id.
    pub member_id: i64,
    /// The other member's nickname.
    pub nickname: String,
}

#[derive(ApiResponse)]
pub enum WeMetQuestionsResponse {
    /// The questions the caller is due, oldest match first (none answered).
    #[oai(status = 200)]
    Ok(Json<Vec<WeMetQuestion>>),
}

/// The caller's answer: whether they met, and after a yes whether they would like to see the
/// other again (`seeAgain`: required after a yes, refused after a no).
#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WeMetAnswerBody {
    pub met: bool,
    #[serde(default)]
    pub see_again: Option<bool>,
}

#[derive(Default)]
pub struct WeMetApi;

#[OpenApi(tag = "ApiTags::Matchmaking")]
impl WeMetApi {
    /// "We met" questions due
    ///
    /// A few days after both members of a live match have written to each other, each is asked
    /// privately whether they met. The answers are the caller's alone: the other member is never
    /// told them, nor whether they were given. 403 E004 unless the caller is APPROVED.
    #[oai(path = "/we-met", method = "get")]
    async fn questions(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<WeMetQuestionsResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        let items = we_met::questions(&state.db, &viewer, state.now())
            .await?
            .into_iter()
            .map(|q| WeMetQuestion {
                match_id: q.match_id,
                member_id: q.member,
                nickname: q.nickname,
            })
            .collect();
        Ok(WeMetQuestionsResponse::Ok(Json(items)))
    }

    /// Answer "We met"
    ///
    /// Stored once: the same answer again changes nothing, another is 409 E005. 404 E003 for no
    /// live match of the caller's; 409 E005 before the question is due; 422 E002 with
    /// `seeAgain` (`required` after a yes, `invalid` after a no); 429 E007 beyond
    /// `rules::SWITCH_CHANGES_PER_MINUTE` a minute.
    #[oai(path = "/we-met/:matchId", method = "post")]
    async fn answer(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "matchId")] match_id: Path<String>,
        body: Json<JsonBody<WeMetAnswerBody>>,
    ) -> Result<AnswerResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        let id = path_id(&match_id.0)?;
        let body = body.0.read()?;
        super::switch_allowed(&state, viewer.user_id).await?;
        we_met::answer(
            &state.db,
            &viewer,
            id,
            body.met,
            body.see_again,
            state.now(),
        )
        .await?
        .apply(&state)
        .await;
        Ok(AnswerResponse::Done)
    }
}

/// How long review usually takes now, from the last week's first decisions.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewTimeView {
    /// First decisions in the window.
    pub decisions: u32,
    /// The window, in days (`rules::REVIEW_TIME_WINDOW_DAYS`).
    pub window_days: u32,
    /// The figures, or null while there were fewer than `minDecisions` (then say so in words).
    #[oai(nullable)]
    pub usual: Option<UsualReviewTime>,
    /// The fewest decisions that give figures (`rules::REVIEW_TIME_MIN_DECISIONS`).
    pub min_decisions: u32,
}

/// The median and the 90th percentile of the waits, in seconds.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UsualReviewTime {
    pub median_secs: i64,
    pub p90_secs: i64,
}

#[derive(ApiResponse)]
pub enum ReviewTimeResponse {
    /// The usual review time.
    #[oai(status = 200)]
    Ok(Json<ReviewTimeView>),
}

#[derive(Default)]
pub struct ReviewTimeApi;

#[OpenApi(tag = "ApiTags::User")]
impl ReviewTimeApi {
    /// Usual review time
    ///
    /// The median and 90th percentile of how long submissions waited for their first decision
    /// (APPROVE or REJECT), over the decisions of the last 7 days; no figures while there were
    /// too few. Any signed-in user (a member waiting for review); nobody is named. 429 E007
    /// beyond `rules::REVIEW_TIME_LOOKUPS_PER_MINUTE` a minute.
    #[oai(path = "/review-time", method = "get")]
    async fn review_time(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
    ) -> Result<ReviewTimeResponse, ApiError> {
        if let Err(wait) = state
            .limits
            .get(LimitKind::ReviewTime)
            .check(&format!("u:{}", caller.0.user.id))
            .await
        {
            return Err(ApiError::Throttled {
                cause: "too many look-ups; wait a moment".into(),
                retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
            });
        }
        let figures = we_met::usual_review_time(&state.db, state.now()).await?;
        let (decisions, usual) = match figures {
            ReviewTime::TooLittleData { decisions } => (decisions, None),
            ReviewTime::Usual {
                median_secs,
                p90_secs,
                decisions,
            } => (
                decisions,
                Some(UsualReviewTime {
                    median_secs,
                    p90_secs,
                }),
            ),
        };
        Ok(ReviewTimeResponse::Ok(Json(ReviewTimeView {
            decisions: u32::try_from(decisions).unwrap_or(u32::MAX),
            window_days: rules::REVIEW_TIME_WINDOW_DAYS as u32,
            usual,
            min_decisions: rules::REVIEW_TIME_MIN_DECISIONS as u32,
        })))
    }
}
