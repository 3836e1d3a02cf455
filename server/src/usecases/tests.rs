//! The use-cases' decisions, on a fresh SQLite database built through the migrations, without
//! HTTP: each test calls a use-case with its narrow inputs.

use std::sync::atomic::{AtomicU32, Ordering};

use kizuna_core::{
    email::EmailAddress,
    email_code::{CodeRules, EmailCode},
    line::LineUserId,
    rules,
};
use sea_orm::DatabaseConnection;

use super::{
    export::{self, ExportError},
    login::{self, LoginDeps, LoginError, LoginsOf},
    membership::{self, MembershipError},
    verification::{self, VerificationError},
};
use crate::{
    clock::Clock,
    identity::{SessionStore, id_token::LineIdentity},
    rate_limit::Limits,
    storage,
};

const NOW: i64 = 1_795_000_000;

/// A new SQLite database of its own, migrated.
async fn fresh_db() -> DatabaseConnection {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kizuna-usecases-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("sqlite://{}/kizuna.db?mode=rwc", dir.display());
    let db = storage::connect(&url, None).await.unwrap();
    storage::migrate(&db).await.unwrap();
    db
}

fn identity(n: u8) -> LineIdentity {
    LineIdentity {
        user_id: LineUserId::parse(&format!("U{:032x}", n)).unwrap(),
        name: Some(format!("member {n}")),
    }
}

/// A user row, as a first login makes it.
async fn user(db: &DatabaseConnection, n: u8) -> storage::entity::user::Model {
    let who = identity(n);
    storage::users::find_or_create(db, who.user_id.as_str(), who.name.as_deref(), NOW)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_login_makes_the_user_once_and_a_session_each_time_until_the_address_is_spent() {
    let db = fresh_db().await;
    let limits = Limits::in_process();
    let (address_limiter, user_limiter) = (
        limits.per_minute("test-login-address", 2),
        limits.per_minute("test-login-user", 10),
    );
    let sessions = SessionStore::new(db.clone(), Clock::system(), Default::default());
    let deps = LoginDeps {
        db: &db,
        sessions: &sessions,
        address_limiter: &address_limiter,
        user_limiter: &user_limiter,
    };
    let first = login::login(&deps, &identity(1), "a:1", None, NOW)
        .await
        .unwrap();
    let second = login::login(&deps, &identity(1), "a:1", None, NOW)
        .await
        .unwrap();
    assert_ne!(first, second, "every login is a session of its own");
    let a = sessions.check(&first).await.unwrap();
    let b = sessions.check(&second).await.unwrap();
    assert_eq!(a.user.id, b.user.id, "one user row for one LINE user");
    match login::login(&deps, &identity(1), "a:1", None, NOW).await {
        Err(LoginError::Limited {
            of: LoginsOf::Address,
            retry_after,
        }) => assert!(retry_after >= 1),
        other => panic!("a third login from the address: {other:?}"),
    }
    // Another address has its own allowance.
    login::login(&deps, &identity(1), "a:2", None, NOW)
        .await
        .unwrap();
}

#[tokio::test]
async fn wrong_codes_count_down_lock_the_code_and_then_even_the_right_one_is_refused() {
    let db = fresh_db().await;
    let rules = CodeRules::default();
    let member = user(&db, 2).await;
    let email = EmailAddress::parse("lock@tsmc.com").unwrap();
    let code = EmailCode::parse("123456").unwrap();
    storage::email_codes::insert(&db, member.id, &email, &code, NOW, rules.expires_at(NOW))
        .await
        .unwrap();
    let confirm = |typed: &'static str| {
        verification::confirm_code(&db, &rules, member.id, &email, typed, NOW + 1)
    };
    for left in (0..rules.max_wrong_tries).rev() {
        match confirm("654321").await {
            Err(VerificationError::Mismatch { tries_left }) => assert_eq!(tries_left, left),
            other => panic!("a wrong code: {other:?}"),
        }
    }
    assert!(matches!(
        confirm("123456").await,
        Err(VerificationError::Locked)
    ));
    assert!(matches!(
        confirm("12345").await,
        Err(VerificationError::Malformed)
    ));
}

#[tokio::test]
async fn the_right_code_confirms_once_in_time_and_not_after_it_expired() {
    let db = fresh_db().await;
    let rules = CodeRules::default();
    let member = user(&db, 3).await;
    let email = EmailAddress::parse("mei@tsmc.com").unwrap();
    let other = EmailAddress::parse("other@tsmc.com").unwrap();
    let code = EmailCode::parse("000042").unwrap();
    storage::email_codes::insert(&db, member.id, &email, &code, NOW, rules.expires_at(NOW))
        .await
        .unwrap();
    assert!(matches!(
        verification::confirm_code(&db, &rules, member.id, &other, "000042", NOW).await,
        Err(VerificationError::NotSent)
    ));
    let late = rules.expires_at(NOW);
    assert!(matches!(
        verification::confirm_code(&db, &rules, member.id, &email, "000042", late).await,
        Err(VerificationError::Expired)
    ));
    assert_eq!(
        verification::confirm_code(&db, &rules, member.id, &email, "000042", NOW + 5)
            .await
            .unwrap(),
        NOW + 5
    );
    assert!(matches!(
        verification::confirm_code(&db, &rules, member.id, &email, "000042", NOW + 6).await,
        Err(VerificationError::Used)
    ));
}

#[tokio::test]
async fn copies_of_ones_data_are_limited_per_day_and_the_refusal_says_how_long_to_wait() {
    let db = fresh_db().await;
    let member = user(&db, 4).await;
    for n in 0..rules::DATA_EXPORTS_PER_WINDOW as i64 {
        let requested = export::request(&db, member.id, NOW + n * 60).await.unwrap();
        // The outcome's after-commit work (preparing the archive) is not this test's.
        let _ = requested;
    }
    let at = NOW + 3600;
    match export::request(&db, member.id, at).await {
        Err(ExportError::Limited { retry_after }) => {
            assert_eq!(retry_after, NOW + rules::DATA_EXPORT_WINDOW_SECS - at)
        }
        Ok(_) => panic!("one copy too many was granted"),
        Err(other) => panic!("{other:?}"),
    }
    let latest = export::latest(&db, member.id, at).await.unwrap().unwrap();
    assert_eq!(latest.status, export::ExportStatus::Preparing);
    assert!(
        export::download(&db, "not a token", at)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_stranger_has_no_review_status_and_an_unknown_file_is_no_avatar() {
    let db = fresh_db().await;
    assert!(
        membership::review_status(&db, identity(5).user_id.as_str())
            .await
            .unwrap()
            .is_none()
    );
    let member = user(&db, 5).await;
    assert!(
        membership::review_status(&db, &member.line_user_id)
            .await
            .unwrap()
            .is_none(),
        "no profile yet"
    );
    assert!(matches!(
        membership::set_avatar(&db, member.id, &"0".repeat(32), NOW).await,
        Err(MembershipError::NotFound)
    ));
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session_of_the_user_and_no_other() {
    let db = fresh_db().await;
    let sessions = SessionStore::new(db.clone(), Clock::system(), Default::default());
    let (mei, kai) = (user(&db, 6).await, user(&db, 7).await);
    let phone = sessions.create(mei.id).await.unwrap();
    let laptop = sessions.create(mei.id).await.unwrap();
    let other = sessions.create(kai.id).await.unwrap();
    let now = Clock::system().now_secs();
    let _ = membership::sign_out_everywhere(&db, mei.id, now)
        .await
        .unwrap();
    assert!(sessions.check(&phone).await.is_err());
    assert!(sessions.check(&laptop).await.is_err());
    assert!(sessions.check(&other).await.is_ok());
}
