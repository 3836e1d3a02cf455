//! Proving a work e-mail address: a one-time code is issued within kizuna-core's rules (resend
//! wait, daily caps), mailed in the member's language and withdrawn again if the mail cannot go
//! out, so that a failed send costs the member none of their allowance; a typed code is checked
//! against the newest one, and wrong tries lock it.

use anyhow::Context;
use kizuna_core::{
    email::EmailAddress,
    email_code::{CodeCheck, CodeRules, EmailCode, SendRefusal},
    rules::EMAIL_CODE_DIGITS,
};
use rand::{Rng, rngs::OsRng};
use sea_orm::DatabaseConnection;

use crate::{
    locale::Locale,
    mail::{Mail, Mailer, texts},
    storage::{self, StorageError, email_codes, locale::locale_of_user},
};

/// What sending and confirming codes reach.
pub struct VerificationDeps<'a> {
    pub db: &'a DatabaseConnection,
    pub mailer: &'a Mailer,
    pub rules: &'a CodeRules,
}

/// A code on its way.
pub struct Sent {
    /// Unix seconds until which the code can be confirmed.
    pub expires_at: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum VerificationError {
    /// A code went to this address less than `wait` seconds ago.
    #[error("a code was sent to this address less than {wait} seconds ago")]
    TooSoon { retry_after: i64, wait: i64 },
    /// The member had their `limit` codes of the day.
    #[error("at most {limit} codes a day can be sent for one member")]
    MemberDailyCap { retry_after: i64, limit: u32 },
    /// `limit` other members were sent codes for this address today: only a first code goes.
    #[error(
        "{limit} other members asked for codes to this address today: only a first code can be \
         sent to it"
    )]
    AddressDailyCap { retry_after: i64, limit: u32 },
    /// The mail with the code could not be sent (the code was withdrawn).
    #[error("the mail could not be sent")]
    MailFailed,
    #[error("a code has 6 digits")]
    Malformed,
    #[error("no code was sent to this address")]
    NotSent,
    /// A wrong code: the try counted (none left: the code is now locked).
    #[error("the code is wrong")]
    Mismatch { tries_left: u32 },
    #[error("too many wrong codes: ask for a new code")]
    Locked,
    #[error("the code has expired: ask for a new code")]
    Expired,
    #[error("this code was already used")]
    Used,
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl VerificationError {
    fn refused(refusal: SendRefusal, rules: &CodeRules) -> VerificationError {
        let retry_after = refusal.retry_after_secs();
        match refusal {
            SendRefusal::TooSoon { .. } => VerificationError::TooSoon {
                retry_after,
                wait: rules.resend_wait_secs,
            },
            SendRefusal::MemberLimit { .. } => VerificationError::MemberDailyCap {
                retry_after,
                limit: rules.sends_per_window,
            },
            SendRefusal::AddressLimit { .. } => VerificationError::AddressDailyCap {
                retry_after,
                limit: rules.sends_per_window,
            },
        }
    }

    /// Seconds until a send can succeed, for a refused send.
    pub fn retry_after(&self) -> Option<i64> {
        match self {
            VerificationError::TooSoon { retry_after, .. }
            | VerificationError::MemberDailyCap { retry_after, .. }
            | VerificationError::AddressDailyCap { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }
}

/// A fresh code, uniformly from the OS CSPRNG.
fn new_code() -> EmailCode {
    let n: u32 = OsRng.gen_range(0..10u32.pow(EMAIL_CODE_DIGITS as u32));
    EmailCode::from_number(n).expect("a number below 10^digits has that many digits")
}

/// A code issued within the limits: its row and the digits for the mail.
struct Issued {
    id: i64,
    code: EmailCode,
    expires_at: i64,
}

/// Checks the limits and stores a new code for (member, address), in one transaction.
async fn issue(
    db: &DatabaseConnection,
    rules: &CodeRules,
    user_id: i64,
    email: &EmailAddress,
    now: i64,
) -> Result<Issued, VerificationError> {
    let txn = storage::begin_user_write(db, user_id).await?;
    email_codes::lock_address(&txn, email).await?;
    let history = email_codes::send_history(&txn, user_id, email, rules.window_start(now)).await?;
    rules
        .may_send(history, now)
        .map_err(|refusal| VerificationError::refused(refusal, rules))?;
    let code = new_code();
    let expires_at = rules.expires_at(now);
    let id = email_codes::insert(&txn, user_id, email, &code, now, expires_at).await?;
    txn.commit().await.context("committing a code")?;
    Ok(Issued {
        id,
        code,
        expires_at,
    })
}

/// Issues a code for `email` and mails it, in `language` when the request named one, else in
/// the member's stored language.
pub async fn send_code(
    deps: &VerificationDeps<'_>,
    user_id: i64,
    email: &EmailAddress,
    language: Option<Locale>,
    now: i64,
) -> Result<Sent, VerificationError> {
    let issued = match issue(deps.db, deps.rules, user_id, email, now).await {
        Ok(issued) => issued,
        Err(refused) if refused.retry_after().is_some() => {
            tracing::info!(user = user_id, reason = %refused, "e-mail code refused");
            return Err(refused);
        }
        Err(err) => return Err(err),
    };
    let language = match language {
        Some(language) => language,
        None => locale_of_user(deps.db, user_id).await?,
    };
    let minutes = (deps.rules.valid_secs + 59) / 60;
    let (subject, text) = texts::email_code(language, issued.code.as_str(), minutes);
    let mail = Mail {
        to: email.as_str().to_string(),
        subject,
        text,
    };
    if let Err(err) = deps.mailer.send(mail).await {
        tracing::error!(user = user_id, error = %err, "an e-mail code could not be sent");
        email_codes::withdraw(deps.db, issued.id).await?;
        return Err(VerificationError::MailFailed);
    }
    tracing::info!(user = user_id, "e-mail code sent");
    Ok(Sent {
        expires_at: issued.expires_at,
    })
}

/// Checks a typed code against the newest one sent to the address: the right one in time
/// confirms the address (once), a wrong one counts a try. Answers when it was confirmed.
pub async fn confirm_code(
    db: &DatabaseConnection,
    rules: &CodeRules,
    user_id: i64,
    email: &EmailAddress,
    typed: &str,
    now: i64,
) -> Result<i64, VerificationError> {
    let typed = EmailCode::parse(typed).ok_or(VerificationError::Malformed)?;
    let txn = storage::begin_user_write(db, user_id).await?;
    let newest = email_codes::newest(&txn, user_id, email, &typed)
        .await?
        .ok_or(VerificationError::NotSent)?;
    match rules.check(newest.issued, newest.matched, now) {
        CodeCheck::Used => Err(VerificationError::Used),
        CodeCheck::Locked => Err(VerificationError::Locked),
        CodeCheck::Expired => Err(VerificationError::Expired),
        CodeCheck::Accepted => {
            email_codes::mark_confirmed(&txn, newest.id, now).await?;
            txn.commit().await.context("committing a confirmation")?;
            tracing::info!(user = user_id, "work e-mail confirmed");
            Ok(now)
        }
        CodeCheck::Wrong { tries_left } => {
            email_codes::set_wrong_tries(&txn, newest.id, newest.wrong_tries + 1).await?;
            txn.commit().await.context("committing a wrong try")?;
            Err(VerificationError::Mismatch { tries_left })
        }
    }
}
