//! /verification: a signed-in member proves a work e-mail address with a one-time code (see
//! `storage::email_codes` for the rules). The code goes out by mail (`crate::mail`) in the
//! member's language.

use kizuna_core::{catalogue, email::EmailAddress, rules::RuleCode};
use poem::Request;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{ApiTags, State, auth::Session, body::JsonBody};
use crate::{
    error::ApiError,
    mail::{Mail, texts},
    storage::{
        email_codes::{self, ConfirmError, IssueError},
        locale::locale_of_user,
    },
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
        let rules = &state.settings.email_codes;
        let now = state.now();
        let issued = match email_codes::issue(&state.db, auth.user.id, &email, now, rules).await {
            Ok(issued) => issued,
            Err(IssueError::Storage(err)) => return Err(err.into()),
            Err(refused) => {
                let retry_after = refused.retry_after().unwrap_or(1);
                tracing::info!(user = auth.user.id, reason = %refused, "e-mail code refused");
                return Err(throttled(
                    format!("{refused}: try again in {retry_after} s"),
                    retry_after,
                ));
            }
        };
        let locale = match crate::locale::of_request(req) {
            Some(locale) => locale,
            None => locale_of_user(&state.db, auth.user.id).await?,
        };
        let (subject, text) = texts::email_code(locale, &issued.code, (rules.valid_secs + 59) / 60);
        let mail = Mail {
            to: email.as_str().to_string(),
            subject,
            text,
        };
        if let Err(err) = state.mailer.send(mail).await {
            tracing::error!(user = auth.user.id, error = %err, "an e-mail code could not be sent");
            email_codes::withdraw(&state.db, issued.id).await?;
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the mail could not be sent"
            )));
        }
        tracing::info!(user = auth.user.id, "e-mail code sent");
        Ok(SendResponse::Sent(Json(EmailCodeSent {
            email: email.as_str().to_string(),
            expires_at: issued.expires_at,
            resend_after: rules.resend_wait_secs,
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
        let rules = &state.settings.email_codes;
        match email_codes::confirm(
            &state.db,
            auth.user.id,
            &email,
            &body.code,
            state.now(),
            rules,
        )
        .await
        {
            Ok(confirmed_at) => {
                tracing::info!(user = auth.user.id, "work e-mail confirmed");
                Ok(ConfirmResponse::Confirmed(Json(EmailCodeConfirmed {
                    email: email.as_str().to_string(),
                    confirmed_at,
                })))
            }
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
