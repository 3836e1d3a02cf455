//! Matchmaking over HTTP on SQLite and PostgreSQL: who is introduced (never the unapproved,
//! suspended, blocked or reported), the list fixed for a Taipei day, likes and racing likes,
//! matches, blocks, reports, photo access, the daily job's pushes, and a privacy scan of every
//! answer a member gets about another.

use std::time::Duration;

use reqwest::Response;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, User, assert_error, jpeg, profile_payload, spawn_app},
    on_both_backends,
};

/// A registered member: their session, profile id and photo and verification file names.
pub(crate) struct Member {
    pub user: User,
    pub id: i64,
    pub photo: String,
    pub verify: String,
}

/// Personal details of a member that no other member may ever read.
pub(crate) struct Secrets {
    pub(crate) name: String,
    pub(crate) birthday: &'static str,
    pub(crate) address: String,
    pub(crate) latitude: f64,
    pub(crate) longitude: f64,
    pub(crate) email: String,
    pub(crate) income: &'static str,
    pub(crate) employer: &'static str,
}

pub(crate) fn secrets_of(n: usize, female: bool) -> Secrets {
    Secrets {
        name: format!("Secret Fullname{n}"),
        birthday: if female { "1994-07-21" } else { "1990-02-11" },
        address: format!("No. {n} Secret Lane"),
        latitude: 25.0412 + n as f64 * 0.0003,
        longitude: 121.5321 + n as f64 * 0.0003,
        email: format!("member{n}@tsmc.com"),
        income: "INCOME_150_200",
        employer: "tsmc",
    }
}

/// Registers a member (a woman seeking men, or a man seeking women, all in Taipei with no
/// partner conditions, so everyone of the other side fits) and leaves the profile PENDING.
pub(crate) async fn register(app: &TestApp, n: usize, female: bool) -> (Member, Secrets) {
    register_through(&app.api, app, n, female).await
}

/// `register` through the server at `api` (another process of `app`'s database).
pub(crate) async fn register_through(
    api: &crate::helpers::Api,
    app: &TestApp,
    n: usize,
    female: bool,
) -> (Member, Secrets) {
    let user = api.new_user().await;
    register_user(api, app, user, n, female, |_| {}).await
}

/// `register_through` for a user signed in already, the registration body changed by `tweak`
/// (another verification, say) before it is sent.
pub(crate) async fn register_user(
    api: &crate::helpers::Api,
    app: &TestApp,
    user: User,
    n: usize,
    female: bool,
    tweak: impl FnOnce(&mut Value),
) -> (Member, Secrets) {
    let photo = api.upload_ok(&user.token, jpeg(64, 48)).await;
    let verify = api.upload_ok(&user.token, jpeg(32, 32)).await;
    let s = secrets_of(n, female);
    let mut body = profile_payload(&user.line_id, std::slice::from_ref(&photo), &verify);
    let o = body.as_object_mut().unwrap();
    o.insert("nickname".into(), json!(format!("Nick{n}")));
    o.insert("name".into(), json!(s.name));
    o.insert("birthday".into(), json!(s.birthday));
    o.insert("address".into(), json!(s.address));
    o.insert("latitude".into(), json!(s.latitude));
    o.insert("longitude".into(), json!(s.longitude));
    o.insert("companyEmail".into(), json!(s.email));
    o.insert("incomeRange".into(), json!(s.income));
    o.insert(
        "gender".into(),
        json!(if female { "FEMALE" } else { "MALE" }),
    );
    o.insert(
        "matchGender".into(),
        json!(if female { "MALE" } else { "FEMALE" }),
    );
    o.insert("height".into(), json!(if female { 162 } else { 176 }));
    o.insert("valueItem".into(), json!([]));
    tweak(&mut body);
    let r = api.create_profile(Some(&user.id_token), &body).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let id = profile_id(app, &user.line_id).await;
    (
        Member {
            user,
            id,
            photo,
            verify,
        },
        s,
    )
}

pub(crate) async fn profile_id(app: &TestApp, line_id: &str) -> i64 {
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!(
                "SELECT p.id AS id FROM profiles p JOIN users u ON u.id = p.user_id \
                 WHERE u.line_user_id = '{line_id}'"
            ),
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "id").unwrap()
}

/// Sets a review status as the review flow would, and drops the server's pool and the sessions
/// it holds (which carry the status) as it does.
pub(crate) async fn set_status(app: &TestApp, member: &Member, status: &str) {
    app.db
        .execute_unprepared(&format!(
            "UPDATE profiles SET status = '{status}' WHERE id = {}",
            member.id
        ))
        .await
        .unwrap();
    app.state.pool.invalidate().await;
    app.state.sessions.forget_cached();
}

pub(crate) async fn approved(app: &TestApp, n: usize, female: bool) -> (Member, Secrets) {
    let (m, s) = register(app, n, female).await;
    set_status(app, &m, "APPROVED").await;
    (m, s)
}

pub(crate) async fn send(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> Response {
    let mut req = app.client.request(method, app.url(path)).bearer_auth(token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.unwrap()
}

pub(crate) async fn ok_json(r: Response) -> Value {
    let status = r.status();
    let text = r.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap()
}

pub(crate) async fn introductions(app: &TestApp, m: &Member) -> Value {
    ok_json(app.get("/api/introductions", Some(&m.user.token)).await).await
}

pub(crate) fn listed_ids(list: &Value) -> Vec<i64> {
    list["introductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["member"]["memberId"].as_i64().unwrap())
        .collect()
}

pub(crate) async fn like(app: &TestApp, m: &Member, target: i64) -> Response {
    send(
        app,
        reqwest::Method::POST,
        &format!("/api/introductions/{target}/like"),
        &m.user.token,
        None,
    )
    .await
}

async fn fetch_photo(app: &TestApp, m: &Member, file: &str) -> Response {
    app.get(&format!("/api/file/fetch/{file}"), Some(&m.user.token))
        .await
}

async fn proxied_photo(app: &TestApp, m: &Member, file: &str) -> Response {
    app.get(
        &format!("/_ipx/w_40/api/file/fetch/{file}"),
        Some(&m.user.token),
    )
    .await
}

async fn assert_sees_photos(app: &TestApp, viewer: &Member, owner: &Member, sees: bool) {
    for r in [
        fetch_photo(app, viewer, &owner.photo).await,
        proxied_photo(app, viewer, &owner.photo).await,
    ] {
        if sees {
            assert_eq!(r.status(), 200);
            // Access can end (a block, an unmatch): the browser must ask again, not reuse a copy.
            assert_eq!(r.headers()["cache-control"], "private, no-cache");
        } else {
            assert_error(r, 404, "E003").await;
        }
    }
    // The proof of employment never.
    assert_error(fetch_photo(app, viewer, &owner.verify).await, 404, "E003").await;
    assert_error(proxied_photo(app, viewer, &owner.verify).await, 404, "E003").await;
}

async fn never_an_unapproved_suspended_blocked_or_reported_member_is_introduced(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mut mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (bo, _) = approved(&app, 2, false).await;
    let (chen, _) = approved(&app, 3, false).await;
    let (pending, _) = register(&app, 4, false).await;
    let (suspended, _) = approved(&app, 5, false).await;
    set_status(&app, &suspended, "SUSPENDED").await;
    let (rejected, _) = register(&app, 6, false).await;
    set_status(&app, &rejected, "REJECTED").await;

    // Only approved members take part.
    for m in [&pending, &suspended, &rejected] {
        assert_error(
            app.get("/api/introductions", Some(&m.user.token)).await,
            403,
            "E004",
        )
        .await;
    }
    let list = introductions(&app, &mei).await;
    let mut ids = listed_ids(&list);
    ids.sort();
    assert_eq!(ids, vec![kai.id, bo.id, chen.id], "{list}");

    // Bo is blocked and Chen reported: both leave Mei's list at once, and Mei leaves theirs.
    assert_eq!(listed_ids(&introductions(&app, &bo).await), vec![mei.id]);
    assert_eq!(listed_ids(&introductions(&app, &chen).await), vec![mei.id]);
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/blocks",
        &mei.user.token,
        Some(json!({"memberId": bo.id})),
    )
    .await;
    assert_eq!(r.status(), 204);
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/reports",
        &mei.user.token,
        Some(json!({"memberId": chen.id, "reasons": ["HARASSMENT", "SPAM"], "text": "Sent ads"})),
    )
    .await;
    let report = ok_json(r).await;
    assert!(report["reportId"].as_i64().is_some());
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    assert!(listed_ids(&introductions(&app, &bo).await).is_empty());
    assert!(listed_ids(&introductions(&app, &chen).await).is_empty());
    for (viewer, target) in [(&bo, &mei), (&mei, &bo), (&chen, &mei), (&mei, &chen)] {
        assert_error(
            app.get(
                &format!("/api/members/{}", target.id),
                Some(&viewer.user.token),
            )
            .await,
            404,
            "E003",
        )
        .await;
    }
    // The report is in the reviewers' queue.
    let queue = kizuna_server::storage::matchmaking::open_reports(&app.db, 10, None)
        .await
        .unwrap();
    assert_eq!(queue.len(), 1);
    assert_eq!(
        (queue[0].reporter_id, queue[0].target_id),
        (Some(mei.id), Some(chen.id))
    );
    assert_eq!(queue[0].reasons, "HARASSMENT,SPAM");

    // Approving the pending member and reinstating the suspended one brings them in on the next
    // day; the blocked and reported never come back.
    set_status(&app, &pending, "APPROVED").await;
    set_status(&app, &suspended, "APPROVED").await;
    app.clock().advance(86_400);
    let mut next = listed_ids(&introductions(&app, &mei).await);
    next.sort();
    assert_eq!(next, vec![pending.id, suspended.id]);
    // Suspended again: out of the list at once.
    set_status(&app, &suspended, "SUSPENDED").await;
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        vec![pending.id]
    );
    for day in 0..40 {
        app.clock().advance(86_400);
        // Sessions end 30 days after their login: Mei signs in again as the app would.
        if day % 20 == 19 {
            app.sign_in_again(&mut mei.user).await;
        }
        let ids = listed_ids(&introductions(&app, &mei).await);
        assert!(
            !ids.contains(&bo.id)
                && !ids.contains(&chen.id)
                && !ids.contains(&suspended.id)
                && !ids.contains(&rejected.id),
            "{ids:?}"
        );
    }
}

/// The pool's query only pre-filters for speed: over a varied population (approved, pending,
/// suspended, rejected, paused, paused and suspended) it keeps exactly the members that
/// kizuna-core's `PoolStanding::takes_part` lets take part when it judges everyone's standing.
async fn the_pools_query_keeps_exactly_whom_the_core_lets_take_part(backend: Backend) {
    use std::collections::BTreeSet;

    use kizuna_server::storage::match_pool;
    let app = spawn_app(backend).await;
    let mut taking_part = BTreeSet::new();
    for n in 0..4 {
        taking_part.insert(approved(&app, n, n % 2 == 0).await.0.id);
    }
    register(&app, 4, false).await;
    let (suspended, _) = approved(&app, 5, false).await;
    set_status(&app, &suspended, "SUSPENDED").await;
    let (rejected, _) = register(&app, 6, true).await;
    set_status(&app, &rejected, "REJECTED").await;
    for (n, then_suspended) in [(7, false), (8, true)] {
        let (resting, _) = approved(&app, n, n % 2 == 0).await;
        let r = send(
            &app,
            reqwest::Method::PUT,
            "/api/user/pause",
            &resting.user.token,
            Some(json!({"paused": true})),
        )
        .await;
        assert_eq!(r.status(), 200);
        if then_suspended {
            set_status(&app, &resting, "SUSPENDED").await;
        }
    }
    match_pool::refresh_stale(&app.db).await.unwrap();
    let mut pre_filtered = BTreeSet::new();
    match_pool::approved(&app.db, |row| {
        if row.standing.takes_part() {
            pre_filtered.insert(row.row.profile_id);
        }
        Ok(())
    })
    .await
    .unwrap();
    let by_the_core: BTreeSet<i64> = match_pool::all_standings(&app.db)
        .await
        .unwrap()
        .into_iter()
        .filter(|(_, standing)| standing.takes_part())
        .map(|(id, _)| id)
        .collect();
    assert_eq!(pre_filtered, by_the_core);
    assert_eq!(by_the_core, taking_part);
    assert_eq!(match_pool::all_standings(&app.db).await.unwrap().len(), 9);
}

async fn the_list_is_fixed_for_the_taipei_day_and_new_the_next_day(backend: Backend) {
    let app = spawn_app(backend).await;
    // Start at 01:00 in Taipei, so that "an hour later" below is the same day whenever the test
    // runs (between 23:00 and 24:00 Taipei it otherwise crosses midnight).
    let into_day =
        (app.clock().now_secs() + kizuna_core::rules::TAIPEI_UTC_OFFSET_SECS).rem_euclid(86_400);
    app.clock().advance(86_400 - into_day + 3600);
    let (mei, _) = approved(&app, 0, true).await;
    let mut men = Vec::new();
    for n in 1..=7 {
        men.push(approved(&app, n, false).await.0);
    }
    let first = introductions(&app, &mei).await;
    let ids = listed_ids(&first);
    assert_eq!(ids.len(), 5, "{first}");
    // A newcomer and a repeated question change nothing today.
    let (late, _) = approved(&app, 8, false).await;
    app.clock().advance(3600);
    let again = introductions(&app, &mei).await;
    assert_eq!(listed_ids(&again), ids);
    assert_eq!(again["day"], first["day"]);

    // The next Taipei day: new people only (today's five wait for an answer).
    app.clock().advance(86_400);
    let next = introductions(&app, &mei).await;
    assert_ne!(next["day"], first["day"]);
    let mut next_ids = listed_ids(&next);
    next_ids.sort();
    let mut expected: Vec<i64> = men
        .iter()
        .map(|m| m.id)
        .filter(|id| !ids.contains(id))
        .collect();
    expected.push(late.id);
    expected.sort();
    assert_eq!(next_ids, expected);
    // Yesterday's introductions can still be answered.
    let r = like(&app, &mei, ids[0]).await;
    assert_eq!(ok_json(r).await["matched"], false);
}

async fn photos_follow_introductions_and_matches(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    // Nobody was introduced yet: strangers' photos are E003.
    assert_sees_photos(&app, &mei, &kai, false).await;
    assert_sees_photos(&app, &kai, &mei, false).await;
    // Kai is in Mei's list: she sees his photos; he has not asked for his list, so not hers.
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    assert_sees_photos(&app, &mei, &kai, true).await;
    assert_sees_photos(&app, &kai, &mei, false).await;
    assert_eq!(listed_ids(&introductions(&app, &kai).await), vec![mei.id]);
    assert_sees_photos(&app, &kai, &mei, true).await;
    // The owner always sees their own.
    assert_eq!(fetch_photo(&app, &kai, &kai.verify).await.status(), 200);

    // Matched: the photos stay visible on later days while the match lasts.
    assert_eq!(
        ok_json(like(&app, &mei, kai.id).await).await["matched"],
        false
    );
    let liked = ok_json(like(&app, &kai, mei.id).await).await;
    assert_eq!(liked["matched"], true);
    let match_id = liked["matchId"].as_i64().unwrap();
    app.clock().advance(3 * 86_400);
    assert_sees_photos(&app, &mei, &kai, true).await;
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["matchId"], match_id);
    assert_eq!(matches[0]["member"]["memberId"], kai.id);
    assert_eq!(matches[0]["lastMessage"], Value::Null);

    // Unmatched: gone for both, photos too (they were introduced, but the match ended and
    // they had liked, so only the introduction keeps them: a block ends even that).
    let r = send(
        &app,
        reqwest::Method::DELETE,
        &format!("/api/matches/{match_id}"),
        &kai.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
    for m in [&mei, &kai] {
        let list = ok_json(app.get("/api/matches", Some(&m.user.token)).await).await;
        assert_eq!(list, json!([]));
    }
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/blocks",
        &mei.user.token,
        Some(json!({"memberId": kai.id})),
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_sees_photos(&app, &mei, &kai, false).await;
    assert_sees_photos(&app, &kai, &mei, false).await;
    assert_error(
        app.get(&format!("/api/members/{}", mei.id), Some(&kai.user.token))
            .await,
        404,
        "E003",
    )
    .await;
}

/// The web build's index.html as far as the page's frame goes: its first card's photo shape.
const FRAME_PAGE: &str = "<!doctype html><head><style>html{margin:0}</style></head>\
    <div id=\"root\"><div class=\"boot-frame\"><div class=\"c\"><i class=\"p\" id=\"first-photo\"></i></div>\
    <div class=\"c\"><i class=\"p\"></i></div></div></div>";

async fn today_page(app: &TestApp, cookie: Option<&str>, encoding: &str) -> Response {
    let mut req = app
        .client
        .get(app.url("/today"))
        .header("accept-encoding", encoding);
    if let Some(token) = cookie {
        req = req.header("cookie", format!("kizuna_lang=en; kizuna_token={token}"));
    }
    req.send().await.unwrap()
}

/// The value of `name="…"` in `html`.
fn attribute<'a>(html: &'a str, name: &str) -> &'a str {
    let start = html.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
    &html[start..start + html[start..].find('"').unwrap()]
}

/// A returning member's /today carries the first card's photo in its frame (the card's srcset
/// and sizes, kizuna-core's CARD_PHOTO), as one member's page (private, no ETag); everyone else,
/// an empty list or a build without the frame's mark gets the plain page.
async fn a_returning_members_today_has_the_first_cards_photo_in_its_frame(backend: Backend) {
    use kizuna_core::web_rules::CARD_PHOTO;
    let app = spawn_app(backend).await;
    let web = app.data_dir.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("index.html"), FRAME_PAGE).unwrap();
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (pending, _) = register(&app, 2, true).await;

    let plain = today_page(&app, None, "identity").await;
    assert_eq!(plain.status(), 200);
    assert_eq!(plain.headers()["cache-control"], "no-cache");
    let policy = plain.headers()["content-security-policy"].clone();
    assert_eq!(plain.text().await.unwrap(), FRAME_PAGE);

    // Mei's first card is Kai (made by this very request: she had not asked for her list yet).
    let r = today_page(&app, Some(&mei.user.token), "identity").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "private, no-cache");
    assert!(r.headers()["vary"].to_str().unwrap().contains("cookie"));
    assert!(r.headers().get("etag").is_none());
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    // The same policy: the photo is no inline script or style.
    assert_eq!(r.headers()["content-security-policy"], policy);
    let page = r.text().await.unwrap();
    assert!(
        !page.contains("<i class=\"p\" id=\"first-photo\"></i>"),
        "{page}"
    );
    assert!(
        page.contains("<div class=\"c\"><i class=\"p\"></i></div>"),
        "only the first shape: {page}"
    );
    let img = &page[page.find("<img ").unwrap()..];
    let img = &img[..img.find('>').unwrap()];
    assert!(
        img.contains("id=\"first-photo\"") && img.contains("alt=\"\""),
        "{img}"
    );
    let path = |w: u32| {
        format!(
            "/_ipx/s_{w}x{},fit_cover,f_webp/api/file/fetch/{}",
            CARD_PHOTO.height_of(w),
            kai.photo
        )
    };
    assert_eq!(attribute(img, "src"), path(CARD_PHOTO.width));
    let srcset: Vec<String> = CARD_PHOTO
        .widths
        .iter()
        .map(|&w| format!("{} {w}w", path(w)))
        .collect();
    assert_eq!(attribute(img, "srcset"), srcset.join(", "));
    assert_eq!(attribute(img, "sizes"), CARD_PHOTO.sizes);
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    // The browser fetches it with the page's cookie: Mei may see it, as a WebP.
    let photo = app
        .client
        .get(app.url(attribute(img, "src")))
        .header("cookie", format!("kizuna_token={}", mei.user.token))
        .header("accept", "image/webp")
        .send()
        .await
        .unwrap();
    assert_eq!(photo.status(), 200);
    assert_eq!(photo.headers()["content-type"], "image/webp");

    // Compressed as the browser accepts, the same page.
    let r = today_page(&app, Some(&mei.user.token), "gzip, deflate, br").await;
    assert_eq!(r.headers()["content-encoding"], "br");
    let mut unpacked = Vec::new();
    std::io::Read::read_to_end(
        &mut brotli::Decompressor::new(r.bytes().await.unwrap().as_ref(), 4096),
        &mut unpacked,
    )
    .unwrap();
    assert_eq!(String::from_utf8(unpacked).unwrap(), page);

    // Nobody else's page carries a photo: no session, a bad or ended one, a PENDING member.
    for token in [None, Some("not-a-token"), Some(pending.user.token.as_str())] {
        let r = today_page(&app, token, "identity").await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["cache-control"], "no-cache");
        assert_eq!(r.text().await.unwrap(), FRAME_PAGE);
    }
    // Kai's page has Mei's photo, never his own.
    let theirs = today_page(&app, Some(&kai.user.token), "identity")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        theirs.contains(&format!("/api/file/fetch/{} ", mei.photo)),
        "{theirs}"
    );
    assert!(!theirs.contains(&kai.photo));
    // Kai passed on by Mei leaves her list: her page is plain again.
    let r = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/introductions/{}/pass", kai.id),
        &mei.user.token,
        None,
    )
    .await;
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(
        today_page(&app, Some(&mei.user.token), "identity")
            .await
            .text()
            .await
            .unwrap(),
        FRAME_PAGE
    );

    // A build whose index.html has no frame mark: the plain page, even for Kai.
    let bare = "<!doctype html><title>Kizuna</title>";
    std::fs::write(web.join("index.html"), bare).unwrap();
    let r = today_page(&app, Some(&kai.user.token), "identity").await;
    assert_eq!(r.headers()["cache-control"], "no-cache");
    assert_eq!(r.text().await.unwrap(), bare);
}

/// /today under hostile callers: a member reloading it many times at once is answered the same
/// page each time and gets one list (made once, whichever request came first); strangers with
/// forged, empty or oversized cookies get the plain page and cause no list at all.
async fn today_holds_under_a_reloading_member_and_forged_cookies(backend: Backend) {
    let app = spawn_app(backend).await;
    let web = app.data_dir.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("index.html"), FRAME_PAGE).unwrap();
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;

    // Mei has not asked for her list yet: 32 reloads race to make it.
    let pages = futures_util::future::join_all(
        (0..32).map(|_| today_page(&app, Some(&mei.user.token), "identity")),
    )
    .await;
    let mut bodies = Vec::new();
    for r in pages {
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["cache-control"], "private, no-cache");
        bodies.push(r.text().await.unwrap());
    }
    assert!(bodies[0].contains(&format!("/api/file/fetch/{} ", kai.photo)));
    assert!(bodies.iter().all(|b| *b == bodies[0]));
    let day_rows =
        |viewer: i64| format!("SELECT COUNT(*) FROM introduction_days WHERE viewer_id = {viewer}");
    assert_eq!(count(&app, &day_rows(mei.id)).await, 1, "one list");
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) FROM introductions WHERE viewer_id = {}",
                mei.id
            )
        )
        .await,
        1,
        "Kai introduced once"
    );
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);

    // Strangers: made-up tokens, an empty one, a 4 KB one, one with bytes no token has.
    let long = "a".repeat(4096);
    let forged: Vec<String> = (0..64)
        .map(|i| format!("{i:064x}"))
        .chain(["".to_owned(), long, "%00%FF'\"--".to_owned()])
        .collect();
    let pages = futures_util::future::join_all(
        forged.iter().map(|t| today_page(&app, Some(t), "identity")),
    )
    .await;
    for r in pages {
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["cache-control"], "no-cache");
        assert_eq!(r.text().await.unwrap(), FRAME_PAGE);
    }
    // Nobody's list was made for them, and Kai's is still his to make.
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM introduction_days").await,
        1
    );
    assert_eq!(count(&app, &day_rows(kai.id)).await, 0);
}

async fn a_block_ends_the_match_for_both_at_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    introductions(&app, &mei).await;
    introductions(&app, &kai).await;
    ok_json(like(&app, &mei, kai.id).await).await;
    let matched = ok_json(like(&app, &kai, mei.id).await).await;
    assert_eq!(matched["matched"], true);
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/blocks",
        &kai.user.token,
        Some(json!({"memberId": mei.id})),
    )
    .await;
    assert_eq!(r.status(), 204);
    // Again: nothing changes.
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/blocks",
        &kai.user.token,
        Some(json!({"memberId": mei.id})),
    )
    .await;
    assert_eq!(r.status(), 204);
    for m in [&mei, &kai] {
        assert_eq!(
            ok_json(app.get("/api/matches", Some(&m.user.token)).await).await,
            json!([])
        );
        assert!(listed_ids(&introductions(&app, m).await).is_empty());
    }
    assert_sees_photos(&app, &mei, &kai, false).await;
    assert_sees_photos(&app, &kai, &mei, false).await;
}

/// The card of `member` in `list`.
fn card(list: &Value, member: i64) -> &Value {
    list["introductions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["member"]["memberId"] == member)
        .unwrap()
}

async fn a_match_leaves_discovery_and_its_card_offers_only_the_chat(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (lin, _) = approved(&app, 2, false).await;
    let list = introductions(&app, &mei).await;
    assert_eq!(list["left"], 2, "{list}");
    for m in [kai.id, lin.id] {
        assert_eq!(card(&list, m)["offer"], "ANSWER");
        assert_eq!(card(&list, m)["matchId"], Value::Null);
    }
    introductions(&app, &kai).await;
    ok_json(like(&app, &mei, kai.id).await).await;
    let list = introductions(&app, &mei).await;
    assert_eq!(card(&list, kai.id)["offer"], "WAITING");
    assert_eq!(list["left"], 1);
    let matched = ok_json(like(&app, &kai, mei.id).await).await;
    let list = introductions(&app, &mei).await;
    assert_eq!(card(&list, kai.id)["offer"], "CHAT");
    assert_eq!(card(&list, kai.id)["matchId"], matched["matchId"]);
    assert_eq!(card(&list, lin.id)["offer"], "ANSWER");
    assert_eq!(list["left"], 1);
    let theirs = introductions(&app, &kai).await;
    assert_eq!(card(&theirs, mei.id)["offer"], "CHAT");
    assert_eq!(theirs["left"], 0);
    // Unmatched: the card offers nothing (neither the chat nor a like again) until the list renews.
    let r = send(
        &app,
        reqwest::Method::DELETE,
        &format!("/api/matches/{}", matched["matchId"]),
        &mei.user.token,
        None,
    )
    .await;
    assert!(r.status().is_success(), "{}", r.status());
    let list = introductions(&app, &mei).await;
    if let Some(c) = list["introductions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["member"]["memberId"] == kai.id)
    {
        assert_eq!(c["offer"], "DONE");
        assert_eq!(c["matchId"], Value::Null);
    }
    assert_eq!(list["left"], 1);
    // Anonymous callers get nothing.
    let r = app.get("/api/introductions", None).await;
    assert_eq!(r.status(), 401);
}

async fn racing_likes_make_exactly_one_match_and_two_pushes(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    introductions(&app, &mei).await;
    introductions(&app, &kai).await;
    let (a, b) = tokio::join!(like(&app, &mei, kai.id), like(&app, &kai, mei.id));
    let (a, b) = (ok_json(a).await, ok_json(b).await);
    assert_eq!(
        [
            a["matched"].as_bool().unwrap(),
            b["matched"].as_bool().unwrap()
        ]
        .iter()
        .filter(|m| **m)
        .count(),
        1,
        "{a} {b}"
    );
    let matched = if a["matched"] == true { &a } else { &b };
    // A repeated like answers the same match and makes nothing new.
    for m in [&mei, &kai] {
        let again =
            ok_json(like(&app, m, if m.id == mei.id { kai.id } else { mei.id }).await).await;
        assert_eq!(again["matched"], true);
        assert_eq!(again["matchId"], matched["matchId"]);
    }
    let snapshot = app.snapshot().await;
    assert_eq!(snapshot.count("matches"), 1);
    assert_eq!(snapshot.count("reactions"), 2);
    for m in [&mei, &kai] {
        let list = ok_json(app.get("/api/matches", Some(&m.user.token)).await).await;
        assert_eq!(list.as_array().unwrap().len(), 1);
    }
    // One "new match" push each, through the outbox.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let pushes = app.pushes().await;
        let to = |m: &Member| {
            pushes
                .iter()
                .filter(|p| p["to"] == m.user.line_id.as_str())
                .count()
        };
        if to(&mei) == 1 && to(&kai) == 1 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{pushes:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Passing someone liked is a conflict.
    let r = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/introductions/{}/pass", kai.id),
        &mei.user.token,
        None,
    )
    .await;
    assert_error(r, 409, "E005").await;
}

async fn bad_ids_and_callers_are_refused_and_change_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (stranger, _) = approved(&app, 2, true).await;
    let (pending, _) = register(&app, 3, false).await;
    introductions(&app, &mei).await;
    let before = app.snapshot().await;
    for path in [
        "/api/introductions/abc/like".to_string(),
        "/api/introductions/0/like".to_string(),
        "/api/introductions/99999999/like".to_string(),
        format!("/api/introductions/{}/like", mei.id),
        // Another woman: never in Mei's list.
        format!("/api/introductions/{}/like", stranger.id),
        format!("/api/introductions/{}/pass", stranger.id),
    ] {
        let r = send(&app, reqwest::Method::POST, &path, &mei.user.token, None).await;
        assert_error(r, 404, "E003").await;
    }
    for path in [
        "/api/members/abc".to_string(),
        format!("/api/members/{}", stranger.id),
        format!("/api/members/{}", pending.id),
    ] {
        assert_error(app.get(&path, Some(&mei.user.token)).await, 404, "E003").await;
    }
    let r = send(
        &app,
        reqwest::Method::DELETE,
        "/api/matches/12345",
        &mei.user.token,
        None,
    )
    .await;
    assert_error(r, 404, "E003").await;
    for body in [
        json!({"memberId": stranger.id}),
        json!({"memberId": 424242}),
    ] {
        let r = send(
            &app,
            reqwest::Method::POST,
            "/api/blocks",
            &mei.user.token,
            Some(body),
        )
        .await;
        assert_error(r, 404, "E003").await;
    }
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/blocks",
        &mei.user.token,
        Some(json!({"memberId": "x"})),
    )
    .await;
    assert_error(r, 400, "E002").await;
    for (body, field) in [
        (json!({"memberId": kai.id, "reasons": []}), "reasons"),
        (json!({"memberId": kai.id, "reasons": ["NOPE"]}), "reasons"),
        (
            json!({"memberId": kai.id, "reasons": ["SPAM", "SPAM"]}),
            "reasons",
        ),
        (json!({"memberId": kai.id, "reasons": ["OTHER"]}), "text"),
    ] {
        let r = send(
            &app,
            reqwest::Method::POST,
            "/api/reports",
            &mei.user.token,
            Some(body),
        )
        .await;
        let err = assert_error(r, 422, "E002").await;
        assert!(err["fields"][field].is_array(), "{err}");
    }
    // A member who is not approved is refused everywhere.
    for (method, path) in [
        (reqwest::Method::GET, "/api/introductions".to_string()),
        (reqwest::Method::GET, "/api/matches".to_string()),
        (reqwest::Method::GET, format!("/api/members/{}", mei.id)),
        (
            reqwest::Method::POST,
            format!("/api/introductions/{}/like", mei.id),
        ),
    ] {
        let r = send(&app, method, &path, &pending.user.token, None).await;
        assert_error(r, 403, "E004").await;
    }
    assert_eq!(app.snapshot().await, before);
    // Without a session: E001.
    assert_error(app.get("/api/introductions", None).await, 401, "E001").await;
}

async fn the_daily_job_makes_every_list_and_one_morning_push_each(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (ana, _) = approved(&app, 1, true).await;
    let (kai, _) = approved(&app, 2, false).await;
    let (bo, _) = approved(&app, 3, false).await;
    let (quiet, _) = approved(&app, 4, false).await;
    let (pending, _) = register(&app, 5, true).await;
    // Quiet turns the morning push off.
    let r = send(
        &app,
        reqwest::Method::PUT,
        "/api/user/notifications",
        &quiet.user.token,
        Some(json!({"introductions": false})),
    )
    .await;
    let off = json!({"introductions": false, "matches": true, "messages": true});
    assert_eq!(ok_json(r).await, off);
    let r = app
        .get("/api/user/notifications", Some(&quiet.user.token))
        .await;
    assert_eq!(ok_json(r).await, off);
    // Kai already asked today: the job keeps his list.
    let kais = listed_ids(&introductions(&app, &kai).await);

    let today = app.clock().taipei_today();
    let report =
        kizuna_server::matchmaking::job::run(&app.db, today, app.clock().now_secs(), "liff")
            .await
            .unwrap();
    assert_eq!(report.members, 5);
    assert_eq!(report.lists, 4, "everyone but Kai");
    // Quiet's new list is made, but no push is enqueued for it (checked here, not only by the
    // pushes that arrive below, which could otherwise come before a late one to Quiet).
    assert_eq!(
        report.pushes, 4,
        "everyone with new introductions but Quiet"
    );
    assert_eq!(listed_ids(&introductions(&app, &kai).await), kais);
    let mut meis = listed_ids(&introductions(&app, &mei).await);
    meis.sort();
    assert_eq!(meis, vec![kai.id, bo.id, quiet.id]);
    assert_eq!(listed_ids(&introductions(&app, &quiet).await).len(), 2);
    assert_eq!(listed_ids(&introductions(&app, &ana).await).len(), 3);
    assert_error(
        app.get("/api/introductions", Some(&pending.user.token))
            .await,
        403,
        "E004",
    )
    .await;

    // Once more: nothing new, no second push.
    let again =
        kizuna_server::matchmaking::job::run(&app.db, today, app.clock().now_secs(), "liff")
            .await
            .unwrap();
    assert_eq!((again.lists, again.pushes), (0, 0));
    app.state.push.wake();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let pushes = app.pushes().await;
        let to = |m: &Member| -> Vec<String> {
            pushes
                .iter()
                .filter(|p| p["to"] == m.user.line_id.as_str())
                .map(|p| p["messages"][0]["altText"].as_str().unwrap().to_string())
                .collect()
        };
        if to(&mei).len() == 1 && to(&ana).len() == 1 && to(&bo).len() == 1 && to(&kai).len() == 1 {
            assert!(to(&mei)[0].contains('3'), "{:?}", to(&mei));
            assert!(to(&quiet).is_empty(), "turned off");
            assert!(to(&pending).is_empty());
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{pushes:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Two runs of the daily job at once (a serving process and `kizuna-server introductions`) and a
/// third after them: every list is written once, with exactly its picks, and every morning push
/// once, whether the list was made by either run (stored with its push) or on demand before
/// them (pushed by whichever run marks it first).
async fn racing_daily_jobs_store_each_list_and_push_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut members = Vec::new();
    for n in 0..8 {
        members.push(approved(&app, n, n % 2 == 0).await.0);
    }
    let quiet = &members[7];
    let r = send(
        &app,
        reqwest::Method::PUT,
        "/api/user/notifications",
        &quiet.user.token,
        Some(json!({"introductions": false})),
    )
    .await;
    assert_eq!(r.status(), 200);
    // One list made on demand first: the runs keep it and push it once between them.
    let early = listed_ids(&introductions(&app, &members[0]).await);
    assert!(!early.is_empty());

    let today = app.clock().taipei_today();
    let now = app.clock().now_secs();
    let (a, b) = tokio::join!(
        kizuna_server::matchmaking::job::run(&app.db, today, now, "liff"),
        kizuna_server::matchmaking::job::run(&app.db, today, now, "liff"),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.lists + b.lists, 7, "every list but the early one, once");
    // Everyone was introduced to someone (four of each side): all but Quiet are pushed.
    assert_eq!(a.pushes + b.pushes, 7, "one push each, Quiet none");
    let day = kizuna_server::storage::matchmaking::day_number(today);
    for m in &members {
        let markers = count(
            &app,
            &format!(
                "SELECT COUNT(*) FROM introduction_days WHERE viewer_id = {} AND day = {day}",
                m.id
            ),
        )
        .await;
        assert_eq!(markers, 1, "member {}", m.id);
        let picked = count(
            &app,
            &format!(
                "SELECT CAST(picked AS BIGINT) FROM introduction_days \
                 WHERE viewer_id = {} AND day = {day}",
                m.id
            ),
        )
        .await;
        let rows = count(
            &app,
            &format!(
                "SELECT COUNT(*) FROM introductions WHERE viewer_id = {} AND day = {day}",
                m.id
            ),
        )
        .await;
        assert!(picked > 0);
        assert_eq!(rows, picked, "member {}: its picks once", m.id);
        assert_eq!(
            listed_ids(&introductions(&app, m).await).len() as i64,
            picked
        );
        let pushes = count(
            &app,
            &format!(
                "SELECT COUNT(*) FROM push_outbox WHERE kind = 'introductions' \
                 AND line_user_id = '{}'",
                m.user.line_id
            ),
        )
        .await;
        assert_eq!(pushes, i64::from(m.id != quiet.id), "member {}", m.id);
    }
    assert_eq!(listed_ids(&introductions(&app, &members[0]).await), early);

    // Once more: nothing is written twice.
    let again = kizuna_server::matchmaking::job::run(&app.db, today, now, "liff")
        .await
        .unwrap();
    assert_eq!((again.lists, again.pushes), (0, 0));
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM push_outbox WHERE kind = 'introductions'"
        )
        .await,
        7
    );
    // The pushes stored in bulk are the ones the worker sends: each member's count, in words.
    app.state.push.wake();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let pushes = app.pushes().await;
        let sent: Vec<&Value> = pushes
            .iter()
            .filter(|p| members.iter().any(|m| p["to"] == m.user.line_id.as_str()))
            .collect();
        if sent.len() >= 7 {
            assert_eq!(sent.len(), 7, "{pushes:?}");
            for m in &members[..7] {
                let mine: Vec<&&Value> = sent
                    .iter()
                    .filter(|p| p["to"] == m.user.line_id.as_str())
                    .collect();
                assert_eq!(mine.len(), 1, "member {}: {pushes:?}", m.id);
                let n = listed_ids(&introductions(&app, m).await).len();
                let alt = mine[0]["messages"][0]["altText"].as_str().unwrap();
                assert!(alt.contains(&n.to_string()), "{alt}");
            }
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{pushes:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The daily job and a list made on demand take the same five from the same state: both are the
/// core's ranking and its `DailyPick`.
async fn the_job_and_an_on_demand_list_pick_alike(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let mut men = Vec::new();
    for n in 1..=8 {
        men.push(approved(&app, n, false).await.0);
    }
    let on_demand = listed_ids(&introductions(&app, &mei).await);
    assert_eq!(
        on_demand.len(),
        5,
        "more candidates than places: the pick chose"
    );
    // Forget Mei's list, as if she had not asked yet today; the job then makes it.
    for table in ["introductions", "introduction_days"] {
        app.db
            .execute_unprepared(&format!("DELETE FROM {table} WHERE viewer_id = {}", mei.id))
            .await
            .unwrap();
    }
    let today = app.clock().taipei_today();
    kizuna_server::matchmaking::job::run(&app.db, today, app.clock().now_secs(), "liff")
        .await
        .unwrap();
    let by_job = listed_ids(&introductions(&app, &mei).await);
    assert_eq!(by_job, on_demand, "the same five in the same order");
    assert!(by_job.iter().all(|id| men.iter().any(|m| m.id == *id)));
}

/// One scalar of the test database.
async fn count(app: &TestApp, query: &str) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            query.to_string(),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get_by_index::<i64>(0)
        .unwrap()
}

/// Waits up to 30 s for a query's count to reach `want`.
async fn wait_for_count(app: &TestApp, query: &str, want: i64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let got = count(app, query).await;
        if got == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{query}: {got}, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn the_scheduled_job_runs_once_a_day_at_its_taipei_time(backend: Backend) {
    use kizuna_server::{
        clock::Clock,
        matchmaking::schedule::{Looks, Schedule},
    };
    // 05:50 in Taipei: ten minutes before the run.
    let clock = Clock::system();
    let local = clock.now_secs() + kizuna_core::rules::TAIPEI_UTC_OFFSET_SECS;
    clock.advance((5 * 3600 + 50 * 60 - local.rem_euclid(86_400)).rem_euclid(86_400));
    let day = kizuna_server::storage::matchmaking::day_number(clock.taipei_today());
    let (looks, second_looks) = (Looks::new(), Looks::new());
    let schedule = Schedule {
        poll: Duration::from_millis(50),
        looks: Some(looks.clone()),
        ..Schedule::default_morning()
    };
    let with_schedule = |clock: Clock, schedule: Schedule| {
        move |s: &mut kizuna_server::configuration::Settings| {
            s.clock = clock;
            s.introductions = Some(schedule);
        }
    };
    let app =
        crate::helpers::spawn_app_with(backend, with_schedule(clock.clone(), schedule.clone()))
            .await;
    // A second server process on the same PostgreSQL database, polling as often.
    let _second = if backend == Backend::Postgres {
        let url = app.database_url.clone();
        let clock = clock.clone();
        let schedule = Schedule {
            looks: Some(second_looks.clone()),
            ..schedule.clone()
        };
        Some(
            crate::helpers::spawn_app_with(backend, move |s| {
                with_schedule(clock, schedule)(s);
                s.database_url = Some(url);
            })
            .await,
        )
    } else {
        None
    };
    // Both processes looked (twice, so at least once after what came before) and did nothing.
    let both_looked = || async {
        looks.wait(2).await;
        if _second.is_some() {
            second_looks.wait(2).await;
        }
    };
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (bo, _) = approved(&app, 2, false).await;
    let (quiet, _) = approved(&app, 3, false).await;
    let r = send(
        &app,
        reqwest::Method::PUT,
        "/api/user/notifications",
        &quiet.user.token,
        Some(json!({"introductions": false})),
    )
    .await;
    assert_eq!(r.status(), 200);

    // Before its time: no run, no list.
    both_looked().await;
    assert_eq!(count(&app, "SELECT COUNT(*) FROM job_runs").await, 0);
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM introduction_days").await,
        0
    );

    let pushes_to = |m: &Member| {
        format!(
            "SELECT COUNT(*) FROM push_outbox WHERE line_user_id = '{}'",
            m.user.line_id
        )
    };
    let mut before = Vec::new();
    for m in [&mei, &kai, &bo, &quiet] {
        before.push(count(&app, &pushes_to(m)).await);
    }

    clock.advance(11 * 60);
    let finished = format!(
        "SELECT COUNT(*) FROM job_runs WHERE job = 'introductions' AND day = {day} \
         AND finished_at IS NOT NULL AND lists = 4"
    );
    wait_for_count(&app, &finished, 1).await;
    // Some more looks by both processes change nothing.
    both_looked().await;
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM job_runs").await,
        1,
        "one run"
    );
    assert_eq!(
        count(&app, "SELECT CAST(SUM(claims) AS BIGINT) FROM job_runs").await,
        1,
        "claimed once"
    );
    assert_eq!(
        count(
            &app,
            &format!("SELECT COUNT(*) FROM introduction_days WHERE day = {day}")
        )
        .await,
        4
    );
    let mut meis = listed_ids(&introductions(&app, &mei).await);
    meis.sort();
    assert_eq!(meis, vec![kai.id, bo.id, quiet.id]);
    // One morning push each, none for the member who turned it off.
    for ((m, pushes), before) in [(&mei, 1), (&kai, 1), (&bo, 1), (&quiet, 0)]
        .into_iter()
        .zip(before)
    {
        assert_eq!(
            count(&app, &pushes_to(m)).await - before,
            pushes,
            "{}",
            m.user.line_id
        );
    }

    // The next morning: one more run.
    clock.advance(86_400);
    wait_for_count(
        &app,
        "SELECT COUNT(*) FROM job_runs WHERE finished_at IS NOT NULL",
        2,
    )
    .await;
    both_looked().await;
    assert_eq!(
        count(&app, "SELECT CAST(SUM(claims) AS BIGINT) FROM job_runs").await,
        2
    );
}

/// A process stopped in the middle of the morning run (a deploy at 06:00) gives its claim back:
/// the next process runs today's job at once instead of waiting out the two-hour lease.
async fn a_run_cut_short_by_a_shutdown_is_run_at_once_by_the_next_process(backend: Backend) {
    use kizuna_server::{
        clock::Clock,
        matchmaking::schedule::{Gate, Schedule},
    };
    // 06:30 in Taipei: the run is due at once.
    let clock = Clock::system();
    let local = clock.now_secs() + kizuna_core::rules::TAIPEI_UTC_OFFSET_SECS;
    clock.advance((6 * 3600 + 30 * 60 - local.rem_euclid(86_400)).rem_euclid(86_400));
    let day = kizuna_server::storage::matchmaking::day_number(clock.taipei_today());
    let schedule = Schedule {
        poll: Duration::from_millis(50),
        ..Schedule::default_morning()
    };
    // The first process claims the run, which then hangs until the process stops.
    let gated = Schedule {
        gate: Some(Gate::closed()),
        ..schedule.clone()
    };
    let (first_clock, first_schedule) = (clock.clone(), gated);
    let mut first = crate::helpers::spawn_app_with(backend, move |s| {
        s.clock = first_clock;
        s.introductions = Some(first_schedule);
    })
    .await;
    approved(&first, 0, true).await;
    approved(&first, 1, false).await;
    let unfinished = format!(
        "SELECT COUNT(*) FROM job_runs WHERE job = 'introductions' AND day = {day} \
         AND finished_at IS NULL"
    );
    wait_for_count(&first, &unfinished, 1).await;
    first.shut_down().await;
    assert_eq!(
        count(&first, "SELECT COUNT(*) FROM job_runs").await,
        0,
        "the claim is given back"
    );

    let (url, data_dir) = (first.database_url.clone(), first.data_dir.clone());
    // The next process on the same machine: the same data dir (its files), the same database.
    // Counted through the first one's connection: it goes to the shared database.
    let _second = crate::helpers::spawn_app_with(backend, move |s| {
        s.clock = clock;
        s.introductions = Some(schedule);
        s.database_url = Some(url);
        s.data_dir = data_dir;
    })
    .await;
    wait_for_count(
        &first,
        &format!(
            "SELECT COUNT(*) FROM job_runs WHERE job = 'introductions' AND day = {day} \
             AND finished_at IS NOT NULL AND lists = 2"
        ),
        1,
    )
    .await;
    assert_eq!(
        count(&first, "SELECT COUNT(*) FROM introduction_days").await,
        2
    );
}

/// Every answer a member can get about others, scanned for the others' private details.
async fn no_answer_carries_another_members_private_details(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, mei_secrets) = approved(&app, 0, true).await;
    let (kai, kai_secrets) = approved(&app, 1, false).await;
    let (bo, bo_secrets) = approved(&app, 2, false).await;
    // Each has a revision waiting for review: nothing of it reaches another
    // member before a reviewer approves it.
    let mut unapproved = Vec::new();
    for (n, m) in [&mei, &kai, &bo].into_iter().enumerate() {
        let photo = app.upload_ok(&m.user.token, jpeg(70, 50)).await;
        let proof = app.upload_ok(&m.user.token, jpeg(30, 30)).await;
        let mut form =
            ok_json(app.get("/api/user/my-info", Some(&m.user.token)).await).await["profile"]
                .clone();
        let words = format!("Unapproved revision words number {n}");
        form["nickname"] = json!(format!("Revised{n}"));
        form["aboutMe"] = json!(words);
        form["datingQuestion"] = json!(format!("Unapproved question {n}"));
        form["photoNameList"] = json!([photo]);
        form["verifyTempFileName"] = json!(proof);
        form["verifyDescription"] = json!(format!("Unapproved proof {n}"));
        let saved = ok_json(
            send(
                &app,
                reqwest::Method::PUT,
                "/api/user-profile/edit",
                &m.user.token,
                Some(form),
            )
            .await,
        )
        .await;
        assert_eq!(saved["revision"]["status"], "PENDING", "{saved}");
        unapproved.extend([
            format!("Revised{n}"),
            words,
            format!("Unapproved question {n}"),
            photo,
            proof,
            format!("Unapproved proof {n}"),
        ]);
    }
    let mut answers = Vec::new();
    answers.push(introductions(&app, &mei).await);
    answers.push(introductions(&app, &kai).await);
    answers.push(introductions(&app, &bo).await);
    for (viewer, target) in [(&mei, &kai), (&mei, &bo), (&kai, &mei), (&bo, &mei)] {
        answers.push(
            ok_json(
                app.get(
                    &format!("/api/members/{}", target.id),
                    Some(&viewer.user.token),
                )
                .await,
            )
            .await,
        );
    }
    // A like with a comment, as its receiver and sender see it (card, profile, likes lists).
    let comment = json!({"comment": {"text": "Which trail?", "answer": "DATING_QUESTION"}});
    answers.push(
        ok_json(
            send(
                &app,
                reqwest::Method::POST,
                &format!("/api/introductions/{}/like", kai.id),
                &mei.user.token,
                Some(comment),
            )
            .await,
        )
        .await,
    );
    answers.push(introductions(&app, &kai).await);
    for (viewer, target) in [(&kai, &mei), (&mei, &kai)] {
        answers.push(
            ok_json(
                app.get(
                    &format!("/api/members/{}", target.id),
                    Some(&viewer.user.token),
                )
                .await,
            )
            .await,
        );
        answers.push(ok_json(app.get("/api/likes", Some(&viewer.user.token)).await).await);
    }
    assert!(
        answers
            .iter()
            .any(|a| a["received"][0]["like"]["comment"]["text"] == "Which trail?")
    );
    answers.push(ok_json(like(&app, &kai, mei.id).await).await);
    // Chat: the messages, both pages, the events each side's stream got, the match lists
    // with their last message.
    let match_id =
        ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await[0]["matchId"]
            .as_i64()
            .unwrap();
    let mut mei_events = crate::chat::Events::open(&app, &mei).await;
    let mut kai_events = crate::chat::Events::open(&app, &kai).await;
    let sent = ok_json(crate::chat::post(&app, &mei, match_id, "privacy-1", "Hi Kai").await).await;
    answers.push(sent.clone());
    answers
        .push(ok_json(crate::chat::post(&app, &kai, match_id, "privacy-2", "Hi Mei").await).await);
    let r = send(
        &app,
        reqwest::Method::PUT,
        &format!("/api/matches/{match_id}/read"),
        &kai.user.token,
        Some(json!({"upTo": sent["messageId"]})),
    )
    .await;
    assert_eq!(r.status(), 204);
    for _ in 0..2 {
        answers.push(kai_events.expect("message").await);
    }
    for kind in ["message", "message", "read"] {
        answers.push(mei_events.expect(kind).await);
    }
    for m in [&mei, &kai] {
        answers.push(ok_json(crate::chat::history(&app, m, match_id, "").await).await);
    }
    for m in [&mei, &kai] {
        answers.push(ok_json(app.get("/api/matches", Some(&m.user.token)).await).await);
    }
    assert!(answers.iter().any(|a| a["message"]["text"] == "Hi Mei"));
    let text = answers
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("Nick1") && text.contains("Nick0") && text.contains("distanceBand"));
    // What members chose and filter on is shown; the private fields below are not.
    for shown in [
        "\"height\":176",
        "\"education\":\"MASTER\"",
        "\"marriageRecord\":0",
        "\"hasChildren\":0",
        "\"smoke\":0",
        "\"drink\":1",
        "\"tattoo\":\"NONE\"",
        "\"mbti\":\"INTJ\"",
        "\"verifiedEmployer\":true",
    ] {
        assert!(text.contains(shown), "{shown} missing: {text}");
    }
    for s in [&mei_secrets, &kai_secrets, &bo_secrets] {
        for secret in [
            s.name.clone(),
            s.birthday.to_string(),
            s.address.clone(),
            format!("{}", s.latitude),
            format!("{}", s.longitude),
            format!("{:.2}", s.latitude),
            s.email.clone(),
            s.income.to_string(),
            s.employer.to_string(),
        ] {
            assert!(!text.contains(&secret), "{secret} leaked: {text}");
        }
    }
    for key in [
        "\"name\"",
        "birthday",
        "address",
        "latitude",
        "longitude",
        "mail",
        "income",
        "employerName",
        "verify",
        "lineUserId",
        "school",
        "achievement",
    ] {
        assert!(!text.contains(key), "{key} in an answer: {text}");
    }
    // The LINE ids of others never appear either.
    for m in [&mei, &kai, &bo] {
        assert!(!text.contains(&m.user.line_id));
    }
    for revised in &unapproved {
        assert!(
            !text.contains(revised.as_str()),
            "unapproved {revised} in an answer: {text}"
        );
    }
}

/// A reported member reaches the reviewers' report queue (members are refused it); a reviewer
/// suspends them from there: their match ends for the other person at once, their photos go,
/// every open report about them is settled, and a dismissal is answered once.
async fn a_reviewer_suspends_a_reported_member_and_their_matches_end(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (lin, _) = approved(&app, 2, true).await;
    introductions(&app, &mei).await;
    introductions(&app, &kai).await;
    introductions(&app, &lin).await;
    ok_json(like(&app, &mei, kai.id).await).await;
    assert_eq!(
        ok_json(like(&app, &kai, mei.id).await).await["matched"],
        true
    );
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/reports",
        &lin.user.token,
        Some(
            json!({"memberId": kai.id, "reasons": ["SCAM_OR_MONEY"], "text": "asked me to invest"}),
        ),
    )
    .await;
    let first = ok_json(r).await;
    let first = first["reportId"].as_i64().unwrap();

    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    // A member is refused the queue and the dismissal.
    assert_error(
        app.get("/api/review/reports", Some(&mei.user.token)).await,
        403,
        "E004",
    )
    .await;
    let r = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/review/reports/{first}/dismiss"),
        &mei.user.token,
        None,
    )
    .await;
    assert_error(r, 403, "E004").await;

    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    let items = queue["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["reportId"], first);
    assert_eq!(items[0]["reporter"]["profileId"], lin.id);
    assert_eq!(items[0]["target"]["profileId"], kai.id);
    assert_eq!(items[0]["target"]["nickname"], "Nick1");
    assert_eq!(items[0]["targetStatus"], "APPROVED");
    assert_eq!(items[0]["reasons"], json!(["SCAM_OR_MONEY"]));
    assert_eq!(items[0]["suggestedSuspension"], json!(["SCAM"]));
    assert_eq!(items[0]["text"], "asked me to invest");
    let version = items[0]["targetVersion"].as_i64().unwrap();

    // Suspending from the report: the match ends for Mei too, Kai's photos are gone for her.
    assert_sees_photos(&app, &mei, &kai, true).await;
    let r = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/review/profiles/{}/decision", kai.id),
        &reviewer.token,
        Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
    )
    .await;
    assert_eq!(ok_json(r).await["status"], "SUSPENDED");
    assert_eq!(
        ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await,
        json!([])
    );
    assert_sees_photos(&app, &mei, &kai, false).await;
    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    assert_eq!(queue["items"], json!([]));
    // The report was settled by the suspension: dismissing it now is a conflict; unknown: 404.
    let r = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/review/reports/{first}/dismiss"),
        &reviewer.token,
        None,
    )
    .await;
    assert_error(r, 409, "E005").await;
    let r = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/review/reports/{}/dismiss", first + 1000),
        &reviewer.token,
        None,
    )
    .await;
    assert_error(r, 404, "E003").await;
}

/// Dismissing an open report closes it once: a second reviewer's dismissal is a conflict, and
/// the reported member stays as they were.
async fn a_dismissed_report_leaves_the_queue_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    introductions(&app, &mei).await;
    let r = send(
        &app,
        reqwest::Method::POST,
        "/api/reports",
        &mei.user.token,
        Some(json!({"memberId": kai.id, "reasons": ["OTHER"], "text": "odd photos"})),
    )
    .await;
    let id = ok_json(r).await["reportId"].as_i64().unwrap();
    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    let path = format!("/api/review/reports/{id}/dismiss");
    let (a, b) = tokio::join!(
        send(&app, reqwest::Method::POST, &path, &reviewer.token, None),
        send(&app, reqwest::Method::POST, &path, &reviewer.token, None),
    );
    let mut statuses = [a.status().as_u16(), b.status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409]);
    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    assert_eq!(queue["items"], json!([]));
    let status = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT status FROM profiles WHERE id = {}", kai.id),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<String>("", "status")
        .unwrap();
    assert_eq!(status, "APPROVED");
}

/// Saves an approved member's edit form with new about-me words: a revision waits for review.
async fn save_a_revision(app: &TestApp, m: &Member) {
    let info = ok_json(app.get("/api/user/my-info", Some(&m.user.token)).await).await;
    let mut form = info["profile"].clone();
    form["aboutMe"] = json!("Words of a revision waiting for its review.");
    let r = send(
        app,
        reqwest::Method::PUT,
        "/api/user-profile/edit",
        &m.user.token,
        Some(form),
    )
    .await;
    assert_eq!(ok_json(r).await["revision"]["status"], "PENDING");
}

/// A reviewer who is also a member acts on nothing they are a party to: not their own profile
/// (a claim, a decision, its revision's decision, its employer), not a report they filed or one
/// about them, not a decision on a member with an open report between them. Another reviewer
/// may; once the reports are settled, so may they.
async fn a_reviewer_acts_on_nothing_they_are_a_party_to(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    introductions(&app, &mei).await;
    introductions(&app, &kai).await;
    save_a_revision(&app, &mei).await;
    save_a_revision(&app, &kai).await;
    async fn report(app: &TestApp, by: &Member, about: &Member) -> Response {
        send(
            app,
            reqwest::Method::POST,
            "/api/reports",
            &by.user.token,
            Some(json!({"memberId": about.id, "reasons": ["OTHER"], "text": "odd"})),
        )
        .await
    }
    let by_mei = ok_json(report(&app, &mei, &kai).await).await["reportId"]
        .as_i64()
        .unwrap();
    let about_mei = ok_json(report(&app, &kai, &mei).await).await["reportId"]
        .as_i64()
        .unwrap();
    app.mock_post("/__mock/reviewers", json!({"userId": mei.user.line_id}))
        .await;
    let other = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": other.line_id}))
        .await;
    async fn post(app: &TestApp, path: String, token: &str, body: Option<Value>) -> Response {
        send(app, reqwest::Method::POST, &path, token, body).await
    }
    async fn put(app: &TestApp, path: String, token: &str, body: Value) -> Response {
        send(app, reqwest::Method::PUT, &path, token, Some(body)).await
    }
    let dismiss = |id: i64| format!("/api/review/reports/{id}/dismiss");
    let claim = |id: i64| format!("/api/review/profiles/{id}/claim");
    let decision = |id: i64| format!("/api/review/profiles/{id}/decision");
    let revision = |id: i64| format!("/api/review/profiles/{id}/revision/decision");
    let employer = |id: i64| format!("/api/review/profiles/{id}/employer");
    let approve_revision = json!({"action": "APPROVE", "revision": 1});
    let tsmc = json!({"employer": "tsmc"});
    let before = app.snapshot().await;

    for id in [by_mei, about_mei] {
        let r = post(&app, dismiss(id), &mei.user.token, None).await;
        assert_error(r, 403, "E004").await;
    }
    // Suspending Kai would settle her own report about him (and answer his about her).
    let r = post(&app, claim(kai.id), &mei.user.token, None).await;
    assert_error(r, 403, "E004").await;
    let view = ok_json(
        app.get(
            &format!("/api/review/profiles/{}", kai.id),
            Some(&other.token),
        )
        .await,
    )
    .await;
    let suspend = json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": view["version"]});
    let r = post(
        &app,
        decision(kai.id),
        &mei.user.token,
        Some(suspend.clone()),
    )
    .await;
    assert_error(r, 403, "E004").await;
    // Neither Kai's revision nor his employer while the reports are open, nor her own ever.
    for id in [kai.id, mei.id] {
        let r = post(
            &app,
            revision(id),
            &mei.user.token,
            Some(approve_revision.clone()),
        )
        .await;
        assert_error(r, 403, "E004").await;
        let r = put(&app, employer(id), &mei.user.token, tsmc.clone()).await;
        assert_error(r, 403, "E004").await;
    }
    let r = post(&app, claim(mei.id), &mei.user.token, None).await;
    assert_error(r, 403, "E004").await;
    let own = json!({"action": "APPROVE", "employer": "tsmc", "version": 1});
    let r = post(&app, decision(mei.id), &mei.user.token, Some(own)).await;
    assert_error(r, 403, "E004").await;
    assert_eq!(app.snapshot().await, before, "nothing changed");

    // Another reviewer dismisses both; with nothing open between them, Mei may review Kai.
    for id in [by_mei, about_mei] {
        ok_json(post(&app, dismiss(id), &other.token, None).await).await;
    }
    ok_json(post(&app, claim(kai.id), &mei.user.token, None).await).await;
    let set = ok_json(put(&app, employer(kai.id), &mei.user.token, tsmc.clone()).await).await;
    assert_eq!(set["id"], "tsmc");
    let r = post(
        &app,
        revision(kai.id),
        &mei.user.token,
        Some(approve_revision.clone()),
    )
    .await;
    assert_eq!(ok_json(r).await["status"], "APPROVED");
    // Her own stays another reviewer's to decide.
    let before = app.snapshot().await;
    let r = post(&app, claim(mei.id), &mei.user.token, None).await;
    assert_error(r, 403, "E004").await;
    let r = post(
        &app,
        revision(mei.id),
        &mei.user.token,
        Some(approve_revision.clone()),
    )
    .await;
    assert_error(r, 403, "E004").await;
    let r = put(&app, employer(mei.id), &mei.user.token, tsmc.clone()).await;
    assert_error(r, 403, "E004").await;
    assert_eq!(app.snapshot().await, before, "nothing changed");
    ok_json(put(&app, employer(mei.id), &other.token, tsmc).await).await;
    let r = post(&app, revision(mei.id), &other.token, Some(approve_revision)).await;
    assert_eq!(ok_json(r).await["status"], "APPROVED");
}

/// A reviewer's report queue holds no report they filed nor one about them (with the
/// reporter's name, words and the pair's conversation): the other reviewers read those. A page
/// of their queue is full of the others.
async fn a_reviewer_is_not_shown_reports_by_or_about_themselves(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (lin, _) = approved(&app, 2, true).await;
    for m in [&mei, &kai, &lin] {
        introductions(&app, m).await;
    }
    async fn report(app: &TestApp, by: &Member, about: &Member, text: &str) -> i64 {
        let r = send(
            app,
            reqwest::Method::POST,
            "/api/reports",
            &by.user.token,
            Some(json!({"memberId": about.id, "reasons": ["OTHER"], "text": text})),
        )
        .await;
        ok_json(r).await["reportId"].as_i64().unwrap()
    }
    let by_mei = report(&app, &mei, &kai, "filed by the reviewer").await;
    app.clock().advance(1);
    let about_mei = report(&app, &kai, &mei, "about the reviewer").await;
    app.clock().advance(1);
    let by_lin = report(&app, &lin, &kai, "between two others").await;
    app.mock_post("/__mock/reviewers", json!({"userId": mei.user.line_id}))
        .await;
    let other = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": other.line_id}))
        .await;
    async fn queue(app: &TestApp, token: &str, query: &str) -> Vec<i64> {
        let r = app
            .get(&format!("/api/review/reports{query}"), Some(token))
            .await;
        ok_json(r).await["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["reportId"].as_i64().unwrap())
            .collect()
    }
    assert_eq!(
        queue(&app, &other.token, "").await,
        vec![by_mei, about_mei, by_lin]
    );
    let text = ok_json(app.get("/api/review/reports", Some(&mei.user.token)).await)
        .await
        .to_string();
    assert!(
        !text.contains("filed by the reviewer") && !text.contains("about the reviewer"),
        "{text}"
    );
    assert_eq!(queue(&app, &mei.user.token, "").await, vec![by_lin]);
    assert_eq!(queue(&app, &mei.user.token, "?limit=1").await, vec![by_lin]);
    assert_eq!(queue(&app, &other.token, "?limit=1").await, vec![by_mei]);
}

/// A reviewer sees a member's upload once a profile under review claims it, not before: what a
/// member uploads on the way (and never submits), and an upload they only made their avatar, is
/// theirs alone.
async fn reviewers_see_uploads_only_once_a_profile_claims_them(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    let member = app.new_user().await;
    let photo = app.upload_ok(&member.token, jpeg(64, 48)).await;
    let verify = app.upload_ok(&member.token, jpeg(32, 32)).await;
    let avatar = app.upload_ok(&member.token, jpeg(40, 40)).await;
    assert_eq!(app.set_avatar(&member.token, &avatar).await.status(), 200);
    async fn fetch(app: &TestApp, id: &str, token: &str) -> Response {
        app.get(&format!("/api/file/fetch/{id}"), Some(token)).await
    }
    for id in [&photo, &verify, &avatar] {
        assert_error(fetch(&app, id, &reviewer.token).await, 404, "E003").await;
        let r = app
            .get(
                &format!("/_ipx/w_40/api/file/fetch/{id}"),
                Some(&reviewer.token),
            )
            .await;
        assert_eq!(r.status(), 404, "the image proxy agrees");
        assert_eq!(
            fetch(&app, id, &member.token).await.status(),
            200,
            "its owner"
        );
    }
    let body = profile_payload(&member.line_id, std::slice::from_ref(&photo), &verify);
    let r = app.create_profile(Some(&member.id_token), &body).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    for id in [&photo, &verify] {
        assert_eq!(
            fetch(&app, id, &reviewer.token).await.status(),
            200,
            "claimed: {id}"
        );
    }
    // The avatar is no part of the profile under review: still its owner's alone.
    assert_error(fetch(&app, &avatar, &reviewer.token).await, 404, "E003").await;
    assert_eq!(fetch(&app, &avatar, &member.token).await.status(), 200);
}

on_both_backends!(
    a_reviewer_acts_on_nothing_they_are_a_party_to,
    a_reviewer_is_not_shown_reports_by_or_about_themselves,
    reviewers_see_uploads_only_once_a_profile_claims_them,
    never_an_unapproved_suspended_blocked_or_reported_member_is_introduced,
    the_pools_query_keeps_exactly_whom_the_core_lets_take_part,
    the_list_is_fixed_for_the_taipei_day_and_new_the_next_day,
    photos_follow_introductions_and_matches,
    a_returning_members_today_has_the_first_cards_photo_in_its_frame,
    today_holds_under_a_reloading_member_and_forged_cookies,
    a_block_ends_the_match_for_both_at_once,
    a_match_leaves_discovery_and_its_card_offers_only_the_chat,
    racing_likes_make_exactly_one_match_and_two_pushes,
    bad_ids_and_callers_are_refused_and_change_nothing,
    the_daily_job_makes_every_list_and_one_morning_push_each,
    racing_daily_jobs_store_each_list_and_push_once,
    the_job_and_an_on_demand_list_pick_alike,
    the_scheduled_job_runs_once_a_day_at_its_taipei_time,
    a_run_cut_short_by_a_shutdown_is_run_at_once_by_the_next_process,
    no_answer_carries_another_members_private_details,
    a_reviewer_suspends_a_reported_member_and_their_matches_end,
    a_dismissed_report_leaves_the_queue_once,
);

/// Rows of `introductions` naming `profile` (as viewer or target).
async fn introduction_rows(app: &TestApp, profile: i64) -> i64 {
    crate::helpers::number(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM introductions WHERE viewer_id = {profile} OR target_id = {profile}"
        ),
    )
    .await
}

/// Deletes a member as leaving does in the end: the user's row, the profile by its cascade.
fn delete_member(profile: i64) -> String {
    format!("DELETE FROM users WHERE id = (SELECT user_id FROM profiles WHERE id = {profile})")
}

/// On PostgreSQL `introductions` has no foreign keys (the daily job at a million members): a
/// list's transaction locks its targets as the key checks did, and a profile's deletion removes
/// its rows through a trigger. Whichever of a list and the deletion of one of its members comes
/// first, the other waits for it, and no row is left naming the member who is gone.
#[tokio::test]
async fn a_list_and_the_deletion_of_one_of_its_members_leave_no_row_naming_the_deleted_postgres() {
    use kizuna_server::storage::daily_lists;
    use sea_orm::TransactionTrait;

    let app = spawn_app(Backend::Postgres).await;
    let (a, _) = approved(&app, 1, false).await;
    let (b, _) = approved(&app, 2, true).await;
    let (c, _) = approved(&app, 3, true).await;
    let (d, _) = approved(&app, 4, true).await;
    let day = kizuna_core::date::Date::from_ymd(2030, 1, 7).unwrap();
    let next = kizuna_core::date::Date::from_ymd(2030, 1, 8).unwrap();

    // The list first: C's deletion waits for the list's commit, then takes C's row with it.
    let txn = app.db.begin().await.unwrap();
    let fresh = daily_lists::insert_lists(&txn, day, &[(a.id, vec![b.id, c.id])], 0)
        .await
        .unwrap();
    assert_eq!(fresh, 1);
    let db = app.db.clone();
    let deleting = tokio::spawn(async move { db.execute_unprepared(&delete_member(c.id)).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !deleting.is_finished(),
        "the deletion waits for the list holding its member"
    );
    txn.commit().await.unwrap();
    deleting.await.unwrap().unwrap();
    assert_eq!(
        introduction_rows(&app, c.id).await,
        0,
        "C's row went with C"
    );
    assert_eq!(introduction_rows(&app, b.id).await, 1, "B's row stays");

    // The deletion first: the list waits for its commit, then stores only who is still there.
    let deletion = app.db.begin().await.unwrap();
    deletion
        .execute_unprepared(&delete_member(d.id))
        .await
        .unwrap();
    let db = app.db.clone();
    let (viewer, targets) = (b.id, vec![a.id, d.id]);
    let listing = tokio::spawn(async move {
        let txn = db.begin().await.unwrap();
        let fresh = daily_lists::insert_lists(&txn, next, &[(viewer, targets)], 0).await;
        txn.commit().await.unwrap();
        fresh
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !listing.is_finished(),
        "the list waits for the deletion of one of its members"
    );
    deletion.commit().await.unwrap();
    assert_eq!(listing.await.unwrap().unwrap(), 1);
    assert_eq!(introduction_rows(&app, d.id).await, 0, "no row names D");
    assert_eq!(
        crate::helpers::number(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM introductions WHERE viewer_id = {} AND target_id = {}",
                b.id, a.id
            )
        )
        .await,
        1,
        "B's list keeps A"
    );
}
