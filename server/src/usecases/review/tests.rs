//! The review use-cases' decisions, on a SQLite database built through the migrations, without
//! HTTP.

use kizuna_core::{
    access::Standing,
    review::{ReviewAction, ReviewStatus},
};
use sea_orm::{ConnectionTrait, DatabaseConnection};

use super::*;
use crate::{access::Viewer, storage};

const NOW: i64 = 1_800_000_000;

struct Db {
    db: DatabaseConnection,
    dir: std::path::PathBuf,
}

impl Drop for Db {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

async fn database() -> Db {
    let dir = std::env::temp_dir().join(format!("kizuna-review-{}", crate::images::random_id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}/kizuna.db?mode=rwc", dir.display());
    let db = storage::connect(&url, Some(2)).await.unwrap();
    storage::migrate(&db).await.unwrap();
    // The reviewers of `reviewer(50)` and `reviewer(51)`.
    for id in [50, 51] {
        exec(
            &db,
            &format!(
                "INSERT INTO users (id, line_user_id, display_name, created_at) \
                 VALUES ({id}, 'U{id:032x}', 'Reviewer {id}', 1000)"
            ),
        )
        .await;
    }
    Db { db, dir }
}

async fn exec(db: &DatabaseConnection, sql: &str) {
    db.execute_unprepared(sql).await.unwrap();
}

/// A user with a PENDING profile (version 1) verified by a work e-mail: (user id, profile id).
async fn member(db: &DatabaseConnection, n: i64) -> (i64, i64) {
    exec(
        db,
        &format!(
            "INSERT INTO users (id, line_user_id, display_name, created_at) \
             VALUES ({n}, 'U{n:032x}', 'Member {n}', 1000)"
        ),
    )
    .await;
    exec(
        db,
        &format!(
            "INSERT INTO profiles (id, user_id, status, submission_hash, payload, nickname, \
             verify_method, company_email, created_at, updated_at) \
             VALUES ({}, {n}, 'PENDING', 'h', '{{\"nickname\":\"M{n}\"}}', 'M{n}', \
             'COMPANY_EMAIL', 'm{n}@tsmc.com', 1000, 1000)",
            100 + n
        ),
    )
    .await;
    (n, 100 + n)
}

/// A reviewer who is no member.
fn reviewer(user_id: i64) -> Viewer {
    Viewer {
        user_id,
        member: None,
        standing: Standing {
            approved: false,
            reviewer: true,
        },
    }
}

async fn pushes(db: &DatabaseConnection) -> i64 {
    let row = db
        .query_one_raw(sea_orm::Statement::from_string(
            db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM push_outbox",
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get("", "n").unwrap()
}

fn approve() -> DecisionInput<'static> {
    DecisionInput {
        action: "APPROVE",
        reasons: &[],
        note: None,
        employer: None,
    }
}

#[tokio::test]
async fn a_claim_holds_a_profile_against_other_reviewers_until_it_lapses() {
    let t = database().await;
    let (_, profile) = member(&t.db, 1).await;
    let (a, b) = (reviewer(50), reviewer(51));
    let held = claim(&t.db, NOW, &a, profile).await.unwrap();
    assert_eq!(held.expires_at, NOW + kizuna_core::rules::REVIEW_CLAIM_SECS);
    let refused = claim(&t.db, NOW + 1, &b, profile).await.unwrap_err();
    assert!(
        matches!(refused, ReviewError::HeldByAnother { until } if until == held.expires_at),
        "{refused:?}"
    );
    assert!(matches!(
        release(&t.db, NOW + 1, b.user_id, profile).await,
        Err(ReviewError::HeldByAnother { .. })
    ));
    let renewed = claim(&t.db, NOW + 5, &a, profile).await.unwrap();
    assert_eq!(renewed.claimed_at, NOW + 5);
    let taken_over = claim(&t.db, renewed.expires_at, &b, profile).await.unwrap();
    assert_eq!(taken_over.version, 1);
}

#[tokio::test]
async fn nobody_claims_or_decides_their_own_profile() {
    let t = database().await;
    let (user, profile) = member(&t.db, 1).await;
    let own = reviewer(user);
    assert!(matches!(
        claim(&t.db, NOW, &own, profile).await,
        Err(ReviewError::NotAllowed(Party::OwnProfile))
    ));
    let target = Target::Profile { version: 1 };
    assert!(matches!(
        decide(&t.db, NOW, &own, profile, &approve(), target).await,
        Err(ReviewError::NotAllowed(Party::OwnProfile))
    ));
    let as_member = Viewer {
        member: Some(profile),
        ..own
    };
    assert!(matches!(
        claim(&t.db, NOW, &as_member, profile).await,
        Err(ReviewError::NotAllowed(Party::InTheCase))
    ));
}

#[tokio::test]
async fn a_decision_is_taken_once_on_the_version_opened_with_one_push() {
    let t = database().await;
    let (_, profile) = member(&t.db, 1).await;
    let me = reviewer(50);
    let stale = decide(
        &t.db,
        NOW,
        &me,
        profile,
        &approve(),
        Target::Profile { version: 0 },
    )
    .await;
    assert!(matches!(stale, Err(ReviewError::Changed)), "{stale:?}");
    assert_eq!(pushes(&t.db).await, 0);
    let target = Target::Profile { version: 1 };
    let decided = decide(&t.db, NOW, &me, profile, &approve(), target)
        .await
        .unwrap();
    let decided = decided.value;
    assert_eq!(
        decided.status,
        DecidedStatus::Profile(ReviewStatus::Approved)
    );
    assert_eq!((decided.version, decided.decided_at), (2, NOW));
    assert_eq!(pushes(&t.db).await, 1);
    let again = decide(
        &t.db,
        NOW,
        &me,
        profile,
        &approve(),
        Target::Profile { version: 2 },
    )
    .await;
    assert!(
        matches!(
            again,
            Err(ReviewError::NotATransition(invalid)) if invalid.action == ReviewAction::Approve
        ),
        "{again:?}"
    );
    assert_eq!(pushes(&t.db).await, 1);
}

#[tokio::test]
async fn a_decision_that_is_not_one_is_refused_with_its_fields() {
    let t = database().await;
    let (_, profile) = member(&t.db, 1).await;
    let input = DecisionInput {
        action: "REJECT",
        reasons: &[],
        note: None,
        employer: None,
    };
    let refused = decide(
        &t.db,
        NOW,
        &reviewer(50),
        profile,
        &input,
        Target::Profile { version: 1 },
    )
    .await
    .unwrap_err();
    let ReviewError::Invalid { cause, fields } = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(cause, "the decision is not valid");
    assert!(fields.get("reasons").is_some());
}

#[tokio::test]
async fn a_revision_decision_without_a_revision_is_not_found() {
    let t = database().await;
    let (_, profile) = member(&t.db, 1).await;
    let target = Target::Revision { number: 1 };
    let answer = decide(&t.db, NOW, &reviewer(50), profile, &approve(), target).await;
    assert!(matches!(answer, Err(ReviewError::NotFound)), "{answer:?}");
}

#[tokio::test]
async fn the_report_queue_shows_each_pair_its_own_conversation() {
    let t = database().await;
    let (_, p1) = member(&t.db, 1).await;
    let (_, p2) = member(&t.db, 2).await;
    let (_, p3) = member(&t.db, 3).await;
    for (id, low, high) in [(1, p1, p2), (2, p1, p3)] {
        exec(
            &t.db,
            &format!(
                "INSERT INTO matches (id, low_id, high_id, created_at) \
                 VALUES ({id}, {low}, {high}, 1000)"
            ),
        )
        .await;
    }
    for (id, match_id, sender, text) in [
        (1, 1, p1, "hello two"),
        (2, 1, p2, "hi one"),
        (3, 2, p3, "send money"),
    ] {
        exec(
            &t.db,
            &format!(
                "INSERT INTO chat_messages (id, match_id, sender_id, client_message_id, text, \
                 sent_at, safety_kinds) VALUES ({id}, {match_id}, {sender}, 'c{id}', '{text}', \
                 {}, 0)",
                1000 + id
            ),
        )
        .await;
    }
    for (id, reporter, target) in [(1, p1, p2), (2, p1, p3)] {
        exec(
            &t.db,
            &format!(
                "INSERT INTO reports (id, reporter_id, target_id, reasons, text, status, \
                 created_at) VALUES ({id}, {reporter}, {target}, 'HARASSMENT,SCAM_OR_MONEY', '', \
                 'OPEN', {})",
                2000 + id
            ),
        )
        .await;
    }
    let items = report_queue(&t.db, &reviewer(50), 10).await.unwrap();
    let lines: Vec<Vec<(bool, &str)>> = items
        .iter()
        .map(|i| {
            i.conversation
                .iter()
                .map(|l| (l.by_reported, l.text.as_str()))
                .collect()
        })
        .collect();
    assert_eq!(
        lines,
        [
            vec![(false, "hello two"), (true, "hi one")],
            vec![(true, "send money")]
        ]
    );
    assert_eq!(items[0].suggested_suspension, ["HARASSMENT", "SCAM"]);
    dismiss_report(&t.db, &reviewer(50), 1).await.unwrap();
    assert!(matches!(
        dismiss_report(&t.db, &reviewer(50), 1).await,
        Err(ReviewError::SettledAlready("report"))
    ));
    let reporter = Viewer {
        member: Some(p1),
        ..reviewer(1)
    };
    assert!(matches!(
        dismiss_report(&t.db, &reporter, 2).await,
        Err(ReviewError::NotAllowed(Party::Report))
    ));
}
