//! Reused photos: the review console shows, beside a profile under review, the photos that
//! resemble another member's (by their perceptual hashes), with that member and their status,
//! including a member who left while suspended; nobody but a reviewer sees it.

use image::{DynamicImage, imageops::FilterType};
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, User, assert_error, number, spawn_app, spawn_app_with},
    matchmaking::{Member, ok_json, register_user, send, set_status},
    on_both_backends,
    review::make_reviewer,
};

/// A picture of its own for each `seed`: a 4 × 3 grid of blocks of pseudo-random shades over a
/// soft diagonal gradient (distinct seeds differ in their coarse layout, which the hash reads).
fn scene(seed: u32) -> DynamicImage {
    let (w, h) = (480u32, 360u32);
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(0x9E37_79B9);
    let shades: Vec<[u8; 3]> = (0..12)
        .map(|_| {
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state % 256) as u8
            };
            [next(), next(), next()]
        })
        .collect();
    DynamicImage::ImageRgb8(image::RgbImage::from_fn(w, h, |x, y| {
        let block = shades[((y * 3 / h) * 4 + x * 4 / w) as usize];
        let soft = ((x + y) * 40 / (w + h)) as u8;
        image::Rgb(block.map(|c| c / 2 + soft + ((x / 7 + y / 5) % 3) as u8 * 8))
    }))
}

fn jpeg_of(img: &DynamicImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(&img.to_rgb8())
        .unwrap();
    out
}

/// A member registered (PENDING) with `photo` as their only photo.
async fn register_with(app: &TestApp, n: usize, photo: Vec<u8>) -> (Member, String) {
    let user = app.new_user().await;
    register_user_with(app, user, n, photo).await
}

async fn register_user_with(
    app: &TestApp,
    user: User,
    n: usize,
    photo: Vec<u8>,
) -> (Member, String) {
    let file = app.upload_ok(&user.token, photo).await;
    let chosen = file.clone();
    let (member, _) = register_user(&app.api, app, user, n, n.is_multiple_of(2), move |body| {
        body["photoNameList"] = json!([chosen]);
    })
    .await;
    (member, file)
}

async fn review_of(app: &TestApp, reviewer: &User, pid: i64) -> Value {
    ok_json(
        send(
            app,
            Method::GET,
            &format!("/api/review/profiles/{pid}"),
            &reviewer.token,
            None,
        )
        .await,
    )
    .await
}

async fn a_returning_members_reused_photos_are_shown_to_the_reviewer(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app.api).await;
    // Kai was suspended and left; Ren is suspended and still here; Mei is approved with a photo
    // of her own.
    let (kai, _) = register_with(&app, 1, jpeg_of(&scene(1), 90)).await;
    set_status(&app, &kai, "SUSPENDED").await;
    let (ren, ren_photo) = register_with(&app, 3, jpeg_of(&scene(2), 90)).await;
    set_status(&app, &ren, "SUSPENDED").await;
    let (mei, _) = register_with(&app, 4, jpeg_of(&scene(3), 90)).await;
    set_status(&app, &mei, "APPROVED").await;
    let r = send(
        &app,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert_eq!(r.status(), 204);

    // He comes back with a new LINE account: Kai's photo recompressed, mirrored and smaller as
    // his profile photo, and Ren's cropped by a tenth as his avatar.
    let kai_copy = jpeg_of(&scene(1).fliph().resize(360, 360, FilterType::Triangle), 55);
    let (back, copy_file) = register_with(&app, 5, kai_copy).await;
    let ren_copy = scene(2).crop_imm(24, 18, 432, 324);
    let avatar = app
        .upload_ok(&back.user.token, jpeg_of(&ren_copy, 70))
        .await;
    assert_eq!(
        app.set_avatar(&back.user.token, &avatar).await.status(),
        200
    );

    let review = review_of(&app, &reviewer, back.id).await;
    let found = review["resembling"].as_array().unwrap();
    assert_eq!(found.len(), 2, "{review}");
    let of_kai = found
        .iter()
        .find(|r| r["photo"] == copy_file.as_str())
        .expect("the copy of Kai's photo is flagged");
    assert_eq!(of_kai["otherLeftSuspended"], true);
    assert_eq!(of_kai["other"], Value::Null);
    assert_eq!(of_kai["otherPhoto"], Value::Null);
    let of_ren = found
        .iter()
        .find(|r| r["photo"] == avatar.as_str())
        .expect("the copy of Ren's photo is flagged");
    assert_eq!(of_ren["otherLeftSuspended"], false);
    assert_eq!(of_ren["other"]["profileId"], ren.id);
    assert_eq!(of_ren["other"]["status"], "SUSPENDED");
    assert_eq!(of_ren["otherPhoto"], ren_photo.as_str());
    // Mei's photo resembles none of it; her own review shows Ren's and no one else's photo of hers.
    assert!(found.iter().all(|r| r["other"]["profileId"] != mei.id));
    let mei_review = review_of(&app, &reviewer, mei.id).await;
    assert_eq!(mei_review["resembling"], json!([]), "{mei_review}");
    // Ren's review shows the returning member's avatar, with his status.
    let ren_review = review_of(&app, &reviewer, ren.id).await;
    assert_eq!(ren_review["resembling"][0]["other"]["profileId"], back.id);
    assert_eq!(ren_review["resembling"][0]["other"]["status"], "PENDING");

    // Nobody but a reviewer: the members themselves are refused the review, and their own
    // answers carry no hash and no match.
    for member in [&back, &ren, &mei] {
        assert_error(
            send(
                &app,
                Method::GET,
                &format!("/api/review/profiles/{}", back.id),
                &member.user.token,
                None,
            )
            .await,
            403,
            "E004",
        )
        .await;
        let mine = app
            .get("/api/user/my-info", Some(&member.user.token))
            .await
            .text()
            .await
            .unwrap();
        for word in ["resembl", "hash", "Hash"] {
            assert!(!mine.contains(word), "{word} in {mine}");
        }
    }
    let stranger = app
        .client
        .get(app.url(&format!("/api/review/profiles/{}", back.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 401);
}

/// A crop of a tenth from one corner moves most of a whole-image hash's bits: the regions each
/// photo is hashed in catch it, whether the returning member's photo is the crop or the one their
/// earlier account showed was.
async fn a_returning_members_photo_cropped_from_one_corner_is_flagged(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app.api).await;
    let (w, h) = (480, 360);
    // Kai left while suspended with a photo; Ren, suspended and still here, shows the top-left
    // nine tenths of another.
    let (kai, _) = register_with(&app, 1, jpeg_of(&scene(11), 90)).await;
    set_status(&app, &kai, "SUSPENDED").await;
    let r = send(
        &app,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert_eq!(r.status(), 204);
    let ren_crop = scene(12).crop_imm(0, 0, w * 9 / 10, h * 9 / 10);
    let (ren, ren_photo) = register_with(&app, 3, jpeg_of(&ren_crop, 85)).await;
    set_status(&app, &ren, "SUSPENDED").await;
    let (mei, _) = register_with(&app, 4, jpeg_of(&scene(13), 90)).await;
    set_status(&app, &mei, "APPROVED").await;

    // He comes back: Kai's photo with a tenth cut from the bottom-right corner, recompressed,
    // and as his avatar the whole of the photo Ren shows a crop of.
    let kai_crop = scene(11).crop_imm(w / 10, h / 10, w * 9 / 10, h * 9 / 10);
    let (back, crop_file) = register_with(&app, 5, jpeg_of(&kai_crop, 70)).await;
    let avatar = app
        .upload_ok(&back.user.token, jpeg_of(&scene(12), 80))
        .await;
    assert_eq!(
        app.set_avatar(&back.user.token, &avatar).await.status(),
        200
    );

    let review = review_of(&app, &reviewer, back.id).await;
    let found = review["resembling"].as_array().unwrap();
    assert_eq!(found.len(), 2, "{review}");
    let of_kai = found
        .iter()
        .find(|r| r["photo"] == crop_file.as_str())
        .expect("the crop of Kai's photo is flagged");
    assert_eq!(of_kai["otherLeftSuspended"], true);
    assert_eq!(of_kai["other"], Value::Null);
    let of_ren = found
        .iter()
        .find(|r| r["photo"] == avatar.as_str())
        .expect("the photo Ren shows a crop of is flagged");
    assert_eq!(of_ren["other"]["profileId"], ren.id);
    assert_eq!(of_ren["other"]["status"], "SUSPENDED");
    assert_eq!(of_ren["otherPhoto"], ren_photo.as_str());
    for r in found {
        assert!(r["distance"].as_u64().unwrap() <= 10, "{r}");
    }
    let mei_review = review_of(&app, &reviewer, mei.id).await;
    assert_eq!(mei_review["resembling"], json!([]), "{mei_review}");

    // Photos hashed before regions were (no `photo_regions`) are compared by their whole image
    // only: the corner crop of Kai's photo is no longer seen, while Ren's crop still is, through
    // the regions of the returning member's avatar.
    app.db
        .execute_unprepared("UPDATE kept_photo_hashes SET photo_regions = NULL")
        .await
        .unwrap();
    app.db
        .execute_unprepared(&format!(
            "UPDATE files SET photo_regions = NULL WHERE id = '{ren_photo}'"
        ))
        .await
        .unwrap();
    let review = review_of(&app, &reviewer, back.id).await;
    let found = review["resembling"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{review}");
    assert_eq!(found[0]["photo"], avatar.as_str());
    assert_eq!(found[0]["other"]["profileId"], ren.id);
}

/// A photo stored before its regions were hashed (here before it was hashed at all) gets its
/// hashes from its bytes when a server starts: a crop of it from one corner is then flagged.
async fn photos_stored_before_their_regions_are_hashed_when_a_server_starts(backend: Backend) {
    let mut app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app.api).await;
    let (ren, ren_photo) = register_with(&app, 3, jpeg_of(&scene(21), 90)).await;
    set_status(&app, &ren, "SUSPENDED").await;
    app.db
        .execute_unprepared(&format!(
            "UPDATE files SET photo_hash = NULL, photo_hash_mirrored = NULL, \
             photo_regions = NULL WHERE id = '{ren_photo}'"
        ))
        .await
        .unwrap();
    let crop = scene(21).crop_imm(0, 0, 432, 324);
    let (back, _) = register_with(&app, 5, jpeg_of(&crop, 75)).await;
    let review = review_of(&app, &reviewer, back.id).await;
    assert_eq!(review["resembling"], json!([]), "not hashed, not compared");

    // The server starts again on the same database and files (SQLite serves one process).
    app.shut_down().await;
    let (url, dir) = (app.database_url.clone(), app.data_dir.clone());
    let again = spawn_app_with(backend, move |s| {
        s.database_url = Some(url);
        s.data_dir = dir;
    })
    .await;
    let hashed = format!(
        "SELECT COUNT(*) AS n FROM files WHERE id = '{ren_photo}' \
         AND photo_hash IS NOT NULL AND photo_regions IS NOT NULL"
    );
    let started = std::time::Instant::now();
    while number(&app, &hashed).await == 0 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the photo is hashed at start"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let review = review_of(&again, &reviewer, back.id).await;
    let found = review["resembling"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{review}");
    assert_eq!(found[0]["other"]["profileId"], ren.id);
    assert_eq!(found[0]["otherPhoto"], ren_photo.as_str());
    assert_eq!(
        number(
            &app,
            "SELECT COUNT(*) AS n FROM files WHERE photo_regions IS NULL"
        )
        .await,
        0
    );
}

/// Leaving without a suspension keeps no hash; leaving suspended keeps exactly the shown photos'.
async fn only_a_suspended_departure_keeps_photo_hashes(backend: Backend) {
    let app = spawn_app(backend).await;
    let kept = |app: &TestApp| {
        let db = app.db.clone();
        async move {
            db.query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                "SELECT COUNT(*) AS n FROM kept_photo_hashes",
            ))
            .await
            .unwrap()
            .unwrap()
            .try_get::<i64>("", "n")
            .unwrap()
        }
    };
    let (lin, _) = register_with(&app, 1, jpeg_of(&scene(4), 90)).await;
    set_status(&app, &lin, "APPROVED").await;
    let (kai, _) = register_with(&app, 2, jpeg_of(&scene(5), 90)).await;
    set_status(&app, &kai, "SUSPENDED").await;
    for member in [&lin, &kai] {
        let r = send(
            &app,
            Method::DELETE,
            "/api/user/account",
            &member.user.token,
            Some(json!({"lineAccessToken": null})),
        )
        .await;
        assert_eq!(r.status(), 204);
        if member.id == lin.id {
            assert_eq!(kept(&app).await, 0, "an ordinary departure keeps no hash");
        }
    }
    // Kai's one profile photo (not his verification, not his unclaimed upload).
    assert_eq!(kept(&app).await, 1);
}

on_both_backends!(
    a_returning_members_reused_photos_are_shown_to_the_reviewer,
    a_returning_members_photo_cropped_from_one_corner_is_flagged,
    photos_stored_before_their_regions_are_hashed_when_a_server_starts,
    only_a_suspended_departure_keeps_photo_hashes,
);
