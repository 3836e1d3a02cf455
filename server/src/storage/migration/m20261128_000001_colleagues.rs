//! Hide me from colleagues: `profiles.employer_id`, the employer on record as review confirmed it
//! (the catalogue employer of a confirmed work e-mail, or the one a reviewer picked for an
//! employee-ID photo or a verification link), and `profiles.hide_colleagues`, the member's
//! "never introduce me to people of my employer" (on unless they switch it off).
//!
//! Members approved before this have an employer on record only from a confirmed work e-mail
//! (the code was checked before their profile was submitted); the console lists the others for
//! a reviewer to set, and until then they have no colleagues.

use kizuna_core::catalogue;
use sea_orm_migration::{
    prelude::*,
    sea_orm::{ConnectionTrait, Statement},
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum Profiles {
    Table,
    EmployerId,
    HideColleagues,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(Profiles::Table)
                    .add_column(ColumnDef::new(Profiles::EmployerId).string_len(64).null())
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Profiles::Table)
                    .add_column(
                        ColumnDef::new(Profiles::HideColleagues)
                            .boolean()
                            .not_null()
                            .default(true),
                    )
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        let backend = db.get_database_backend();
        let rows = db
            .query_all_raw(Statement::from_string(
                backend,
                "SELECT id, company_email FROM profiles \
                 WHERE status IN ('APPROVED', 'SUSPENDED') AND verify_method = 'COMPANY_EMAIL' \
                 AND company_email IS NOT NULL",
            ))
            .await?;
        let placeholder = |n: usize| {
            if backend == sea_orm::DbBackend::Postgres {
                format!("${n}")
            } else {
                "?".to_string()
            }
        };
        for row in rows {
            let id: i64 = row.try_get("", "id")?;
            let email: String = row.try_get("", "company_email")?;
            if let Some(employer) = catalogue::employer_for_email(&email) {
                db.execute_raw(Statement::from_sql_and_values(
                    backend,
                    format!(
                        "UPDATE profiles SET employer_id = {} WHERE id = {}",
                        placeholder(1),
                        placeholder(2)
                    ),
                    [employer.id.into(), id.into()],
                ))
                .await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Profiles::EmployerId, Profiles::HideColleagues] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Profiles::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
