//! The code catalogues of review, safety and matchmaking (reject, suspend and report reasons,
//! distance bands), served by the server to the screens that translate them.
#![warn(missing_docs)]

use serde::Serialize;

pub use crate::reasons::CodeEntry;

/// The code catalogues of review, safety and matchmaking: what the reviewer console, the member's
/// decision, the report dialog and the introduction cards translate. Served by the server (they
/// are only needed on lazily loaded screens), not part of [`crate::catalogue::Catalogues`]: the register form's wasm
/// has no room for them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeCatalogues {
    /// Why a profile is sent back ([`crate::review::RejectReason`]).
    pub reject: Vec<CodeEntry>,
    /// Why a member is suspended ([`crate::review::SuspendReason`]).
    pub suspend: Vec<CodeEntry>,
    /// Why a member reports another ([`crate::report::ReportReason`]).
    pub report: Vec<CodeEntry>,
    /// The distance bands another member is told, near to far ([`crate::geo::DistanceBand`]).
    pub distance_bands: Vec<CodeEntry>,
}

/// The code catalogues (reasons and distance bands) with their translation keys.
pub fn all() -> CodeCatalogues {
    CodeCatalogues {
        reject: crate::review::RejectReason::entries(),
        suspend: crate::review::SuspendReason::entries(),
        report: crate::report::ReportReason::entries(),
        distance_bands: crate::geo::DistanceBand::entries(),
    }
}
