//! Likes as members give them: a like's comment on one photo or Q&A answer, seen by
//! the other with that person's card; a pass taken back within 10 seconds, from any device; the
//! "Likes you sent" and "Liked you" lists, which make nobody visible; a match new until its
//! conversation is opened. SQLite and PostgreSQL.

use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, assert_error, spawn_app},
    matchmaking::{Member, approved, introductions, like, listed_ids, ok_json, register, send},
    on_both_backends,
};

async fn like_with(app: &TestApp, m: &Member, target: i64, body: Value) -> reqwest::Response {
    send(
        app,
        Method::POST,
        &format!("/api/introductions/{target}/like"),
        &m.user.token,
        Some(body),
    )
    .await
}

async fn pass(app: &TestApp, m: &Member, target: i64) -> reqwest::Response {
    send(
        app,
        Method::POST,
        &format!("/api/introductions/{target}/pass"),
        &m.user.token,
        None,
    )
    .await
}

async fn undo(app: &TestApp, token: &str, target: i64) -> reqwest::Response {
    send(
        app,
        Method::DELETE,
        &format!("/api/introductions/{target}/pass"),
        token,
        None,
    )
    .await
}

async fn likes(app: &TestApp, m: &Member) -> Value {
    ok_json(app.get("/api/likes", Some(&m.user.token)).await).await
}

fn ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|i| i["member"]["memberId"].as_i64().unwrap())
        .collect()
}

/// Dates the viewer's pass of `target` `secs` seconds before the server's now.
async fn pass_made_ago(app: &TestApp, viewer: &Member, target: i64, secs: i64) {
    let at = app.clock().now_secs() - secs;
    let done = app
        .db
        .execute_unprepared(&format!(
            "UPDATE reactions SET created_at = {at} WHERE viewer_id = {} AND target_id = {target} \
             AND kind = 'PASS'",
            viewer.id
        ))
        .await
        .unwrap();
    assert_eq!(done.rows_affected(), 1);
}

async fn member_page(app: &TestApp, viewer: &Member, target: i64) -> Value {
    ok_json(
        app.get(&format!("/api/members/{target}"), Some(&viewer.user.token))
            .await,
    )
    .await
}

async fn a_likes_comment_is_about_one_part_and_reaches_the_other_with_the_card(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    assert_eq!(listed_ids(&introductions(&app, &kai).await), vec![mei.id]);

    // Refused comments: each names its field, and nothing is stored.
    let before = app.snapshot().await;
    let long = "字".repeat(141);
    for (body, field, rule) in [
        (
            json!({"comment": {"text": long, "answer": "DAILY_LIFE"}}),
            "comment.text",
            "too_long",
        ),
        (
            json!({"comment": {"text": "  ", "answer": "DAILY_LIFE"}}),
            "comment.text",
            "required",
        ),
        (
            json!({"comment": {"text": "a\u{1b}b", "answer": "DAILY_LIFE"}}),
            "comment.text",
            "control_chars",
        ),
        // Mei's own photo is no part of Kai's profile.
        (
            json!({"comment": {"text": "Nice", "photoName": mei.photo}}),
            "comment.photoName",
            "invalid",
        ),
        (
            json!({"comment": {"text": "Nice", "photoName": "../../etc/passwd"}}),
            "comment.photoName",
            "invalid",
        ),
        (
            json!({"comment": {"text": "Nice", "answer": "ABOUT_ME"}}),
            "comment.answer",
            "invalid_choice",
        ),
        (
            json!({"comment": {"text": "Nice"}}),
            "comment.answer",
            "both_or_neither",
        ),
        (
            json!({"comment": {"text": "Nice", "photoName": kai.photo, "answer": "DAILY_LIFE"}}),
            "comment.photoName",
            "both_or_neither",
        ),
    ] {
        let err = assert_error(
            like_with(&app, &mei, kai.id, body.clone()).await,
            422,
            "E002",
        )
        .await;
        assert_eq!(err["fields"][field], json!([rule]), "{body}: {err}");
    }
    for body in [
        json!({"comment": {"text": 5, "answer": "DAILY_LIFE"}}),
        json!({"comment": {"text": "Hi", "answer": "DAILY_LIFE", "isAdmin": true}}),
        json!({"comment": "Hi"}),
        json!([]),
    ] {
        assert_error(like_with(&app, &mei, kai.id, body).await, 400, "E002").await;
    }
    let r = app
        .client
        .post(app.url(&format!("/api/introductions/{}/like", kai.id)))
        .bearer_auth(&mei.user.token)
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;
    // A stranger without a session is refused before anything is read.
    let r = app
        .client
        .post(app.url(&format!("/api/introductions/{}/like", kai.id)))
        .json(&json!({"comment": {"text": "Hi", "answer": "DAILY_LIFE"}}))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    assert_eq!(app.snapshot().await, before);

    // Mei likes Kai's photo with a comment (trimmed, 140 characters at most).
    let text = format!("{}?", "山".repeat(139));
    let liked = ok_json(
        like_with(
            &app,
            &mei,
            kai.id,
            json!({"comment": {"text": format!("  {text} "), "photoName": kai.photo}}),
        )
        .await,
    )
    .await;
    assert_eq!(liked["matched"], false);
    // Liking again changes nothing: the first comment stays.
    ok_json(
        like_with(
            &app,
            &mei,
            kai.id,
            json!({"comment": {"text": "Another", "answer": "DAILY_LIFE"}}),
        )
        .await,
    )
    .await;

    // Kai sees it with Mei's card, on her profile and in "Liked you".
    let list = introductions(&app, &kai).await;
    let card = &list["introductions"][0];
    assert_eq!(card["member"]["memberId"], mei.id);
    let comment = json!({"text": text, "photoName": kai.photo, "answer": null});
    assert_eq!(card["theirLike"]["comment"], comment);
    assert!(card["theirLike"]["likedAt"].as_i64().is_some());
    assert_eq!(
        member_page(&app, &kai, mei.id).await["theirLike"]["comment"],
        comment
    );
    let kai_likes = likes(&app, &kai).await;
    assert_eq!(ids(&kai_likes["received"]), vec![mei.id]);
    assert_eq!(kai_likes["received"][0]["like"]["comment"], comment);
    assert_eq!(kai_likes["sent"], json!([]));
    // Mei: the like is hers, in "Likes you sent", and her card of Kai says LIKE.
    let mei_likes = likes(&app, &mei).await;
    assert_eq!(ids(&mei_likes["sent"]), vec![kai.id]);
    assert_eq!(mei_likes["sent"][0]["like"]["comment"], comment);
    assert_eq!(mei_likes["received"], json!([]));
    let page = member_page(&app, &mei, kai.id).await;
    assert_eq!(page["reaction"], "LIKE");
    assert_eq!(page["theirLike"], Value::Null);
    assert_eq!(page["matchId"], Value::Null);
    assert_eq!(
        introductions(&app, &mei).await["introductions"][0]["reaction"],
        "LIKE"
    );

    // Kai likes back with a comment on an answer: a match; the likes leave both lists.
    let back = ok_json(
        like_with(
            &app,
            &kai,
            mei.id,
            json!({"comment": {"text": "Which trail?", "answer": "DATING_QUESTION"}}),
        )
        .await,
    )
    .await;
    assert_eq!(back["matched"], true);
    for m in [&mei, &kai] {
        assert_eq!(likes(&app, m).await, json!({"sent": [], "received": []}));
    }
    assert_eq!(
        member_page(&app, &mei, kai.id).await["matchId"],
        back["matchId"]
    );
    // A plain like still works without a body (as before the comment existed).
    let (ana, _) = approved(&app, 2, true).await;
    assert_eq!(listed_ids(&introductions(&app, &ana).await), vec![kai.id]);
    assert_eq!(
        ok_json(like(&app, &ana, kai.id).await).await["matched"],
        false
    );
    let ana_sent = likes(&app, &ana).await;
    assert_eq!(ana_sent["sent"][0]["like"]["comment"], Value::Null);
}

async fn a_pass_is_taken_back_within_ten_seconds_on_every_device(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (bo, _) = approved(&app, 2, false).await;
    let (pending, _) = register(&app, 3, false).await;
    let mut listed = listed_ids(&introductions(&app, &mei).await);
    listed.sort();
    assert_eq!(listed, vec![kai.id, bo.id]);
    // Mei's second device: another session of the same member.
    let mut tablet = mei.user.clone();
    app.sign_in_again(&mut tablet).await;

    // A pass takes the card away at once, on both devices, and the profile with it.
    assert_eq!(pass(&app, &mei, kai.id).await.status(), 204);
    for token in [&mei.user.token, &tablet.token] {
        let list = ok_json(app.get("/api/introductions", Some(token)).await).await;
        assert_eq!(listed_ids(&list), vec![bo.id]);
    }
    assert_error(
        app.get(&format!("/api/members/{}", kai.id), Some(&mei.user.token))
            .await,
        404,
        "E003",
    )
    .await;

    // Undo from the other device 9 seconds on (the exact edge is kizuna-core's
    // `pass_undoable`, unit-tested; a second of the real clock may pass during a request): Kai is
    // back everywhere, and may be liked.
    pass_made_ago(&app, &mei, kai.id, 9).await;
    assert_eq!(undo(&app, &tablet.token, kai.id).await.status(), 204);
    let mut listed = listed_ids(&introductions(&app, &mei).await);
    listed.sort();
    assert_eq!(listed, vec![kai.id, bo.id]);
    assert_eq!(
        member_page(&app, &mei, kai.id).await["reaction"],
        Value::Null
    );
    // Undoing again (no pass now) changes nothing.
    let before = app.snapshot().await;
    assert_eq!(undo(&app, &mei.user.token, kai.id).await.status(), 204);
    assert_eq!(app.snapshot().await, before);

    // A pass 11 seconds old stays.
    assert_eq!(pass(&app, &mei, bo.id).await.status(), 204);
    pass_made_ago(&app, &mei, bo.id, 11).await;
    let before = app.snapshot().await;
    assert_error(undo(&app, &mei.user.token, bo.id).await, 409, "E005").await;
    assert_eq!(app.snapshot().await, before);
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);

    // Racing undos of one pass: both answer, the pass is gone once.
    assert_eq!(pass(&app, &mei, kai.id).await.status(), 204);
    let (a, b) = tokio::join!(
        undo(&app, &mei.user.token, kai.id),
        undo(&app, &tablet.token, kai.id)
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (204, 204));
    assert_eq!(
        ok_json(like(&app, &mei, kai.id).await).await["matched"],
        false
    );
    // An undo after a like leaves the like.
    assert_eq!(undo(&app, &mei.user.token, kai.id).await.status(), 204);
    assert_eq!(member_page(&app, &mei, kai.id).await["reaction"], "LIKE");

    // Strangers, bad ids, other members and no session are refused as everywhere.
    let (stranger, _) = approved(&app, 4, true).await;
    for target in [stranger.id, 0, 99_999_999] {
        assert_error(undo(&app, &mei.user.token, target).await, 404, "E003").await;
    }
    assert_error(
        send(
            &app,
            Method::DELETE,
            "/api/introductions/abc/pass",
            &mei.user.token,
            None,
        )
        .await,
        404,
        "E003",
    )
    .await;
    assert_error(undo(&app, &pending.user.token, mei.id).await, 403, "E004").await;
    let r = app
        .client
        .delete(app.url(&format!("/api/introductions/{}/pass", bo.id)))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
}

async fn liked_you_shows_only_members_already_introduced(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    // Mei's list of today is made before Kai is approved: he is not in it.
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    let (kai, _) = approved(&app, 1, false).await;
    assert_eq!(listed_ids(&introductions(&app, &kai).await), vec![mei.id]);
    ok_json(
        like_with(
            &app,
            &kai,
            mei.id,
            json!({"comment": {"text": "Hi from Kai", "answer": "SURPRISE_POINT"}}),
        )
        .await,
    )
    .await;

    // Mei is not told: not in "Liked you", not on a card, and his profile stays closed to her.
    let answer = likes(&app, &mei).await;
    assert_eq!(answer, json!({"sent": [], "received": []}));
    assert!(!answer.to_string().contains("Hi from Kai"));
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    assert_error(
        app.get(&format!("/api/members/{}", kai.id), Some(&mei.user.token))
            .await,
        404,
        "E003",
    )
    .await;
    assert_eq!(ids(&likes(&app, &kai).await["sent"]), vec![mei.id]);

    // The next day Kai is among her introductions (a like back would make a match): now she
    // sees his like, with its comment.
    app.clock().advance(24 * 60 * 60);
    let list = introductions(&app, &mei).await;
    assert_eq!(listed_ids(&list), vec![kai.id]);
    assert_eq!(
        list["introductions"][0]["theirLike"]["comment"]["text"],
        "Hi from Kai"
    );
    let answer = likes(&app, &mei).await;
    assert_eq!(ids(&answer["received"]), vec![kai.id]);
    assert_eq!(
        answer["received"][0]["like"]["comment"]["answer"],
        "SURPRISE_POINT"
    );

    // A pass takes him out of "Liked you"; a block takes him out of his sent likes too.
    assert_eq!(pass(&app, &mei, kai.id).await.status(), 204);
    assert_eq!(likes(&app, &mei).await["received"], json!([]));
    let r = send(
        &app,
        Method::POST,
        "/api/blocks",
        &mei.user.token,
        Some(json!({"memberId": kai.id})),
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_eq!(likes(&app, &kai).await, json!({"sent": [], "received": []}));

    // Only approved members have likes; without a session nobody.
    let (pending, _) = register(&app, 2, false).await;
    assert_error(
        app.get("/api/likes", Some(&pending.user.token)).await,
        403,
        "E004",
    )
    .await;
    assert_error(app.get("/api/likes", None).await, 401, "E001").await;
}

async fn a_match_is_new_until_its_conversation_is_opened(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    introductions(&app, &mei).await;
    introductions(&app, &kai).await;
    ok_json(like(&app, &mei, kai.id).await).await;
    let match_id = ok_json(like(&app, &kai, mei.id).await).await["matchId"]
        .as_i64()
        .unwrap();
    let is_new = |list: Value| list[0]["isNew"].clone();
    for m in [&mei, &kai] {
        assert_eq!(
            is_new(ok_json(app.get("/api/matches", Some(&m.user.token)).await).await),
            true
        );
    }
    // Mei opens the empty conversation: a read mark of 0 says so.
    let r = send(
        &app,
        Method::PUT,
        &format!("/api/matches/{match_id}/read"),
        &mei.user.token,
        Some(json!({"upTo": 0})),
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_eq!(
        is_new(ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await),
        false
    );
    // Kai's stays new (and a message from Mei leaves it new, with one unread).
    ok_json(crate::chat::post(&app, &mei, match_id, "client-new-1", "Hello").await).await;
    let kai_list = ok_json(app.get("/api/matches", Some(&kai.user.token)).await).await;
    assert_eq!(is_new(kai_list.clone()), true);
    assert_eq!(kai_list[0]["unread"], 1);
    // Opening it a second time, later, keeps the first time.
    let opened_at = || async {
        app.db
            .query_one_raw(sea_orm::Statement::from_string(
                app.db.get_database_backend(),
                format!(
                    "SELECT opened_at FROM chat_marks WHERE match_id = {match_id} \
                     AND member_id = {}",
                    kai.id
                ),
            ))
            .await
            .unwrap()
            .and_then(|row| row.try_get::<Option<i64>>("", "opened_at").unwrap())
    };
    let mut first = None;
    for _ in 0..2 {
        let r = send(
            &app,
            Method::PUT,
            &format!("/api/matches/{match_id}/read"),
            &kai.user.token,
            Some(json!({"upTo": 0})),
        )
        .await;
        assert_eq!(r.status(), 204);
        let at = opened_at().await;
        assert!(at.is_some());
        first = first.or(at);
        assert_eq!(at, first);
        app.clock().advance(60);
    }
    let kai_list = ok_json(app.get("/api/matches", Some(&kai.user.token)).await).await;
    assert_eq!(is_new(kai_list.clone()), false);
    assert_eq!(kai_list[0]["unread"], 1);
}

on_both_backends!(
    a_likes_comment_is_about_one_part_and_reaches_the_other_with_the_card,
    a_pass_is_taken_back_within_ten_seconds_on_every_device,
    liked_you_shows_only_members_already_introduced,
    a_match_is_new_until_its_conversation_is_opened,
);
