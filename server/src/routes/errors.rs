//! Each use-case module's error as the API answers it: one `From` per use-case module, so that a
//! route's `?` turns a refusal in domain terms into its status, error code, message, fields and
//! `Retry-After`, decided here and nowhere else.

use kizuna_core::rules::RuleCode;

use crate::{error::ApiError, usecases};

// ---------------------------------------------------------------------------------------------
// Chat

impl From<crate::usecases::chat::ChatError> for ApiError {
    fn from(err: crate::usecases::chat::ChatError) -> ApiError {
        use crate::usecases::chat::ChatError;
        match err {
            ChatError::NotMember => ApiError::Forbidden(err.to_string()),
            ChatError::NotFound => ApiError::NotFound,
            ChatError::ClientIdReused => ApiError::Conflict(err.to_string()),
            ChatError::TooManyMessages { retry_after }
            | ChatError::TooManyStreams { retry_after } => ApiError::Throttled {
                cause: err.to_string(),
                retry_after: Some(retry_after),
            },
            ChatError::SessionEnded => ApiError::InvalidSession,
            ChatError::Storage(err) => err.into(),
            ChatError::Internal(err) => ApiError::Internal(err),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Matchmaking

impl From<usecases::matchmaking::MatchmakingError> for ApiError {
    fn from(err: usecases::matchmaking::MatchmakingError) -> Self {
        use usecases::matchmaking::MatchmakingError as E;
        match err {
            E::NotApproved => {
                ApiError::Forbidden("only approved members take part in matchmaking".into())
            }
            E::NotFound => ApiError::NotFound,
            E::InvalidComment { fields } => {
                ApiError::validation("the like's comment failed validation", &fields)
            }
            E::PassedAlready => ApiError::Conflict("you passed this introduction".into()),
            E::LikedAlready => ApiError::Conflict("you liked this introduction".into()),
            E::PassTooOld => ApiError::Conflict("the pass is too old to be taken back".into()),
            E::ReportedAlready => {
                ApiError::Conflict("you already reported this member; the reviewers have it".into())
            }
            E::YourTurn(_) => ApiError::ConflictFields {
                cause: err.to_string(),
                fields: [(
                    "yourTurn".to_string(),
                    vec![RuleCode::TooMany.as_str().to_string()],
                )]
                .into(),
            },
            E::Storage(err) => err.into(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The review console (`usecases::review`)

impl From<crate::usecases::review::ReviewError> for ApiError {
    fn from(err: crate::usecases::review::ReviewError) -> Self {
        use crate::usecases::review::ReviewError;
        match err {
            ReviewError::NotFound => ApiError::NotFound,
            ReviewError::NotAllowed(party) => ApiError::Forbidden(party.to_string()),
            err @ (ReviewError::HeldByAnother { .. }
            | ReviewError::Changed
            | ReviewError::NotATransition(_)
            | ReviewError::RevisionReplaced
            | ReviewError::NotApproved
            | ReviewError::ChangedMeanwhile
            | ReviewError::SettledAlready(_)
            | ReviewError::AppealedAlready) => ApiError::Conflict(err.to_string()),
            ReviewError::Invalid { cause, fields } => ApiError::validation(cause, &fields),
            ReviewError::Limited { retry_after } => ApiError::Throttled {
                cause: "too many changes at once; wait a moment".into(),
                retry_after: Some(retry_after),
            },
            ReviewError::Storage(err) => err.into(),
        }
    }
}

// ---- Members, sign-in and the small routes ----

impl From<usecases::login::LoginError> for ApiError {
    fn from(err: usecases::login::LoginError) -> ApiError {
        use usecases::login::{LoginError, LoginsOf};
        match err {
            LoginError::Limited { of, retry_after } => ApiError::Throttled {
                cause: format!(
                    "too many logins {}; wait a moment",
                    match of {
                        LoginsOf::Address => "from this address",
                        LoginsOf::Account => "of this account",
                    }
                ),
                retry_after: Some(retry_after),
            },
            LoginError::Storage(err) => err.into(),
            LoginError::Failed(err) => ApiError::Internal(err),
        }
    }
}

impl From<usecases::membership::MembershipError> for ApiError {
    fn from(err: usecases::membership::MembershipError) -> ApiError {
        use usecases::membership::MembershipError as E;
        match err {
            E::NotFound => ApiError::NotFound,
            E::SuspendedBeforeLeaving => ApiError::Forbidden(
                "this LINE account was suspended before it was deleted: it cannot register again"
                    .into(),
            ),
            E::EmailNotConfirmed => email_not_confirmed(),
            E::Exists => ApiError::Conflict("the profile already exists".into()),
            E::NotEditable(status) => ApiError::Forbidden(format!(
                "a {status} profile cannot be edited; only a REJECTED one"
            )),
            E::Changed => ApiError::Conflict("the profile changed meanwhile; reload it".into()),
            E::ProofAsAvatar => ApiError::Forbidden(
                "the proof of employment cannot be the avatar: others see the avatar".into(),
            ),
            E::NotApproved => {
                ApiError::Forbidden("only approved members take part in matchmaking".into())
            }
            E::Storage(err) => err.into(),
            E::Failed(err) => ApiError::Internal(err),
        }
    }
}

/// 422 E002 `companyEmail: [email_not_confirmed]`, for a registration and an edit alike.
fn email_not_confirmed() -> ApiError {
    ApiError::field(
        "confirm the work e-mail with the code sent to it first",
        "companyEmail",
        RuleCode::EmailNotConfirmed.as_str(),
    )
}

impl From<usecases::verification::VerificationError> for ApiError {
    fn from(err: usecases::verification::VerificationError) -> ApiError {
        use usecases::verification::VerificationError as E;
        let code = |cause: &str, rule: &str| ApiError::field(cause, "code", rule);
        match err {
            E::TooSoon { retry_after, .. }
            | E::MemberDailyCap { retry_after, .. }
            | E::AddressDailyCap { retry_after, .. } => ApiError::Throttled {
                cause: format!("{err}: try again in {retry_after} s"),
                retry_after: Some(retry_after.max(1) as u64),
            },
            E::MailFailed => ApiError::Internal(anyhow::anyhow!("the mail could not be sent")),
            E::Malformed => code(&err.to_string(), "invalid"),
            E::NotSent => code(&err.to_string(), "not_sent"),
            E::Mismatch { tries_left: 0 } => code(
                "the code is wrong and now locked: ask for a new code",
                "mismatch",
            ),
            E::Mismatch { tries_left } => code(
                &format!("the code is wrong ({tries_left} tries left)"),
                "mismatch",
            ),
            E::Locked => code(&err.to_string(), "locked"),
            E::Expired => code(&err.to_string(), "expired"),
            E::Used => code(&err.to_string(), "used"),
            E::Storage(err) => err.into(),
            E::Failed(err) => ApiError::Internal(err),
        }
    }
}

impl From<usecases::export::ExportError> for ApiError {
    fn from(err: usecases::export::ExportError) -> ApiError {
        use usecases::export::ExportError as E;
        match err {
            E::Limited { retry_after } => ApiError::Throttled {
                cause: format!(
                    "at most {} copies of your data a day: the next one can be asked for in {} \
                     minutes",
                    kizuna_core::rules::DATA_EXPORTS_PER_WINDOW,
                    (retry_after + 59) / 60
                ),
                retry_after: u64::try_from(retry_after).ok(),
            },
            E::Storage(err) => err.into(),
            E::Failed(err) => ApiError::Internal(err),
        }
    }
}

impl From<usecases::route_rules::RouteRulesError> for ApiError {
    fn from(err: usecases::route_rules::RouteRulesError) -> ApiError {
        match err {
            usecases::route_rules::RouteRulesError::Storage(err) => err.into(),
        }
    }
}

impl From<usecases::visits::VisitsError> for ApiError {
    fn from(err: usecases::visits::VisitsError) -> ApiError {
        match err {
            usecases::visits::VisitsError::Storage(err) => err.into(),
            usecases::visits::VisitsError::Failed(err) => ApiError::Internal(err),
        }
    }
}

impl From<usecases::uploads::UploadError> for ApiError {
    fn from(err: usecases::uploads::UploadError) -> ApiError {
        use usecases::uploads::UploadError as E;
        let whose = |has_profile| {
            if has_profile {
                "a member"
            } else {
                "someone without a profile"
            }
        };
        match err {
            E::TooManyFiles { count, has_profile } => ApiError::TooLarge(format!(
                "upload quota reached: {count} uploads are not used in a profile yet, the most \
                 {} may hold; use them, or wait until they expire a day after upload",
                whose(has_profile)
            )),
            E::TooManyBytes {
                limit_bytes,
                has_profile,
            } => ApiError::TooLarge(format!(
                "upload quota reached: uploads not used in a profile yet may take {} MB for {}; \
                 use them, or wait until they expire a day after upload",
                limit_bytes.div_ceil(1024 * 1024),
                whose(has_profile)
            )),
            E::Image(err) => err.into(),
            E::Storage(err) => err.into(),
            E::Failed(err) => ApiError::Internal(err),
        }
    }
}

impl From<usecases::revisions::SaveError> for ApiError {
    fn from(err: usecases::revisions::SaveError) -> ApiError {
        use usecases::revisions::SaveError as E;
        match err {
            E::NotFound => ApiError::NotFound,
            E::NotApproved => ApiError::Forbidden(
                "only an approved profile is edited this way; a rejected one is resubmitted".into(),
            ),
            E::NotEditable(fields) => ApiError::validation(
                "the name, birthday and gender cannot be changed in the app",
                &fields,
            ),
            E::Invalid(fields) => ApiError::validation("the profile failed validation", &fields),
            E::Changed => ApiError::Conflict("the profile changed meanwhile; reload it".into()),
            E::EmailNotConfirmed => email_not_confirmed(),
            E::Storage(err) => err.into(),
            E::Failed(err) => ApiError::Internal(err),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// We met (`usecases::we_met`)

impl From<usecases::we_met::WeMetError> for ApiError {
    fn from(err: usecases::we_met::WeMetError) -> Self {
        use usecases::we_met::WeMetError as E;
        match err {
            E::NotApproved => {
                ApiError::Forbidden("only approved members take part in matchmaking".into())
            }
            E::NotFound => ApiError::NotFound,
            err @ (E::NotAsked | E::AnsweredAlready) => ApiError::Conflict(err.to_string()),
            E::Invalid { fields } => ApiError::validation("the answer failed validation", &fields),
            E::Storage(err) => err.into(),
        }
    }
}
