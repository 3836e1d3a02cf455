//! Proving a work e-mail address: a one-time code is issued (storage's rules: resend wait,
//! daily caps, retention), mailed in the member's language and withdrawn again if the mail
//! cannot go out, so that a failed send costs the member none of their allowance; a typed code
//! is checked against the newest one.

use kizuna_core::email::EmailAddress;

use crate::{
    error::ApiError,
    locale::Locale,
    mail::{Mail, texts},
    state::AppState,
    storage::{
        email_codes::{self, ConfirmError, IssueError},
        locale::locale_of_user,
    },
};

/// A code on its way.
pub struct Sent {
    /// Unix seconds until which the code can be confirmed.
    pub expires_at: i64,
}

/// Why no code was sent.
pub enum NotSent {
    /// Too soon after the last one, or the day's allowance is used (`retry_after` seconds).
    Refused {
        cause: String,
        retry_after: i64,
    },
    Failed(ApiError),
}

impl From<ApiError> for NotSent {
    fn from(err: ApiError) -> NotSent {
        NotSent::Failed(err)
    }
}

/// Issues a code for `email` and mails it, in `language` when the request named one, else in
/// the member's stored language.
pub async fn send_code(
    state: &AppState,
    user_id: i64,
    email: &EmailAddress,
    language: Option<Locale>,
) -> Result<Sent, NotSent> {
    let rules = &state.settings.email_codes;
    let issued = match email_codes::issue(&state.db, user_id, email, state.now(), rules).await {
        Ok(issued) => issued,
        Err(IssueError::Storage(err)) => return Err(ApiError::from(err).into()),
        Err(refused) => {
            let retry_after = refused.retry_after().unwrap_or(1);
            tracing::info!(user = user_id, reason = %refused, "e-mail code refused");
            return Err(NotSent::Refused {
                cause: refused.to_string(),
                retry_after,
            });
        }
    };
    let language = match language {
        Some(language) => language,
        None => locale_of_user(&state.db, user_id)
            .await
            .map_err(ApiError::from)?,
    };
    let (subject, text) = texts::email_code(language, &issued.code, (rules.valid_secs + 59) / 60);
    let mail = Mail {
        to: email.as_str().to_string(),
        subject,
        text,
    };
    if let Err(err) = state.mailer.send(mail).await {
        tracing::error!(user = user_id, error = %err, "an e-mail code could not be sent");
        email_codes::withdraw(&state.db, issued.id)
            .await
            .map_err(ApiError::from)?;
        return Err(ApiError::Internal(anyhow::anyhow!("the mail could not be sent")).into());
    }
    tracing::info!(user = user_id, "e-mail code sent");
    Ok(Sent {
        expires_at: issued.expires_at,
    })
}

/// Checks a typed code against the newest one sent to the address; answers when it was
/// confirmed.
pub async fn confirm_code(
    state: &AppState,
    user_id: i64,
    email: &EmailAddress,
    code: &str,
) -> Result<i64, ConfirmError> {
    let rules = &state.settings.email_codes;
    let confirmed_at =
        email_codes::confirm(&state.db, user_id, email, code, state.now(), rules).await?;
    tracing::info!(user = user_id, "work e-mail confirmed");
    Ok(confirmed_at)
}
