//! Uploads: sniffing, caps, re-encoding without metadata, ownership, expiry, and the proxy's rules.

use img_parts::{ImageEXIF, jpeg::Jpeg};
use kizuna_server::{cleanup, file_store::FileStore};
use reqwest::header::{ACCEPT, CONTENT_TYPE, VARY};
use serde_json::Value;

use crate::helpers::{Backend, assert_error, exif_with_gps, jpeg, jpeg_with_exif, png, spawn_app};

async fn gps_exif_is_dropped_and_orientation_applied(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let original = jpeg_with_exif(40, 20, exif_with_gps(6));
    assert!(
        Jpeg::from_bytes(original.clone().into())
            .unwrap()
            .exif()
            .is_some()
    );
    let r = app.upload(&u.token, original, "geo.jpg").await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    // Orientation 6 = rotate 90° clockwise: 40×20 becomes 20×40.
    assert_eq!(
        (body["width"].as_u64(), body["height"].as_u64()),
        (Some(20), Some(40))
    );
    let id = body["fileName"].as_str().unwrap();
    let bytes = app
        .get(&format!("/api/file/fetch/{id}"), Some(&u.token))
        .await
        .bytes()
        .await
        .unwrap();
    let jpeg = Jpeg::from_bytes(bytes.clone()).unwrap();
    assert!(jpeg.exif().is_none());
    assert!(
        jpeg.segments().iter().all(|s| s.marker() != 0xE1),
        "no APP1 segment at all"
    );
    assert!(!bytes.windows(4).any(|w| w == b"Exif"));
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (20, 40));
    // The same through the proxy.
    let bytes = app
        .get(&format!("/_ipx/f_jpeg/api/file/fetch/{id}"), Some(&u.token))
        .await
        .bytes()
        .await
        .unwrap();
    assert!(Jpeg::from_bytes(bytes).unwrap().exif().is_none());
}

async fn hostile_uploads_are_refused_without_a_trace(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let before = app.snapshot().await;

    // Not an image, named .jpg.
    let r = app
        .upload(&u.token, b"#!/bin/sh\necho pwned\n".repeat(50), "photo.jpg")
        .await;
    assert_error(r, 415, "E006").await;
    let r = app
        .upload(
            &u.token,
            b"<svg xmlns='http://www.w3.org/2000/svg'/>".to_vec(),
            "a.jpg",
        )
        .await;
    assert_error(r, 415, "E006").await;
    let r = app.upload(&u.token, Vec::new(), "empty.jpg").await;
    assert_error(r, 415, "E006").await;

    // Truncated images.
    let full = jpeg(800, 600);
    let r = app
        .upload(&u.token, full[..full.len() / 2].to_vec(), "half.jpg")
        .await;
    assert_error(r, 415, "E006").await;
    let p = png(300, 300);
    let r = app
        .upload(&u.token, p[..p.len() / 2].to_vec(), "half.png")
        .await;
    assert_error(r, 415, "E006").await;

    // Pixel floods: a PNG header claiming 20000×20000, a JPEG claiming 65000×65000, one of
    // 8000×6000 (48 MP, under the side cap but over 40 MP).
    let mut flood = png(1, 1);
    flood[16..20].copy_from_slice(&20000u32.to_be_bytes());
    flood[20..24].copy_from_slice(&20000u32.to_be_bytes());
    let crc = crc32(&flood[12..29]);
    flood[29..33].copy_from_slice(&crc.to_be_bytes());
    let r = app.upload(&u.token, flood, "flood.png").await;
    assert_error(r, 413, "E006").await;
    for (w, h) in [(65000u16, 65000u16), (8000, 6000)] {
        let mut flood = jpeg(16, 16);
        let sof = flood.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
        flood[sof + 5..sof + 7].copy_from_slice(&h.to_be_bytes());
        flood[sof + 7..sof + 9].copy_from_slice(&w.to_be_bytes());
        let r = app.upload(&u.token, flood, "flood.jpg").await;
        assert_error(r, 413, "E006").await;
    }

    // 40 MB.
    let mut big = jpeg(64, 64);
    big.resize(40 * 1024 * 1024, 0);
    let r = app.upload(&u.token, big, "big.jpg").await;
    assert_error(r, 413, "E006").await;
    // Just over 10 MB.
    let mut big = jpeg(64, 64);
    big.resize(10 * 1024 * 1024 + 10, 0);
    let r = app.upload(&u.token, big, "big.jpg").await;
    assert_error(r, 413, "E006").await;

    // No session, no file field.
    let part = reqwest::multipart::Part::bytes(jpeg(8, 8)).file_name("a.jpg");
    let r = app
        .client
        .post(app.url("/api/file/tempUpload"))
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    let part = reqwest::multipart::Part::bytes(jpeg(8, 8)).file_name("a.jpg");
    let r = app
        .client
        .post(app.url("/api/file/tempUpload"))
        .bearer_auth(&u.token)
        .multipart(reqwest::multipart::Form::new().part("photo", part))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;

    assert_eq!(app.snapshot().await, before);
    // Nothing left on disk either.
    let files = std::fs::read_dir(app.data_dir.join("files"))
        .unwrap()
        .count();
    assert_eq!(files, 0);

    // PNG and WebP are fine.
    app.upload_ok(&u.token, png(50, 40)).await;
    let webp = webp::Encoder::from_rgb(&vec![100u8; 30 * 20 * 3], 30, 20)
        .encode(80.0)
        .to_vec();
    app.upload_ok(&u.token, webp).await;
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

async fn files_are_private_and_temp_files_expire(backend: Backend) {
    let app = spawn_app(backend).await;
    let a = app.new_user().await;
    let b = app.new_user().await;
    let id = app.upload_ok(&a.token, jpeg(64, 48)).await;

    assert_eq!(
        app.get(&format!("/api/file/fetch/{id}"), Some(&a.token))
            .await
            .status(),
        200
    );
    assert_error(
        app.get(&format!("/api/file/fetch/{id}"), Some(&b.token))
            .await,
        404,
        "E003",
    )
    .await;
    assert_error(
        app.get(&format!("/api/file/fetch/{id}"), None).await,
        401,
        "E001",
    )
    .await;
    for bad in [
        "0123456789abcdef0123456789abcdef",
        "..%2F..%2Fetc%2Fpasswd",
        "x",
    ] {
        assert_error(
            app.get(&format!("/api/file/fetch/{bad}"), Some(&a.token))
                .await,
            404,
            "E003",
        )
        .await;
    }

    // The proxy: only stored files, known modifiers.
    assert_error(
        app.get("/_ipx/w_100/https://example.com/a.jpg", Some(&a.token))
            .await,
        400,
        "E002",
    )
    .await;
    assert_error(
        app.get(
            &format!("/_ipx/w_100,zoom_3/api/file/fetch/{id}"),
            Some(&a.token),
        )
        .await,
        400,
        "E002",
    )
    .await;
    assert_error(
        app.get(&format!("/_ipx/w_100/api/file/fetch/{id}"), None)
            .await,
        401,
        "E001",
    )
    .await;
    let r = app
        .get(
            &format!("/_ipx/w_99999,h_99999,fit_fill/api/file/fetch/{id}"),
            Some(&a.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (64, 48), "never enlarged");
    let r = app
        .get(
            &format!("/_ipx/s_40x40,fit_contain,b_ffffff,f_png/api/file/fetch/{id}"),
            Some(&a.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (40, 40));

    // Not yet 24 h old: kept. Older: removed (row, file and variants).
    let store = app.state.files.clone();
    let now = kizuna_server::clock::now_secs();
    assert_eq!(cleanup::sweep(&app.db, &store, now).await.unwrap(), 0);
    assert_eq!(
        cleanup::sweep(&app.db, &store, now + 25 * 3600)
            .await
            .unwrap(),
        1
    );
    assert_error(
        app.get(&format!("/api/file/fetch/{id}"), Some(&a.token))
            .await,
        404,
        "E003",
    )
    .await;
    assert!(!store.exists(&FileStore::original(&id)).await.unwrap());
    assert_eq!(store.variant_count(&id).await.unwrap(), 0);
}

async fn big_uploads_get_a_preview_that_the_proxy_uses_only_when_it_suffices(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let id = app.upload_ok(&u.token, jpeg(2400, 1800)).await;
    let store = app.state.files.clone();
    assert!(store.exists(&FileStore::preview(&id)).await.unwrap());
    for (mods, dims) in [
        ("w_400,f_webp,q_80", (400, 300)),
        ("s_300x300,fit_cover", (300, 300)),
        ("w_2000,f_jpeg", (2000, 1500)),
        ("f_png", (2400, 1800)),
    ] {
        let r = app
            .get(&format!("/_ipx/{mods}/api/file/fetch/{id}"), Some(&u.token))
            .await;
        assert_eq!(r.status(), 200, "{mods}");
        let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
        assert_eq!((img.width(), img.height()), dims, "{mods}");
    }
    // Small uploads get none.
    let small = app.upload_ok(&u.token, jpeg(800, 600)).await;
    assert!(!store.exists(&FileStore::preview(&small)).await.unwrap());
}

async fn a_photo_shrunk_by_four_is_pixel_for_pixel_libjpeg_turbos_quarter_scale_decode(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    // Under the preview threshold: the proxy reads the stored file itself.
    let id = app.upload_ok(&u.token, jpeg(1600, 1200)).await;
    let stored = app
        .get(&format!("/api/file/fetch/{id}"), Some(&u.token))
        .await
        .bytes()
        .await
        .unwrap();
    let mut d = mozjpeg::Decompress::new_mem(&stored).unwrap();
    d.scale(2);
    let mut started = d.rgb().unwrap();
    let expected: Vec<u8> = started.read_scanlines().unwrap();
    started.finish().unwrap();

    // 400 px wide: larger than the shared decode of the small sizes (220×294 covered, 392×294
    // here), so this render decodes for itself, at the scale that is exactly its size.
    let r = app
        .get(
            &format!("/_ipx/w_400,f_png/api/file/fetch/{id}"),
            Some(&u.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    let img = image::load_from_memory(&r.bytes().await.unwrap())
        .unwrap()
        .to_rgb8();
    assert_eq!((img.width(), img.height()), (400, 300));
    assert!(img.as_raw() == &expected, "the proxy's pixels differ");
}

async fn the_sizes_a_page_asks_together_share_one_decode_that_ends_with_the_file(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let decoded = app.state.files.decoded();
    for (w, h) in [(960, 1280), (1280, 960)] {
        let id = app.upload_ok(&u.token, jpeg(w, h)).await;
        let before = decoded.counts();
        // The profile grid's srcset (densities 1 and 2) and its placeholder, asked at once as a
        // browser does.
        let sizes = [
            ("s_110x147,fit_cover,f_webp", (110, 147)),
            ("s_220x294,fit_cover,f_webp", (220, 294)),
            ("s_10x10,fit_cover,f_webp,q_50", (10, 10)),
        ];
        let (app, token) = (&app, u.token.as_str());
        let answers = futures_util::future::join_all(sizes.iter().map(|(mods, _)| {
            let path = format!("/_ipx/{mods}/api/file/fetch/{id}");
            async move { app.get(&path, Some(token)).await }
        }))
        .await;
        for ((mods, dims), r) in sizes.iter().zip(answers) {
            assert_eq!(r.status(), 200, "{mods}");
            let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
            assert_eq!((img.width(), img.height()), *dims, "{mods}");
        }
        let after = decoded.counts();
        assert_eq!(
            (after.0 - before.0, after.1 - before.1),
            (1, 2),
            "{w}×{h}: one decode, which the two other sizes took"
        );
        assert!(decoded.holds(&id));
        assert!(decoded.bytes() <= kizuna_server::images::decoded::CAP_BYTES);
        // Removing the file (what every removal path calls) ends its pixels at once.
        app.state.files.remove(&id).await.unwrap();
        assert!(!decoded.holds(&id), "{w}×{h}: pixels outlived their file");
    }
}

async fn the_proxy_caches_on_disk_caps_outputs_and_varies_on_accept(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let store = app.state.files.clone();
    let id = app.upload_ok(&u.token, jpeg(320, 240)).await;
    let card = format!("/_ipx/w_100,f_webp/api/file/fetch/{id}");
    let first = app.get(&card, Some(&u.token)).await;
    assert_eq!(first.status(), 200);
    assert!(
        first.headers().get(VARY).is_none(),
        "a fixed format does not vary"
    );
    let first = first.bytes().await.unwrap();
    let cached = store
        .list_page(&format!("cache/ipx/{}/{id}", &id[..2]), None, 100)
        .await
        .unwrap();
    assert_eq!(cached.len(), 1, "one variant stored");
    let key = object_store::path::Path::from(cached[0].key.as_str());
    assert_eq!(store.get(&key).await.unwrap().unwrap(), first);

    // With the original gone (the temp-file sweep racing a request), the cached variant is
    // still served, and anything that needs the original is E003, not a 500.
    std::fs::remove_file(app.local_path(&FileStore::original(&id))).unwrap();
    // The sweep's `FileStore::remove` also ends the pixels decoded from it a moment ago.
    assert!(store.decoded().holds(&id));
    store.decoded().forget(&id);
    let again = app.get(&card, Some(&u.token)).await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.bytes().await.unwrap(), first);
    for path in [
        format!("/_ipx/w_50,f_png/api/file/fetch/{id}"),
        format!("/api/file/fetch/{id}"),
    ] {
        assert_error(app.get(&path, Some(&u.token)).await, 404, "E003").await;
    }

    // f_auto answers by Accept, and says so.
    let other = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let auto = format!("/_ipx/f_auto,w_32/api/file/fetch/{other}");
    for (accept, content_type) in [("image/webp,*/*", "image/webp"), ("image/*", "image/jpeg")] {
        let r = app
            .client
            .get(app.url(&auto))
            .bearer_auth(&u.token)
            .header(ACCEPT, accept)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()[CONTENT_TYPE], content_type);
        assert_eq!(r.headers()[VARY], "Accept");
    }

    // Sources wider than 3072 px (uploads may be 16384 a side) come out at 3072.
    let wide = app.upload_ok(&u.token, png(9000, 60)).await;
    let r = app
        .get(
            &format!("/_ipx/f_png/api/file/fetch/{wide}"),
            Some(&u.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (3072, 20));
    // A padded canvas is no larger than what holds the source at its own size.
    let r = app
        .get(
            &format!("/_ipx/s_8192x8192,fit_contain,f_png/api/file/fetch/{other}"),
            Some(&u.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (64, 64));
}

async fn orphans_left_by_a_crash_are_swept_after_the_grace_period(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let store = app.state.files.clone();
    let kept = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let r = app
        .get(&format!("/_ipx/w_10/api/file/fetch/{kept}"), Some(&u.token))
        .await;
    assert_eq!(r.status(), 200);

    // What a crash between writing bytes and writing their row leaves behind.
    let orphan = "00112233445566778899aabbccddeeff";
    let fresh_orphan = "ffeeddccbbaa99887766554433221100";
    for id in [orphan, fresh_orphan] {
        store
            .put(&FileStore::original(id), b"bytes".to_vec())
            .await
            .unwrap();
        store
            .put(&FileStore::preview(id), b"preview".to_vec())
            .await
            .unwrap();
        store
            .put(&FileStore::variant(id, "v.webp"), b"variant".to_vec())
            .await
            .unwrap();
    }
    // A write cut off by a crash: the local store's staging file beside its destination.
    let part = std::path::PathBuf::from(format!(
        "{}#1",
        app.local_path(&FileStore::original("aabbccddeeff00112233445566778899"))
            .display()
    ));
    std::fs::create_dir_all(part.parent().unwrap()).unwrap();
    std::fs::write(&part, b"half a file").unwrap();
    let age = |path: &std::path::Path, secs: u64| {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(secs))
            .unwrap();
    };
    for path in [
        app.local_path(&FileStore::original(orphan)),
        app.local_path(&FileStore::preview(orphan)),
        app.local_path(&FileStore::variant(orphan, "v.webp")),
        part.clone(),
        app.local_path(&FileStore::original(&kept)),
    ] {
        age(&path, 2 * cleanup::ORPHAN_GRACE_SECS);
    }

    let mut position = None;
    let removed =
        cleanup::sweep_orphans(&app.db, &store, std::time::SystemTime::now(), &mut position)
            .await
            .unwrap();
    assert_eq!(position, None, "the whole store in one page");
    assert_eq!(removed, 2, "the old orphan and the half-written file");
    assert!(!store.exists(&FileStore::original(orphan)).await.unwrap());
    assert!(!store.exists(&FileStore::preview(orphan)).await.unwrap());
    assert_eq!(store.variant_count(orphan).await.unwrap(), 0);
    assert!(!part.exists());
    // Within the grace period an orphan may be an upload whose row is being written: kept.
    assert!(
        store
            .exists(&FileStore::original(fresh_orphan))
            .await
            .unwrap()
    );
    // Files with rows are never touched, however old.
    assert!(store.exists(&FileStore::original(&kept)).await.unwrap());
    assert!((store.variant_count(&kept).await.unwrap() > 0));
    assert_eq!(
        app.get(&format!("/api/file/fetch/{kept}"), Some(&u.token))
            .await
            .status(),
        200
    );

    // Pointed at the wrong (say, a freshly created empty) database, the sweep would see every
    // file as an orphan: it refuses instead of deleting the photos.
    let stranger = spawn_app(backend).await;
    let mut photos = Vec::new();
    // Two owners: each holds at most `rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE` unclaimed uploads.
    let v = app.new_user().await;
    for i in 0..12 {
        let owner = if i % 2 == 0 { &u } else { &v };
        let id = app.upload_ok(&owner.token, jpeg(16, 16)).await;
        age(
            &app.local_path(&FileStore::original(&id)),
            2 * cleanup::ORPHAN_GRACE_SECS,
        );
        photos.push(id);
    }
    let refused = cleanup::sweep_orphans(
        &stranger.db,
        &store,
        std::time::SystemTime::now(),
        &mut None,
    )
    .await;
    let err = refused.expect_err("a database that knows none of the files");
    assert!(err.to_string().contains("DATABASE_URL"), "{err}");
    for id in &photos {
        assert!(store.exists(&FileStore::original(id)).await.unwrap());
    }
}

/// A 1×1 upload asked for on a huge padded canvas renders no bigger than itself needs; no side
/// goes past 3072 px; and a member varying the background to defeat the cache gets their budget
/// of new renders, then 429, while cached variants and other members are still served.
async fn the_proxy_pads_nothing_beyond_the_source_and_budgets_new_renders(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let dims = |bytes: &[u8]| {
        let img = image::load_from_memory(bytes).unwrap();
        (img.width(), img.height())
    };
    let tiny = app.upload_ok(&u.token, png(1, 1)).await;
    let r = app
        .get(
            &format!("/_ipx/s_8192x4882,fit_contain,b_102030,f_png/api/file/fetch/{tiny}"),
            Some(&u.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        dims(&r.bytes().await.unwrap()),
        (1, 1),
        "padding, not pixels"
    );
    let wide = app.upload_ok(&u.token, jpeg(3600, 240)).await;
    let r = app
        .get(
            &format!("/_ipx/w_8000,f_jpeg/api/file/fetch/{wide}"),
            Some(&u.token),
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(dims(&r.bytes().await.unwrap()), (3072, 205));

    let render =
        |n: u32| format!("/_ipx/s_64x64,fit_contain,b_{n:06x},f_png/api/file/fetch/{tiny}");
    let started = std::time::Instant::now();
    let mut rendered = 0;
    let refused = loop {
        let r = app.get(&render(rendered + 100), Some(&u.token)).await;
        if r.status() != 200 {
            break r;
        }
        rendered += 1;
        assert!(rendered <= 1000, "never limited");
    };
    assert!(refused.headers().contains_key("retry-after"));
    assert_error(refused, 429, "E007").await;
    // Two renders came before the loop; one comes back every 60 / budget seconds meanwhile.
    let budget = kizuna_core::rules::IMAGE_RENDERS_PER_MINUTE;
    let refills = (started.elapsed().as_secs_f64() * f64::from(budget) / 60.0).ceil() as u32;
    assert!(
        (budget - 2..=budget + refills).contains(&rendered),
        "{rendered} new renders"
    );
    // A variant rendered before is still served from the cache.
    let r = app.get(&render(100), Some(&u.token)).await;
    assert_eq!(r.status(), 200);
    // Another member's budget is their own.
    let other = app.new_user().await;
    let own = app.upload_ok(&other.token, png(8, 8)).await;
    let r = app
        .get(
            &format!("/_ipx/w_4,f_png/api/file/fetch/{own}"),
            Some(&other.token),
        )
        .await;
    assert_eq!(r.status(), 200);
}

crate::on_both_backends!(
    the_proxy_pads_nothing_beyond_the_source_and_budgets_new_renders,
    the_proxy_caches_on_disk_caps_outputs_and_varies_on_accept,
    orphans_left_by_a_crash_are_swept_after_the_grace_period,
    gps_exif_is_dropped_and_orientation_applied,
    hostile_uploads_are_refused_without_a_trace,
    files_are_private_and_temp_files_expire,
    big_uploads_get_a_preview_that_the_proxy_uses_only_when_it_suffices,
    a_photo_shrunk_by_four_is_pixel_for_pixel_libjpeg_turbos_quarter_scale_decode,
    the_sizes_a_page_asks_together_share_one_decode_that_ends_with_the_file,
);
