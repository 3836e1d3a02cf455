//! Chat's decisions called as use-cases, without HTTP, on SQLite and PostgreSQL: the members and
//! their match are made through the API, then `usecases::chat` is called with its narrow inputs
//! (the database, the time, a limiter of its own).

use kizuna_core::{
    access::Standing,
    chat::{ChatText, ClientMessageId},
};
use kizuna_server::{
    access::Viewer,
    rate_limit::Limits,
    usecases::chat::{self, ChatError, SendDeps, Sent},
};
use sea_orm::ConnectionTrait;

use crate::{
    chat::{client_id, matched_pair},
    helpers::{Backend, TestApp, spawn_app},
    matchmaking::Member,
    on_both_backends,
};

on_both_backends!(
    a_send_beyond_the_allowance_waits_but_a_retry_is_answered,
    only_the_pair_of_the_match_chats_in_it,
    the_read_marker_only_moves_forward,
);

async fn viewer(app: &TestApp, m: &Member, approved: bool) -> Viewer {
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT user_id FROM profiles WHERE id = {}", m.id),
        ))
        .await
        .unwrap()
        .unwrap();
    Viewer {
        user_id: row.try_get::<i64>("", "user_id").unwrap(),
        member: Some(m.id),
        standing: Standing {
            approved,
            reviewer: false,
        },
    }
}

fn text(t: &str) -> ChatText {
    ChatText::parse(t).unwrap()
}

fn id(n: usize) -> ClientMessageId {
    ClientMessageId::parse(&client_id(n)).unwrap()
}

async fn a_send_beyond_the_allowance_waits_but_a_retry_is_answered(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _kai, match_id) = matched_pair(&app, 0).await;
    let mei = viewer(&app, &mei, true).await;
    let limiter = Limits::in_process().per_minute("test-chat", 1);
    let deps = SendDeps {
        db: &app.db,
        now: app.state.now(),
        process: app.state.process,
        limiter: &limiter,
    };
    let first = chat::send(&deps, &mei, match_id, &id(1), &text("hello"))
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert!(matches!(first, Sent::Created(ref m) if m.text == "hello"));

    let limited = chat::send(&deps, &mei, match_id, &id(2), &text("again")).await;
    assert!(
        matches!(limited, Err(ChatError::TooManyMessages { retry_after }) if retry_after >= 1),
        "{limited:?}"
    );
    // A retry is answered before the allowance: it stores nothing.
    let retry = chat::send(&deps, &mei, match_id, &id(1), &text("hello"))
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert!(matches!(retry, Sent::Stored(ref m) if m.text == "hello"));
    // The same id for another text is a client's mistake.
    let reused = chat::send(&deps, &mei, match_id, &id(1), &text("hi")).await;
    assert!(
        matches!(reused, Err(ChatError::ClientIdReused)),
        "{reused:?}"
    );
}

async fn only_the_pair_of_the_match_chats_in_it(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _kai, match_id) = matched_pair(&app, 0).await;
    let (lin, _bo, _) = matched_pair(&app, 2).await;
    let lin = viewer(&app, &lin, true).await;
    let page = chat::page(&app.db, &lin, match_id, None, 30).await;
    assert!(matches!(page, Err(ChatError::NotFound)), "another pair's");
    let page = chat::page(&app.db, &lin, match_id + 1000, None, 30).await;
    assert!(matches!(page, Err(ChatError::NotFound)), "an unknown one");
    let not_approved = viewer(&app, &mei, false).await;
    let page = chat::page(&app.db, &not_approved, match_id, None, 30).await;
    assert!(matches!(page, Err(ChatError::NotMember)));
    let mei = viewer(&app, &mei, true).await;
    let page = chat::page(&app.db, &mei, match_id, None, 30).await.unwrap();
    assert!(page.messages.is_empty() && !page.has_more);
}

async fn the_read_marker_only_moves_forward(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, match_id) = matched_pair(&app, 0).await;
    let (mei, kai) = (
        viewer(&app, &mei, true).await,
        viewer(&app, &kai, true).await,
    );
    let limiter = Limits::in_process().per_minute("test-chat", 10);
    let deps = SendDeps {
        db: &app.db,
        now: app.state.now(),
        process: app.state.process,
        limiter: &limiter,
    };
    let mut ids = Vec::new();
    for n in 1..=3 {
        let Sent::Created(m) = chat::send(&deps, &mei, match_id, &id(n), &text("hi"))
            .await
            .unwrap()
            .apply(&app.state)
            .await
        else {
            panic!("stored before");
        };
        ids.push(m.id);
    }
    let read_by_kai = || async {
        chat::page(&app.db, &mei, match_id, None, 30)
            .await
            .unwrap()
            .their_read_up_to
    };
    let now = app.state.now();
    chat::mark_read(&app.db, now, &kai, match_id, ids[1])
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert_eq!(read_by_kai().await, ids[1]);
    // Back: nothing moves.
    chat::mark_read(&app.db, now, &kai, match_id, ids[0])
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert_eq!(read_by_kai().await, ids[1]);
    // Past the newest message: up to the newest.
    chat::mark_read(&app.db, now, &kai, match_id, ids[2] + 100)
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert_eq!(read_by_kai().await, ids[2]);
}
