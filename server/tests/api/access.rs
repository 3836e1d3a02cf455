//! Who may see whom, as one table: for every relation between a viewer and another member, every
//! question the API answers about them (their profile, today's list, their photo through the
//! file fetch and the image proxy, their proof of employment, their chat, naming them in a
//! block), asked over HTTP on SQLite and PostgreSQL. The relations are written with the server's
//! own storage calls, exactly as the daily job, likes, blocks and reports write them. Also: the
//! matches list costs the same number of statements for one match as for five.

use kizuna_core::{access::Standing, date::Date};
use kizuna_server::{
    access::Viewer,
    storage::{chat, match_pool, matchmaking as store, queries},
    usecases,
};
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, spawn_app},
    matchmaking::{Member, approved, register, send, set_status},
    on_both_backends,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// Answered (200, 204; in the list).
    Yes,
    /// 404 E003, as for an unknown id (not in the list).
    No,
    /// 403 E004: the caller takes no part in matchmaking.
    Refused,
}
use Answer::{No, Refused, Yes};

#[derive(Clone, Copy, Debug)]
enum Relation {
    Strangers,
    Introduced,
    IntroducedYesterday,
    Passed,
    Liked,
    Matched,
    MatchEnded,
    BlockedByViewer,
    BlockedByOther,
    ReportedByViewer,
    ReportedByOther,
    OtherSuspended,
    OtherNotApproved,
    OtherPaused,
    MatchedOtherPaused,
    /// One employer on record, and the other asked never to meet colleagues.
    Colleagues,
    /// The same, after a match was made.
    MatchedColleagues,
    ViewerNotApproved,
    ViewerIsAReviewer,
}

const QUESTIONS: [&str; 6] = ["profile", "list", "photo", "proof", "chat", "name"];

/// Today's answers, a row per relation (a passed member leaves today's list).
const TABLE: [(Relation, [Answer; 6]); 19] = [
    (Relation::Strangers, [No, No, No, No, No, No]),
    (Relation::Introduced, [Yes, Yes, Yes, No, No, Yes]),
    (Relation::IntroducedYesterday, [Yes, No, Yes, No, No, Yes]),
    (Relation::Passed, [No, No, No, No, No, Yes]),
    (Relation::Liked, [Yes, Yes, Yes, No, No, Yes]),
    (Relation::Matched, [Yes, Yes, Yes, No, Yes, Yes]),
    (Relation::MatchEnded, [Yes, Yes, Yes, No, No, Yes]),
    (Relation::BlockedByViewer, [No, No, No, No, No, Yes]),
    (Relation::BlockedByOther, [No, No, No, No, No, Yes]),
    (Relation::ReportedByViewer, [No, No, No, No, No, Yes]),
    (Relation::ReportedByOther, [No, No, No, No, No, Yes]),
    (Relation::OtherSuspended, [No, No, No, No, No, Yes]),
    (Relation::OtherNotApproved, [No, No, No, No, No, Yes]),
    (Relation::OtherPaused, [No, No, No, No, No, Yes]),
    (Relation::MatchedOtherPaused, [Yes, No, Yes, No, Yes, Yes]),
    (Relation::Colleagues, [No, No, No, No, No, Yes]),
    (Relation::MatchedColleagues, [Yes, No, Yes, No, Yes, Yes]),
    (
        Relation::ViewerNotApproved,
        [Refused, Refused, No, No, Refused, Refused],
    ),
    (
        Relation::ViewerIsAReviewer,
        [Refused, Refused, Yes, Yes, Refused, Refused],
    ),
];

/// An id no match has.
const NO_SUCH_MATCH: i64 = 999_999_999;

async fn answer(r: reqwest::Response) -> Answer {
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    match status {
        200 | 204 => Yes,
        404 if body["code"] == "E003" => No,
        403 if body["code"] == "E004" => Refused,
        _ => panic!("an answer outside the access rule: {status} {body}"),
    }
}

/// The viewer's session: a member's, or for the last row a reviewer's without a profile.
struct Caller {
    token: String,
}

/// Both at one employer (as an approval records it), the other asking never to meet colleagues
/// and the viewer not (either one asking is enough).
async fn colleagues(db: &sea_orm::DatabaseConnection, viewer: i64, other: i64) {
    use kizuna_server::storage::colleagues::{set_employer, set_hides};
    for member in [viewer, other] {
        set_employer(db, member, "tsmc").await.unwrap();
    }
    set_hides(db, viewer, false).await.unwrap();
    set_hides(db, other, true).await.unwrap();
}

/// Writes `relation` between a fresh viewer and a fresh member; answers the viewer, the member
/// and the pair's match if one was made.
async fn arrange(app: &TestApp, n: usize, relation: Relation) -> (Caller, Member, Option<i64>) {
    let db = &app.db;
    let now = app.clock().now_secs();
    let today = app.clock().taipei_today();
    let yesterday = Date::from_days_since_epoch(i64::from(today.days_since_epoch()) - 1).unwrap();
    let (other, _) = approved(app, 2 * n + 1, false).await;
    if let Relation::ViewerIsAReviewer = relation {
        let user = app.new_user().await;
        app.mock_post("/__mock/reviewers", json!({"userId": user.line_id}))
            .await;
        return (Caller { token: user.token }, other, None);
    }
    let (viewer, _) = if let Relation::ViewerNotApproved = relation {
        register(app, 2 * n, true).await
    } else {
        approved(app, 2 * n, true).await
    };
    let (v, o) = (viewer.id, other.id);
    // The approved members' matchable snapshots, as the pool's next load writes them.
    match_pool::refresh_stale(db).await.unwrap();
    let introduced_today = !matches!(
        relation,
        Relation::Strangers | Relation::IntroducedYesterday
    );
    let list = if introduced_today { vec![o] } else { vec![] };
    store::insert_lists(db, today, &[(v, list)], now)
        .await
        .unwrap();
    if let Relation::IntroducedYesterday = relation {
        store::insert_lists(db, yesterday, &[(v, vec![o])], now)
            .await
            .unwrap();
    }
    let mut match_id = None;
    match relation {
        Relation::Passed => store::set_reaction(db, v, o, "PASS", None, today, now)
            .await
            .unwrap(),
        Relation::Liked => store::set_reaction(db, v, o, "LIKE", None, today, now)
            .await
            .unwrap(),
        Relation::Matched
        | Relation::MatchEnded
        | Relation::OtherSuspended
        | Relation::MatchedOtherPaused
        | Relation::MatchedColleagues => {
            store::set_reaction(db, v, o, "LIKE", None, today, now)
                .await
                .unwrap();
            store::set_reaction(db, o, v, "LIKE", None, today, now)
                .await
                .unwrap();
            match_id = store::create_match(db, v, o, now).await.unwrap();
            if let Relation::MatchEnded = relation {
                store::end_match(db, v, o, o, now).await.unwrap();
            }
            if let Relation::OtherSuspended = relation {
                set_status(app, &other, "SUSPENDED").await;
            }
            if let Relation::MatchedOtherPaused = relation {
                kizuna_server::storage::pauses::pause(db, o, now)
                    .await
                    .unwrap();
            }
            if let Relation::MatchedColleagues = relation {
                colleagues(db, v, o).await;
            }
        }
        Relation::BlockedByViewer => store::insert_block(db, v, o, now).await.unwrap(),
        Relation::BlockedByOther => store::insert_block(db, o, v, now).await.unwrap(),
        Relation::ReportedByViewer => {
            store::insert_report(db, v, o, &["HARASSMENT"], "", now)
                .await
                .unwrap();
            store::insert_block(db, v, o, now).await.unwrap();
        }
        Relation::ReportedByOther => {
            store::insert_report(db, o, v, &["HARASSMENT"], "", now)
                .await
                .unwrap();
            store::insert_block(db, o, v, now).await.unwrap();
        }
        Relation::OtherNotApproved => set_status(app, &other, "PENDING").await,
        Relation::OtherPaused => {
            kizuna_server::storage::pauses::pause(db, o, now)
                .await
                .unwrap();
        }
        Relation::Colleagues => colleagues(db, v, o).await,
        _ => {}
    }
    (
        Caller {
            token: viewer.user.token.clone(),
        },
        other,
        match_id,
    )
}

/// Every question of the table, in its order; naming (a block) last, since it writes.
async fn ask(app: &TestApp, viewer: &Caller, other: &Member, match_id: Option<i64>) -> [Answer; 6] {
    let token = Some(viewer.token.as_str());
    let profile = answer(app.get(&format!("/api/members/{}", other.id), token).await).await;
    let list = {
        let r = app.get("/api/introductions", token).await;
        match answer_json(r).await {
            Ok(list) => {
                let listed = list["introductions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|i| i["member"]["memberId"] == other.id);
                if listed { Yes } else { No }
            }
            Err(refusal) => refusal,
        }
    };
    let photo = answer(
        app.get(&format!("/api/file/fetch/{}", other.photo), token)
            .await,
    )
    .await;
    let proxied = answer(
        app.get(&format!("/_ipx/w_40/api/file/fetch/{}", other.photo), token)
            .await,
    )
    .await;
    assert_eq!(
        photo, proxied,
        "the file fetch and the image proxy disagree"
    );
    let proof = answer(
        app.get(&format!("/api/file/fetch/{}", other.verify), token)
            .await,
    )
    .await;
    let chat = answer(
        app.get(
            &format!(
                "/api/matches/{}/messages",
                match_id.unwrap_or(NO_SUCH_MATCH)
            ),
            token,
        )
        .await,
    )
    .await;
    let name = answer(
        send(
            app,
            reqwest::Method::POST,
            "/api/blocks",
            &viewer.token,
            Some(json!({"memberId": other.id})),
        )
        .await,
    )
    .await;
    [profile, list, photo, proof, chat, name]
}

/// The JSON of a 200, or the refusal.
async fn answer_json(r: reqwest::Response) -> Result<Value, Answer> {
    if r.status() == 200 {
        Ok(r.json().await.unwrap())
    } else {
        Err(answer(r).await)
    }
}

async fn every_relation_answers_every_question_by_the_one_rule(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut wrong = Vec::new();
    for (n, (relation, expected)) in TABLE.iter().enumerate() {
        let (viewer, other, match_id) = arrange(&app, n + 1, *relation).await;
        let got = ask(&app, &viewer, &other, match_id).await;
        for (q, (want, have)) in QUESTIONS.iter().zip(expected.iter().zip(got.iter())) {
            if want != have {
                wrong.push(format!(
                    "{relation:?} / {q}: expected {want:?}, got {have:?}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "answers off the table:\n{}",
        wrong.join("\n")
    );
}

/// The user id behind a profile.
async fn user_of(app: &TestApp, profile: i64) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT user_id FROM profiles WHERE id = {profile}"),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "user_id")
        .unwrap()
}

async fn the_matches_list_costs_the_same_for_one_match_as_for_five(backend: Backend) {
    let app = spawn_app(backend).await;
    let now = app.clock().now_secs();
    let (me, _) = approved(&app, 1, true).await;
    let viewer = Viewer {
        user_id: user_of(&app, me.id).await,
        member: Some(me.id),
        standing: Standing {
            approved: true,
            reviewer: false,
        },
    };
    let mut costs = Vec::new();
    for n in 0..5 {
        let (other, _) = approved(&app, n + 2, false).await;
        match_pool::refresh_stale(&app.db).await.unwrap();
        let id = store::create_match(&app.db, me.id, other.id, now)
            .await
            .unwrap()
            .unwrap();
        // A conversation in every match: its newest message and unread count are read too.
        for (k, sender) in [other.id, me.id, other.id].into_iter().enumerate() {
            chat::insert_message(
                &app.db,
                id,
                sender,
                &format!("client-{n}-{k}"),
                "Hello",
                0,
                now,
            )
            .await
            .unwrap();
        }
        let (list, statements) = queries::counted(usecases::matchmaking::matches(
            &app.state.db,
            &viewer,
            app.state.now(),
        ))
        .await;
        let list = list.unwrap();
        assert_eq!(list.len(), n + 1);
        assert!(
            list.iter()
                .all(|m| m.last_message.is_some() && m.unread == 2)
        );
        costs.push(statements);
    }
    println!("statements for GET /matches with 1 to 5 matches: {costs:?}");
    assert!(costs[0] > 0, "statements are counted: {costs:?}");
    assert!(
        costs.iter().all(|c| *c == costs[0]),
        "the list's cost grows with its length: {costs:?}"
    );
}

on_both_backends!(
    every_relation_answers_every_question_by_the_one_rule,
    the_matches_list_costs_the_same_for_one_match_as_for_five,
);
