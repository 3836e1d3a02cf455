//! Taking a break: a paused member leaves everyone's introductions at once (today's
//! lists made for others drop them), gets no list of their own and no morning push, and keeps
//! their matches and chats; resuming brings them back. SQLite and PostgreSQL.

use serde_json::{Value, json};

use crate::{
    chat::post,
    helpers::{
        Backend, TestApp, assert_error, assert_switch_only_for_approved, set_switch, spawn_app,
    },
    matchmaking::{Member, approved, introductions, like, listed_ids, ok_json},
    on_both_backends,
};

async fn set_paused(app: &TestApp, m: &Member, paused: bool) -> Value {
    set_switch(app, m, "/api/user/pause", "paused", paused).await
}

async fn a_paused_member_leaves_every_list_at_once_and_their_matches_go_on(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (bo, _) = approved(&app, 2, false).await;
    let mut listed = listed_ids(&introductions(&app, &mei).await);
    listed.sort();
    assert_eq!(listed, vec![kai.id, bo.id]);
    introductions(&app, &kai).await;
    ok_json(like(&app, &mei, kai.id).await).await;
    let liked = ok_json(like(&app, &kai, mei.id).await).await;
    let match_id = liked["matchId"].as_i64().unwrap();

    // Bo takes a break: gone from Mei's list of today, his profile and photo with it.
    let state = set_paused(&app, &bo, true).await;
    assert_eq!(state["paused"], true);
    assert!(state["pausedSince"].as_i64().is_some());
    assert_eq!(
        ok_json(app.get("/api/user/pause", Some(&bo.user.token)).await).await,
        state
    );
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    for path in [
        format!("/api/members/{}", bo.id),
        format!("/api/file/fetch/{}", bo.photo),
    ] {
        assert_error(app.get(&path, Some(&mei.user.token)).await, 404, "E003").await;
    }
    // His own /today says so, with no list.
    let own = introductions(&app, &bo).await;
    assert_eq!(own["introductions"], json!([]));
    assert_eq!(own["pausedSince"], state["pausedSince"]);

    // Kai takes a break too: his match with Mei goes on, chat included.
    set_paused(&app, &kai, true).await;
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["member"]["memberId"], kai.id);
    assert_eq!(
        app.get(&format!("/api/members/{}", kai.id), Some(&mei.user.token))
            .await
            .status(),
        200
    );
    ok_json(post(&app, &kai, match_id, "client-0001", "still here").await).await;

    // Bo comes back: in Mei's list again, and his own list is back.
    let state = set_paused(&app, &bo, false).await;
    assert_eq!(state["paused"], false);
    assert!(state["pausedSince"].is_null(), "{state}");
    assert!(listed_ids(&introductions(&app, &mei).await).contains(&bo.id));
    let own = introductions(&app, &bo).await;
    assert!(own["pausedSince"].is_null(), "{own}");
    assert!(listed_ids(&own).contains(&mei.id));
}

async fn a_paused_member_gets_no_list_or_push_and_is_in_nobodys_next_list(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    set_paused(&app, &kai, true).await;
    // Mei's first list is made without him.
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );

    app.clock().advance(24 * 3600);
    let day = app.clock().taipei_today();
    let report = kizuna_server::matchmaking::job::run(&app.db, day, app.clock().now_secs(), "liff")
        .await
        .unwrap();
    assert_eq!(report.members, 1, "only Mei is in the pool");
    assert_eq!(report.pushes, 0, "no introductions, no pushes");
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    assert_eq!(introductions(&app, &kai).await["introductions"], json!([]));

    set_paused(&app, &kai, false).await;
    app.clock().advance(24 * 3600);
    let day = app.clock().taipei_today();
    let report = kizuna_server::matchmaking::job::run(&app.db, day, app.clock().now_secs(), "liff")
        .await
        .unwrap();
    assert_eq!((report.members, report.lists), (2, 2));
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
}

async fn only_an_approved_member_may_pause(backend: Backend) {
    let app = spawn_app(backend).await;
    let mei =
        assert_switch_only_for_approved(&app, "/api/user/pause", "paused", ("x", json!(1))).await;
    let state = ok_json(app.get("/api/user/pause", Some(&mei.user.token)).await).await;
    assert_eq!(state["paused"], false);
    assert!(state["pausedSince"].is_null(), "{state}");
}

on_both_backends!(
    a_paused_member_leaves_every_list_at_once_and_their_matches_go_on,
    a_paused_member_gets_no_list_or_push_and_is_in_nobodys_next_list,
    only_an_approved_member_may_pause,
);
