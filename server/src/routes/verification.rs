//! /verification: a signed-in member proves a work e-mail address with a one-time code (see
//! `usecases::verification` for the rules and the sending).

use kizuna_core::{catalogue, email::EmailAddress, rules::RuleCode};
use poem::Request;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{ApiTags, State};
use crate::extract::{auth::Session, body::JsonBody};
use crate::{
    error::ApiError,
    usecases::verification::{self, VerificationDeps},
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
        let deps = VerificationDeps {
            db: &state.db,
            mailer: &state.mailer,
            rules: &state.settings.email_codes,
        };
        let sent =
            verification::send_code(&deps, auth.user.id, &email, language, state.now()).await?;
        Ok(SendResponse::Sent(Json(EmailCodeSent {
            email: email.as_str().to_string(),
            expires_at: sent.expires_at,
            resend_after: state.settings.email_codes.resend_wait_secs,
        })))
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
        let confirmed_at = verification::confirm_code(
            &state.db,
            &state.settings.email_codes,
            auth.user.id,
            &email,
            &body.code,
            state.now(),
        )
        .await?;
        Ok(ConfirmResponse::Confirmed(Json(EmailCodeConfirmed {
            email: email.as_str().to_string(),
            confirmed_at,
        })))
    }
}
