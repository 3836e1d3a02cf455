use sea_orm::entity::prelude::*;

/// One work e-mail code sent to an address for a member; see `crate::storage::email_codes`.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "email_codes")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub user_id: i64,
    /// Normalised (trimmed, lower-cased) by kizuna-core's `EmailAddress`.
    pub email: String,
    /// 16 random bytes, hex.
    pub salt: String,
    /// SHA-256 of salt and code, hex.
    pub code_hash: String,
    pub wrong_tries: i32,
    pub created_at: i64,
    pub expires_at: i64,
    pub confirmed_at: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
