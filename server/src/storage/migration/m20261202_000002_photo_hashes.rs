//! Reused photos: `files.photo_hash` and `files.photo_hash_mirrored`, the perceptual hash
//! (kizuna-core's `photos::PhotoHash`, 64 bits stored as a signed BIGINT) of every upload and of
//! its mirror image, NULL for files stored before; and `kept_photo_hashes`, the hashes of the
//! photos of members who left while suspended (keyed by the gone file's id, naming nobody), so
//! that the review console still sees them come back.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("ALTER TABLE files ADD COLUMN photo_hash BIGINT NULL")
            .await?;
        db.execute_unprepared("ALTER TABLE files ADD COLUMN photo_hash_mirrored BIGINT NULL")
            .await?;
        db.execute_unprepared(
            "CREATE TABLE kept_photo_hashes (\
               file_id TEXT NOT NULL PRIMARY KEY, \
               photo_hash BIGINT NOT NULL, \
               photo_hash_mirrored BIGINT NOT NULL, \
               kept_at BIGINT NOT NULL)",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP TABLE kept_photo_hashes")
            .await?;
        db.execute_unprepared("ALTER TABLE files DROP COLUMN photo_hash_mirrored")
            .await?;
        db.execute_unprepared("ALTER TABLE files DROP COLUMN photo_hash")
            .await?;
        Ok(())
    }
}
