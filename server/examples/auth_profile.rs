//! Times `SessionStore::check` (answered by the session cache after its first call), its one
//! joined query (`storage::sessions::lookup`, what a cache miss costs) and a ping against SQLite:
//! `auth_profile`.
use std::time::Instant;

use kizuna_server::{identity::SessionStore, storage};
use sea_orm::{ActiveValue::Set, EntityTrait};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join("kizuna-auth-profile");
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("sqlite://{}/kizuna.db?mode=rwc", dir.display());
    let db = storage::connect(&url, None).await?;
    storage::migrate(&db).await?;
    storage::entity::user::Entity::insert(storage::entity::user::ActiveModel {
        line_user_id: Set("U0123456789abcdef0123456789abcdef".into()),
        created_at: Set(0),
        ..Default::default()
    })
    .exec(&db)
    .await?;
    let store = SessionStore::new(
        db.clone(),
        kizuna_server::clock::Clock::system(),
        Default::default(),
    );
    let token = store.create(1).await?;
    let n = 20_000;
    let t = Instant::now();
    for _ in 0..n {
        store
            .check(&token)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    println!("check: {:?}/call", t.elapsed() / n);
    let hash = kizuna_server::identity::session::hash_token(&token);
    let t = Instant::now();
    for _ in 0..n {
        storage::sessions::lookup(&db, &hash).await?;
    }
    println!("lookup: {:?}/call", t.elapsed() / n);
    let pool = db.get_sqlite_connection_pool();
    let t = Instant::now();
    for _ in 0..n {
        let _row: Option<(i64, Option<i64>, i64, String)> = sea_orm::sqlx::query_as(
            "SELECT s.expires_at, s.revoked_at, u.id, u.line_user_id FROM sessions s JOIN users u ON u.id = s.user_id LEFT JOIN profiles p ON p.user_id = u.id WHERE s.token_hash = ?",
        )
        .bind(&hash)
        .fetch_optional(pool)
        .await?;
    }
    println!("raw sqlx: {:?}/call", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n {
        db.ping().await?;
    }
    println!("ping: {:?}/call", t.elapsed() / n);
    Ok(())
}
