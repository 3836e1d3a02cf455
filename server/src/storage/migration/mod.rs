//! Schema migrations, run at start (`serve`) and by `kizuna-server migrate`.

use sea_orm_migration::prelude::*;

mod m20261122_000001_create_tables;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![Box::new(m20261122_000001_create_tables::Migration)]
    }
}
