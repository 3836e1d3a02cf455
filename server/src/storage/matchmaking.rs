//! Matchmaking's tables, one module per aggregate: `members` (a member's row, activity and push
//! settings), `relations` (what keeps two members apart), `daily_lists`, `reactions` (likes and
//! passes), `matches`, `blocks` and `reports`. Members are profile ids throughout. Who may see
//! whom is `crate::access`'s, not storage's. This module still names their functions, the day numbering
//! and the statement helper, for callers written before the split.

pub use super::{
    blocks::*, daily_lists::*, matches::*, members::*, reactions::*, relations::*, reports::*,
};

pub use super::statements::day_number;
