//! Members told that someone they were matched with was removed, on SQLite and PostgreSQL: a
//! suspension for a reason that warrants it tells everyone whose match with the removed member
//! was live in the last 30 days (a notice and one push, written in the decision's transaction),
//! nobody twice (a reinstatement and a second suspension, two reviewers racing); a private reason
//! tells nobody; the notice says who (the nickname they knew) and when, nothing of the decision;
//! its dismissal is remembered; who may read and dismiss; account deletions.

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    chat::matched,
    helpers::{Backend, TestApp, assert_error, number, reviewer, spawn_app},
    matchmaking::{Member, approved, introductions, like, ok_json, send},
    on_both_backends,
};

const DAY: i64 = 86_400;

async fn decide(
    app: &TestApp,
    token: &str,
    member: &Member,
    action: &str,
    reasons: &[&str],
) -> reqwest::Response {
    let view = ok_json(
        app.get(&format!("/api/review/profiles/{}", member.id), Some(token))
            .await,
    )
    .await;
    send(
        app,
        Method::POST,
        &format!("/api/review/profiles/{}/decision", member.id),
        token,
        Some(json!({"action": action, "reasons": reasons, "version": view["version"]})),
    )
    .await
}

async fn delete_account(app: &TestApp, token: &str) -> reqwest::Response {
    send(
        app,
        Method::DELETE,
        "/api/user/account",
        token,
        Some(json!({"lineAccessToken": null})),
    )
    .await
}

async fn notices(app: &TestApp, m: &Member) -> Value {
    ok_json(app.get("/api/removal-notices", Some(&m.user.token)).await).await
}

async fn dismiss(app: &TestApp, m: &Member, match_id: i64) -> reqwest::Response {
    send(
        app,
        Method::POST,
        &format!("/api/removal-notices/{match_id}/dismiss"),
        &m.user.token,
        None,
    )
    .await
}

async fn unmatch(app: &TestApp, m: &Member, match_id: i64) {
    let r = send(
        app,
        Method::DELETE,
        &format!("/api/matches/{match_id}"),
        &m.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
}

fn match_with(list: &Value, other: &Member) -> i64 {
    list.as_array()
        .unwrap()
        .iter()
        .find(|m| m["member"]["memberId"] == other.id)
        .unwrap_or_else(|| panic!("no match with {}: {list}", other.id))["matchId"]
        .as_i64()
        .unwrap()
}

async fn safety_pushes(app: &TestApp, to: &Member) -> i64 {
    number(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM push_outbox WHERE kind = 'safety' AND line_user_id = '{}'",
            to.user.line_id
        ),
    )
    .await
}

/// Kai (the member to be removed) and four women: Mei (a live match), Sue (a match she ended 10
/// days before the suspension), Ann (one she ended 31 days before) and Lin (never matched).
struct Cast {
    kai: Member,
    mei: Member,
    sue: Member,
    ann: Member,
    lin: Member,
    mei_match: i64,
    sue_match: i64,
}

async fn cast(app: &TestApp) -> Cast {
    let (mut mei, _) = approved(app, 0, true).await;
    let (mut kai, _) = approved(app, 1, false).await;
    let (mut sue, _) = approved(app, 2, true).await;
    let (mut ann, _) = approved(app, 4, true).await;
    let (mut lin, _) = approved(app, 6, true).await;
    for m in [&kai, &mei, &sue, &ann, &lin] {
        introductions(app, m).await;
    }
    matched(app, &ann, &kai).await;
    let ann_match = match_with(
        &ok_json(app.get("/api/matches", Some(&ann.user.token)).await).await,
        &kai,
    );
    unmatch(app, &ann, ann_match).await;
    app.clock().advance(21 * DAY);
    for m in [&mut kai, &mut mei, &mut sue, &mut ann, &mut lin] {
        app.sign_in_again(&mut m.user).await;
    }
    matched(app, &sue, &kai).await;
    let sue_match = match_with(
        &ok_json(app.get("/api/matches", Some(&sue.user.token)).await).await,
        &kai,
    );
    unmatch(app, &sue, sue_match).await;
    app.clock().advance(10 * DAY);
    for m in [&mut kai, &mut mei, &mut sue, &mut ann, &mut lin] {
        app.sign_in_again(&mut m.user).await;
    }
    matched(app, &mei, &kai).await;
    let mei_match = match_with(
        &ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await,
        &kai,
    );
    ok_json(like(app, &lin, kai.id).await).await;
    Cast {
        kai,
        mei,
        sue,
        ann,
        lin,
        mei_match,
        sue_match,
    }
}

async fn a_scam_suspension_tells_the_matches_of_the_last_30_days_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let c = cast(&app).await;
    let token = reviewer(&app).await;
    let before = app.clock().now_secs();
    let r = decide(&app, &token, &c.kai, "SUSPEND", &["SCAM"]).await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    // The decision's own time: a second may pass while it is made on a loaded machine.
    let now = app.clock().now_secs();
    let decided = number(&app, "SELECT MAX(created_at) AS n FROM removal_notices").await;
    assert!(
        (before..=now).contains(&decided),
        "{before} ≤ {decided} ≤ {now}"
    );

    let mei = notices(&app, &c.mei).await;
    assert_eq!(
        mei,
        json!([{"matchId": c.mei_match, "nickname": "Nick1", "createdAt": decided}])
    );
    let sue = notices(&app, &c.sue).await;
    assert_eq!(
        sue,
        json!([{"matchId": c.sue_match, "nickname": "Nick1", "createdAt": decided}])
    );
    assert_eq!(notices(&app, &c.ann).await, json!([]), "ended 31 days ago");
    assert_eq!(notices(&app, &c.lin).await, json!([]), "never matched");
    for (m, n) in [(&c.mei, 1), (&c.sue, 1), (&c.ann, 0), (&c.lin, 0)] {
        assert_eq!(safety_pushes(&app, m).await, n, "{}", m.id);
    }
    // The push names nobody and carries no decision: it is the kind alone.
    let subjects = number(
        &app,
        "SELECT COUNT(*) AS n FROM push_outbox WHERE kind = 'safety' \
         AND subject = '{\"push\":\"match_removed\"}' AND about_user_id IS NULL",
    )
    .await;
    assert_eq!(subjects, 2);

    // Reinstated, then suspended again: nobody is told twice, and nobody was un-told.
    let r = decide(&app, &token, &c.kai, "REINSTATE", &[]).await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    assert_eq!(notices(&app, &c.mei).await, mei);
    let r = decide(&app, &token, &c.kai, "SUSPEND", &["HARASSMENT"]).await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    assert_eq!(notices(&app, &c.mei).await, mei);
    assert_eq!(
        number(&app, "SELECT COUNT(*) AS n FROM removal_notices").await,
        2
    );
    assert_eq!(safety_pushes(&app, &c.mei).await, 1);

    // Dismissed: gone from the list for good (again is fine); Sue's stays.
    assert_eq!(dismiss(&app, &c.mei, c.mei_match).await.status(), 204);
    assert_eq!(notices(&app, &c.mei).await, json!([]));
    assert_eq!(dismiss(&app, &c.mei, c.mei_match).await.status(), 204);
    assert_eq!(notices(&app, &c.mei).await, json!([]));
    assert_eq!(notices(&app, &c.sue).await, sue);
}

async fn a_private_reason_tells_nobody(backend: Backend) {
    let app = spawn_app(backend).await;
    let c = cast(&app).await;
    let token = reviewer(&app).await;
    let r = decide(
        &app,
        &token,
        &c.kai,
        "SUSPEND",
        &["IN_A_RELATIONSHIP", "UNDERAGE"],
    )
    .await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    assert_eq!(notices(&app, &c.mei).await, json!([]));
    assert_eq!(
        number(&app, "SELECT COUNT(*) AS n FROM removal_notices").await,
        0
    );
    assert_eq!(
        number(
            &app,
            "SELECT COUNT(*) AS n FROM push_outbox WHERE kind = 'safety'"
        )
        .await,
        0
    );
}

async fn two_reviewers_racing_tell_each_member_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let c = cast(&app).await;
    let (one, two) = (reviewer(&app).await, reviewer(&app).await);
    let (a, b) = tokio::join!(
        decide(&app, &one, &c.kai, "SUSPEND", &["SCAM"]),
        decide(&app, &two, &c.kai, "SUSPEND", &["FAKE_PROFILE"]),
    );
    let won = [a.status(), b.status()]
        .iter()
        .filter(|s| s.is_success())
        .count();
    assert!(won >= 1, "{} {}", a.status(), b.status());
    assert_eq!(
        number(&app, "SELECT COUNT(*) AS n FROM removal_notices").await,
        2
    );
    assert_eq!(safety_pushes(&app, &c.mei).await, 1);
    assert_eq!(safety_pushes(&app, &c.sue).await, 1);
}

async fn who_may_read_and_dismiss_a_notice(backend: Backend) {
    let app = spawn_app(backend).await;
    let c = cast(&app).await;
    let token = reviewer(&app).await;
    let r = decide(&app, &token, &c.kai, "SUSPEND", &["SCAM"]).await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());

    // A stranger without a session.
    assert_error(app.get("/api/removal-notices", None).await, 401, "E001").await;
    let r = app
        .client
        .post(app.url(&format!("/api/removal-notices/{}/dismiss", c.mei_match)))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    // The removed member reaches nothing but their own account.
    assert_eq!(
        app.get("/api/removal-notices", Some(&c.kai.user.token))
            .await
            .status(),
        401
    );

    let before = app.snapshot().await;
    // Another member's notice, an unknown one and a bad id: E003, nothing changes.
    for path in [
        c.mei_match.to_string(),
        "999999".into(),
        "abc".into(),
        "-1".into(),
    ] {
        let r = send(
            &app,
            Method::POST,
            &format!("/api/removal-notices/{path}/dismiss"),
            &c.sue.user.token,
            None,
        )
        .await;
        assert_error(r, 404, "E003").await;
    }
    assert_eq!(app.snapshot().await, before);
    assert_eq!(notices(&app, &c.mei).await.as_array().unwrap().len(), 1);

    // An abusive member: beyond the allowance, 429 with Retry-After.
    let mut refused = None;
    for _ in 0..=kizuna_core::rules::SWITCH_CHANGES_PER_MINUTE {
        let r = dismiss(&app, &c.sue, c.sue_match).await;
        if r.status() == 429 {
            refused = Some(r);
            break;
        }
        assert_eq!(r.status(), 204);
    }
    let refused = refused.expect("the allowance ends");
    assert!(refused.headers().get("retry-after").is_some());
    assert_error(refused, 429, "E007").await;

    // A member not approved.
    let pending = app.new_user().await;
    assert_error(
        app.get("/api/removal-notices", Some(&pending.token)).await,
        403,
        "E004",
    )
    .await;
}

async fn a_deletion_takes_the_members_notices_and_the_removed_members_name(backend: Backend) {
    let app = spawn_app(backend).await;
    let c = cast(&app).await;
    let token = reviewer(&app).await;
    let r = decide(&app, &token, &c.kai, "SUSPEND", &["SCAM"]).await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    // Mei leaves: her notice goes with her.
    let r = delete_account(&app, &c.mei.user.token).await;
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(
        number(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM removal_notices WHERE member_id = {}",
                c.mei.id
            )
        )
        .await,
        0
    );
    // Kai leaves too: Sue is still told, and the notice names nobody now.
    let mut kai = c.kai.user.clone();
    app.sign_in_again(&mut kai).await;
    let r = delete_account(&app, &kai.token).await;
    assert!(r.status().is_success(), "{}", r.status());
    let now = notices(&app, &c.sue).await;
    assert_eq!(now.as_array().unwrap().len(), 1, "{now}");
    assert_eq!(now[0]["nickname"], Value::Null);
    assert_eq!(now[0]["matchId"], c.sue_match);
}

on_both_backends!(
    a_scam_suspension_tells_the_matches_of_the_last_30_days_once,
    a_private_reason_tells_nobody,
    two_reviewers_racing_tell_each_member_once,
    who_may_read_and_dismiss_a_notice,
    a_deletion_takes_the_members_notices_and_the_removed_members_name,
);
