//! Chat's decisions called as use-cases, without HTTP, on SQLite and PostgreSQL: the members and
//! their match are made through the API, then `usecases::chat` is called with its narrow inputs
//! (the database, the time, a limiter of its own).

use kizuna_core::{
    access::Standing,
    chat::{ChatText, ClientMessageId},
};
use kizuna_server::{
    access::Viewer,
    rate_limit::{LimitKind, Limits},
    storage::{chat as chat_store, queries},
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
    a_retry_gives_back_the_allowance_its_read_took,
    only_the_pair_of_the_match_chats_in_it,
    the_read_marker_only_moves_forward,
    a_send_costs_a_fixed_number_of_statements,
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

/// With the allowances shared (PostgreSQL), the send's read takes the allowance: a retry found
/// stored by that read rolls it back, so a retry too old to publish again costs nothing.
async fn a_retry_gives_back_the_allowance_its_read_took(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _kai, match_id) = matched_pair(&app, 0).await;
    let mei = viewer(&app, &mei, true).await;
    let limits = Limits::for_database(&app.db);
    assert_eq!(limits.is_shared(), backend == Backend::Postgres);
    // Two at once, then one every 30 s: the test ends long before a refill.
    let limiter = limits.per_minute("test-chat-retry", 2);
    let now = app.state.now();
    let deps = |now| SendDeps {
        db: &app.db,
        now,
        process: app.state.process,
        limiter: &limiter,
    };
    let first = chat::send(&deps(now), &mei, match_id, &id(1), &text("hello"))
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert!(matches!(first, Sent::Created(_)), "{first:?}");
    // Two minutes on, the retry is not published again: nothing of the allowance goes.
    let later = now + 120;
    for _ in 0..3 {
        let retry = chat::send(&deps(later), &mei, match_id, &id(1), &text("hello"))
            .await
            .unwrap()
            .apply(&app.state)
            .await;
        assert!(
            matches!(retry, Sent::Stored(ref m) if m.text == "hello"),
            "{retry:?}"
        );
    }
    let second = chat::send(&deps(later), &mei, match_id, &id(2), &text("again"))
        .await
        .unwrap()
        .apply(&app.state)
        .await;
    assert!(
        matches!(second, Sent::Created(ref m) if m.text == "again"),
        "{second:?}"
    );
    let third = chat::send(&deps(later), &mei, match_id, &id(3), &text("more")).await;
    assert!(
        matches!(third, Err(ChatError::TooManyMessages { retry_after }) if (1..=30).contains(&retry_after)),
        "{third:?}"
    );
    // The retries stored nothing, nor did the refused send.
    let page = chat::page(&app.db, &mei, match_id, None, 30).await.unwrap();
    let texts: Vec<_> = page.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["hello", "again"]);
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

/// What a send sends to the database (`storage::queries::counted`: every statement on the
/// pooled connections, BEGIN and COMMIT not among them) through the app's own rate limit (shared
/// through PostgreSQL there): while the other member has an events stream open (the steady state
/// of a conversation), without one (the push's right taken, the LINE push written to the outbox),
/// without one within the push interval (the right refused), and a retry. The NOTIFY goes out
/// after the answer, from a task of its own that sends whatever queued meanwhile in one
/// statement (not counted here).
async fn a_send_costs_a_fixed_number_of_statements(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, match_id) = matched_pair(&app, 0).await;
    let mei = viewer(&app, &mei, true).await;
    let deps = SendDeps {
        db: &app.db,
        now: app.state.now(),
        process: app.state.process,
        limiter: app.state.limits.get(LimitKind::Chat),
    };
    let state = &app.state;
    let send = |n: usize| {
        let (deps, mei) = (&deps, &mei);
        async move {
            let (sent, statements) =
                queries::counted(chat::send(deps, mei, match_id, &id(n), &text("hello"))).await;
            let sent = sent.unwrap().apply(state).await;
            (sent, statements)
        }
    };
    let now = app.state.now();
    assert!(
        chat_store::open_presence(
            &app.db,
            "kai-stream",
            kai.id,
            app.state.process,
            now,
            now + 60,
            5
        )
        .await
        .unwrap()
    );
    let (sent, present) = send(1).await;
    assert!(matches!(sent, Sent::Created(_)));
    chat_store::close_presence(&app.db, "kai-stream")
        .await
        .unwrap();
    let (sent, pushed) = send(2).await;
    assert!(matches!(sent, Sent::Created(_)));
    let (sent, throttled) = send(3).await;
    assert!(matches!(sent, Sent::Created(_)));
    let (sent, retry) = send(3).await;
    assert!(matches!(sent, Sent::Stored(_)));
    println!(
        "statements of a send on {backend:?}: other present {present}, pushed {pushed}, \
         push throttled {throttled}, retry {retry}"
    );
    // Lock the match; read the ties, the screening's context, the queue, the presence and a
    // stored copy at once, taking the rate limit's allowance in the same statement where it is
    // shared (PostgreSQL; SQLite's is in memory); the message with its events (one statement on
    // PostgreSQL, three on SQLite).
    let limit = usize::from(app.state.limits.is_shared()) as u64;
    let store = if backend == Backend::Postgres { 1 } else { 3 };
    assert_eq!(present, 2 + store, "with the other present");
    // The push's right, its target (member, user, switch, language) and the outbox row.
    assert_eq!(pushed, present + 1 + 4 + 1, "pushing");
    assert_eq!(throttled, present + 1, "the push throttled");
    // The two reads, the rate limit again (a recent retry may publish again) and its events.
    assert_eq!(retry, 2 + limit + 1, "a retry");
}
