//! Reused photos cropped by up to a tenth: `files.photo_regions` and
//! `kept_photo_hashes.photo_regions`, the perceptual hashes of the nine regions of a photo
//! (kizuna-core's `photos::PhotoHash::regions`: 9 × 64 bits, big-endian, as 144 hex digits: text
//! reads the same on both databases and in every dump). NULL for
//! photos hashed before: a stored file gets them at the next start (`photo_backfill`); a kept
//! hash, whose photo is gone, is compared by its whole image only (and against the other photo's
//! regions).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("ALTER TABLE files ADD COLUMN photo_regions TEXT NULL")
            .await?;
        db.execute_unprepared("ALTER TABLE kept_photo_hashes ADD COLUMN photo_regions TEXT NULL")
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
