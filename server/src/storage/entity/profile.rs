use kizuna_core::review::ReviewStatus;
use sea_orm::entity::prelude::*;

/// `profiles.status`: kizuna-core's [`ReviewStatus`] as the column stores it, so that queries
/// compare typed values the compiler checks (the conversions below are exhaustive both ways).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "Text")]
pub enum Status {
    #[sea_orm(string_value = "PENDING")]
    Pending,
    #[sea_orm(string_value = "APPROVED")]
    Approved,
    #[sea_orm(string_value = "REJECTED")]
    Rejected,
    #[sea_orm(string_value = "SUSPENDED")]
    Suspended,
}

impl From<ReviewStatus> for Status {
    fn from(status: ReviewStatus) -> Status {
        match status {
            ReviewStatus::Pending => Status::Pending,
            ReviewStatus::Approved => Status::Approved,
            ReviewStatus::Rejected => Status::Rejected,
            ReviewStatus::Suspended => Status::Suspended,
        }
    }
}

impl From<Status> for ReviewStatus {
    fn from(status: Status) -> ReviewStatus {
        match status {
            Status::Pending => ReviewStatus::Pending,
            Status::Approved => ReviewStatus::Approved,
            Status::Rejected => ReviewStatus::Rejected,
            Status::Suspended => ReviewStatus::Suspended,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{ActiveEnum, Iterable};

    #[test]
    fn the_column_stores_each_status_as_the_core_names_it() {
        for status in Status::iter() {
            assert_eq!(status.to_value(), ReviewStatus::from(status).as_str());
            assert_eq!(Status::from(ReviewStatus::from(status)), status);
        }
    }
}

/// A registered profile: every UserProfileCreate field as a column (choice codes as text), the
/// normalised payload as JSON for exact echo, and the review status.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "profiles")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    #[sea_orm(unique)]
    pub user_id: i64,
    pub status: Status,
    pub status_reason: Option<String>,
    pub submission_hash: String,
    pub payload: String,
    pub nickname: Option<String>,
    pub name: Option<String>,
    pub gender: Option<String>,
    pub match_gender: Option<String>,
    pub birthday: Option<String>,
    pub height: Option<i32>,
    pub occupation_type: Option<String>,
    pub occupation: Option<String>,
    pub achievement: Option<String>,
    pub income_range: Option<String>,
    pub school: Option<String>,
    pub education: Option<String>,
    pub marriage_record: Option<String>,
    pub has_children: Option<String>,
    pub smoke: Option<String>,
    pub tattoo: Option<String>,
    pub drink: Option<String>,
    pub mbti: Option<String>,
    pub about_me: Option<String>,
    pub dating_question: Option<String>,
    pub daily_life: Option<String>,
    pub surprise_point: Option<String>,
    pub city: Option<String>,
    pub address: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub recommend_distance_km: Option<i32>,
    pub feedback: Option<String>,
    pub verify_method: Option<String>,
    pub company_email: Option<String>,
    pub review_link: Option<String>,
    pub verify_file_id: Option<String>,
    pub verify_description: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// Bumped by every resubmission and decision: a decision names the version it was made on.
    pub version: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
