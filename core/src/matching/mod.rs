//! Matchmaking: who may be introduced to whom (the two-way rule), how well two people fit (the
//! score), the daily selection with its fairness cap, and what one member sees of another.
//!
//! Built for the server's daily job over every approved member, so the hot path is
//! allocation-free and branch-light: [`MatchProfile`] is a small `Copy` value holding everything
//! the rule and the score read (conditions packed into fixed fields, tags as a bitset, the home
//! cell as a unit vector, the radius as a squared chord), and [`check_pair`] is pure arithmetic
//! on two of them. The relations between two people (blocks, reports, likes, passes) live in the
//! server's tables; it looks them up only for pairs that pass [`check_pair`] and hands them over
//! as a [`Relation`].
#![warn(missing_docs)]

use crate::catalogue::{self, Tag};
use crate::choices::*;
use crate::conditions::{Condition, MatchFacts};
use crate::date::Date;
use crate::geo::{self, DistanceBand, GridPoint};
use crate::profile::ValidProfile;
use crate::review::ReviewStatus;
use crate::rules;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::HashMap;

mod check;
mod packed;
mod pick;
mod public;
mod score;
#[cfg(test)]
mod tests;

pub use check::*;
pub use packed::*;
pub use pick::*;
pub use public::*;
pub use score::*;
