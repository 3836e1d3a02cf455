//! Outgoing e-mail: over SMTP with `lettre` (tokio, rustls) when `KIZUNA_SMTP_URL` is set, else
//! (the embedded defaults, only beside the mock LINE platform) into an in-process outbox shown at
//! `GET /__mock/mail`.
//!
//! `KIZUNA_SMTP_URL` is lettre's connection URL: `smtp://host:port` (plain, for a relay on the
//! same network or a local test server), `smtp://user:pass@host:587?tls=required` (STARTTLS),
//! `smtps://user:pass@host:465` (TLS from the first byte); a path (`smtp://host/name`) sets the
//! EHLO name. `KIZUNA_MAIL_FROM` is the sender (`Kizuna <no-reply@example.com>`).
//!
//! Neither the recipient nor the text is ever logged (a mail carries a one-time code); a failure
//! is logged by its kind and SMTP status only.

pub mod texts;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::Context;
use lettre::{
    AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
    message::{Mailbox, header::ContentType},
};
use poem::{Endpoint, EndpointExt, get, handler, web::Data, web::Json};
use serde::Serialize;

use crate::clock::now_secs;

/// The sender when `KIZUNA_MAIL_FROM` is not set.
pub const DEFAULT_MAIL_FROM: &str = "Kizuna <no-reply@localhost>";

/// How mail leaves this server.
#[derive(Clone)]
pub struct MailSettings {
    /// `KIZUNA_SMTP_URL`; None: the in-process outbox (only allowed beside the mock LINE).
    pub smtp_url: Option<String>,
    /// `KIZUNA_MAIL_FROM`.
    pub from: String,
}

impl Default for MailSettings {
    fn default() -> Self {
        MailSettings {
            smtp_url: None,
            from: DEFAULT_MAIL_FROM.into(),
        }
    }
}

impl std::fmt::Debug for MailSettings {
    // The SMTP URL may carry a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailSettings")
            .field("smtp", &self.smtp_url.as_ref().map(|_| "<set>"))
            .field("from", &self.from)
            .finish()
    }
}

/// One mail: plain text.
#[derive(Clone)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub text: String,
}

/// A mail the mock outbox holds.
#[derive(Clone, Debug, Serialize)]
pub struct OutboxMail {
    pub to: String,
    pub subject: String,
    pub text: String,
    /// Unix seconds.
    pub at: i64,
}

/// The in-process outbox of the embedded defaults (`GET /__mock/mail`). Bounded: the oldest
/// mails go first.
#[derive(Clone, Default)]
pub struct MockOutbox(Arc<Mutex<Vec<OutboxMail>>>);

const OUTBOX_KEEPS: usize = 500;

impl MockOutbox {
    pub fn mails(&self) -> Vec<OutboxMail> {
        self.0.lock().expect("mail outbox lock").clone()
    }

    fn push(&self, mail: Mail) {
        let mut mails = self.0.lock().expect("mail outbox lock");
        if mails.len() >= OUTBOX_KEEPS {
            mails.remove(0);
        }
        mails.push(OutboxMail {
            to: mail.to,
            subject: mail.subject,
            text: mail.text,
            at: now_secs(),
        });
    }

    /// `GET` → every mail, oldest first.
    pub fn endpoint(self) -> impl Endpoint {
        get(list_mails).data(self)
    }
}

#[handler]
fn list_mails(outbox: Data<&MockOutbox>) -> Json<Vec<OutboxMail>> {
    Json(outbox.mails())
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("the recipient is not a valid address")]
    BadRecipient,
    #[error("the mail server refused the mail ({0})")]
    Refused(String),
    #[error("the mail server could not be reached ({0})")]
    Unreachable(String),
}

#[derive(Clone)]
enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Outbox(MockOutbox),
}

/// Sends mail (in `AppState`).
#[derive(Clone)]
pub struct Mailer {
    transport: Transport,
    from: Arc<Mailbox>,
}

impl Mailer {
    /// SMTP when a URL is set, else the mock outbox. Fails on an unreadable URL or sender.
    pub fn new(settings: &MailSettings) -> anyhow::Result<Mailer> {
        let from: Mailbox = settings
            .from
            .parse()
            .context("KIZUNA_MAIL_FROM is not a mailbox such as `Kizuna <no-reply@example.com>`")?;
        let transport = match &settings.smtp_url {
            Some(url) => Transport::Smtp(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    // lettre's message could echo the URL, password included.
                    .map_err(|_| {
                        anyhow::anyhow!(
                            "KIZUNA_SMTP_URL is not an SMTP URL such as smtp://host:25, \
                             smtp://user:pass@host:587?tls=required or smtps://user:pass@host:465"
                        )
                    })?
                    .timeout(Some(Duration::from_secs(20)))
                    .build(),
            ),
            None => Transport::Outbox(MockOutbox::default()),
        };
        Ok(Mailer {
            transport,
            from: Arc::new(from),
        })
    }

    /// The mock outbox, when mail goes there.
    pub fn outbox(&self) -> Option<MockOutbox> {
        match &self.transport {
            Transport::Outbox(outbox) => Some(outbox.clone()),
            Transport::Smtp(_) => None,
        }
    }

    pub async fn send(&self, mail: Mail) -> Result<(), MailError> {
        let to: Mailbox = mail.to.parse().map_err(|_| MailError::BadRecipient)?;
        match &self.transport {
            Transport::Outbox(outbox) => {
                outbox.push(mail);
                Ok(())
            }
            Transport::Smtp(smtp) => {
                let message = Message::builder()
                    .from((*self.from).clone())
                    .to(to)
                    .subject(mail.subject)
                    .header(ContentType::TEXT_PLAIN)
                    .body(mail.text)
                    .map_err(|_| MailError::BadRecipient)?;
                smtp.send(message).await.map(|_| ()).map_err(|err| {
                    let what = match err.status() {
                        Some(code) => format!("SMTP {code}"),
                        None if err.is_timeout() => "timed out".into(),
                        None if err.is_tls() => "TLS error".into(),
                        None => "connection error".into(),
                    };
                    if err.is_permanent() {
                        MailError::Refused(what)
                    } else {
                        MailError::Unreachable(what)
                    }
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn without_an_smtp_url_mail_goes_to_the_outbox() {
        let mailer = Mailer::new(&MailSettings::default()).unwrap();
        mailer
            .send(Mail {
                to: "jane@tsmc.com".into(),
                subject: "Hi".into(),
                text: "Body".into(),
            })
            .await
            .unwrap();
        let mails = mailer.outbox().unwrap().mails();
        assert_eq!(mails.len(), 1);
        assert_eq!(
            (mails[0].to.as_str(), mails[0].text.as_str()),
            ("jane@tsmc.com", "Body")
        );
    }

    // lettre's connection pool needs a runtime to start in.
    #[tokio::test]
    async fn unreadable_urls_and_senders_are_refused_without_echoing_the_password() {
        let bad = MailSettings {
            smtp_url: Some("ftp://user:hunter2@host".into()),
            ..Default::default()
        };
        let err = Mailer::new(&bad).err().unwrap();
        assert!(!format!("{err:?}").contains("hunter2"), "{err:?}");
        let bad_from = MailSettings {
            from: "not a mailbox".into(),
            ..Default::default()
        };
        assert!(Mailer::new(&bad_from).is_err());
        for good in [
            "smtp://127.0.0.1:2525",
            "smtp://user:pass@mail.example.com:587?tls=required",
            "smtps://user:pass@mail.example.com",
        ] {
            let settings = MailSettings {
                smtp_url: Some(good.into()),
                ..Default::default()
            };
            assert!(Mailer::new(&settings).is_ok(), "{good}");
        }
        assert!(!format!("{bad:?}").contains("hunter2"));
    }
}
