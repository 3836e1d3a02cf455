//! Who may see whom: every decision about one member reaching another (their profile, a photo or
//! file, a chat, naming them in a block or report) as a pure function of what the server read
//! about the two. The server's `access` module reads these facts once per question and asks
//! here; no other code decides. A coming state of a member (paused, leaving) is one more fact
//! and one more line in these functions.
#![warn(missing_docs)]

use crate::review::ReviewStatus;

/// The caller's own standing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    /// The caller has an APPROVED profile: only approved members take part in matchmaking.
    pub approved: bool,
    /// The caller is on the reviewers list now.
    pub reviewer: bool,
}

/// What the tables say between the viewer and another member, from the viewer's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ties {
    /// The other member is the viewer themselves.
    pub oneself: bool,
    /// The other member's profile is APPROVED (not pending, rejected or suspended).
    pub approved: bool,
    /// The other member was in one of the viewer's daily lists, on any day.
    pub introduced: bool,
    /// The viewer passed the other member.
    pub passed: bool,
    /// They have a match that has not ended.
    pub live_match: bool,
    /// They have or had a match.
    pub matched: bool,
    /// Either blocked the other (a report blocks too).
    pub blocked: bool,
    /// The other member paused: out of everyone's introductions until they resume; their
    /// matches go on.
    pub paused: bool,
    /// They have one employer on record and either asked never to meet colleagues
    /// ([`crate::matching::colleagues_kept_apart`]): never introduced, never seen, but a match
    /// made before goes on (ending it would tell the other where they work).
    pub colleagues_apart: bool,
}

/// What a stored file is to people other than its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileUse {
    /// A photo of a profile: shown to the members who may see that profile.
    ProfilePhoto,
    /// A file a profile holds but does not show (the proof of employment, a revision's proposed
    /// photo, a photo it dropped): its owner and the reviewers only.
    Private,
    /// An upload no profile has claimed: a temp upload, or one only made the avatar. Its owner
    /// only: the reviewers see an upload once a profile under review (or its revision) claims
    /// it, not what anyone uploads or picks as an avatar on the way there.
    Unclaimed,
}

/// What a review action (a claim or a decision on a profile, setting its employer, a report's
/// dismissal or reading it) has to do with the reviewer taking it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parties {
    /// The profile is the reviewer's own.
    pub own_profile: bool,
    /// The reviewer filed the report, or an open report about the profile's member.
    pub filed_by_reviewer: bool,
    /// The report is about the reviewer, or the profile's member has an open report about them.
    pub about_reviewer: bool,
}

/// Whether a signed-in user may use the service beyond their own account (their own
/// information, signing out, leaving): anyone but a suspended member, who may still read why.
pub fn may_use_service(status: Option<ReviewStatus>) -> bool {
    status != Some(ReviewStatus::Suspended)
}

/// Whether the viewer may see the other member's profile and photos: an approved viewer, an
/// approved member who is not themselves, neither having blocked the other, and either in an
/// active match with them or among their introductions without a pass (and neither paused nor
/// kept apart as colleagues).
pub fn may_see_profile(viewer: Standing, ties: &Ties) -> bool {
    viewer.approved
        && !ties.oneself
        && ties.approved
        && !ties.blocked
        && (ties.live_match
            || (ties.introduced && !ties.passed && !ties.paused && !ties.colleagues_apart))
}

/// Whether an introduction of the other member still stands in the viewer's list (and may be
/// liked or passed): approved, not paused, not kept apart as colleagues, not blocked either way.
/// A pass does not take them out of the day's list.
pub fn stands_in_list(viewer: Standing, ties: &Ties) -> bool {
    viewer.approved
        && !ties.oneself
        && ties.introduced
        && ties.approved
        && !ties.paused
        && !ties.colleagues_apart
        && !ties.blocked
}

/// Whether an introduction is shown on the viewer's list of the day: it stands in the list and
/// the viewer has not passed them (a pass takes the card away; an undo brings it back).
pub fn shown_in_list(viewer: Standing, ties: &Ties) -> bool {
    stands_in_list(viewer, ties) && !ties.passed
}

/// What a card of the viewer's list of the day offers (`liked`: the viewer liked the member).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardOffer {
    /// Like and Pass: the card still waits for the viewer's answer.
    Answer,
    /// Nothing to do: the viewer liked them and waits for a like back.
    Waiting,
    /// The way into the chat: a match leaves discovery, and its card only offers the chat until
    /// the list renews.
    Chat,
    /// Nothing: the match ended (or the chat is closed to them) since the list was made.
    Done,
}

/// What a card of the list of the day offers the viewer, for a member [`shown_in_list`].
pub fn card_offer(viewer: Standing, ties: &Ties, liked: bool) -> CardOffer {
    if may_chat(viewer, ties) {
        CardOffer::Chat
    } else if ties.matched {
        CardOffer::Done
    } else if liked {
        CardOffer::Waiting
    } else {
        CardOffer::Answer
    }
}

/// How many cards of the list of the day still wait for a Like or Pass ("3 left today").
pub fn left_today(offers: impl IntoIterator<Item = CardOffer>) -> u32 {
    let open = offers
        .into_iter()
        .filter(|o| *o == CardOffer::Answer)
        .count();
    u32::try_from(open).unwrap_or(u32::MAX)
}

/// Whether the viewer is shown that the other member liked them (the "Liked you" list, their
/// card and profile, with the like's comment): only someone already among the viewer's
/// introductions whom they may see, and not yet a match. A like makes nobody visible.
pub fn sees_like_from(viewer: Standing, ties: &Ties) -> bool {
    ties.introduced && !ties.matched && may_see_profile(viewer, ties)
}

/// Whether the viewer's own like of the other member shows in their "Likes you sent": while they
/// may see that member and the like has not become a match (matches have their own list).
pub fn sees_own_like(viewer: Standing, ties: &Ties) -> bool {
    !ties.matched && may_see_profile(viewer, ties)
}

/// Whether the viewer may read and write the chat of their match with the other member: the
/// match is live, the other is still approved and neither blocked the other.
pub fn may_chat(viewer: Standing, ties: &Ties) -> bool {
    viewer.approved && !ties.oneself && ties.live_match && ties.approved && !ties.blocked
}

/// Whether the viewer may name the other member at all (to block or report them): someone they
/// were introduced to or matched with, whatever happened since.
pub fn may_name(viewer: Standing, ties: &Ties) -> bool {
    viewer.approved && !ties.oneself && (ties.introduced || ties.matched)
}

/// Whether the viewer may see a stored file: their own; any file a profile holds for a reviewer
/// (who decides on the photos and the proof of employment), never an upload no profile claimed
/// (a temp upload, an avatar);
/// a profile photo for a member who may see that profile (`ties` with its owner, None when the
/// file belongs to no profile). Never another member's private file.
pub fn may_see_file(viewer: Standing, own: bool, file: FileUse, ties: Option<&Ties>) -> bool {
    own || (viewer.reviewer && file != FileUse::Unclaimed)
        || (file == FileUse::ProfilePhoto && ties.is_some_and(|ties| may_see_profile(viewer, ties)))
}

/// Whether a reviewer may act on a case (claim or decide a profile or its revision, put its
/// employer on record, dismiss a report): a reviewer acts on nothing they are a party to, neither
/// their own profile nor a report by or about them, nor a decision that would settle such a
/// report.
pub fn may_review(viewer: Standing, parties: Parties) -> bool {
    viewer.reviewer && !parties.own_profile && !parties.filed_by_reviewer && !parties.about_reviewer
}

/// Whether a report is shown to a reviewer (in their report queue, with the reporter's name,
/// their words and the pair's conversation): only one they may act on ([`may_review`]). A report
/// they filed or one about them is for the other reviewers to read.
pub fn may_see_report(viewer: Standing, parties: Parties) -> bool {
    may_review(viewer, parties)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMBER: Standing = Standing {
        approved: true,
        reviewer: false,
    };

    fn introduced() -> Ties {
        Ties {
            approved: true,
            introduced: true,
            ..Ties::default()
        }
    }

    #[test]
    fn a_card_offers_an_answer_then_waits_then_the_chat_and_only_open_cards_are_left() {
        let open = introduced();
        assert_eq!(card_offer(MEMBER, &open, false), CardOffer::Answer);
        assert_eq!(card_offer(MEMBER, &open, true), CardOffer::Waiting);
        let matched = Ties {
            matched: true,
            live_match: true,
            ..introduced()
        };
        assert_eq!(card_offer(MEMBER, &matched, true), CardOffer::Chat);
        // A match ended since the list was made: the card offers nothing, not Like again.
        let ended = Ties {
            live_match: false,
            ..matched
        };
        assert_eq!(card_offer(MEMBER, &ended, true), CardOffer::Done);
        assert_eq!(card_offer(MEMBER, &ended, false), CardOffer::Done);
        let offers = [
            CardOffer::Answer,
            CardOffer::Waiting,
            CardOffer::Chat,
            CardOffer::Answer,
            CardOffer::Done,
        ];
        assert_eq!(left_today(offers), 2);
        assert_eq!(left_today([]), 0);
    }

    #[test]
    fn an_introduction_is_seen_named_and_stands_in_the_list() {
        let ties = introduced();
        assert!(may_see_profile(MEMBER, &ties));
        assert!(stands_in_list(MEMBER, &ties));
        assert!(may_name(MEMBER, &ties));
        assert!(!may_chat(MEMBER, &ties));
    }

    #[test]
    fn a_pass_hides_the_profile_and_the_card_but_may_still_be_undone() {
        let ties = Ties {
            passed: true,
            ..introduced()
        };
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(!shown_in_list(MEMBER, &ties));
        assert!(stands_in_list(MEMBER, &ties));
        assert!(may_name(MEMBER, &ties));
        assert!(shown_in_list(MEMBER, &introduced()));
    }

    #[test]
    fn a_like_is_shown_only_from_someone_already_introduced_and_not_yet_matched() {
        assert!(sees_like_from(MEMBER, &introduced()));
        assert!(sees_own_like(MEMBER, &introduced()));
        let stranger = Ties {
            approved: true,
            ..Ties::default()
        };
        assert!(!sees_like_from(MEMBER, &stranger));
        let matched = Ties {
            live_match: true,
            matched: true,
            ..introduced()
        };
        assert!(!sees_like_from(MEMBER, &matched));
        assert!(!sees_own_like(MEMBER, &matched));
        // A live match without an introduction on the viewer's side shows no like either.
        let only_matched = Ties {
            approved: true,
            live_match: true,
            matched: true,
            ..Ties::default()
        };
        assert!(!sees_like_from(MEMBER, &only_matched));
        for hidden in [
            Ties {
                passed: true,
                ..introduced()
            },
            Ties {
                blocked: true,
                ..introduced()
            },
            Ties {
                paused: true,
                ..introduced()
            },
            Ties {
                approved: false,
                ..introduced()
            },
        ] {
            assert!(!sees_like_from(MEMBER, &hidden), "{hidden:?}");
            assert!(!sees_own_like(MEMBER, &hidden), "{hidden:?}");
        }
        assert!(!sees_like_from(Standing::default(), &introduced()));
    }

    #[test]
    fn a_paused_member_leaves_every_list_but_their_matches_go_on() {
        let ties = Ties {
            paused: true,
            ..introduced()
        };
        assert!(!stands_in_list(MEMBER, &ties));
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(may_name(MEMBER, &ties));
        let matched = Ties {
            live_match: true,
            matched: true,
            ..ties
        };
        assert!(may_see_profile(MEMBER, &matched));
        assert!(may_chat(MEMBER, &matched));
    }

    #[test]
    fn colleagues_kept_apart_leave_each_others_lists_but_an_earlier_match_goes_on() {
        let ties = Ties {
            colleagues_apart: true,
            ..introduced()
        };
        assert!(!stands_in_list(MEMBER, &ties));
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(!sees_like_from(MEMBER, &ties));
        assert!(may_name(MEMBER, &ties));
        let matched = Ties {
            live_match: true,
            matched: true,
            ..ties
        };
        assert!(may_see_profile(MEMBER, &matched));
        assert!(may_chat(MEMBER, &matched));
    }

    #[test]
    fn a_live_match_is_seen_and_chats_even_after_a_pass_of_an_old_introduction() {
        let ties = Ties {
            passed: true,
            live_match: true,
            matched: true,
            ..introduced()
        };
        assert!(may_see_profile(MEMBER, &ties));
        assert!(may_chat(MEMBER, &ties));
    }

    #[test]
    fn a_block_either_way_ends_everything_but_naming() {
        let ties = Ties {
            blocked: true,
            live_match: true,
            matched: true,
            ..introduced()
        };
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(!stands_in_list(MEMBER, &ties));
        assert!(!may_chat(MEMBER, &ties));
        assert!(may_name(MEMBER, &ties));
    }

    #[test]
    fn a_member_who_is_not_approved_is_neither_seen_nor_chatted_with() {
        let ties = Ties {
            approved: false,
            live_match: true,
            matched: true,
            ..introduced()
        };
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(!stands_in_list(MEMBER, &ties));
        assert!(!may_chat(MEMBER, &ties));
    }

    #[test]
    fn a_viewer_who_is_not_approved_decides_nothing() {
        let viewer = Standing::default();
        let ties = Ties {
            live_match: true,
            matched: true,
            ..introduced()
        };
        assert!(!may_see_profile(viewer, &ties));
        assert!(!stands_in_list(viewer, &ties));
        assert!(!may_chat(viewer, &ties));
        assert!(!may_name(viewer, &ties));
        assert!(!may_see_file(
            viewer,
            false,
            FileUse::ProfilePhoto,
            Some(&ties)
        ));
    }

    #[test]
    fn a_stranger_is_neither_seen_nor_named() {
        let ties = Ties {
            approved: true,
            ..Ties::default()
        };
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(!may_name(MEMBER, &ties));
        assert!(!may_see_file(
            MEMBER,
            false,
            FileUse::ProfilePhoto,
            Some(&ties)
        ));
    }

    #[test]
    fn nobody_is_their_own_introduction_match_or_report() {
        let ties = Ties {
            oneself: true,
            ..introduced()
        };
        assert!(!may_see_profile(MEMBER, &ties));
        assert!(!may_name(MEMBER, &ties));
        assert!(!stands_in_list(MEMBER, &ties));
    }

    #[test]
    fn a_suspended_member_keeps_only_their_own_account() {
        assert!(!may_use_service(Some(ReviewStatus::Suspended)));
        for status in [
            ReviewStatus::Pending,
            ReviewStatus::Approved,
            ReviewStatus::Rejected,
        ] {
            assert!(may_use_service(Some(status)));
        }
        assert!(may_use_service(None));
    }

    #[test]
    fn a_private_file_is_for_its_owner_and_the_reviewers_only() {
        let ties = introduced();
        assert!(!may_see_file(MEMBER, false, FileUse::Private, Some(&ties)));
        assert!(may_see_file(MEMBER, true, FileUse::Private, None));
        let reviewer = Standing {
            approved: false,
            reviewer: true,
        };
        assert!(may_see_file(reviewer, false, FileUse::Private, None));
        assert!(may_see_file(
            MEMBER,
            false,
            FileUse::ProfilePhoto,
            Some(&ties)
        ));
        assert!(!may_see_file(MEMBER, false, FileUse::ProfilePhoto, None));
    }

    #[test]
    fn an_unclaimed_upload_is_for_its_owner_alone_even_among_reviewers() {
        let reviewer = Standing {
            approved: true,
            reviewer: true,
        };
        assert!(!may_see_file(reviewer, false, FileUse::Unclaimed, None));
        assert!(may_see_file(reviewer, true, FileUse::Unclaimed, None));
        assert!(may_see_file(MEMBER, true, FileUse::Unclaimed, None));
        assert!(!may_see_file(
            MEMBER,
            false,
            FileUse::Unclaimed,
            Some(&introduced())
        ));
    }

    #[test]
    fn a_reviewer_acts_on_nothing_they_are_a_party_to() {
        let reviewer = Standing {
            approved: true,
            reviewer: true,
        };
        assert!(may_review(reviewer, Parties::default()));
        assert!(
            !may_review(MEMBER, Parties::default()),
            "members review nothing"
        );
        for parties in [
            Parties {
                own_profile: true,
                ..Parties::default()
            },
            Parties {
                filed_by_reviewer: true,
                ..Parties::default()
            },
            Parties {
                about_reviewer: true,
                ..Parties::default()
            },
        ] {
            assert!(!may_review(reviewer, parties), "{parties:?}");
        }
    }

    #[test]
    fn a_reviewer_reads_no_report_by_or_about_themselves() {
        let reviewer = Standing {
            approved: true,
            reviewer: true,
        };
        assert!(may_see_report(reviewer, Parties::default()));
        assert!(!may_see_report(MEMBER, Parties::default()));
        for parties in [
            Parties {
                filed_by_reviewer: true,
                ..Parties::default()
            },
            Parties {
                about_reviewer: true,
                ..Parties::default()
            },
        ] {
            assert!(!may_see_report(reviewer, parties), "{parties:?}");
        }
    }
}
