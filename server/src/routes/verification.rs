//! /verification: a signed-in member proves a work e-mail address with a one-time code (see
//! `storage::email_codes` for the rules, `usecases::verification` for the sending).

use kizuna_core::{catalogue, email::EmailAddress, rules::RuleCode};
use poem::Request;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{ApiTags, State};
use crate::extract::{auth::Session, body::JsonBody};
use crate::{
    error::ApiError,
    storage::email_codes::ConfirmError,
    usecases::verification::{self, NotSent},
};

#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct EmailCodeRequest {
    /// A work address of an employer in the catalogue.
    pub email: String,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct EmailCodeConfirm {
    pub email: String,
    /// The 6 digits from the mail.
    pub code: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EmailCodeSent {
    /// The address as stored (trimmed, lower-cased).
    pub email: String,
    /// Unix seconds until which the code can be confirmed.
    pub expires_at: i64,
    /// Seconds before another code can be sent to this address.
    pub resend_after: i64,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EmailCodeConfirmed {
    pub email: String,
    /// Unix seconds. The confirmation counts for a profile submission for 24 hours.
    pub confirmed_at: i64,
}

#[derive(ApiResponse)]
pub enum SendResponse {
    /// A code was mailed.
    #[oai(status = 200)]
    Sent(Json<EmailCodeSent>),
}

#[derive(ApiResponse)]
pub enum ConfirmResponse {
    /// The address is confirmed.
    #[oai(status = 200)]
    Confirmed(Json<EmailCodeConfirmed>),
}

/// The address as kizuna-core reads it, with a catalogue employer; else 422 E002 on `email`.
fn work_address(text: &str) -> Result<EmailAddress, ApiError> {
    let email = EmailAddress::parse(text).ok_or_else(|| {
        ApiError::field(
            "not an e-mail address",
            "email",
            RuleCode::InvalidEmail.as_str(),
        )
    })?;
    if catalogue::employer_for_email(email.as_str()).is_none() {
        return Err(ApiError::field(
            "the address is not at an employer we verify",
            "email",
            RuleCode::UnknownEmployer.as_str(),
        ));
    }
    Ok(email)
}

fn throttled(cause: String, retry_after: i64) -> ApiError {
    ApiError::Throttled {
        cause,
        retry_after: Some(retry_after.max(1) as u64),
    }
}

#[derive(Default)]
pub struct VerificationApi;

#[OpenApi(tag = "ApiTags::Verification")]
impl VerificationApi {
    /// Send a work e-mail code
    ///
    /// Mails a 6-digit code (valid 10 minutes) to a work address of a catalogue employer. The
    /// same address again after 60 s; at most 5 codes a day per member and per address (429
    /// E007 with `Retry-After`). An address that is not one or not at a catalogue employer: 422
    /// E002 with `fields.email` `invalid_email` / `unknown_employer`.
    #[oai(path = "/verification/email-code", method = "post")]
    async fn send_code(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: Session,
        body: Json<JsonBody<EmailCodeRequest>>,
    ) -> Result<SendResponse, ApiError> {
        let auth = caller.0;
        let body = body.0.read()?;
        let email = work_address(&body.email)?;
        let language = crate::locale::of_request(req);
        match verification::send_code(&state, auth.user.id, &email, language).await {
            Ok(sent) => Ok(SendResponse::Sent(Json(EmailCodeSent {
                email: email.as_str().to_string(),
                expires_at: sent.expires_at,
                resend_after: state.settings.email_codes.resend_wait_secs,
            }))),
            Err(NotSent::Refused { cause, retry_after }) => Err(throttled(
                format!("{cause}: try again in {retry_after} s"),
                retry_after,
            )),
            Err(NotSent::Failed(err)) => Err(err),
        }
    }

    /// Confirm a work e-mail code
    ///
    /// The newest code sent to this address for the caller. Failures answer 422 E002 with
    /// `fields.code` one of `invalid` (not 6 digits), `not_sent`, `mismatch` (a try counted;
    /// 5 wrong tries lock the code), `locked`, `expired`, `used`.
    #[oai(path = "/verification/email-code/confirm", method = "post")]
    async fn confirm_code(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<EmailCodeConfirm>>,
    ) -> Result<ConfirmResponse, ApiError> {
        let auth = caller.0;
        let body = body.0.read()?;
        let email = work_address(&body.email)?;
        match verification::confirm_code(&state, auth.user.id, &email, &body.code).await {
            Ok(confirmed_at) => Ok(ConfirmResponse::Confirmed(Json(EmailCodeConfirmed {
                email: email.as_str().to_string(),
                confirmed_at,
            }))),
            Err(ConfirmError::Storage(err)) => Err(err.into()),
            Err(refused) => {
                let cause = match &refused {
                    ConfirmError::Mismatch { tries_left: 0 } => {
                        "the code is wrong and now locked: ask for a new code".to_string()
                    }
                    ConfirmError::Mismatch { tries_left } => {
                        format!("the code is wrong ({tries_left} tries left)")
                    }
                    other => other.to_string(),
                };
                Err(ApiError::field(&cause, "code", refused.rule()))
            }
        }
    }
}
