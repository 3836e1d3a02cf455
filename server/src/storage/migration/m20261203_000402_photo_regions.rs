//! Reused photos cropped by up to a tenth: `files.photo_regions` and
//! `kept_photo_hashes.photo_regions`, the perceptual hashes of the nine regions of a photo
//! (kizuna-core's `photos::PhotoHash::regions`: 9 × 64 bits, big-endian, 72 bytes). NULL for
//! photos hashed before: a stored file gets them at the next start (`photo_backfill`); a kept
//! hash, whose photo is gone, is compared by its whole image only (and against the other photo's
//! regions).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

fn binary(manager: &SchemaManager) -> &'static str {
    match manager.get_database_backend() {
        sea_orm::DbBackend::Postgres => "BYTEA",
        _ => "BLOB",
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let binary = binary(manager);
        db.execute_unprepared(&format!(
            "ALTER TABLE files ADD COLUMN photo_regions {binary} NULL"
        ))
        .await?;
        db.execute_unprepared(&format!(
            "ALTER TABLE kept_photo_hashes ADD COLUMN photo_regions {binary} NULL"
        ))
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("ALTER TABLE kept_photo_hashes DROP COLUMN photo_regions")
            .await?;
        db.execute_unprepared("ALTER TABLE files DROP COLUMN photo_regions")
            .await?;
        Ok(())
    }
}
