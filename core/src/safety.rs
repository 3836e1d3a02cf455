//! Safe conversations: the one rule that sees, in a chat message, contact details or a move
//! elsewhere ([`Kind::OffPlatform`]) and money talk ([`Kind::Money`]): investing, platforms,
//! crypto, guaranteed returns, withdrawal fees, loans, gift cards, asking for money.
//!
//! The sender's browser runs it before a message goes (a sheet asks to think twice) and the server
//! runs it on what it stores (the recipient's caution); both ask the same function with the same
//! inputs: the text and a [`Conversation`] (how old the match is, how many messages each side
//! sent before this one). Contact details are a caution only in a young match
//! ([`Conversation::is_young`], limits in [`rules`]); money talk always is.
//!
//! ```
//! use kizuna_core::safety::{self, Conversation, Kind};
//!
//! let young = Conversation { match_age_secs: 3_600, sent_by_sender: 2, sent_by_other: 3 };
//! let kinds = safety::screen("加我ＬＩＮＥ：ｋｅｖｉｎ０８１５", &young);
//! assert!(kinds.contains(Kind::OffPlatform));
//! assert_eq!(kinds.codes(), ["OFF_PLATFORM"]);
//!
//! let old = Conversation { match_age_secs: 60 * 86_400, sent_by_sender: 200, sent_by_other: 180 };
//! assert!(safety::screen("my LINE is kevin0815", &old).is_empty());
//! assert_eq!(safety::screen("Buy USDT and send it to this wallet", &old).codes(), ["MONEY"]);
//! assert!(safety::detect("Taipei 101 at 7:30? I paid with LINE Pay").is_empty());
//! ```
//!
//! # How it reads a message
//!
//! 1. **Normalisation.** Unicode NFKC (full-width `ＬＩＮＥ０９` and half-width `ﾗｲﾝ` to their
//!    plain forms, circled and bold letters to letters), then: zero-width and other invisible
//!    characters dropped (keycaps' enclosing mark `0⃣` and bopomofo tone marks among them),
//!    Cyrillic and Greek look-alikes and letters in a black circle or square (`🅒🅡🅨🅟🅣🅞`)
//!    folded to Latin, Latin lower-cased,
//!    hiragana folded to katakana (`らいん` is `ライン`), look-alike digits and `$` inside a Latin
//!    word with no other digit read as letters (`b1tc0in`, `g0ld`, `u$dt`; `kenji88` stays), a
//!    word spelt out in single characters joined (`L I N E`, `L.I.N.E`, `a m y 5 2 0`; symbols
//!    between the letters too, `U💲S💲D💲T`, `L💚I💚N💚E`, `仮💴想💴通💴貨`; an underscore set apart
//!    kept, `h u a _ 9 9 6` is `hua_996`), spaces between two CJK characters dropped,
//!    an identifier's symbols said in words written as symbols (`maya underscore lin`,
//!    `yun點hsu點tw`, `ken アンダーバー 88`; `7點30` stays a time).
//! 2. **Digits.** Number words count as digits in a run of digits (`零九一二`, `〇九〇`, `洞九`,
//!    `ゼロキュウ`, `ㄌㄧㄥ`, `zero nine one two`, `hundred` after a number word as two zeros), separated
//!    or not by spaces, dots, dashes, commas; a run shaped like a phone number (a leading 0 and 9
//!    to 12 digits, a country code, `+` written or said as `plus`, or 3-3-4) is contact
//!    details; a number with a currency is an amount.
//! 3. **Signals.** Fixed lists of words in zh-TW, ja and en (messaging apps, asking to add or
//!    swap, identifiers, e-mail providers, links to messaging and social sites, phrases of moving
//!    elsewhere; money words, strong and weak), matched with ASCII word boundaries for Latin
//!    words (`_` is part of a word: `lin_trader88` names no trader; an English phrase with `you`
//!    or `your` also matches as chat writes it, `u`, `ur`); an app name inside a benign phrase
//!    (`LINE Pay`, `LINE TODAY`, `オンライン`) or telling of a message received on it
//!    (`LINEが来た`, `LINE來了`) or a queue (`a long line`) is no app name, and one is also found
//!    with look-alike symbols after its first two letters (`wh@tsapp`, `sn@pchat`), as `l!ne` or
//!    `llne`, or spelt in katakana letter names
//!    (`エルアイエヌイー`). Addresses (`name@host.tld`), handles (`@name`, `name#1234`),
//!    identifiers (`kevin_0815`) and links written as links (`https://…`, `www.…`) are found by
//!    shape.
//! 4. **Decision.** `OFF_PLATFORM`: an address, a phone number (whole, or given in parts: `前半`,
//!    `the rest`; a mobile number's start, `09…`, `080…`, with a word for it: `電話番号の前半は
//!    080-61`), a link, a handle, or, unless the message tells of blocking or reporting someone
//!    who asked, of staying here (`ここで話そう`, `不用換`), of going elsewhere in person (`we
//!    went somewhere else`), of a fake account in the news (`冒充`), or, with no "you", of a third
//!    person's own use of an app (`我媽傳LINE…`, `母からLINE来て`), a phrase of moving elsewhere (swapping numbers among them) or an app
//!    named with an ask (the loose asks, `聊`, `交換`, `私訊`, `フォロー`, `got`, `instead`, only in a
//!    message that addresses its reader: a "you", a question, a suggestion or a request, `吧`,
//!    `我們`, `しよう`, `ませんか`, `let's`), an identifier or a name after it (`LINE: erictw`, `ig → maya`,
//!    `insta: @ julie`, `on Facebook as Tom`), an app asked alone (`LINE?`) or used as a verb
//!    (`WhatsApp me`), a messaging app named without its name with a move or talk (`換到別的通訊軟體聊`,
//!    `他のアプリに移らない？`), an ask to be added (a friend or follow request too) with an
//!    identifier, an app or a QR code (`add me: mika_0707`), a QR code to join a group, a
//!    number said to be in the profile or the photos, an app's account written or linked in the
//!    profile. `MONEY`: a score of strong (3), topic (2) and weak (1) signals of at least 3 (a
//!    rate counts 1, a rate or a growth per day, week or month more; talking money moved
//!    elsewhere one more; tips before the market or inside information, coaching to lie to the
//!    bank about a transfer, a wallet to connect, a bot that trades count 3 and are decisive:
//!    no discount takes them under 3, no model vetoes them; savings left idle in the bank 2), less 2 for talk about
//!    scams as news or warnings (to verify, to report, not to trust), about blocking,
//!    about one's own work, about splitting a bill, declining a transfer or paying one's own
//!    bills, a loan never repaid, knowing nothing of it, the price of a thing bought (a down
//!    payment, a wedding gift, a gift card, a tax return, a transit card topped up, a coupon, one's
//!    own parcel posted), one's own saving or first job, not investing oneself, reading about
//!    scams, someone who fell for a pitch, spam, an ask turned down, and for a relative's,
//!    colleague's or friend's money told of (`我爸每天看股票台`, `my
//!    ex used to trade forex`) with no "you", need, rate, sending, mentor or inside tip; less 3
//!    for a job in finance told of someone (or one's own desk, department or internship) to no one
//!    in particular (no "you", rate, amount, mentor or inside tip); a money word in quotation marks
//!    (`「老師帶單」`, `"withdrawal fee" emails`) in a message with no "you" counts nothing. Since
//!    round 13: someone else's pitch or ask told of with a rejection (`if anyone asks you to
//!    move to Telegram, block`, `日利3%とか言ってくる人いたら即ブロック`, `前にLINE交換しよって言われて
//!    怖かった`) is warned of: money less 3 and at most -2, no rate per period, its words (and an
//!    ask quoted beside a rejection) move nothing elsewhere; one's own pay, rent, tax, a fee
//!    charged or a cashback (`薪水多了15%`, `消費稅`, `PayPay 20% back`) with no "you", need,
//!    sending or mentor is less 2 and its rate is no rate per period, but earning more than one's
//!    pay (`than my salary`, `給料より`) is the topic (2); a gain shown with an amount
//!    (`screenshot … +¥420,000`) or given with its sign (`+6.8%`) counts one more (two with money
//!    words), and so does money made with an amount (`今天進帳一萬二`); a deadline to put money in
//!    (`the quota is almost full`, `現在不進就沒了`) is a weak word; an app's own features (`LINEの既読`,
//!    `收回訊息`, an account hacked) and a shop's QR code to order are told of, not offered (no
//!    contact model there either). Also `OFF_PLATFORM`: a symbol between a number's groups (`0955 ⭐
//!    612 ⭐ 840`, `070 / 3928 / 1156`), a host with a path (`ameblo.jp/rina`), continuing on an
//!    app (`continue on LINE?`), asking the reader's number (`你手機幾號`), the rest of a number
//!    in parts (`後六碼是 456387`, five to eight digits, no amount), a number given without its
//!    leading zero with a word to add it (`九一二 三四五 六七八 前面加個零`, eight to eleven
//!    digits, no amount); never an ask quoted as someone
//!    else's words (`「LINE交換しよ」って言ってくる人`), contact details not swapped, a fake account
//!    warned of, an app one does not use, or a lottery draw (rising pairs of digits up to 49).
//!    Since round 14: the reader's pay, income, savings, bonus or retirement money asked about
//!    (how much, whether enough, what besides: `你一個月可以存多少?`, `退職金ってどのくらい?`,
//!    `any other income besides teaching?`) in a message that addresses the reader is money
//!    talk (the money words plus 2, at least 3): the slow opening that names no investment yet;
//!    crypto, forex and investing as spelt to slip past a filter or in slang (`カソツー`,
//!    `仮装通貨`, `投z`, `大餅`, `幣圈`) are the topic (2); contact details kept until a meeting or
//!    the talk kept here (`等見面再給你`, `when we meet`, `まだ教えられない`) are told of, and so
//!    is a pitch someone almost fell for (`差點被`, `危うく`, `almost sent`) with a rejection.
//!    Since round 15: more of the slow opening (a bonus, a lump sum, an emergency fund, saving, a
//!    loan or mortgage, a credit limit, living costs, money sent home), and any question about it
//!    (`year end bonus coming?`, `ご両親に仕送りとかされてます？`); kindness or guilt before an ask
//!    (`you don't trust me?`, `我不會害你`, `信じてないの？`, `これで最後やから`) and the stake asked or a
//!    card's back scratched (`how much can you put in`, `刮開`) are strong (3); a relative or
//!    mentor who knows `before the news` is an inside tip; money put in held hostage (`再補`, `被沒收`), a
//!    shared future as the reason (`plan our future`), orders pressed when told (`指示通り`), money
//!    talk apologised for, the family kept out, a platform said to be licensed, the payee's name
//!    waved away (`振込先の名義`) and a purchase paid by the gains (`paid off her mortgage`) are the
//!    topic (2); interest in the topic asked (`投資とか興味ある？`), the means pointed at (`with this`)
//!    and a persona offshore are weak words; `million` after a number is an amount, and one's
//!    account or balance shown for a period (`look at my account this month 📈`) counts as a gain
//!    shown. Money told of, not asked, is less 2: one's own raise, a tax refund, a bank teller's
//!    questions, one's employer's stock plan, a novel, a class taught, a price raised, a
//!    birthday's gift card, an everyday bill, a joke taken back (`jk`). Also `OFF_PLATFORM`: LINE as
//!    `the green one`, and a messaging app named without its name with an ask (`add her on the
//!    green app`).
//! 5. **Learned models.** Where the rules find `MONEY`, a learned score far under its threshold
//!    vetoes it (not when a rate per period or an inside tip was found, nor beside contact details
//!    found by a shape, an identifier or an app with a plain ask); where they find `OFF_PLATFORM`
//!    by words, a second score far under its threshold vetoes it (not when a shape, an identifier
//!    or an app with a plain ask found it). Where the rules find no `MONEY` and did not discount
//!    the money words to -2 or less (a transfer declined, a scam warned of), the learned score
//!    may; where
//!    they find no `OFF_PLATFORM` but saw contact material (an app named, an identifier word or
//!    token, digits starting as a mobile number, a mail word, a phone word, a QR code, a link,
//!    another app or a talk moved elsewhere; not told of, nor a third person's own use of an
//!    app told to no one in particular), the second score may. Each is a logistic
//!    regression over the normalised text's character 1- to 3-grams (counts over the square root
//!    of their number), hashed into 7-bit weights in i8 (2^14 for money, 2^13 for contact;
//!    `safety/model.rs`, generated), against integer thresholds. The hand rules fit the phrasings
//!    they were tuned on (about 88 % scam recall on each new blind set); the models generalise
//!    from the whole tuned corpus. They are trained offline by `scripts/train_safety.py` (Python
//!    standard library, seeded), which reads each tuned line as the rules do through
//!    `safety_bench --dump` ([`rule_and_folded`]) and picks the thresholds by
//!    leave-one-round-out cross-validation over the nineteen tuned rounds (`--loro` prints it): the
//!    most recall with the false positives each model adds at or under 0.5 % in each language,
//!    then the highest vetoes that lose at most 0.5 % of each language's scam or contact lines;
//!    then, when the models trained on all nineteen miss the tuned part's own targets (recall ≥ 95 %,
//!    clean lines flagged ≤ 1 %, per language), the thresholds move by the fewest steps of 1/32
//!    that meet them (the money veto alone first, then both). `python3 scripts/train_safety.py`
//!    retrains; a test fails when the tuned files or the script changed since (a checksum in the
//!    model file). Leave-one-round-out over the nineteen tuned rounds, pooled, rules + both models
//!    → with the vetoes: scam recall 93.0 → 92.0 %, contact recall 97.1 → 96.7 %, hard-negative
//!    false positives 3.2 → 1.9 %, benign 0.1 % (round 15; round 14's rule, with the vetoes,
//!    91.0 %, 96.7 %, 2.0 %; the weights quantised to 7 bits, -63 to 63, to keep the chat's
//!    module in its budget). The rules were written from these rounds' errors, so this flatters
//!    them; the held-out rounds are the honest figure.
//!
//! The rule is measured on a hand-written corpus (`core/data/safety/`) by `just bench-safety`:
//! recall, false positives per language, cost per message. It is tuned on `tune.jsonl` and
//! `tune-2.jsonl` to `tune-8.jsonl`, eight independently written sets, `tune-10.jsonl` to
//! `tune-19.jsonl` (rounds 10 to 19, written blind, held out until rounds 12, 13, 14 and 15), and
//! `tune-hn.jsonl`, hard negatives written blind for tuning; the held-out parts of rounds 1 to 8
//! were each reported on once and then folded into them (rounds 3's to 8's, written blind, are
//! `tune-3.jsonl` to `tune-8.jsonl`). The held-out part is sets written blind and never tuned on:
//! `heldout-9.jsonl` (round 9) and `heldout-20.jsonl` to `heldout-28.jsonl` (rounds 20 to 28,
//! written blind during rounds 15 and 16).
//!
//! [`rules`]: crate::rules

use crate::rules::{SAFETY_YOUNG_MATCH_MESSAGES, SAFETY_YOUNG_MATCH_SECS};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// What a message carries that its reader should be careful about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Kind {
    /// Contact details (a LINE ID, a phone number, an address, a handle, a link) or a move to
    /// talk elsewhere.
    OffPlatform,
    /// Money: investing, platforms, crypto, returns, fees, loans, gift cards, asking for money.
    Money,
}

impl Kind {
    /// Every kind, in the order [`Kinds::codes`] lists them.
    pub const ALL: [Kind; 2] = [Kind::OffPlatform, Kind::Money];

    /// The wire code: `OFF_PLATFORM` or `MONEY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::OffPlatform => "OFF_PLATFORM",
            Kind::Money => "MONEY",
        }
    }

    /// The kind of a wire code.
    pub fn parse(code: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == code)
    }

    fn bit(self) -> u8 {
        match self {
            Kind::OffPlatform => 1,
            Kind::Money => 2,
        }
    }
}

/// A set of [`Kind`]s; serialises as the list of codes (`["OFF_PLATFORM", "MONEY"]`). For a
/// column, [`Kinds::bits`] and [`Kinds::from_bits`] give a small integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kinds(u8);

impl Kinds {
    /// No kind.
    pub const EMPTY: Kinds = Kinds(0);

    /// This set and `kind`.
    pub fn with(self, kind: Kind) -> Kinds {
        Kinds(self.0 | kind.bit())
    }

    /// Is `kind` in the set?
    pub fn contains(self, kind: Kind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// No kind at all.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds, in [`Kind::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Kind> {
        Kind::ALL
            .into_iter()
            .filter(move |kind| self.contains(*kind))
    }

    /// The wire codes, in [`Kind::ALL`] order.
    pub fn codes(self) -> Vec<&'static str> {
        self.iter().map(Kind::as_str).collect()
    }

    /// A compact form for storage: `OFF_PLATFORM` = 1, `MONEY` = 2, both = 3.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set of [`Kinds::bits`]; unknown bits are dropped.
    pub fn from_bits(bits: u8) -> Kinds {
        Kinds(bits & 3)
    }
}

impl FromIterator<Kind> for Kinds {
    fn from_iter<I: IntoIterator<Item = Kind>>(kinds: I) -> Kinds {
        kinds.into_iter().fold(Kinds::EMPTY, Kinds::with)
    }
}

impl Serialize for Kinds {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Kinds {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Kinds, D::Error> {
        Ok(Vec::<Kind>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

/// What the rule needs to know of the conversation a message is sent in, as it was before that
/// message: the server has it in its tables, the browser from the match list (`matchedAt`) and
/// the messages it loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// Seconds since the match was made (now − `matchedAt`).
    pub match_age_secs: i64,
    /// Messages the sender of the screened message had sent in this match before it.
    pub sent_by_sender: u32,
    /// Messages the other member had sent in this match.
    pub sent_by_other: u32,
}

impl Conversation {
    /// A match younger than [`SAFETY_YOUNG_MATCH_SECS`], or in which either side has sent fewer
    /// than [`SAFETY_YOUNG_MATCH_MESSAGES`] messages.
    pub fn is_young(&self) -> bool {
        self.match_age_secs < SAFETY_YOUNG_MATCH_SECS
            || self.sent_by_sender.min(self.sent_by_other) < SAFETY_YOUNG_MATCH_MESSAGES
    }

    /// Of the kinds a text carries ([`detect`]), those worth a caution in this conversation:
    /// `MONEY` always, `OFF_PLATFORM` while the match is young.
    pub fn cautions(&self, found: Kinds) -> Kinds {
        if self.is_young() {
            found
        } else {
            found
                .iter()
                .filter(|kind| *kind != Kind::OffPlatform)
                .collect()
        }
    }
}

/// The kinds a message is worth a caution for, in this conversation: [`detect`], then
/// [`Conversation::cautions`]. What the server stores with a message and the sender's sheet asks.
pub fn screen(text: &str, conversation: &Conversation) -> Kinds {
    conversation.cautions(detect(text))
}

/// The caution a message carries for one reader: its stored kinds ([`screen`]'s, when it was
/// sent) for the recipient, none for the sender's own copy, none when it carries no kind.
pub fn caution_for(stored: Kinds, reader_sent_it: bool) -> Option<Kinds> {
    (!reader_sent_it && !stored.is_empty()).then_some(stored)
}

/// Why a conversation goes to the reviewers ([`review_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewCause {
    /// One side's message carries money talk.
    Money,
    /// One side moved the talk elsewhere, then talked money: the romance-investment script.
    OffPlatformThenMoney,
}

impl ReviewCause {
    /// The wire code.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewCause::Money => "MONEY",
            ReviewCause::OffPlatformThenMoney => "OFF_PLATFORM_THEN_MONEY",
        }
    }

    /// The cause of a wire code.
    pub fn parse(code: &str) -> Option<ReviewCause> {
        [ReviewCause::Money, ReviewCause::OffPlatformThenMoney]
            .into_iter()
            .find(|c| c.as_str() == code)
    }
}

/// Whether a message just stored puts its conversation in the reviewers' queue, and why: its
/// sender's message carries `MONEY` (after `OFF_PLATFORM` in one of that sender's earlier
/// messages, `earlier_by_sender`, the stronger cause), and the conversation was never queued
/// before (`queued_before`: a conversation enters the queue once, whatever it says next). The
/// rule never suspends anyone: a reviewer decides.
pub fn review_due(
    earlier_by_sender: Kinds,
    this: Kinds,
    queued_before: bool,
) -> Option<ReviewCause> {
    if queued_before || !this.contains(Kind::Money) {
        return None;
    }
    Some(
        if earlier_by_sender.contains(Kind::OffPlatform) || this.contains(Kind::OffPlatform) {
            ReviewCause::OffPlatformThenMoney
        } else {
            ReviewCause::Money
        },
    )
}

/// [`screen`] of a text already in Unicode NFKC (the browser's `String.prototype.normalize`),
/// so that the wasm module carries no normalisation tables.
pub fn screen_nfkc(text_in_nfkc: &str, conversation: &Conversation) -> Kinds {
    conversation.cautions(detect_nfkc(text_in_nfkc))
}

/// The kinds a text carries, whatever the conversation.
pub fn detect(text: &str) -> Kinds {
    use unicode_normalization::UnicodeNormalization;
    match common_nfkc(text) {
        Some(normalised) => detect_nfkc(&normalised),
        None => detect_nfkc(&text.nfkc().collect::<String>()),
    }
}

/// [`detect`] of a text already in Unicode NFKC. A text not in NFKC is read as it is, so
/// full-width and other compatibility forms may go unseen.
pub fn detect_nfkc(text_in_nfkc: &str) -> Kinds {
    let folded = fold(text_in_nfkc);
    let signals = signals(&folded);
    let reading = signals.reading();
    let rule = reading.kinds();
    // Both models in one pass (one hash per n-gram): each may add its kind or veto the rule's.
    let (money, off, n) = model_scores::<true, true>(&folded);
    let mut kinds = Kinds::EMPTY;
    // An identifier, or an app named with a plain ask ("SMSちょうだい"), is decisive for
    // OFF_PLATFORM as a shape is.
    let off_decisive = reading.shape || signals.id_token || (reading.app && signals.asks());
    // A rate per day, week or month is a promised return whatever the model reads ("the plan
    // pays 2 percent daily"), and an inside tip, a bank to be lied to, a wallet to connect or a
    // bot that trades is the pitch itself, and so is money talk beside a decisive offer of
    // contact ("LINE交換しよう！ID は yui_0520、投資の話もしたいな"): decisive, as a shape is for
    // contact details. Where the rules discounted the money words to -2 or less (a transfer
    // declined, a scam warned of), the model adds no MONEY.
    let money_found = if rule.contains(Kind::Money) {
        (signals.daily && signals.percent)
            || signals.inside
            || (rule.contains(Kind::OffPlatform) && off_decisive)
            || model::MONEY_VETO.is_none_or(|veto| reaches(money, n, veto))
    } else {
        reading.money > -2 && reaches(money, n, model::MONEY_THRESHOLD)
    };
    if money_found {
        kinds = kinds.with(Kind::Money);
    }
    // A shape (an address, a number, a link, a handle) is decisive; words the rules read as a
    // move elsewhere stand unless the contact model is all but sure the text offers nothing.
    // The contact model tells whether the contact material the rule saw is offered; it finds
    // none by itself.
    // The veto reads the looser words (a move phrase, a loose ask, a mail word).
    let off_found = if rule.contains(Kind::OffPlatform) {
        off_decisive || model::OFF_VETO.is_none_or(|veto| reaches(off, n, veto))
    } else {
        signals.contact_material() && reaches(off, n, model::OFF_THRESHOLD)
    };
    if off_found {
        kinds = kinds.with(Kind::OffPlatform);
    }
    kinds
}

/// The hand-written rule alone over the folded text.
fn rule(folded: &[char]) -> Kinds {
    signals(folded).kinds()
}

fn signals(folded: &[char]) -> Signals {
    let mut signals = Signals::default();
    find_words(folded, &mut signals);
    find_digits(folded, &mut signals);
    find_shapes(folded, &mut signals);
    signals.reported = reported(folded);
    signals.quoted = quoted(folded);
    // A rate in a pitch warned of, or in one's own pay, rent or tax told of, promises no return
    // ("日利3%とか言ってくる人いたら即ブロック", "薪水多了15%"): no rate per period.
    if signals.warned() || signals.own_pay() {
        signals.daily = false;
    }
    // A pitch or an ask warned of is told of, not made: its words move nothing elsewhere, and the
    // contact model adds nothing where the rule read the contact material as told.
    if signals.warned_ask() {
        signals.told = true;
    }
    signals
}

/// The spans inside quotation marks (`「…」`, `"…"`, `“…”`): words quoted are mentioned, not
/// used (`聽到「老師帶單」就起雞皮疙瘩`, `"urgent withdrawal fee" emails`).
fn quoted(text: &[char]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for (i, c) in text.iter().enumerate() {
        match (open, *c) {
            (None, '「' | '“') => open = Some((*c, i)),
            (None, '"') => open = Some(('"', i)),
            (Some(('「', s)), '」') | (Some(('“', s)), '”') | (Some(('"', s)), '"') => {
                spans.push((s, i));
                open = None;
            }
            _ => {}
        }
    }
    spans
}

/// Words in quotes followed by a verb of saying (`「LINE交換しよ」って言ってくる人`, `「加我賴」說`):
/// someone else's ask told of, not made.
fn reported(text: &[char]) -> bool {
    text.iter().enumerate().any(|(i, c)| {
        let after = |n: usize| text.get(i + 1..i + 1 + n).unwrap_or(&[]);
        *c == '」'
            && (matches!(after(2), ['ト', '言'] | ['地', '說'])
                || after(3) == ['ッ', 'テ', '言']
                || matches!(after(1), ['說' | '说']))
    })
}

/// What the training script learns the decision from: the folded text and the rule's signals
/// as features ([`Signals::features`]).
#[doc(hidden)]
pub fn signal_features(text: &str) -> Vec<i32> {
    use unicode_normalization::UnicodeNormalization;
    let nfkc = common_nfkc(text).unwrap_or_else(|| text.nfkc().collect());
    signals(&fold(&nfkc)).features().to_vec()
}

/// Why the rule decides as it does, for the corpus's maintainers (`safety_bench -- --explain`):
/// the folded text, the money words with their weights, the score, the rule's features.
#[doc(hidden)]
pub fn explain(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let nfkc = common_nfkc(text).unwrap_or_else(|| text.nfkc().collect());
    let folded = fold(&nfkc);
    let signals = signals(&folded);
    let words: Vec<String> = signals
        .money
        .iter()
        .map(|(s, e, w)| format!("{}:{w}", folded[*s..*e].iter().collect::<String>()))
        .collect();
    let r = signals.reading();
    format!(
        "{} | money {} [{}] off {} | rule {:?} models {:?} | features {:?}",
        folded.iter().collect::<String>(),
        r.money,
        words.join(" "),
        r.off,
        r.kinds().codes(),
        model_says::<true, true>(&folded),
        signals.features()
    )
}

/// What the training script (scripts/train_safety.py) learns from: the kinds the hand-written
/// rule alone finds in a text, and the text as the rule and the model read it (NFKC, folded).
#[doc(hidden)]
pub fn rule_and_folded(text: &str) -> (Kinds, String) {
    use unicode_normalization::UnicodeNormalization;
    let nfkc = common_nfkc(text).unwrap_or_else(|| text.nfkc().collect());
    let folded = fold(&nfkc);
    (rule(&folded), folded.into_iter().collect())
}

// ---------------------------------------------------------------------------------------------
// The learned part

#[rustfmt::skip]
mod model;

const FNV_PRIME: u32 = 16_777_619;
/// The hash of a character n-gram starts here (FNV-1a's offset basis).
const CHAR_SEED: u32 = 2_166_136_261;
/// The longest character n-gram the money model reads.
const MAX_N: usize = 3;

fn step(hash: u32, c: char) -> u32 {
    (hash ^ c as u32).wrapping_mul(FNV_PRIME)
}

fn slot(hash: u32, bits: u32) -> usize {
    (hash.wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
}

/// 256 S / sqrt(n) >= T, compared in integers as sign-preserving squares so that the script and
/// this function decide alike.
fn reaches(sum: i32, n: i64, threshold: i32) -> bool {
    let a = 256 * i64::from(sum);
    let t = i64::from(threshold);
    a * a.abs() >= t * t.abs() * n.max(1)
}

/// Do the money model and the contact model find their kind in a folded text? Each sums the
/// quantised weights of the text's n features (character 1- to 3-grams, each hashed into
/// [`model::MONEY`] and [`model::OFF`]; scripts/train_safety.py computes the same) and compares
/// 256 S / sqrt(n) with its threshold.
fn model_says<const MONEY: bool, const OFF: bool>(text: &[char]) -> (bool, bool) {
    let (money, off, n) = model_scores::<MONEY, OFF>(text);
    (
        MONEY && reaches(money, n, model::MONEY_THRESHOLD),
        OFF && reaches(off, n, model::OFF_THRESHOLD),
    )
}

/// The sums of the money and contact models' weights over a folded text's features (one pass,
/// one hash per n-gram), and their number.
fn model_scores<const MONEY: bool, const OFF: bool>(text: &[char]) -> (i32, i32, i64) {
    let (money_weights, off_weights) = (&model::MONEY, &model::OFF);
    let (mut money, mut off) = (0i32, 0i32);
    let mut n = 0i64;
    for start in 0..text.len() {
        let mut hash = CHAR_SEED;
        for &c in &text[start..text.len().min(start + MAX_N)] {
            hash = step(hash, c);
            if MONEY {
                money += i32::from(money_weights[slot(hash, model::BITS)]);
            }
            if OFF {
                off += i32::from(off_weights[slot(hash, model::OFF_BITS)]);
            }
            n += 1;
        }
    }
    (money, off, n)
}

// ---------------------------------------------------------------------------------------------
// Normalisation

/// NFKC of a text made only of the characters chat is mostly written in, without the general
/// algorithm (a third of the rule's time): ASCII, CJK ideographs, kana, hangul, CJK punctuation,
/// a few quotes and dashes and the emoji blocks, which NFKC keeps as they are, and full-width
/// ASCII and the ideographic space, which it maps to ASCII. None for any other character
/// (combining marks, half-width kana, compatibility ideographs...): the caller then runs the
/// general algorithm. A test checks every character of these ranges against it.
fn common_nfkc(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        out.push(match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0)?,
            '\u{3000}' => ' ',
            c if nfkc_keeps(c) => c,
            _ => return None,
        });
    }
    Some(out)
}

fn nfkc_keeps(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{3001}'..='\u{3035}' | '\u{3041}'..='\u{3096}'
        | '\u{309D}' | '\u{309E}' | '\u{30A1}'..='\u{30FA}' | '\u{30FC}'..='\u{30FE}'
        | '\u{3105}'..='\u{312F}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}'
        | '\u{2013}' | '\u{2014}' | '\u{2018}' | '\u{2019}' | '\u{201C}' | '\u{201D}'
        | '\u{1F300}'..='\u{1FAFF}')
}

/// Characters that show nothing: zero-width spaces and joiners, direction marks, the soft
/// hyphen, variation selectors, the byte order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{E0000}'..='\u{E007F}'
        // A keycap's enclosing mark (0⃣), bopomofo's tone marks (ㄌㄧㄥˊ).
        | '\u{20E3}' | '\u{02CA}' | '\u{02C7}' | '\u{02CB}' | '\u{02D9}')
}

/// Letters that look like Latin ones (Cyrillic, Greek, a few Latin variants, letters in a black
/// circle or square), as that Latin letter in lower case; ASCII upper case lowered; anything else
/// as it is.
fn fold_letter(c: char) -> char {
    match c {
        'A'..='Z' => c.to_ascii_lowercase(),
        'а' | 'А' | 'α' | 'Α' => 'a',
        'в' | 'В' | 'β' | 'Β' | 'Ь' => 'b',
        'с' | 'С' | 'ϲ' | 'Ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'Е' | 'ё' | 'Ё' | 'ε' | 'Ε' => 'e',
        'һ' | 'Һ' | 'н' | 'Н' | 'Η' => 'h',
        'і' | 'І' | 'ї' | 'Ї' | 'ι' | 'Ι' | 'ı' | 'ɪ' => 'i',
        'ј' | 'Ј' => 'j',
        'к' | 'К' | 'κ' | 'Κ' => 'k',
        'ӏ' | 'Ӏ' | 'ǀ' | '|' => 'l',
        'м' | 'М' | 'Μ' => 'm',
        'ո' | 'Ν' | 'η' => 'n',
        'о' | 'О' | 'ο' | 'Ο' | 'σ' => 'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'υ' | 'ս' => 'u',
        'ν' | 'ѵ' => 'v',
        'ԝ' | 'ѡ' => 'w',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'у' | 'У' | 'γ' | 'Υ' => 'y',
        'Ζ' => 'z',
        '’' | '‘' | '`' | '´' => '\'',
        '＠' | '﹫' => '@',
        'ぁ'..='ゖ' => char::from_u32(c as u32 + 0x60).unwrap_or(c),
        // Negative circled and squared letters (🅒🅡🅨🅟🅣🅞), which NFKC leaves as they are.
        '\u{1F150}'..='\u{1F169}' => char::from_u32(c as u32 - 0x1F150 + 'a' as u32).unwrap_or(c),
        '\u{1F170}'..='\u{1F189}' => char::from_u32(c as u32 - 0x1F170 + 'a' as u32).unwrap_or(c),
        c if c.is_whitespace() => ' ',
        c => c,
    }
}

/// Separators between the single characters of a word spelt out (`L I N E`, `L.I.N.E`).
fn is_spelling_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '.' | '-' | '_' | '*' | '·' | '・' | ',' | '/' | '~'
    )
}

/// Pictographs and dingbats (`💲`, `💚`, `★`): put between the letters of a word spelt out
/// (`U💲S💲D💲T`, `L💚I💚N💚E`, `仮💴想💴通💴貨`), they separate as a space does.
fn is_symbol(c: char) -> bool {
    matches!(c, '\u{2600}'..='\u{27BF}' | '\u{1F000}'..='\u{1FAFF}')
}

/// A letter or a digit, of any script, as a word spelt out is made of: not a symbol.
fn is_letter(c: char) -> bool {
    c.is_ascii_alphanumeric() || (is_cjk(c) && !is_symbol(c))
}

/// A letter or digit beyond ASCII (CJK, kana, bopomofo, hangul, other scripts); the punctuation
/// blocks are not.
fn is_cjk(c: char) -> bool {
    !c.is_ascii()
        && !matches!(c, '\u{80}'..='\u{BF}' | '\u{2000}'..='\u{2BFF}' | '\u{3000}'..='\u{303F}' | '\u{FE30}'..='\u{FE4F}' | '\u{FF00}'..='\u{FF0F}')
}

/// The normalised text: invisibles dropped, letters folded, runs of spaces as one, words spelt
/// out in single characters joined, spaces between CJK characters dropped.
fn fold(text: &str) -> Vec<char> {
    let mut chars: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible(c) {
            continue;
        }
        let c = fold_letter(c);
        if c == ' ' && chars.last().is_none_or(|last| *last == ' ') {
            continue;
        }
        chars.push(c);
    }
    while chars.last() == Some(&' ') {
        chars.pop();
    }
    unleet(&mut chars);

    let single = |chars: &[char], i: usize| {
        let alnum = |j: usize| chars.get(j).is_some_and(|c| is_letter(*c));
        alnum(i) && !(i > 0 && alnum(i - 1)) && !alnum(i + 1)
    };
    let separator = |c: char| is_spelling_separator(c) || is_symbol(c);
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        // A run of at least three single characters of one script, each followed by one
        // separator, or by two or three with a symbol or an underscore among them (`L I N E`,
        // `U 💰 S 💰 D 💰 T`, `h u a _ 9 9 6`, not `l-i-n-e / a-k-i`); between CJK characters,
        // symbols only (a space there is dropped anyway; `仮💴想💴通💴貨`). A CJK character
        // starts one only with a symbol after it: the common case costs one test.
        let latin = chars[i].is_ascii_alphanumeric();
        if (latin || chars.get(i + 1).is_some_and(|c| is_symbol(*c))) && single(&chars, i) {
            let mut end = i;
            let mut count = 1;
            loop {
                let mut next = end + 1;
                let (mut symbols, mut underscore) = (false, false);
                while next < chars.len() && next <= end + 3 && separator(chars[next]) {
                    symbols |= is_symbol(chars[next]);
                    underscore |= chars[next] == '_';
                    next += 1;
                }
                let n = next - end - 1;
                if n == 0
                    || !(symbols || (latin && (n == 1 || underscore)))
                    || chars
                        .get(next)
                        .is_none_or(|c| c.is_ascii_alphanumeric() != latin)
                    || !single(&chars, next)
                {
                    break;
                }
                end = next;
                count += 1;
            }
            if count >= 3 {
                // An underscore set apart (`a _ 9`, `i._.t`) is the identifier's own.
                for j in i..=end {
                    let c = chars[j];
                    if !separator(c)
                        || (c == '_' && !(is_letter(chars[j - 1]) && is_letter(chars[j + 1])))
                    {
                        out.push(c);
                    }
                }
                i = end + 1;
                continue;
            }
        }
        // Chat's `u` and `ur` as the words they stand for, so that every listed phrase with `you`
        // matches them too ("can u", "ur number"); `500u` stays an amount of USDT.
        let edge = |j: usize| !chars.get(j).is_some_and(char::is_ascii_alphanumeric);
        if chars[i] == 'u' && (i == 0 || edge(i - 1)) {
            let your = chars.get(i + 1) == Some(&'r');
            let len = 1 + usize::from(your);
            if edge(i + len) {
                out.extend(if your { "your" } else { "you" }.chars());
                i += len;
                continue;
            }
        }
        if let Some((symbol, next)) = spoken_symbol(&chars, i, out.last().copied()) {
            out.push(symbol);
            i = next;
            continue;
        }
        let c = chars[i];
        if c == ' '
            && out.last().is_some_and(|p: &char| !p.is_ascii())
            && chars.get(i + 1).is_some_and(|n| !n.is_ascii())
        {
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Digits and `$` that stand for letters inside a Latin word (`b1tc0in`, `g0ld`, `F0REX`, `u$dt`),
/// as those letters, when the word holds no other digit: an identifier's digits (`kenji88`,
/// `yui_0520`) and amounts stay.
fn unleet(chars: &mut [char]) {
    let alike = |c: char| matches!(c, '0' | '1' | '3' | '$');
    let in_word = |c: &char| c.is_ascii_alphanumeric() || *c == '$';
    for j in 1..chars.len().saturating_sub(1) {
        if !(alike(chars[j])
            && chars[j - 1].is_ascii_alphabetic()
            && chars[j + 1].is_ascii_alphabetic())
        {
            continue;
        }
        let start = j - chars[..j].iter().rev().take_while(|c| in_word(c)).count();
        let end = j + chars[j..].iter().take_while(|c| in_word(c)).count();
        let word = &mut chars[start..end];
        if word.len() < 4 || word.iter().any(|c| c.is_ascii_digit() && !alike(*c)) {
            continue;
        }
        for k in 1..word.len() - 1 {
            if alike(word[k])
                && word[k - 1].is_ascii_alphabetic()
                && word[k + 1].is_ascii_alphabetic()
            {
                word[k] = match word[k] {
                    '0' => 'o',
                    '1' => 'i',
                    '3' => 'e',
                    _ => 's',
                };
            }
        }
    }
}

/// A symbol of an identifier said in words between two of its parts (`maya underscore lin`,
/// `yun點hsu點tw`, `ken アンダーバー 88`), as that symbol and where the part after it starts.
fn spoken_symbol(chars: &[char], i: usize, before: Option<char>) -> Option<(char, usize)> {
    let before = before.filter(char::is_ascii_alphanumeric)?;
    let from = i + usize::from(chars[i] == ' ');
    let (symbol, len) = match chars.get(from..)? {
        ['點' | '点', ..] => ('.', 1),
        ['底', '線', ..] => ('_', 2),
        ['ア', 'ン', 'ダ', 'ー', 'バ', 'ー', ..] => ('_', 6),
        // A word of its own: `thunderscore` holds none.
        ['u', 'n', 'd', 'e', 'r', 's', 'c', 'o', 'r', 'e', rest @ ..]
            if from > i && !rest.first().is_some_and(char::is_ascii_alphabetic) =>
        {
            ('_', 10)
        }
        _ => return None,
    };
    let end = from + len;
    let after = end + usize::from(chars.get(end) == Some(&' '));
    let next = chars.get(after).copied()?;
    // 點 between digits is a time (`7點30`), not a dot.
    (next.is_ascii_alphanumeric()
        && (symbol == '_' || before.is_ascii_alphabetic() || next.is_ascii_alphabetic()))
    .then_some((symbol, after))
}

// ---------------------------------------------------------------------------------------------
// Signals

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sig {
    /// A messaging or social app's name.
    App,
    /// An app's name inside a phrase that is not about the app (`line pay`): hides the App.
    NotApp,
    /// Asking to add, swap, give, search, move; or praising another app.
    Ask,
    /// A word that asks only in a message that addresses its reader ([`WEAK_ASKS`]).
    WeakAsk,
    /// The reader addressed by the message's form: a question, a suggestion, a request.
    Direct,
    /// A word for an identifier (`id`, `帳號`).
    IdWord,
    /// A phrase of moving elsewhere or asking for contact details: enough alone.
    Move,
    /// A link to a messaging or social site, or a link shortener: enough alone.
    Link,
    /// An e-mail provider or a word for e-mail.
    Mail,
    /// `dot com` and its spellings: with a Mail word, an address read aloud.
    DotCom,
    /// Money words, weighted: enough alone (3), the topic itself (2), needing company (1), talk
    /// about scams as news, about one's clients or one's own work (-2).
    Money(i8),
    /// A word of each day, week or month: with a percentage, a promised rate.
    Daily,
    /// Blocking or reporting someone, an emergency contact: the message tells of an ask made to
    /// its writer or of contact details kept, it makes no ask (words alone then move nothing
    /// elsewhere; shapes still do).
    Told,
    /// A number given in parts (`前半`, `the rest`): the digit runs of the message join.
    Split,
    /// A job in finance (`trader`, `分析師`): said of someone, with no "you" in the message, it
    /// describes a job, not a pitch.
    Job,
    /// The reader addressed (`you`, `妳`, `あなた`): a pitch is made to someone.
    You,
    /// Asking to be added or looked up (`add me`, `加我`, `追加して`): with an identifier, a QR
    /// code or an app, contact details whatever the app.
    AddMe,
    /// A QR code: with an ask to add or an account, a contact card.
    Qr,
    /// A phone number named (`號碼`, `番号`, `my number`): with a place in the profile or the
    /// photos, contact details given there.
    PhoneWord,
    /// The member's profile or photos (`自介`, `プロフ`, `third photo`).
    Place,
    /// Money growing (`double`, `翻倍`, `増え`): a weak money word, and with a period a promised
    /// growth.
    Gain,
    /// A percentage in words (`百分之`).
    Percent,
    /// A verb of sending or lending money (`send`, `轉`, `振り込`): with an amount, one more
    /// money signal ("send 200", "轉兩千給我").
    Send,
    /// What is seen or followed on an app (`最喜歡`, `favorite`, `フォローしてる`): an app with an
    /// ask or an account word is then about its content, not a contact; an identifier still is.
    Content,
    /// A teacher or mentor (`老師`, `メンター`): a weak money word, and what a job in finance
    /// is told of in a pitch ("my mentor was a Wall Street trader").
    Mentor,
    /// Talking money (`お金の話`, `講錢`): a weak money word, and with a move elsewhere the
    /// script's "not here" ("ここじゃお金の話は…ラインで").
    MoneyTalk,
    /// Written or linked somewhere (`書いてある`, `リンク`): with an app and the profile, the
    /// account given there ("my LINE is in my profile").
    Put,
    /// Joining (`加入`, `join the`): with a QR code, a group elsewhere.
    Join,
    /// A messaging app named without its name (`通訊軟體`, `他のアプリ`, `another app`): with a
    /// move or talk, a move elsewhere ("換過去聊", "他のアプリに移らない？").
    OtherApp,
    /// Moving the talk, talking (`換到`, `話そう`, `switch`).
    TalkMove,
    /// Tips before the market, inside information, a bank to be lied to, a wallet to connect, a
    /// bot that trades (`inside info`, `before the market`, `if the bank asks`, `connect your
    /// wallet`, `trading bot`): money talk enough alone (3), even of a relative in finance with
    /// no "you"; decisive (no discount, no veto).
    Inside,
    /// A third person as the one who uses the app (`我媽`, `母から`, `my mom`, `for work`): with
    /// no "you" in the message, an app used in the writer's own life, no ask (words alone then
    /// move nothing elsewhere; shapes still do).
    Aside,
    /// A relative, colleague or friend (`我爸`, `同期が`, `my ex`): with no "you", need, rate,
    /// sending, mentor or inside tip, their money is a story told, not a pitch (money less 2).
    Story,
    /// A need or an ask (`需要`, `急`, `can you`): a relative in hospital who needs money is the
    /// script itself.
    Need,
    /// Someone else's pitch or ask told of (`if anyone`, `如果有人`, `言ってくる人`, `言われて`,
    /// `叫人`): with a rejection, a warning, not a pitch ([`Sig::Reject`]).
    Pitcher,
    /// A rejection (`block`, `scam`, `不要理`, `要注意`, `怖`): with a pitcher, the pitch and the
    /// ask are warned of (money less 3, words move nothing elsewhere, a rate promises nothing).
    Reject,
    /// One's own pay, rent, a tax, a fee charged, a cashback (`薪水`, `rent`, `消費稅`, `% back`,
    /// `手数料取られ`): a money word of weight 0 that hides the words inside it; with no "you",
    /// need, sending, mentor or inside tip, a rate or a rise of it is no return (money less 2).
    Pay,
    /// A leading zero to be added to a number (`前面加個零`, `add a zero`): with a run of eight
    /// to eleven digits that is no amount, a phone number given without its first digit.
    ZeroAdd,
    /// A gain shown (`screenshot`, `獲利圖`, `チャート`, `📈`): with an amount, money made shown
    /// off, one more money signal.
    Shown,
    /// The reader's income, savings or retirement money ([`ASSETS`]), and a question of how much,
    /// whether enough, what besides ([`PROBES`]): together, addressed to the reader, the slow
    /// opening of a pitch that names no investment yet (round 14).
    Asset,
    Probe,
    /// Money made (`made`, `賺了`, `稼いだ`): with an amount and no discount, money made told
    /// (one more money signal: "made 6k today", "made about NT$180k on the side").
    Made,
    /// Earning more than one's pay (`than my salary`, `給料より`, `比薪水`): the topic (2), and
    /// one's pay then is the pitch's yardstick, not pay told of ([`Sig::Pay`]).
    OutEarn,
}

/// A list of words as one string, a word a line: the module carries the words' bytes and no
/// table of pointers to them (8 bytes a word in wasm, a third of the lists' size).
macro_rules! words {
    ($($word:literal),* $(,)?) => {
        concat!($($word, "\n"),*)
    };
}

/// The words of a [`words!`] list.
fn words_of(list: &'static str) -> impl Iterator<Item = &'static str> {
    list.split_terminator('\n')
}

// The lists below are written as people type them; each is folded like a message when the
// index is built (`話そう` is matched as `話ソウ`). An ASCII word needs a non-letter on both
// sides; one ending in `~` matches any ending (`invest~`: invests, invested, investment).

/// Messaging and social apps. `line` alone is a common English word and `ライン` a common
/// loanword: NOT_APPS hides their benign phrases, and an app counts only with an ask or an
/// identifier.
#[rustfmt::skip]
const APPS: &str = words![
    "line", "賴", "ㄌㄧㄋㄝ", "ㄌㄞ", "ライン", "テレグラム", "telegram", "tg", "紙飛機", "纸飞机", "飛機號", "飞机号", "加飛機",
    "飛機聯繫", "飛機id", "whatsapp", "ワッツアップ", "wechat", "微信", "weixin", "vx", "wx", "ig", "insta",
    "instagram", "インスタ", "fb", "facebook", "臉書", "脸书", "フェイスブック", "kakao", "kakaotalk", "カカオ",
    "signal", "snapchat", "snap", "discord", "twitter", "推特", "tiktok", "抖音", "小紅書", "小红书", "skype",
    "viber", "qq", "messenger", "threads", "スカイプ", "iine", "l1ne", "1ine", "l!ne", "llne", "lineid", "ラインid",
    "ツイッター", "ティックトック", "ディスコード", "スナップチャット", "ウィーチャット", "メッセンジャー", "カカオトーク", "電報",
    "电报", "哀居", "v信", "薇信", "威信",
    "kik", "簡訊", "sms", "ショートメール", "imessage",
    "飛機", "テレ", "tele",
    // LINE's short names spelt in katakana letters (エル・アイ・エヌ・イー), LINE's open chats.
    "エルアイエヌイー", "アイジー", "エフビー", "オープンチャット", "openchat",
    // Video calls and other apps met with (round 12): a call on Zoom or Meet, LinkedIn, Dcard, a
    // masked LINE.
    "linkedin", "リンクトイン", "google meet", "zoom", "ズーム", "facetime", "dcard", "ラ〇ン", "ラ○ン", "ラ◯ン",
    "テレグラ",
];

#[rustfmt::skip]
const NOT_APPS: &str = words![
    "line pay", "linepay", "line bank", "line銀行", "line today", "line news", "lineニュース",
    "line music", "line point", "lineポイント", "line貼圖", "line sticker~", "lineスタンプ", "line購物",
    "line taxi", "line禮物", "line gift", "in line", "the line", "a line", "line up", "line of", "long line", "lines are",
    "finish line", "bottom line", "オンライン", "デッドライン", "ガイドライン", "ボーダーライン", "ラインナップ", "ラインアップ",
    "ヘッドライン", "アウトライン", "スカイライン", "ライン工", "賴床", "不賴", "信賴", "依賴", "耍賴", "賴皮", "無賴", "賴在", "賴先生",
    "賴小姐", "snap pea~", "signals", "シグナル", "trading signal~", "the signal", "'s signal",
    "analyst's signal~",
    "smsが来", "sms来", "smsで来", "收到簡訊", "簡訊說", "got an sms", "sms from", "sms saying",
    "搭飛機", "坐飛機", "飛機上", "飛機票", "下飛機", "上飛機", "趕飛機", "テレビ", "テレワーク", "テレパシー",
    // A LINE message received ("LINEが来た", "LINE來了") asks nothing.
    "lineが来", "lineが届", "lineきた", "line來了", "line傳來", "ラインが来", "ラインきた",
    "zoom in", "zoom out", "ズームイン", "ズームアウト", "zoom lens", "ズームレンズ",
];

#[rustfmt::skip]
const ASKS: &str = words![
    // zh-TW
    "加我", "加一下", "加個", "加好友", "互加", "加妳", "加你", "加老師", "加客服", "给我", "給我", "多少", "搜",
    "私聊", "聯絡", "聯繫", "联系", "找我", "賴我", "傳給", "傳到", "傳我", "來我的", "移到", "改用", "去那邊",
    "留個", "就是我", "qr",
    // ja
    "追加", "教え", "聞け", "検索", "探し", "話そう", "話さない", "で話", "しよ", "ある?",
    "移動", "連絡", "送る", "送りたい", "ちょうだい", "こちら", "のほうが", "の方が",
    // en
    "add", "swap", "exchange", "give me", "what's your", "whats your", "what is your", "search",
    "message me", "reach me", "find me", "text me", "call me", "hit me up", "snap me", "line me",
    "telegram me", "chat on", "talk on", "go to", "switch to", "move to", "move over",
    "do you have", "do you use", "have it", "let's use", "let's talk",
    "let's chat", "get your", "ask for your", "can i get", "send",
    "come to", "look me up",
    "scan", "読み取", "掃描", "掃我", "私我", "密我", "敲我", "hmu", "ping me",
    "dm me",
    "invite", "招待", "拉妳", "拉你", "拉進", "続きは",
    "移ら", "移ろ", "移れ",
    "give you my", "給妳我的", "給你我的", "keep in touch",
    "continue on", "move this to", "move it to", "continue this on",
    "asked for your", "can i have your", "could i have your", "may i have your",
    // Another app offered, a request sent, a code scanned, an app said to answer faster (round 12).
    "でもいい", "でも大丈夫", "works too", "friend request", "好友邀請", "友達申請", "申請してくれ",
    "follow request", "掃妳", "掃你", "有的話", "叫什麼", "ならすぐ返", "ならすぐ気づ", "そっちで", "そっちに",
    "drop you my", "うつろ", "うつら",
];

/// Words that ask only when the message addresses its reader (a [`Sig::Direct`] word, "you" or a
/// question): the same words tell of one's own use of an app ("我ig私訊都是廣告", "got an email from
/// HR", "インスタでフォローされると", "the brown line is so slow I could walk faster").
#[rustfmt::skip]
const WEAK_ASKS: &str = words![
    "交換", "聊", "私訊", "追蹤", "傳", "比較",
    "聞い", "使って", "来て", "変え", "やって", "あります", "フォロー", "dm", "持ってる", "にしない",
    "got", "there", "faster", "better", "easier", "instant", "instead", "follow", "use line", "on here",
    "more reliable",
    // Another app offered, a call proposed (round 12: "カカオでもいい？", "LINE通話できる？").
    "也可以", "通話", "視訊", "video call", "videocall", "話したい", "進來",
];

/// The reader addressed or invited by the message's form ([`Sig::Direct`]): a question, a
/// suggestion, a request (`吧`, `要不要`, `我們`, `しよう`, `ませんか`, `してね`, `let's`).
#[rustfmt::skip]
const DIRECT: &str = words![
    "?", "吧", "好不好", "好嗎", "要不要", "我們", "咱們", "一下", "一起", "嘛", "來追蹤", "私訊我", "直接",
    "しよ", "しとこ", "しとい", "ませんか", "してね", "して!", "してよ", "ようよ", "よう、", "よう。",
    "変えよう", "ください", "下さい", "ちょうだい", "一緒に", "ほうがいい", "方がいい", "して、",
    "let's", "lets", "shall we", "can i", "could i", "please", "pls", "me on", "me at", "with me",
];

#[rustfmt::skip]
const ID_WORDS: &str = words![
    "id", "帳號", "账号", "アカウント", "ユーザー名", "username", "handle", "號碼", "手機號", "電話番号", "携帯番号",
    // A second, private account (round 12).
    "小帳", "鍵垢", "裏垢", "サブ垢", "alt account", "private account", "finsta",
];

#[rustfmt::skip]
const MOVES: &str = words![
    // zh-TW
    "換個地方聊", "別的地方聊", "其他地方聊", "私下聊", "外面聊", "聯絡方式", "联系方式", "聯繫方式", "電話給我", "給我妳的電話", "給我你的電話",
    "電話幾號", "留個電話", "留電話", "不要在這裡聊", "這裡不方便", "很少上", "不太常開", "快沒在用", "其他聯絡",
    // ja
    "別のところで", "別の場所で", "個別に連絡", "連絡先", "連絡手段", "電話番号だけでも", "番号教え", "何番", "ここじゃなくて",
    "ここじゃ話しにくい", "あまり開かない", "あんまり見ない", "使わなくなる",
    // en
    "somewhere else", "contact details", "contact info", "way to contact", "way to reach",
    "your number", "your phone number", "your email", "talk privately", "chat privately",
    "off this app", "outside the app", "barely open this app",
    "rarely on here", "in my bio", "number's in", "number is in", "read our messages",
    "messages here are", "replies here", "this app is slow", "too many restrictions", "scan this qr",
    "scan my qr", "qrコード送", "send you my qr", "send my qr", "傳qr", "傳我的qr",
    "用別的聊", "私下用", "打我手機", "號碼我放", "號碼在自介", "這裡會被看", "這個app限制",
    "別のとこで", "個人的に連絡", "連絡とれる", "連絡取れる", "チェックされる", "監視され", "プロフに番号",
    "制限多",
    "番号聞", "番号を聞", "番号知りたい", "番号を教え",
    "很少開", "很少用", "不常用", "あんまり開かない", "あまり使わない", "hardly ever on", "rarely use this", "barely use this", "rarely check this",
    "番号なに", "番号何", "號碼多少", "號碼幾號",
    // Swapping numbers.
    "swap numbers", "exchange numbers", "trade numbers", "番号交換", "交換電話", "交換號碼", "交換手機",
    // Asking the reader's number, talking outside.
    "手機幾號", "你的手機號碼", "妳的手機號碼", "你的號碼", "妳的號碼", "號碼給我", "番号送って", "交換個電話",
    "外で話", "外で連絡",
    // An identifier given as a recipe or in parts, so that no filter sees it (round 12: "IDは名前+
    // 誕生日", "my insta is my name spelled backwards", "ID 我分兩次給妳").
    "名前+誕生日", "名前と誕生日", "名前のローマ字", "本名のローマ字", "をローマ字で", "をローマ字にし",
    "英文名加生日", "名字加生日", "name plus my birthday", "name + birthday", "name+birthday",
    "spelled backwards", "spelt backwards", "birthday twice", "first + last name",
    "name no spaces", "中間加底線", "中間一個底線", "中間加個底線", "underscore, then", "アンダーバーでつな",
    "分兩次給", "分兩次傳", "拆開打", "合起來就是", "分けて送る", "何回かに分けて", "さっきのとつなげ",
    // The app said to watch or read the talk.
    "被監控", "被監視", "運営に見られ", "見られてる気が", "app is watching", "app reads", "app is reading",
    "being monitored", "they monitor",
    // Calling or writing outside, the app hardly opened.
    "text instead", "call instead", "直接打給我", "不太看這個", "不太會開這個", "不太開這個", "外でも連絡",
    "アプリの外", "直接やりとり", "外でもやりとり", "番号に直接", "番号でつなが", "住所教え", "住所を教え",
    "地址給我",
];

#[rustfmt::skip]
const LINKS: &str = words![
    "line.me/", "lin.ee/", "t.me/", "telegram.me/", "wa.me/", "m.me/", "instagram.com",
    "facebook.com", "fb.com/", "fb.me/", "twitter.com/", "x.com/", "tiktok.com/", "discord.gg",
    "snapchat.com", "weixin.qq.com", "open.kakao.com", "bit.ly/", "reurl.cc/", "tinyurl.com",
    "lihi", "ppt.cc/", "goo.gl/", "linktr.ee", "lit.link", "linktree",
];

#[rustfmt::skip]
const MAILS: &str = words![
    "gmail", "yahoo", "hotmail", "outlook", "icloud", "protonmail", "信箱", "郵箱", "邮箱", "email",
    "メール", "メアド", "mail",
];

#[rustfmt::skip]
const DOT_COMS: &str = words![
    "點com", "点com", "點net", "點tw", "dot", "ドット",
];

/// Money words enough alone.
#[rustfmt::skip]
const MONEY_STRONG: &str = words![
    // crypto, trading, insiders
    "usdt", "tether", "泰達幣", "泰达币", "テザー", "trc20", "erc20", "錢包地址", "钱包地址", "wallet address",
    "ウォレットアドレス", "幣安", "binance", "defi", "staking", "stake", "ステーキング", "質押", "挖礦",
    "マイニング", "mine coins",  "プレセール", "預售", "搬磚", "套利", "arbitrage", "槓桿", "レバレッジ",
    "leverage~", "量化", "quant bot", "自動売買", "copy trade~", "跟單", "帶單", "喊單", "明牌", "飆股", "爆上げ",
    "爆益", "stock picks", "內線", "insider~", "未公開株", "pre-ipo", "內部認購", "binary option~", "バイナリーオプション",
    "外匯", "forex", "fx", "期貨", "先物", "futures",
    // platforms, deposits and withdrawals
    "出金", "入金", "提領", "提現", "解凍", "凍結解除", "unfreez~", "withdrawal fee", "to withdraw",
    "can't withdraw", "unlock the withdrawal", "首儲", "first deposit", "儲值送", "入金ボーナス",
    "deposit bonus", "邀請碼", "招待コード", "referral code", "投資群組", "投資グループ", "investment group",
    "investment club", "投資クラブ", "投資俱樂部", "vip", "跟著我下單", "下單就好", "言う通りに注文", "注文するだけ",
    "place the orders", "place the order for you", "開戶", "口座開設", "open your account",
    // returns promised
    "保證獲利", "保证获利", "穩賺", "稳赚", "保本", "保息", "包中", "保底", "元本保証", "利益保証", "必ず儲かる", "確実に儲かる",
    "絶対に損しない", "損しない", "必ずプラス", "guaranteed", "guarantee you'll", "risk-free", "can't lose",
    "sure thing", "capital protected", "principal guaranteed", "年化", "apy", "月利", "月息", "日利",
    "月入十萬", "月収100万", "倍になる", "翻倍", "10倍", "十倍", "10x", "回本", "一定漲", "一定賺", "必ず上が",
    "will double", "保證", "保証", "讓錢幫妳賺錢", "讓錢幫你賺錢", "お金に働いてもらう", "money work for you", "閒錢",
    "how much savings", "余ってるお金", "使ってないお金", "idle funds", "put some money in", "一起投資", "拿一點出來",
    "you could make", "sure-fire", "surefire", "easy money", "double your money", "double whatever",
    "派息", "mining rig~", "yield farm~", "back of the card", "loan me", "spare some money",
    "spare some cash", "can you send me money", "轉一點給我",
    // asking for money
    "借我", "先借", "借一點", "貸して", "貸してもらえ",  "lend me", "lend it", "borrow", "匯款",
    "匯給我", "轉給我", "刷給我", "代墊", "幫我付", "幫我繳", "幫我匯", "繳這筆錢", "振り込んで", "送金", "払ってもらえ",
    "wire me", "wire it", "transfer it to me", "send me $", "send the money", "venmo me",
    "western union",  "cover my", "cover the fee", "手術費", "手術代", "surgery", "周轉",
    "周转", "工面", "tide me over", "money is a bit tight", "手頭有點緊", "ちょっと厳しく", "your credit card",
    "信用卡額度", "クレジットカードで先に",
    // gift cards and points
    "禮品卡", "禮物卡", "點數卡", "遊戲點數", "steam卡", "itunes卡", "gift card~", "ギフトカード", "ギフト券", "itunesカード",
    "steamカード", "steam card~", "itunes card~", "game credits", "ゲームのポイント",
    // mules, loans, fees
    "帳戶借我", "口座を貸して", "口座を作って", "收一筆錢", "受け取って送金", "receive a transfer",
    "お金を渡して", "hand the cash", "把錢交給", "關稅", "関税", "customs", "代辦費", "保証料", "no credit check",
    "審査なし", "不用看信用", "processing fee", "刷單", "衝業績", "boost merchants", "運費跟保險", "送料と保険料",
    "shipping and insurance", "手續費", "手数料", "handling fee", "保証金", "security deposit",
    "risk deposit", "會員費", "会員費", "membership fee", "解約", "cash out our",
    "surrender your insurance", "追徴課税", "補稅", "back tax", "所得稅", "所得税", "income tax", "休假申請",
    "休暇申請", "leave application", "罰款", "visa fine", "罰金", "日給", "passive income", "躺賺", "躺著賺", "躺著也能賺", "寝てても稼げる",
    "被動收入", "分紅", "配当",
    // what is said to one who hesitates
    "不是詐騙", "詐欺じゃない", "not a scam", "小額", "少額", "small amount", "試試看", "試してみて", "try a small",
    "私募", "private placement", "help paying", "內部消息", "幫妳操作", "幫你操作", "拿一部分出來", "繳費代碼",
    "讓錢幫", "money works for", "裁定取引", "ノーリスク", "no risk", "表に出ない", "お金に困らない", "証拠金",
    "ロスカット", "margin call", "お金を受け取", "受け取って送", "personal loan", "take out a loan",
    "going to moon", "to the moon", "go all in", "all in on", "private fund", "pay a fine",
    "不買可惜", "錯過可惜", "乗り遅れ", "airdrop", "zero risk", "risk free", "unlock fee",
    "release fee", "clearance fee", "verification fee", "activation fee", "short on cash", "short on rent",
    "bank details", "routing number", "redeem code", "code on the back", "moneygram", "bitcoin atm",
    "account manager", "stock tip~", "spot gold",  "抄底", "超商代碼", "保釋金", "投資案件", "高収入",
    "不労所得", "アマギフ", "trading group", "signal group", "signals group", "幫忙先付", "幫忙付", "匯到我", "先匯", "your money into", "把錢放在", "お金を置", "お金を送って", "amazon card~", "whatever you can afford", "fund it",
    "内部情報", "インサイダー", "inside info", "金融ライセンス", "financial licen~", "牌照", "絶対負けない", "ぜったいまけない", "garantee~", "guarentee~", "cant lose", "保釈金", "split the profit~", "分潤", "山分け",  "利潤分成", "梭哈",
    "立て替えてくれたら",
    "apple卡", "appleカード", "apple card~", "google play卡", "app store卡",
    "never lose~", "不會虧", "穩賺不賠",
    "立て替えて",
    "split the margin", "split the gains", "split the earnings",
    // Denying being a scammer, promising no loss.
    "不是騙子", "not a scammer", "詐欺師じゃない", "騙してない", "不會騙你", "不會騙妳", "沒有騙你", "沒有騙妳",
    "リスクはゼロ", "リスクゼロ", "零風險", "無風險", "補填", "損失補", "虧損補",
    // A pitch's promises in English: a record that never loses, a way in before the public, a
    // first small stake, a lesson offered (round 10: English scam lines were the fewest found).
    "win rate", "principal-protected", "no way to lose", "never lost", "nobody has lost", "lost a cent",
    "limit up", "pre-sale", "new coin", "enter the trade", "card codes", "bail money", "when to sell",
    "buy early", "get in before", "leaked a tip", "my profits", "wealth program", "financial management",
    "deposit done", "isn't a scam", "put my own money", "before the listing", "before the public",
    "try with", "start small", "invest a little", "teach you", "spots open", "slots are limited",
    "ask for money",
    // The reader's savings asked about, money left idle or made to work, a wallet app to set up,
    // a ransom (round 12, from rounds 10 and 11 tuned on).
    "存款大概", "存款有多少", "存款多少", "貯金っていくら", "貯金いくら", "貯金どのくらい", "貯金はどれくらい",
    "how much do you have saved", "how much have you saved", "idle money", "閒置的錢", "眠らせ", "寝かせておく",
    "sitting doing nothing", "放著只會貶值", "放著會貶值", "讓錢自己", "錢也幫", "讓它動起來", "錢放在那邊",
    "冷錢包", "cold wallet", "metamask", "メタマスク", "imtoken", "trust wallet", "建立錢包", "贖金", "ransom",
    "示談金", "自動交易", "ai trading", "トレードボット", "財務自由", "財富自由",
    "financial freedom", "経済的自由",
    "億り人",
    // Round 15, kindness or guilt before an ask: trust demanded, the ask made with shame or said to
    // be the last, a pitch denied while it is made ("you don't trust me?", "我不會害你", "信じてないの？",
    // "これで最後やから"); the stake asked, the reader's credit limit, a card's back scratched, a
    // holding to sell (rounds 17 to 19).
    "don't trust me", "embarrassed to ask", "hate asking", "not asking you to give me",
    "信我一次", "我不會害你", "不想開口", "信じてないの",
    "限度額", "scratch the back", "刮開",
];

/// The topic itself: two of these, or one with an amount or a weaker word, is money talk.
#[rustfmt::skip]
const MONEY_TOPIC: &str = words![
    "投資", "投资", "invest~", "平台", "プラットフォーム", "platform", "賺錢", "賺", "稼ぐ", "稼げ", "稼い", "make money",
    "making money", "earn~", "儲か", "獲利", "利益", "profit~", "理財", "資産運用", "資産", "運用", "股票", "株", "銘柄",
    "stock~", "虛擬貨幣", "加密貨幣", "仮想通貨", "crypto~", "比特幣", "ビットコイン", "bitcoin", "ファンド", "funds", "借錢",
    "資金", "savings", "取引", "交易", "trading", "side hustle", "副業", "deposit~", "儲值", "投了",
    "gains", "pays out", "payout~", "commission~", "收益", "売買", "トークン", "token~", "hedge fund~",
    "google play", "先轉", "入帳",
    "數位資產", "digital asset~",
    "充值", "チャージ", "withdrawal~", "這檔", "稼ぎ", "トレード", "p&l", "side income",
    "i'm short", "im short", "margin", "account number", "retainer", "half the capital",
    "get in now", "相場", "振込", "nft~", "blockchain", "liquidity", "roi", "withdraw~", "withdrew", "bank account",
    "虛擬幣", "加密幣", "期權", "報酬率", "急用", "醫藥費", "儲け", "借金",
    "証券口座",
    "遺產", "遺産", "inheritance", "相続", "k線", "ローソク足", "candlestick", "持倉", "損益", "stop loss", "止盈", "止損", "損切り", "利確", "recharge", "depo", "platfrom", "opening an account", "open an account", "while i was asleep", "while you sleep", "in my sleep", "睡覺也", "寝てる間", "free money", "all in", "漲停", "年報酬", "複利", "compound~", "連本帶利", "監管", "regulated", "receive some money", "代收", "pay my rent", "借妳", "借你",
    "現貨", "現物", "註冊送", "登録するだけで", "signing up", "sign-up bonus", "體驗金", "新手禮",
    "guarantee~",
    "申請費", "申請料", "application fee",
    "returns", "return on",
    "有點緊", "手頭緊", "ピンチ", "金欠", "short this month", "a little short", "broke this month", "領出", "引き出せ", "引き出す", "portfolio~", "ポートフォリオ",
    "承銷價", "新股", "ipo", "公募価格", "新規公開", "買點", "賣點", "sell points", "entry point~", "進場點",
    "front you", "邀請制", "招待制", "invitation only", "invite-only", "by invitation",
    // A salary said not to be enough, another income (round 12).
    "光靠薪水", "死薪水", "給料だけじゃ", "給料だけでは", "salary alone", "salary isn't enough",
    "salary is never enough", "pension won't be enough", "収入源", "副収入", "income stream", "extra income",
    "side trade~", "six figures", "6 figures", "cash out", "cashed out", "名額", "quota",
    // Work left behind, a trade watched daily (round 12).
    "不用看老闆臉色", "脫離打工", "not having to work", "both quit", "仕事辞めても", "会社辞めよう", "本業より",
    "本業の給料", "看盤", "做單", "made back", "make that back", "お小遣い作り",
    "爆上が", "mooning", "invst",
    "presale",
    "利潤", "いいニュース", "good news", "好消息", "利多",
    // Financial freedom, getting rich, asking for help with money, depositing into "this account".
    "get rich", "援助", "資助",
    "market opens", "profits", "allocation", "pays more", "this pays", "overdue",
    "visa fee", "cover the ticket", "see for yourself", "are you in", "gold price", "confiscated",
    "introduce you",
    // Round 14: crypto, forex and investing as they are spelt to slip past a filter or said in
    // slang (仮想通貨 as カソツー or 仮装通貨, 投資 as 投z, bitcoin as 大餅 or 比特B, the crypto world
    // as 幣圈).
    "カソウツウカ", "カソーツーカ", "カソツー", "仮装通貨", "仮想通過", "エフエックス", "toushi", "投z", "投ㄗ",
    "虛擬b", "虛擬ㄅ", "比特b", "b圈", "幣圈", "加蜜", "大餅",
    // Round 15: money put in held hostage (pay once more or lose it: "再補6萬就可以全部提出來",
    // "之前的錢都會被沒收", "the fee cannot be deducted from the balance"); a shared future as the
    // reason ("plan our future", "future together"); a trade's own words (a position, a crypto
    // dealer, the index, a hedge); orders pressed when told ("指示通りにポチるだけ"); money talk
    // apologised for ("お金の話ばっかりでごめんね"); the family kept out; a platform said to be
    // licensed; the payee's name or a withdrawal review waved away ("振込先の名義", "出金審査"); a
    // purchase paid by the gains ("paid off her mortgage", "bought my BMW from my profits", "made
    // enough to quit").
    "再補", "被沒收", "没収", "future together",
    "幣商", "對沖", "指示通り", "お金の話ば", "ライセンス",
    "msb", "振込先の名義", "名義が", "出金審査", "made enough",
];

#[rustfmt::skip]
const MONEY_WEAK: &str = words![
    "錢", "お金", "money", "基金", "cash", "fund", "本金", "元本", "元手", "principal", "capital", "老師",
    "mentor~", "teacher~", "analyst~", "アナリスト", "分析師", "先生", "股", "btc", "eth", "幣", "coin~", "コイン",
    "黃金", "金を買", "gold", "wealth", "存款", "預金", "定存", "保險", "保険", "insurance", "急", "urgent",
    "拜託", "お願い", "please", "還妳", "還你", "返す", "pay you back", "pay it back", "get it back", "交易所",
    "取引所", "exchange", "帳戶", "口座", "account", "註冊", "登録", "register", "sign up", "下單", "注文",
    "orders", "枠", "spots left", "機會", "チャンス", "chance~", "window", "月入", "月収", "side job",
    "外快", "在家", "在宅", "from home", "代操", "manage", "貸款", "ローン", "loan~", "融資", "借",  "匯",
    "振り込", "transfer", "wire", "稅", "税", "tax", "taxes", "taxed", "taxation", "fee~", "費", "料", "入れ", "put in", "賠", "lose", "一起",
    "一緒に", "together",    "漲", "signal~", "シグナル", "サイン", "trade~", "操作",
    "操盤", "買い時", "進場", "時機", "利息", "interest", "收入", "報酬", "収益", "income", "yield", "利回り",
    "年利", "apr", "紅利", "ボーナス", "bonus", "wallet", "salary", "薪水", "給料", "房租", "家賃", "rent",
    "bill~", "could you", "can you", "would you", "help me", "幫我", "可以先", "もらえ", "くれない", "ほしい",
    "先に払", "先付", "stake~", "options", "position~", "entries", "copy", "balance", "top up",
    "funding", "coach", "steady", "穩定", "項目", "拿回", "上場",  "解鎖", "ロック解除", "認證", "認証",
    "點數", "序號", "カード", "card~", "貯金", "spare", "trust me", "mining", "put a little", "stuck",
    "send me something", "pay my", "stolen",
    "minimum", "最低", "導師", "華爾街", "漲到", "會漲", "現在買", "只收", "超商", "出一半", "幫妳出",
    "幫你出", "提款", "推奨", "勝った", "パスワード", "金利", "証券会社", "出してくれ", "半分",
    "頭金", "メンター", "トレーダー", "少人数", "makes more", "a little help",
    "i promise", "don't tell your", "won't understand", "wouldn't understand", "家族には言わない", "market",
    "hurry", "send it now", "regret", "frozen", "unlock", "atm", "lawyer", "release me", "luggage",
    "for sure", "going up", "the group", "the play", "the only one i can ask", "yen",
    "ethereum", "solana", "doge", "pump~", "send me", "venmo", "paypal", "zelle", "pay back",
    "emergency", "hospital", "customer service", "steam", "itunes", "contract~", "客服", "助理", "合約", "轉帳",
    "海關", "包裹", "運費", "イーサ", "必ず", "絶対", "アシスタント", "案件", "電子マネー", "to release",
    "to unlock", "a thousand", "at the dip", "buy the dip", "show you how", "門檻",
    "差", "足りな", "不夠", "找誰", "頼れる", "助けて", "screenshot~", "截圖", "スクショ", "頭期款", "行情", "這波", "出一點", "全力", "收盤", "開盤", "轉進", "轉過來", "匯過來", "explode", "噴", "爆発", "上架", "listed", "list on", "plane ticket", "flight home", "被偷", "盗まれ", "秘密", "secret", "家人", "i make", "we make", "プラス", "payment", "pass it on", "forward it", "password", "download", "students", "學員", "生徒", "goldman", "wall street", "entry", "エントリー", "出場", "miss out", "miss this", "來不及", "錯過", "間に合わ", "今のうちに", "認可", "絕對安全", "totally safe", "ローソン", "セブン", "ファミマ", "コンビニ", "lawson", "7-eleven", "family mart", "convenience store", "便利商店", "支払い番号", "払込票", "barcode", "バーコード", "払って", "クレカ", "信用卡", "決済", "弁護士", "short it", "空売り", "做空", "when to buy", "買進", "點位", "專案", "言われた通り", "持ち株", "holdings", "ポジション", "ゴールドマン", "低風險", "低リスク", "low-risk", "low risk",
    "got me into", "誘われて", "帶我",
    "信我", "信じて", "試水溫", "様子見", "test the waters", "先放", "picks", "跟著買", "その通り買", "buy what", "穩穩", "安定して",
    "軍醫", "軍医", "軍人", "soldier", "army", "military", "a few hundred", "a few thousand", "follow my",
    "return~",
    "abroad", "國外", "海外で", "被鎖", "止められ",
    "lend~",
    "餘額", "残高", "訊號", "信號", "將來", "将来", "未来", "our future", "pool", "資金池", "プール", "verification", "charge", "cover it", "members",
    "獎金", "解放", "グループ", "銀行より", "比銀行", "than any bank", "than the bank", "than a bank", "duties", "shipment",
    "券商", "broker~", "不需要經驗", "経験はいらない", "don't need experience", "no experience", "荷物",
    "美金", "美元", "幫忙", "返せ",
    "更好的生活", "更好生活", "いい生活", "better life", "found a way", "方法", "app i use", "我在用的app", "使ってるアプリ", "墊", "不要跟別人說", "誰にも言わない", "don't tell anyone", "有人帶", "帶妳", "帶你", "教われば", "guidance", "never miss~",
    "立て替える",
    "pays",
    "投", "上車", "till", "until payday", "給料日まで", "發薪", "declined", "get in",
    "put up", "募款", "募金", "寄付", "donate", "charity", "慈善", "先捐", "底値", "the bottom", "低點", "buy now",
    // A better future, getting rich, teaching how, a bot that trades, retiring on it, exclusivity,
    // asking what the other has, doubts waved away, a ticket to come and meet.
    "better future", "豊かに", "有錢", "ドル建て", "円安", "やり方教え", "教你怎麼", "teach you how", "bot",
    "ボット", "機器人", "retire", "retired", "退休", "only takes", "let you join", "how much do you have", "help you grow",
    "too good to be true", "盤勢", "放一點", "沒有風險",
    "whatever you're comfortable", "無理のない範囲",
    // Round 15: interest in the topic asked ("投資とか興味ある？", "u ever thought about getting
    // in?"), the means pointed at ("with this", "靠這個"), a persona offshore or on an oil rig.
    "興味ある", "ever thought about", "有興趣", "有在做",
    "with this", "from this", "on this", "靠這個", "これで", "offshore", "oil rig",
];

/// Talk about scams as news, about one's clients, about one's own work in the trade.
#[rustfmt::skip]
const MONEY_NEWS: &str = words![
    "詐騙", "被騙", "騙了", "詐欺", "騙され", "騙し取", "scam~", "fraud", "小心", "気をつけ", "be careful", "新聞",
    "ニュース", "news", "推銷", "勧誘", "won't pitch", "不會在私下", "プライベートで", "never talk", "客戶", "お客さん",
    "clients", "軟體開發", "ソフト開発", "software", "自分では買って", "沒有在買", "don't own", "i work at",
    "i work in", "i work for", "上班", "で働いて", "勤務", "の仕事してる", "仕事してるけど", "我的工作", "專員", "nisa",
    "つみたて", "インデックス", "index fund~", "etf", "0050", "0056", "台灣50", "定期定額", "budget", "預算", "予算", "loan officer", "融資担当",
    "no money talk", "不想聊",
    "documentar~", "engineer at", "came to", "per person", "each of us", "split the",
    "splitting", "割り勘", "平分", "封鎖", "檢舉", "ブロックし", "通報し",  "instant block", "reported",
    "investment banker",
    "警察", "police", "宣導", "warning~", "注意喚起", "陌生人", "strangers", "知らない人", "紀錄片", "ドキュメンタリー", "不太買", "沒在買", "買わない", "don't buy", "don't really buy", "never buy", "我請", "my treat", "送金しなくていい", "払わなくていい", "返さなくていい", "不用轉", "不用匯", "不用還", "no need to send", "don't pay me back", "no need to pay", "忘れないように",
    "立て替えてくれた", "幫我墊的", "you covered for me",
    "i blocked", "blocked him", "blocked her", "blocked them", "blocked the", "just blocked",
    "的書", "の本", "a book about", "an article", "記事で", "這篇文章", "おごる", "奢る", "請客", "'s on me",
    "家教", "鋼琴", "piano", "ピアノ", "tutor~", "バイト", "打工", "part-time job", "new apartment", "搬新家", "引っ越し", "房東", "大家さん", "敷金", "礼金", "口座を作ってあげた", "作ってあげた",
    "got a job", "a job at", "就職",
    "一起用", "一緒に使", "use it together", "一緒に行", "come with me",
    "works in", "works at", "works for",
    "振り込んだ", "already sent", "already paid", "已經轉", "已經匯",
    "concert", "演唱會", "コンサート",
    // Owning up to knowing nothing of it, a loan never repaid, one's own bills paid.
    "我完全不懂", "我不懂", "我不太懂", "全然わからない", "完全わからない", "i know nothing about",
    "返ってこなかった", "never got it back", "沒還我", "沒有還",
    // Warning a friend, a scam told of as it happened to someone: verify, report, don't trust.
    "查證", "先確認", "verify it", "verify first", "確かめて", "防詐", "165", "report it", "lost money to", "lost her savings", "lost his savings",
    "lost their savings", "信用しちゃダメ", "信じちゃダメ", "信用するな", "don't trust", "never trust", "遇過",
    "タブー", "大損", "不要亂投資", "不報明牌", "developer", "開發者", "エンジニア",
    // The price of a thing one buys or pays: a down payment, a gift, a tax, a ticket, a book.
    "ご祝儀", "gift card", "tax return~", "報稅", "確定申告", "ticket machine",
    "takes cash", "理財書", "存薪水", "lend my", "lent my", "borrow my",
    "払ってる", "払ってきた", "払っている", "繳完",
    // A transit card topped up, a tax refund for a shopper, a coupon: everyday shopping.
    "交通カード", "suica", "pasmo", "icカード", "ic card", "悠遊卡", "一卡通", "easycard", "octopus card",
    "退稅", "免稅", "免税", "tax-free", "tax free", "クーポン", "coupon~", "優惠券", "折價券", "割引券",
    // One's own parcel posted (a parcel held at customs for a fee is the scam: it is received).
    "荷物送っ", "荷物を送っ", "送る荷物", "寄包裹", "寄了包裹", "寄回台灣", "ems", "郵便局から", "郵局寄",
    "shipped a", "mailed a", "posted a parcel",
    // One's own saving, one's own first job, not investing oneself, reading about scams.
    "存起來", "存下來", "貯めてる", "貯金してる", "saving up", "save up", "i save",
    "第一份工作", "first job", "最初の仕事", "投資してない", "投資はしてない", "沒在投資", "不投資",
    "don't invest", "never invest~", "read about", "読んだ", "讀到",
    // A gift card given as a present.
    "母の日", "父の日", "母親節", "父親節", "birthday present~", "christmas present~", "誕生日プレゼント",
    "make terrible", "あげたら",
    // Round 13: not trading oneself, one's own way of saving, one's own work (an engineer, a
    // teacher), a deposit for a stay, money that scares oneself.
    "don't really invest", "don't actually trade", "don't trade", "存錢方式", "自己存", "沒什麼在理財",
    "工程師", "teaching my", "check-in", "scares me",
    // Someone who fell for a pitch, spam and phishing, an ask turned down: a warning or a story.
    "fell for", "falls for", "fall for", "spam", "phishing", "said no",
    // Round 15, money told of, not asked: one's own raise, a tax refund, a bank teller's questions,
    // a joke taken back ("jk"), one's employer's stock plan, a novel, a class taught, a price
    // raised, a birthday's gift card, an everyday bill, cash for the stalls, a scam text almost
    // clicked (the hard negatives of rounds 17 to 19). Not KYC, compliance, an audit or a
    // landlord: the tuned rounds' scams use them too ("finish KYC on the platform", "the
    // landlord is threatening me"); nor a phone bill, whose payment is a scam's ask.
    "% raise", "tax refund", "bank teller", "jk", "加薪", "調薪", "昇給", "還付金",
    "員工持股", "持股信託", "novel", "小説", "小說", "i teach", "raised the price", "price of", "for my birthday",
    "'s birthday", "bill was", "bill for my", "inflation is real", "bring cash", "take cards",
    "my student~",
];

/// Phrases that hold a money word but are no money talk: a longer match hides the words inside.
#[rustfmt::skip]
const MONEY_NEUTRAL: &str = words![
    "株式会社", "line pay", "linepay", "paypay", "apple pay", "楽天ペイ", "街口支付", "line bank", "line銀行",
    "悠遊卡儲值", "pay with my card", "信用卡付",
    "stock options", "lend it to you", "lend you the book", "fxトレーダー",
    "旅遊基金", "travel fund", "旅行資金", "緊急預備金", "emergency fund", "生活防衛資金", "savings account", "普通預金", "all in all", "服務費", "service charge", "サービス料",
    "匯率", "為替", "exchange rate", "両替", "日幣", "台幣", "lost my wallet", "錢包掉", "財布落とし", "財布を落とし",
    "profit margin", "利潤率", "利益率",
];

#[rustfmt::skip]
const TOLD: &str = words![
    "封鎖", "檢舉", "ブロックし", "通報し",  "instant block", "reported",
    "緊急連絡先", "緊急聯絡人", "emergency contact",
    "i blocked", "blocked him", "blocked her", "blocked them", "blocked the", "just blocked",
];

#[rustfmt::skip]
const SPLITS: &str = words![
    "前半", "後半", "前面是", "後面是", "前四碼", "後四碼", "剩下的", "first half", "second half", "the rest",
    "last digits", "first digits", "後六碼", "後五碼", "末尾", "下4桁", "下四桁", "続き", "last 4 digits",
    "last four digits", "last 6 digits", "last six digits",
];

#[rustfmt::skip]
const DAILY: &str = words![
    "每天", "每日", "毎日", "日利", "a day", "daily", "per day", "every day", "each day", "月",
    "a month", "monthly", "a week", "this week", "quarter", "this month",
    "every hour", "every evening", "per week", "weekly",
    "週",
    "last month", "last week",
    // Round 13: a gain in one short span ("38% in one week").
    "one week", "one day", "one afternoon",
];

/// Jobs in finance, said of someone ([`Sig::Job`]).
#[rustfmt::skip]
const JOBS: &str = words![
    "trader", "交易員", "營業員", "分析師", "analyst", "アナリスト", "トレーダー", "顧問", "advisor", "adviser",
    "banker", "証券マン", "financial planner", "ファイナンシャルプランナー", "理專", "理財專員", "融資担当",
    // One's own workplace in finance told of: a desk, a department, compliance, an internship.
    "交易室", "fx desk", "trading desk", "做法遵", "反洗錢", "窓口で", "我們部門", "仕事で", "實習", "at work",
    "our team", "在投資銀行", "在券商",
];

/// The reader addressed ([`Sig::You`]).
#[rustfmt::skip]
const YOU: &str = words!["妳", "你", "あなた", "君", "きみ", "you", "your", "u", "ur", "貴方"];

#[rustfmt::skip]
const ADD_ME: &str = words![
    "add me", "adds me", "加我", "加到我", "追加して", "追加でき", "友だち追加", "友達追加", "find me", "搜我",
    "搜尋我", "検索して", "search my", "search for me", "look me up",
    // A friend or follow request, asking to be followed: an add by another name.
    "friend request", "好友邀請", "交友邀請", "友達申請", "友だち申請", "follow request", "フォロー申請",
    "follow me", "追蹤我", "追蹤一下", "add friend", "掃完", "掃一下",
];

#[rustfmt::skip]
const QR: &str = words!["qr", "條碼", "二維碼", "二维码", ];

#[rustfmt::skip]
const PHONE_WORDS: &str = words![
    "號碼", "电话号码", "電話", "番号", "phone number", "my number", "number's",
];

#[rustfmt::skip]
const PLACES: &str = words![
    "照片", "相片", "写真", "photo~", "pic~", "プロフ", "profile", "bio", "自介", "自我介紹", "自己紹介", "簡介",
    "主頁", "個人頁",
];

#[rustfmt::skip]
const GAINS: &str = words![
    "double~", "triple~", "倍", "翻倍", "grow~", "増え", "増や", "變成", "變", "領回", "turned",
];

/// Percentages in words ([`Sig::Percent`]).
#[rustfmt::skip]
const PERCENT_WORDS: &str = words!["百分之", "パーセント", "percent"];

/// Laughing at oneself: a pitch is earnest (in the tuned corpus one scam line laughs, some forty
/// hard negatives and as many benign lines do), so a laugh takes one off the money score.
#[rustfmt::skip]
const LAUGHTER: &str = words!["lol", "haha~", "哈哈", "笑", "www", "😂", "🤣"];

/// Verbs of sending or lending money ([`Sig::Send`]).
#[rustfmt::skip]
const SEND: &str = words![
    "send", "transfer~", "wire", "lend~", "top up", "轉", "匯", "借", "送金", "送って", "振り込", "振込", "貸して",
    "儲值", "チャージ",
];

/// What is seen or followed on an app ([`Sig::Content`]).
#[rustfmt::skip]
const CONTENT: &str = words![
    "最喜歡", "favorite", "favourite", "好きな", "おすすめ", "推薦", "recommend~", "美食", "グルメ", "追蹤了",
    "フォローしてる", "follows", "following", "for finding", "找餐廳", "お店探し",
];

/// A messaging app named without its name ([`Sig::OtherApp`]).
#[rustfmt::skip]
const OTHER_APPS: &str = words![
    "通訊軟體", "通訊軟件", "聊天軟體", "別的app", "其他app", "他のアプリ", "別のアプリ", "違うアプリ",
    "メッセージアプリ", "another app", "other app", "messaging app", "chat app", "different app",
    // Named by its colour or its logo (round 12: "緑のアプリ", "the purple camera app").
    "緑のアプリ", "綠色的app", "綠色app", "綠色的軟體", "green app", "紙飛行機", "purple camera app",
    "blue app", "青いアプリ",
    "the app we both",
    // Round 15: LINE as "the green one", another app by its colour.
    "the green one",
];

/// Moving the talk or talking ([`Sig::TalkMove`]).
#[rustfmt::skip]
const TALK_MOVES: &str = words![
    "聊", "換到", "換過去", "轉到", "移到", "改用", "話そ", "話さない", "で話", "移ら", "移ろ", "移れ", "移動", "移って",
    "続き", "乗り換え", "move", "switch", "talk", "chat", "continue", "keep talking",
    "找我", "聯絡", "連絡", "reach me", "find me", "take this to",
];

/// Staying here, going elsewhere in person, news of an app ([`Sig::Told`]): the message moves
/// no talk elsewhere ("連絡先は会ってから交換したいな", "we went somewhere else",
/// "有人用假的LINE帳號冒充銀行").
#[rustfmt::skip]
const STAYS: &str = words![
    "不用急著換", "不用換", "不必換", "這裡聊就好", "在這裡回", "見面後再",
    "ここで話そ", "ここでいい", "ここで十分", "会ってから交換", "会ってからに", "しなくても",
    "stay on here", "keep chatting here", "here is fine", "here for now", "no need to switch", "after we meet",
    "went somewhere else", "go somewhere else", "eat somewhere else", "going somewhere else",
    "新聞", "ニュース", "the news", "冒充", "假冒", "なりすまし", "impersonat~",
    // Contact details not swapped, fake accounts warned of, an app one does not use.
    "しなくていい", "不用交換", "no need to exchange", "no need to swap",
    "假的line", "假帳號", "假的官方", "fake account~", "偽アカ", "偽のアカウント", "偽物のアカウント",
    "使ったことない", "使ったことがない", "沒用過", "没用过", "never used", "deleted",
    // Round 14: contact details kept until a meeting, or until later; the talk kept here.
    "見面再", "等見面", "先在這邊聊", "在這邊多聊", "在這裡多聊", "太快交換", "when we meet", "once we meet", "まだ教えられない",
    "してからでも", "ここで大丈夫", "ここでゆっくり", "chatting with you here",
];

/// Tips given before the market moves, inside information, coaching to lie to one's bank about a
/// transfer, a wallet to connect, a bot that trades ([`Sig::Inside`]): decisive.
#[rustfmt::skip]
const INSIDE: &str = words![
    "inside info", "insider info", "before the market", "before the big move~", "tips me off", "tip you off",
    "內部消息", "內線消息", "提前知道", "先知道", "要上架", "表に出ない情報", "内部の情報", "内部情報", "インサイダー",
    "先に情報", "情報が入", "if the bank asks", "don't tell the bank", "tell the bank", "bank asks", "銀行問", "行員問",
    "銀行に聞かれ", "銀行には言わ", "銀行の人に聞かれ", "跟銀行說", "別跟銀行",
    // Round 12: a takeover or a number known before it is announced, lying about what a transfer
    // is for, a wallet to connect, a bot that trades: never said of anything else, so decisive.
    "會被併購", "要被併購", "消息很準", "提前拿到", "出回ってない", "already knows the number",
    "何に使うか聞かれ", "使い道を聞かれ", "問你用途", "問妳用途", "if they ask what it's for",
    "connect your wallet", "綁定錢包", "連接錢包", "ウォレットを接続", "ウォレット接続", "trading bot~",
    "交易機器人",
    "shares little tips", "tells the family when", "only advises family", "predicted the last",
    "bot trades", "bot that trades", "ai bot", "bot trading", "機器人交易", "機器人幫我", "ボットが取引",
    "ボットで取引", "ボットが自動",
    // Round 15: a relative or mentor who knows before the news. (This class's other wordings,
    // "before the announcement", "有管道拿到", and more coaching around the bank's questions were
    // dropped: the chat's module had no bytes left for them.)
    "before the news",
];

/// Savings left idle, eaten by inflation: the hook of an investment pitch (money words of the
/// topic, 2).
#[rustfmt::skip]
const IDLE_SAVINGS: &str = words![
    "sitting in the bank", "in the bank?", "inflation", "通膨", "インフレ", "銀行に預けて",
    "存銀行", "定存利息", "金利ほとんど", "利息很少", "利息那麼低",
    // Round 13: left there, doing nothing ("銀行に預けっぱなし？", "放著也是放著").
    "預けっぱなし", "置きっぱなし", "放著也是放著", "sitting idle",
    // Round 15: money said to sleep in the bank ("money in the bank is sleeping money", "never
    // leave money in a savings account", "錢放銀行好虧").
    "錢放銀行",
];

/// A third person who uses the app, the app used for work ([`Sig::Aside`]).
#[rustfmt::skip]
const ASIDES: &str = words![
    "我媽", "我爸", "媽媽", "爸爸", "阿姨", "阿公", "阿嬤", "我姊", "我妹", "我哥", "我弟", "家人", "同事",
    "母から", "父から", "親から", "母が", "家族", "姉から", "兄から", "妹から", "弟から", "同僚", "上司から",
    "my mom", "my mum", "my dad", "my parents", "my sister", "my brother", "my family", "my boss", "for work",
    "work group", "coworker~",
];

/// A relative, colleague or friend whose money is told of ([`Sig::Story`]).
#[rustfmt::skip]
const STORY_PEOPLE: &str = words![
    "我爸", "我媽", "我阿公", "我阿嬤", "同事", "我朋友", "同期が", "同期の", "同僚", "友達が", "友達の",
    "my dad", "my mom", "my mum", "my grandpa", "my grandma", "my coworker", "my ex", "my friend",
    // Round 13: brothers, sisters, cousins ("my younger brother wants to borrow money again").
    "my sister", "my brother", "my younger", "my little", "my older", "my big", "我姊", "我妹", "姉が", "妹が",
];

/// A need or an ask for money ([`Sig::Need`]): a relative in hospital is the script, not a story.
#[rustfmt::skip]
const NEEDS: &str = words![
    "需要", "要先", "必要", "急", "need~", "until we", "幫我", "能不能", "能幫", "help me", "can you", "could you",
    "くれない", "ほしい", "欲しい", "貸して", "short", "ask", "頼", "拜託", "please", "money for me", "只要",
    "pls", "plz",
];

/// Talking money ([`Sig::MoneyTalk`]).
#[rustfmt::skip]
const MONEY_TALK: &str = words![
    "講錢", "談錢", "聊錢", "錢的事", "お金の話", "talk money", "talk about money", "money talk",
];

/// Where contact details are written or linked ([`Sig::Put`]).
#[rustfmt::skip]
const PUT: &str = words![
    "書い", "寫在", "リンク", "link", "連結", "網址", "url",
];

/// Joining ([`Sig::Join`]).
#[rustfmt::skip]
const JOIN: &str = words!["加入", "入って", "参加", "join the", "join my", "join our"];

/// Teachers, mentors, the uncle in the trade ([`Sig::Mentor`]).
#[rustfmt::skip]
const MENTORS: &str = words![
    "mentor~", "teacher~", "導師", "老師", "メンター", "先生", "coach", "師父",
    // Round 14: the uncle who trades or knows, a pitch's stock figure (in the tuned rounds about
    // a hundred and forty scam lines name one, some fifteen hard negatives).
    "uncle", "叔父", "叔叔", "叔母", "伯父",
    // Round 15: more relatives in the trade, a mother's brother or an elder ("剛剛在跟我舅舅吃飯，他又在
    // 講下週有一波行情", "後來遇到一個長輩才開竅").
    "舅舅", "長輩",
];

/// Someone else's pitch or ask told of ([`Sig::Pitcher`]).
#[rustfmt::skip]
const PITCHERS: &str = words![
    "if anyone", "if someone", "if somebody", "anyone who", "someone who", "如果有人", "要是有人",
    "若有人", "有人跟", "叫人", "被拉去", "被找去", "言ってくる", "言う人", "言ってる人", "聞いてくる", "言われて",
    "言われた", "誘われ", "人いたら", "人がいたら", "tried to add", "tried to get me", "asking her", "asking him",
    "asked her", "asked him", "got a message from", "一開口就", "被帶去", "被要求", "騙去",
    // Round 14: someone who almost fell for a pitch, a stranger who wrote.
    "差點被", "差一點被", "危うく", "almost sent", "almost got", "almost lost", "dm'd me", "asking me to",
];

/// A rejection ([`Sig::Reject`]).
#[rustfmt::skip]
const REJECTS: &str = words![
    "block~", "run", "scam~", "詐騙", "不要理", "別理", "不對勁", "左滑", "討厭", "要注意", "怖", "ブロック",
    "止めた", "やめた", "stay safe", "red flag~", "avoid", "危な", "可怕", "小心", "很扯", "離譜",
    "scary", "scared",
];

/// One's own pay, rent, a tax, a fee charged, a cashback ([`Sig::Pay`]).
#[rustfmt::skip]
const PAY: &str = words![
    "薪水", "薪資", "月薪", "加班費", "勞保", "健保", "消費稅", "消費税", "運費", "salary", "rent", "家賃", "給料",
    "手取り", "% back", "back campaign", "cashback", "還元", "回饋", "手数料取られ", "被扣",
];

/// Earning more than one's pay ([`Sig::OutEarn`]).
#[rustfmt::skip]
const OUT_EARNS: &str = words![
    "than my salary", "than my actual job", "than my job", "than my day job", "給料より", "給料超え",
    "給料を超え", "本業の給料", "本業より", "比薪水", "薪水還多", "比上班",
];

/// A deadline to put money in: a window closing, a quota filling, minutes left (round 13; weak
/// money words, 1: "30 min left" alone is no pitch).
#[rustfmt::skip]
const DEADLINES: &str = words![
    "days left", "min left", "minutes left", "hours left", "closes tonight", "ends tonight", "almost full",
    "decide in", "ends in", "終わっちゃう", "締め切り", "不等人", "最後一波", "現在不進",
    "快滿了",
    // Round 15: the moment urged ("機會不等人的 想清楚再跟我說", "今このタイミング逃したら").
    "逃したら",
];

/// Money made, with an amount ([`Sig::Made`]).
#[rustfmt::skip]
const MADE: &str = words!["made", "賺了", "賺到", "進帳", "稼いだ", "稼げ", "儲かっ"];

/// A leading zero to be added ([`Sig::ZeroAdd`]).
#[rustfmt::skip]
const ZERO_ADDS: &str = words![
    "加個零", "加零", "補個零", "補零", "加個0", "加0", "補個0", "補0", "add a zero", "add a 0", "add zero",
    "0をつけ", "0を付け", "ゼロをつけ", "頭に0",
];

/// A gain shown ([`Sig::Shown`]).
#[rustfmt::skip]
const SHOWN: &str = words![
    "screenshot~", "截圖", "獲利圖", "對帳單", "スクショ", "チャート", "📈", "my results", "results for",
    // Round 15: one's own balance or account shown ("look at my account this month 📈📈", "残高
    // 1200万円になってた", "帳戶現在顯示盈利").
    "my account", "残高", "look at my",
];

/// An app's own features told of: its read receipts, unsending, an account hacked; a shop's QR
/// code to order ([`Sig::Told`]).
/// (Read receipts missed here are the lure to move: "ここ既読つかないし、WhatsAppにしよ".)
#[rustfmt::skip]
const APP_FEATURES: &str = words![
    "lineの既読", "line的已讀", "收回訊息", "乗っ取", "被盜", "盜帳號", "hacked", "read receipt~", "unsend", "line taxi",
    "in china",
    // A shop's QR code, to order at the table: no contact offered.
    "on the table", "to order", "點餐", "注文して", "注文用",
];

/// The reader's money: pay, income, savings, a bonus, retirement money ([`Sig::Asset`]).
#[rustfmt::skip]
const ASSETS: &str = words![
    "收入", "薪水", "月薪", "年薪", "年終", "存款", "可以存", "退休金", "本業", "正職", "income", "salary", "savings",
    "bonus", "pension", "paycheck", "main job", "月収", "年収", "給料", "貯金", "貯蓄", "残高", "ボーナス", "退職金",
    "へそくり", "老後",
    // Round 15: more of the slow opening (a bonus, a lump sum, an emergency fund, saving, a loan
    // or mortgage, credit, living costs, what is sent home; rounds 17 to 19).
    "year-end bonus", "saver", "mortgage",
    "saving", "retired", "存錢", "存到", "額度", "生活費", "預備金", "房貸", "獎金",
    "手取り", "ローン", "仕送り", "お給料", "お金の管理",
];

/// How much, whether enough, what besides ([`Sig::Probe`]).
#[rustfmt::skip]
const PROBES: &str = words![
    "多少", "怎麼分配", "怎麼用", "夠", "除了", "另外", "就那樣", "いくら", "どのくらい", "どれくらい", "何に使",
    "足り", "満足", "見合", "目処", "以外", "とは別", "how much", "enough", "other income", "besides", "any other",
    // Round 15: more ways to ask, and any question about it ("year end bonus coming?", "ご両親に
    // 仕送りとかされてます？").
    "or rent", "還是", "嗎", "有沒有", "いつ", "余裕", "?",
];

struct Pattern {
    /// As [`fold`] leaves it (`話そう` is matched as `話ソウ`).
    text: Vec<char>,
    sig: Sig,
    /// Starts / ends with an ASCII letter: needs a non-letter (or the text's end) beside it.
    bound_start: bool,
    bound_end: bool,
}

/// Every pattern, sorted by its first two characters (the second NUL for a one-character
/// pattern), with the ranges of each such pair in an open-addressing hash table (a binary search
/// over the pairs was a fifth of the rule's time).
struct Index {
    patterns: Vec<Pattern>,
    /// (pair as a key, from, to); an empty slot holds [`Index::EMPTY`].
    firsts: Vec<(u64, u32, u32)>,
    /// The first characters, as a filter: most positions of a text start no pattern.
    may_start: Bloom,
    /// The one-character patterns' characters: most positions start none, and their lookup is
    /// then skipped (round 15).
    singles: Bloom,
}

impl Index {
    const EMPTY: u64 = u64::MAX;

    fn pair_key((a, b): (char, char)) -> u64 {
        (u64::from(a) << 32) | u64::from(b)
    }

    fn slot_of(&self, key: u64) -> usize {
        let bits = self.firsts.len().trailing_zeros();
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
    }

    /// The patterns that start with this pair.
    fn starting(&self, pair: (char, char)) -> &[Pattern] {
        let key = Index::pair_key(pair);
        let mask = self.firsts.len() - 1;
        let mut at = self.slot_of(key);
        loop {
            let (k, from, to) = self.firsts[at];
            if k == key {
                return &self.patterns[from as usize..to as usize];
            }
            if k == Index::EMPTY {
                return &[];
            }
            at = (at + 1) & mask;
        }
    }
}

/// A set of characters that may answer yes for one it does not hold, never no for one it does:
/// a bit per character of the Basic Multilingual Plane (8 KiB, built at first use), exact there,
/// so that a CJK character that starts no pattern costs no search (a 4,096-bit filter let one
/// in five through).
struct Bloom(Vec<u64>);

impl Bloom {
    fn new(chars: impl Iterator<Item = char>) -> Bloom {
        let mut bits = vec![0u64; 1024];
        for c in chars {
            let h = c as usize & 0xFFFF;
            bits[h / 64] |= 1 << (h % 64);
        }
        Bloom(bits)
    }

    fn may_hold(&self, c: char) -> bool {
        let h = c as usize & 0xFFFF;
        self.0[h / 64] & (1 << (h % 64)) != 0
    }
}

fn key(text: &[char]) -> (char, char) {
    (text[0], text.get(1).copied().unwrap_or('\0'))
}

const LISTS: [(&str, Sig); 52] = [
    (APPS, Sig::App),
    (NOT_APPS, Sig::NotApp),
    (ASKS, Sig::Ask),
    (WEAK_ASKS, Sig::WeakAsk),
    (DIRECT, Sig::Direct),
    (ID_WORDS, Sig::IdWord),
    (MOVES, Sig::Move),
    (LINKS, Sig::Link),
    (MAILS, Sig::Mail),
    (DOT_COMS, Sig::DotCom),
    (MONEY_STRONG, Sig::Money(3)),
    (MONEY_TOPIC, Sig::Money(2)),
    (MONEY_WEAK, Sig::Money(1)),
    (MONEY_NEWS, Sig::Money(-2)),
    (MONEY_NEUTRAL, Sig::Money(0)),
    (DAILY, Sig::Daily),
    (TOLD, Sig::Told),
    (SPLITS, Sig::Split),
    (JOBS, Sig::Job),
    (YOU, Sig::You),
    (ADD_ME, Sig::AddMe),
    (QR, Sig::Qr),
    (PHONE_WORDS, Sig::PhoneWord),
    (PLACES, Sig::Place),
    (GAINS, Sig::Gain),
    (PERCENT_WORDS, Sig::Percent),
    (MENTORS, Sig::Mentor),
    (CONTENT, Sig::Content),
    (SEND, Sig::Send),
    (LAUGHTER, Sig::Money(-1)),
    (MONEY_TALK, Sig::MoneyTalk),
    (PUT, Sig::Put),
    (JOIN, Sig::Join),
    (OTHER_APPS, Sig::OtherApp),
    (TALK_MOVES, Sig::TalkMove),
    (STAYS, Sig::Told),
    (ASIDES, Sig::Aside),
    (STORY_PEOPLE, Sig::Story),
    (NEEDS, Sig::Need),
    (INSIDE, Sig::Inside),
    (IDLE_SAVINGS, Sig::Money(2)),
    (PITCHERS, Sig::Pitcher),
    (REJECTS, Sig::Reject),
    (PAY, Sig::Pay),
    (ZERO_ADDS, Sig::ZeroAdd),
    (SHOWN, Sig::Shown),
    (OUT_EARNS, Sig::OutEarn),
    (DEADLINES, Sig::Money(1)),
    (MADE, Sig::Made),
    (APP_FEATURES, Sig::Told),
    (ASSETS, Sig::Asset),
    (PROBES, Sig::Probe),
];

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut patterns: Vec<Pattern> = LISTS
            .iter()
            .flat_map(|(list, sig)| {
                words_of(list).map(move |word| {
                    let open_end = word.ends_with('~');
                    let text = fold(word.trim_end_matches('~'));
                    Pattern {
                        bound_start: text.first().is_some_and(char::is_ascii_alphabetic),
                        bound_end: !open_end && text.last().is_some_and(char::is_ascii_alphabetic),
                        text,
                        sig: *sig,
                    }
                })
            })
            .filter(|p| !p.text.is_empty())
            .collect();
        patterns.sort_by_key(|p| key(&p.text));
        let mut ranges: Vec<((char, char), u32, u32)> = Vec::new();
        for (i, p) in patterns.iter().enumerate() {
            let first = key(&p.text);
            match ranges.last_mut() {
                Some((c, _, end)) if *c == first => *end = i as u32 + 1,
                _ => ranges.push((first, i as u32, i as u32 + 1)),
            }
        }
        let may_start = Bloom::new(patterns.iter().map(|p| p.text[0]));
        let singles = Bloom::new(
            patterns
                .iter()
                .filter(|p| p.text.len() == 1)
                .map(|p| p.text[0]),
        );
        // At most a quarter full: a lookup probes about one slot.
        let size = (ranges.len() * 4).next_power_of_two();
        let mut index = Index {
            patterns,
            firsts: vec![(Index::EMPTY, 0, 0); size],
            may_start,
            singles,
        };
        for (pair, from, to) in ranges {
            let key = Index::pair_key(pair);
            let mut at = index.slot_of(key);
            while index.firsts[at].0 != Index::EMPTY {
                at = (at + 1) & (size - 1);
            }
            index.firsts[at] = (key, from, to);
        }
        index
    })
}

/// What a message was found to carry, before the decision.
#[derive(Default)]
struct Signals {
    /// Where apps and their benign phrases were found, as (start, end) in the folded text.
    apps: Vec<(usize, usize)>,
    not_apps: Vec<(usize, usize)>,
    /// Money words found, as (start, end, weight): one inside a longer one does not count.
    money: Vec<(usize, usize, i8)>,
    ask: bool,
    /// A word that asks only when the message addresses its reader, and such an address.
    weak_ask: bool,
    direct: bool,
    id_word: bool,
    id_token: bool,
    move_phrase: bool,
    link: bool,
    mail: bool,
    dot_com: bool,
    email: bool,
    phone: bool,
    handle: bool,
    percent: bool,
    daily: bool,
    told: bool,
    split: bool,
    job: bool,
    you: bool,
    add_me: bool,
    qr: bool,
    phone_word: bool,
    place: bool,
    gain: bool,
    mentor: bool,
    content: bool,
    send: bool,
    money_talk: bool,
    put: bool,
    join: bool,
    other_app: bool,
    talk_move: bool,
    aside: bool,
    inside: bool,
    story: bool,
    need: bool,
    pitcher: bool,
    reject: bool,
    pay: bool,
    zero_add: bool,
    shown: bool,
    out_earn: bool,
    made: bool,
    asset: bool,
    probe: bool,
    /// A plus sign before an amount or a rate (`+6.8%`, `+¥420,000`): a gain reported.
    signed_gain: bool,
    /// An ask quoted as someone else's words (「LINE交換しよ」って言ってくる人).
    reported: bool,
    /// The spans inside quotation marks.
    quoted: Vec<(usize, usize)>,
    amounts: u32,
    /// The digits of the message's runs of two or more, and whether the first such run starts
    /// with 0 (with `split`, a phone number given in parts).
    run_digits: usize,
    first_run_zero: Option<bool>,
    /// A run of four digits or more that starts as a mobile number does (09…, 070…, 080…).
    mobile_start: bool,
}

/// The hand-written rule's reading of a message's signals, before its decision.
struct Reading {
    app: bool,
    split_phone: bool,
    /// An address, a phone number (whole or in parts), a link or a handle: decisive.
    shape: bool,
    off: bool,
    money: i32,
}

/// How many signal features [`Signals::features`] gives the learned decision.
const SIGNALS: usize = 44;

impl Signals {
    fn kinds(&self) -> Kinds {
        self.reading().kinds()
    }

    /// Something a contact could be made with (scripts/train_safety.py's MATERIAL, the same
    /// features): an app named, an identifier word or token, a move phrase, a link, a mail word,
    /// "dot com", an address, a phone number, a handle, an ask to be added, a QR code, a phone
    /// word, another app named, a talk moved, a mobile number's start.
    /// (Features 0, 12 to 20, 27 to 29, 38, 39 and 43, read from the signals themselves.)
    fn contact_material(&self) -> bool {
        (self.app()
            || self.id_word
            || self.id_token
            || self.move_phrase
            || self.link
            || self.mail
            || self.dot_com
            || self.email
            || self.phone
            || self.handle
            || self.add_me
            || self.qr
            || self.phone_word
            || self.other_app
            || self.talk_move
            || self.mobile_start)
            // Told of (staying here, swapping after meeting, blocking, a pitch warned of): the
            // material is not offered (round 13); nor is a third person's own use of an app told
            // to no one in particular (round 14: "my sister keeps sending me memes on LINE").
            && !self.told
            && (!self.aside || self.you)
    }

    /// The rule's signals as small integers, the learned decision's second set of features
    /// (scripts/train_safety.py names them in the same order).
    fn features(&self) -> [i32; SIGNALS] {
        let r = self.reading();
        let mut strong = 0;
        let mut topic = 0;
        let mut weak = 0;
        let mut discount = 0;
        for (_, _, w) in &self.money {
            match *w {
                w if w >= 3 => strong += 1,
                2 => topic += 1,
                1 => weak += 1,
                w if w < 0 => discount -= i32::from(w),
                _ => {}
            }
        }
        let not_app = !self.apps.is_empty() && !r.app;
        let b = i32::from;
        [
            b(r.app),
            b(not_app),
            b(r.split_phone),
            b(r.shape),
            b(r.off),
            b(r.money >= 3 || (r.off && r.money >= 2)),
            r.money.clamp(-4, 8),
            strong.min(3),
            topic.min(3),
            weak.min(3),
            discount.min(6),
            b(self.asks()),
            b(self.id_word),
            b(self.id_token),
            b(self.move_phrase),
            b(self.link),
            b(self.mail),
            b(self.dot_com),
            b(self.email),
            b(self.phone),
            b(self.handle),
            b(self.percent),
            b(self.daily),
            b(self.told),
            b(self.split),
            b(self.job),
            b(self.you),
            b(self.add_me),
            b(self.qr),
            b(self.phone_word),
            b(self.place),
            b(self.gain),
            b(self.mentor),
            b(self.content),
            b(self.send),
            b(self.money_talk),
            b(self.put),
            b(self.join),
            b(self.other_app),
            b(self.talk_move),
            b(self.aside),
            b(self.inside),
            self.amounts.min(2) as i32,
            b(self.mobile_start),
        ]
    }

    /// Someone else's pitch or ask told of with a rejection: a warning ("if anyone asks you to
    /// move to Telegram, block", "如果有人跟妳說穩賺不賠，一定是詐騙", "前にLINE交換しよって言われて
    /// 怖くなった").
    fn warned(&self) -> bool {
        self.reject && self.pitcher
    }

    /// An ask warned of: as [`Signals::warned`], or quoted in a message that rejects it and
    /// addresses no one ("詐騙最常見的開頭就是「我們去LINE聊」，好恐怖"). (A money word quoted
    /// beside a fear waved away is the pitch: "みんな怖がるけど、ただの「お小遣い作り」".)
    fn warned_ask(&self) -> bool {
        self.warned() || (self.reject && !self.quoted.is_empty() && !self.you)
    }

    /// One's own pay, rent, tax, a fee charged or a cashback told of, to no one in particular,
    /// with no need, sending, mentor or inside tip.
    fn own_pay(&self) -> bool {
        self.pay
            && !self.out_earn
            && !self.you
            && !self.need
            && !self.send
            && !self.mentor
            && !self.inside
    }

    /// An ask: a plain one, or a loose one in a message that addresses its reader.
    fn asks(&self) -> bool {
        self.ask || (self.weak_ask && (self.direct || self.you))
    }

    /// An app named outside the phrases that hide it (`line pay`).
    fn app(&self) -> bool {
        self.apps
            .iter()
            .any(|(s, e)| !self.not_apps.iter().any(|(ns, ne)| ns <= s && e <= ne))
    }

    fn reading(&self) -> Reading {
        let app = self.app();
        let split_phone =
            self.split && self.first_run_zero == Some(true) && (9..=12).contains(&self.run_digits);
        // The rest of a number given in parts (`後六碼是 456387`, `the rest is 112 358`): five to
        // eight digits that are no amount.
        let rest_of_number =
            self.split && (5..=8).contains(&self.run_digits) && self.amounts == 0 && !self.percent;
        // A number given without its leading zero, with a word to add it ("九一二 三四五 六七八
        // 前面加個零"): eight to eleven digits that are no amount.
        let zero_added = self.zero_add && (8..=11).contains(&self.run_digits) && self.amounts == 0;
        let split_phone = split_phone || rest_of_number || zero_added;
        // "交換", "聊", "got", "follow" ask only a reader addressed; of oneself or of a third
        // person they tell of an app used.
        let ask = self.asks();
        let shape = self.link || self.email || self.phone || self.handle || split_phone;
        let words = self.move_phrase
            || (app && (self.id_token || ((ask || self.id_word) && !self.content)))
            || (self.id_word && self.id_token)
            || (self.mail && (self.id_token || ask || self.dot_com))
            || (self.add_me && (self.id_token || self.id_word || self.qr || app))
            || (self.qr && self.id_word)
            || (self.phone_word && self.place)
            // An app's account written or linked in the profile ("私のLINEはプロフィールに書いてある").
            || (app && self.place && self.put)
            // A QR code to join a group ("掃這個QR code加入「…交流群」").
            || (self.qr && self.join)
            || (self.other_app && self.talk_move)
            // Round 15: the app named without its name, with an ask ("add her on the green app").
            || (self.other_app && ask)
            // An app with the start of a phone number ("my LINE is the one starting 0912").
            || (app && self.first_run_zero == Some(true) && self.run_digits >= 3)
            // A number's mobile start with a word for it ("電話番号、前半は080-61", "the first half
            // of my number is 0970", "電話我分兩次傳,先 0936"): the rest follows elsewhere.
            || (self.mobile_start && (self.phone_word || self.id_word || self.split));
        // A third person's own use of an app counts only when the reader is addressed.
        let aside_only = self.aside && !self.you;
        let off = shape || (words && !self.told && !aside_only && !self.reported);
        // A money word in quotation marks, in a message that does not address its reader, is
        // someone else's word told of (an ad, a scam, a spam folder), not a pitch.
        let mentioned = |s: &usize, e: &usize| {
            !self.you && self.quoted.iter().any(|(qs, qe)| qs < s && e <= qe)
        };
        let words = self.money.iter().filter(|(s, e, _)| {
            !self
                .money
                .iter()
                .any(|(os, oe, _)| os <= s && e <= oe && (os, oe) != (s, e))
                && !mentioned(s, e)
        });
        // One pass over the words (round 15: the filter above is quadratic).
        let (mut money, has_words) = words.fold((0i32, false), |(sum, any), (_, _, w)| {
            (sum + i32::from(*w), any || *w > 0)
        });
        money += self.amounts.min(2) as i32;
        // Money talk moved elsewhere ("not here, on LINE") is the script itself.
        if off && self.money_talk {
            money += 1;
        }
        if self.amounts > 0 && self.send {
            money += 1;
        }
        // A rate is money talk's vocabulary; a rate, an amount or a growth per day, week or
        // month is a promised return.
        money += i32::from(self.percent);
        // A rate per period is a promised return when money is talked of at all ("30 % less
        // sugar last month" is not).
        if self.daily && self.percent && has_words {
            money += 2;
        } else if self.daily && self.gain {
            money += 1;
        }
        // A job in finance told of someone, to no one in particular, with no rate, amount or
        // mentor, is no pitch.
        if self.job
            && !self.you
            && !self.mentor
            && !self.inside
            && !self.percent
            && self.amounts == 0
        {
            money -= 3;
        }
        // A third person's money told of (my dad's stocks, a coworker's loss), to no one in
        // particular, with no rate, sending, mentor or inside tip, is a story, not a pitch.
        if self.story
            && !self.need
            && !self.you
            && !self.mentor
            && !self.inside
            && !self.percent
            && !self.send
        {
            money -= 2;
        }
        // A pitch warned of is no pitch; one's own pay, rent or tax is no return.
        // (At most -2, as a declined transfer is: the money model adds nothing there either.)
        if self.warned() {
            money = (money - 3).min(-2);
        }
        if self.own_pay() {
            money -= 2;
        }
        // A gain shown off with a figure ("look at this screenshot, 38% in one week"), or a gain
        // reported with its sign ("closed another position, +6.8%"): money made, told to tempt.
        // (A rate alone with a screenshot is a share of anything: "90% food, 10% screenshots".)
        // Round 15: a balance or results shown for a period ("look at my account this month 📈📈").
        if (self.shown && (self.amounts > 0 || self.daily)) || self.signed_gain {
            money += 1;
        }
        if self.signed_gain && has_words {
            money += 1;
        }
        if self.made && self.amounts > 0 {
            money += 1;
        }
        // The reader's pay, savings or retirement money asked about (how much, whether enough,
        // what besides): the slow opening, money talk with no investment named yet ("你一個月
        // 可以存多少?", "退職金ってどのくらい出る予定?", "any other income besides teaching?").
        if self.asset && self.probe && (self.you || self.direct) && !self.warned() {
            money = money.max(1) + 2;
        }
        // An inside tip, a bank to be lied to, a wallet to connect, a bot that trades: decisive.
        if self.inside {
            money = money.max(3);
        }
        Reading {
            app,
            split_phone,
            shape,
            off,
            money,
        }
    }
}

impl Reading {
    fn kinds(&self) -> Kinds {
        let mut kinds = Kinds::EMPTY;
        if self.off {
            kinds = kinds.with(Kind::OffPlatform);
        }
        // Money talk on its own, or the topic with a move elsewhere ("add me, I'll teach you").
        if self.money >= 3 || (self.off && self.money >= 2) {
            kinds = kinds.with(Kind::Money);
        }
        kinds
    }
}

/// Every listed word found in the folded text.
fn find_words(text: &[char], signals: &mut Signals) {
    let index = index();
    // '_' joins the words of an identifier: `lin_trader88` names no trader.
    let letter = |i: usize| {
        text.get(i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == '_')
    };
    for start in 0..text.len() {
        // Inside a Latin word: every Latin pattern needs a word start.
        if text[start].is_ascii_alphabetic() && start > 0 && letter(start - 1) {
            continue;
        }
        if !index.may_start.may_hold(text[start]) {
            continue;
        }
        let pair = (text[start], text.get(start + 1).copied().unwrap_or('\0'));
        // (Chained, not an array mapped: `array::map` cost a twentieth of the rule's time.)
        let candidates = index.starting(pair).iter();
        let singles = if index.singles.may_hold(pair.0) {
            index.starting((pair.0, '\0'))
        } else {
            &[]
        };
        for pattern in candidates.chain(singles) {
            let found = if pattern.sig == Sig::App {
                matches_disguised(text, start, &pattern.text)
            } else {
                // The index found it by its first two characters (its first alone when it has
                // one): only the rest is compared (round 15: a tenth fewer instructions there).
                matches_rest(text, start, &pattern.text, pattern.text.len().min(2))
            };
            let Some(end) = found else {
                continue;
            };
            if (pattern.bound_start && start > 0 && letter(start - 1))
                || (pattern.bound_end && letter(end))
            {
                continue;
            }
            match pattern.sig {
                Sig::App => {
                    signals.apps.push((start, end));
                    // 加 or 有 (有用) right before an app: "加賴", "有IG嗎", "有用Telegram嗎".
                    let before = |n: usize| start.checked_sub(n).map(|i| text[i]);
                    // An app alone as a question ("LINE?", "Snapchat?") asks for it.
                    let asked_alone = start == 0
                        && text[end..]
                            .iter()
                            .find(|c| **c != ' ')
                            .is_some_and(|c| matches!(c, '?' | '？'));
                    // An app as a verb: "WhatsApp me", "snap me".
                    let me = end + usize::from(text.get(end) == Some(&' '));
                    let app_me = text.get(me..me + 2) == Some(&['m', 'e'][..])
                        && !text.get(me + 2).is_some_and(char::is_ascii_alphabetic);
                    if matches!(before(1), Some('加' | '有'))
                        || (before(1) == Some('用') && before(2) == Some('有'))
                        || app_me
                        || names_after(text, end)
                        || asked_alone
                    {
                        signals.ask = true;
                    }
                }
                Sig::NotApp => signals.not_apps.push((start, end)),
                Sig::Ask => signals.ask = true,
                Sig::WeakAsk => signals.weak_ask = true,
                Sig::Direct => signals.direct = true,
                Sig::IdWord => signals.id_word = true,
                Sig::Move => signals.move_phrase = true,
                Sig::Link => signals.link = true,
                Sig::Mail => signals.mail = true,
                Sig::DotCom => signals.dot_com = true,
                Sig::Daily => signals.daily = true,
                Sig::Told => signals.told = true,
                Sig::Split => signals.split = true,
                Sig::Job => signals.job = true,
                Sig::You => signals.you = true,
                Sig::AddMe => signals.add_me = true,
                Sig::Qr => signals.qr = true,
                Sig::PhoneWord => signals.phone_word = true,
                Sig::Place => signals.place = true,
                Sig::Percent => signals.percent = true,
                Sig::Content => signals.content = true,
                Sig::Send => signals.send = true,
                Sig::Put => signals.put = true,
                Sig::Join => signals.join = true,
                Sig::OtherApp => signals.other_app = true,
                Sig::TalkMove => signals.talk_move = true,
                Sig::Aside => signals.aside = true,
                Sig::Story => signals.story = true,
                Sig::Need => signals.need = true,
                Sig::Pitcher => signals.pitcher = true,
                Sig::Reject => signals.reject = true,
                Sig::ZeroAdd => signals.zero_add = true,
                Sig::Shown => signals.shown = true,
                Sig::Made => signals.made = true,
                Sig::Asset => signals.asset = true,
                Sig::Probe => signals.probe = true,
                Sig::Gain
                | Sig::Mentor
                | Sig::MoneyTalk
                | Sig::Inside
                | Sig::Pay
                | Sig::OutEarn
                | Sig::Money(_) => {
                    let weight = match pattern.sig {
                        Sig::Money(weight) => weight,
                        Sig::Pay => {
                            signals.pay = true;
                            0
                        }
                        Sig::OutEarn => {
                            signals.out_earn = true;
                            2
                        }
                        Sig::Inside => {
                            signals.inside = true;
                            3
                        }
                        Sig::Gain => {
                            signals.gain = true;
                            1
                        }
                        Sig::MoneyTalk => {
                            signals.money_talk = true;
                            1
                        }
                        _ => {
                            signals.mentor = true;
                            1
                        }
                    };
                    // Each word counts once, however often it is repeated.
                    if !signals
                        .money
                        .iter()
                        .any(|(s, e, _)| text[*s..*e] == text[start..end])
                    {
                        signals.money.push((start, end, weight));
                    }
                }
            }
        }
    }
}

/// An app's name followed by a name: `LINE: erictw`, `Facebook as Tom`.
fn names_after(text: &[char], end: usize) -> bool {
    let skip = |mut i: usize| {
        while text.get(i) == Some(&' ') {
            i += 1;
        }
        i
    };
    let at = skip(end);
    let name = |from: usize| {
        text.get(from..)
            .unwrap_or(&[])
            .iter()
            .take_while(|c| is_name_char(**c))
            .count()
            >= 3
    };
    match text.get(at) {
        // `LINE: erictw`, `ig → maya`, `id = sophie`, `Telegram: @ lucas`.
        Some(':' | '：' | '=' | '→' | '⇒' | '>') => {
            let from = skip(at + 1);
            name(if text.get(from) == Some(&'@') {
                skip(from + 1)
            } else {
                from
            })
        }
        Some('a') => {
            text.get(at..at + 3) == Some(&['a', 's', ' '][..])
                && text.get(at + 3).is_some_and(|c| c.is_ascii_alphabetic())
        }
        _ => false,
    }
}

/// [`matches_at`] for an app's name, its letters also as look-alike digits and symbols
/// (`wh@tsapp`, `sn@pchat`; the first two letters are the index's key, matched as they are).
fn matches_disguised(text: &[char], start: usize, pattern: &[char]) -> Option<usize> {
    let end = start + pattern.len();
    let alike = |(t, p): (&char, &char)| {
        t == p
            || matches!(
                (p, t),
                ('a', '@') | ('o', '0') | ('i', '1' | '!') | ('l', '1') | ('e', '3') | ('s', '$')
            )
    };
    text.get(start..end)?
        .iter()
        .zip(pattern)
        .all(alike)
        .then_some(end)
}

/// Where `pattern` ends when it starts at `start` in `text`.
fn matches_at(text: &[char], start: usize, pattern: &[char]) -> Option<usize> {
    let end = start + pattern.len();
    // Compared character by character (inlined): the patterns are short, a call to memcmp cost
    // more than the comparison.
    let found = text.get(start..end)?;
    found
        .iter()
        .zip(pattern)
        .all(|(a, b)| a == b)
        .then_some(end)
}

/// [`matches_at`] for a pattern whose first `known` characters are known to be at `start`.
fn matches_rest(text: &[char], start: usize, pattern: &[char], known: usize) -> Option<usize> {
    let end = start + pattern.len();
    let found = text.get(start + known..end)?;
    found
        .iter()
        .zip(&pattern[known..])
        .all(|(a, b)| a == b)
        .then_some(end)
}

// ---------------------------------------------------------------------------------------------
// Digits

/// Number words, each followed by its digit (a [`words!`] list: the module carries no table of
/// pointers), sorted by their first character, the longest first among equals (a test checks; the
/// module then carries no sort for them): zh-TW numerals (and the radio alphabet's 洞 么 拐 勾), the Japanese readings in
/// katakana (hiragana is folded to it), English words.
#[rustfmt::skip]
const NUMBER_WORDS: &str = words![
    "eight8", "four4", "five5", "nine9", "one1", "oh0", "o0", "seven7", "six6", "three3", "two2",
    "zero0", "〇0", "イチ1", "キュウ9", "キュー9", "ク9", "ゴー5", "ゴ5", "サン3", "シチ7", "シ4", "ゼロ0", "ナナ7",
    "ニー2", "ニ2", "ハチ8", "マル0", "ヨン4", "レイ0", "ロク6", "ㄌㄧㄥ0", "一1", "七7", "三3", "么1", "九9", "二2",
    "五5", "伍5", "兩2", "八8", "六6", "勾9", "叁3", "參3", "四4", "壹1", "幺1", "拐7", "捌8", "柒7", "洞0", "玖9",
    "肆4", "貳2", "陸6", "零0",
];

/// The (word, digit) pairs of [`NUMBER_WORDS`].
fn number_words_of() -> impl Iterator<Item = (&'static str, u8)> {
    // (Split by characters: slicing a str could panic, and its message would bring the
    // formatting code into the chat's module.)
    words_of(NUMBER_WORDS).map(|w| {
        let mut chars = w.chars();
        let digit = chars.next_back().map_or(0, |d| d as u8 - b'0');
        (chars.as_str(), digit)
    })
}

/// NUMBER_WORDS as characters (in their order: by the first, longest first among equals), and
/// the characters they start with.
type Words = (Vec<(Vec<char>, u8)>, Bloom);

fn number_words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let words: Vec<(Vec<char>, u8)> = number_words_of()
            .map(|(w, d)| (w.chars().collect(), d))
            .collect();
        let may_start = Bloom::new(words.iter().map(|(w, _)| w[0]));
        (words, may_start)
    })
}

/// The digit at `i` and where it ends: a digit, or a number word (English ones whole words).
fn digit_at(text: &[char], i: usize) -> Option<(u8, usize)> {
    let (words, may_start) = number_words();
    let c = text[i];
    if c.is_ascii_digit() {
        return Some((c as u8 - b'0', i + 1));
    }
    let letter = |j: usize| text.get(j).is_some_and(|c| c.is_ascii_alphabetic());
    // An English number word is a whole word: none starts inside one (most of an English text).
    if !may_start.may_hold(c) || (c.is_ascii() && i > 0 && letter(i - 1)) {
        return None;
    }
    let from = words.partition_point(|(w, _)| w[0] < c);
    words[from..]
        .iter()
        .take_while(|(w, _)| w[0] == c)
        .find_map(|(word, digit)| {
            let end = matches_at(text, i, word)?;
            let ascii = c.is_ascii();
            (!ascii || !(letter(end) || i > 0 && letter(i - 1))).then_some((*digit, end))
        })
}

/// A country code's `+` before `i`, as a sign or said (`plus four four`, `プラス81`).
fn plus_before(text: &[char], i: usize) -> bool {
    let before = &text[..i];
    let before = before.strip_suffix(&[' ']).unwrap_or(before);
    before.ends_with(&['+'])
        || (before.ends_with(&['p', 'l', 'u', 's'])
            && !before[..before.len() - 4]
                .last()
                .is_some_and(char::is_ascii_alphabetic))
        || before.ends_with(&['プ', 'ラ', 'ス'])
}

fn is_digit_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '-'
            | '.'
            | ','
            | '、'
            | '('
            | ')'
            | '+'
            | 'ー'
            | '~'
            | 'ノ'
            | '_'
            | '–'
            | '—'
            | '－'
            | '・'
            | '·'
            // A symbol put between the groups of a number to hide it ("0955 ⭐ 612 ⭐ 840",
            // "070 / 3928 / 1156", "+81−90−…").
            | '/'
            | '−'
            | '‐'
            | '‑'
            | '⭐'
            | '★'
            | '☆'
            | '*'
            | '|'
    )
}

/// Phone numbers (contact details) and amounts of money.
fn find_digits(text: &[char], signals: &mut Signals) {
    // Where the units of the amounts found in runs stand (the first few), so that the numerals'
    // pass below does not count `兩萬` or `五千元` a second time.
    let mut units = [usize::MAX; 8];
    let mut unit_count = 0;
    let (_, may_start) = number_words();
    let mut i = 0;
    while i < text.len() {
        // Most characters are no digit and start no number word: skipped without a call.
        if !text[i].is_ascii_digit() && !may_start.may_hold(text[i]) {
            i += 1;
            continue;
        }
        let Some((first, mut end)) = digit_at(text, i) else {
            i += 1;
            continue;
        };
        let mut run = Run {
            plus: plus_before(text, i),
            spelt: end > i + 1,
            ..Run::default()
        };
        run.push(first, false);
        let mut j = end;
        let mut hundreds = false;
        loop {
            // Up to three separators between two digits (" - ").
            let mut k = j;
            while k < text.len() && k < j + 3 && is_digit_separator(text[k]) {
                k += 1;
            }
            // `hundred` after a number word is two zeros: a number read aloud ("oh seven seven
            // hundred, nine hundred...").
            let hundred = ['h', 'u', 'n', 'd', 'r', 'e', 'd'];
            if run.spelt
                && text.get(k..k + 7) == Some(&hundred[..])
                && !text.get(k + 7).is_some_and(char::is_ascii_alphabetic)
            {
                run.push(0, k > j);
                run.push(0, false);
                hundreds = true;
                end = k + 7;
                j = end;
                continue;
            }
            match (k < text.len()).then(|| digit_at(text, k)).flatten() {
                Some((d, next)) => {
                    run.spelt |= next > k + 1;
                    run.push(d, k > j);
                    end = next;
                    j = next;
                }
                None => break,
            }
        }
        if run.is_phone() && !run.is_draw() {
            signals.phone = true;
        }
        // The start of a mobile number (09…, 070/080/090…), four digits or more.
        if run.len >= 4 && run.first[0] == 0 && matches!(run.first[1], 7..=9) {
            signals.mobile_start = true;
        }
        if run.len >= 2 {
            signals.run_digits += run.len;
            signals.first_run_zero.get_or_insert(first == 0);
        }
        // "five hundred" is an amount, as "5 hundred" is (is_amount).
        if is_amount(text, i, end) || (hundreds && run.len < 9) {
            signals.amounts += 1;
            if let Some(slot) = units.get_mut(unit_count) {
                *slot = end;
                unit_count += 1;
            }
        }
        let percent = matches!(text.get(end), Some('%' | '割' | '成'));
        if percent {
            signals.percent = true;
        }
        // A plus sign before an amount or a rate, a currency between them (`+6.8%`, `+¥420,000`):
        // a gain reported. A country code's plus stands before no amount.
        if percent || is_amount(text, i, end) {
            let mut k = i;
            while k > 0 && k + 3 > i && matches!(text[k - 1], '$' | '¥' | '€' | '£' | ' ') {
                k -= 1;
            }
            if k > 0 && text[k - 1] == '+' {
                signals.signed_gain = true;
            }
        }
        i = end.max(i + 1);
    }
    // Amounts in Chinese numerals: 十萬, 五千元, 兩百塊 (the runs above stop at 十 and 百).
    for (at, c) in text.iter().enumerate() {
        let unit = matches!(c, '萬' | '万' | '千' | '元' | '塊' | '块' | '円');
        let numeral = |i: usize| {
            text.get(i)
                .is_some_and(|c| matches!(c, '十' | '百' | '千' | '兩' | '幾'))
        };
        if unit && at > 0 && numeral(at - 1) && !units.contains(&at) && !units.contains(&(at - 1)) {
            signals.amounts += 1;
        }
    }
}

/// A run of digits, kept without allocating: its first digits, its length, its groups.
#[derive(Default)]
struct Run {
    first: [u8; 3],
    len: usize,
    /// The digits in each group (digits between separators), the first five.
    groups: [u8; 5],
    group_count: usize,
    /// Preceded by '+'.
    plus: bool,
    /// A digit was a word (`零`, `nine`).
    spelt: bool,
    /// The value of the group being read, of the one before it, and whether some group was not
    /// above the one before it or above 49 (lottery draws are rising numbers up to 49).
    value: u16,
    last: u16,
    not_a_draw: bool,
}

impl Run {
    fn push(&mut self, digit: u8, new_group: bool) {
        if new_group && self.group_count > 0 {
            self.close_group();
        }
        self.value = self
            .value
            .saturating_mul(10)
            .saturating_add(u16::from(digit));
        if self.len < 3 {
            self.first[self.len] = digit;
        }
        self.len += 1;
        if new_group || self.group_count == 0 {
            self.group_count += 1;
        }
        if let Some(group) = self.groups.get_mut(self.group_count - 1) {
            *group = group.saturating_add(1);
        }
    }

    fn close_group(&mut self) {
        if self.value > 49 || (self.group_count > 1 && self.value <= self.last) {
            self.not_a_draw = true;
        }
        self.last = self.value;
        self.value = 0;
    }

    /// Five or more groups of two digits, each above the one before and none above 49: a lottery
    /// draw (`03 12 25 31 40 45`), not a phone number in pairs.
    fn is_draw(&mut self) -> bool {
        self.close_group();
        self.group_count >= 5 && !self.not_a_draw && self.groups[..5].iter().all(|g| *g == 2)
    }

    /// A leading 0 and 9 to 12 digits (Taiwan, Japan, the UK), a country code (+ or 00, or 886
    /// or 81 without it), or North America's 3-3-4 (any grouping when spelt out in words).
    fn is_phone(&self) -> bool {
        let n = self.len;
        let starts = |prefix: &[u8]| self.first.starts_with(prefix);
        let groups = &self.groups[..self.group_count.min(5)];
        let (plus, spelt, first) = (self.plus, self.spelt, self.first[0]);
        phone_shape(n, starts, groups, plus, spelt, first)
    }
}

fn phone_shape(
    n: usize,
    starts: impl Fn(&[u8]) -> bool,
    groups: &[u8],
    plus: bool,
    spelt: bool,
    first: u8,
) -> bool {
    if plus || starts(&[0, 0]) {
        return (10..=15).contains(&n);
    }
    if starts(&[0]) {
        return (9..=12).contains(&n);
    }
    if starts(&[8, 8, 6]) || starts(&[8, 1]) {
        return (11..=12).contains(&n);
    }
    // North American: 3-3-4, or 1-3-3-4.
    (n == 10 && (groups == [3, 3, 4] || spelt) && first >= 2)
        || (n == 11 && groups == [1, 3, 3, 4] && starts(&[1]))
}

/// A number with a currency before it (`$`, `NT$`, `¥`) or a unit after it (萬, 千, 元, 円, k,
/// u for USDT).
fn is_amount(text: &[char], start: usize, end: usize) -> bool {
    let before = start.checked_sub(1).map(|i| text[i]);
    let after = text.get(end).copied();
    let word_after = |w: &str| {
        let rest = text.get(end + 1..).unwrap_or(&[]);
        text.get(end) == Some(&' ')
            && rest.len() >= w.len()
            && rest.iter().zip(w.chars()).all(|(a, b)| *a == b)
    };
    matches!(before, Some('$' | '¥' | '€' | '£'))
        // Round 15: "million" after a number is an amount too ("3.2 million in 4 months"; "yen"
        // is not: it is a money word already, and prices in yen are everyday talk).
        || ["thousand", "grand", "hundred", "dollars", "bucks", "million"]
            .into_iter()
            .any(word_after)
        || matches!(
            after,
            Some('萬' | '万' | '千' | '元' | '塊' | '块' | '円' | '圓' | 'ド')
        )
        || (matches!(after, Some('k' | 'u'))
            && !text
                .get(end + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || is_cjk(*c)))
}

// ---------------------------------------------------------------------------------------------
// Shapes: addresses, handles, identifiers

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

fn find_shapes(text: &[char], signals: &mut Signals) {
    let skip_spaces = |mut i: usize, forward: bool| {
        if forward {
            while text.get(i) == Some(&' ') {
                i += 1;
            }
        } else {
            while i > 0 && text[i - 1] == ' ' {
                i -= 1;
            }
        }
        i
    };
    for (at, c) in text.iter().enumerate() {
        match c {
            '@' => {
                // name@host.tld, spaces allowed around @ and the dot.
                let left_end = skip_spaces(at, false);
                let mut left = left_end;
                while left > 0 && is_name_char(text[left - 1]) {
                    left -= 1;
                }
                let right = skip_spaces(at + 1, true);
                let mut host_end = right;
                while host_end < text.len()
                    && (text[host_end].is_ascii_alphanumeric() || text[host_end] == '-')
                {
                    host_end += 1;
                }
                let dot = skip_spaces(host_end, true);
                let tld = skip_spaces(dot + 1, true);
                let has_tld = text.get(dot) == Some(&'.')
                    && text.get(tld).is_some_and(|c| c.is_ascii_alphabetic())
                    && text.get(tld + 1).is_some_and(|c| c.is_ascii_alphabetic());
                if left < left_end && host_end > right && has_tld {
                    signals.email = true;
                }
                // @name: a handle, when nothing of a name stands before the @.
                let name_len = text[at + 1..]
                    .iter()
                    .take_while(|c| is_name_char(**c))
                    .count();
                let starts_with_letter = text.get(at + 1).is_some_and(|c| c.is_ascii_alphabetic());
                if (at == 0 || !is_name_char(text[at - 1])) && starts_with_letter && name_len >= 3 {
                    signals.handle = true;
                }
            }
            '#' => {
                // name#1234 (Discord).
                let named = at > 0 && text[at - 1].is_ascii_alphanumeric();
                let tag = text[at + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if named && tag == 4 {
                    signals.handle = true;
                }
            }
            _ => {}
        }
    }
    // Identifiers: an ASCII token of 4 or more with a letter and a digit, or with a letter and
    // an inner '.' or '_' (kevin_0815, mei.daily_, h.c.w.1992).
    let mut i = 0;
    while i < text.len() {
        if !is_name_char(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && is_name_char(text[i]) {
            i += 1;
        }
        let token = &text[start..i];
        let letters = token.iter().filter(|c| c.is_ascii_alphabetic()).count();
        let digits = token.iter().filter(|c| c.is_ascii_digit()).count();
        let inner = token.len() > 2
            && token[1..token.len() - 1]
                .iter()
                .any(|c| matches!(c, '.' | '_'));
        // A site only named (`we.com`, `yahoo.co.jp`) is no identifier: a link needs a path,
        // a scheme or `www.`.
        let site = digits == 0 && token.contains(&'.') && {
            let tld: String = token.iter().rev().take_while(|c| **c != '.').collect();
            matches!(tld.as_str(), "moc" | "ten" | "gro" | "wt" | "pj" | "oi")
        };
        if token.len() >= 4
            && letters > 0
            && (digits > 0 || inner)
            && !token.contains(&'-')
            && !site
        {
            signals.id_token = true;
        }
        // A link to any site, written as one: a scheme (`https://`) or `www.` and a host.
        let scheme = matches!(token, ['h', 't', 't', 'p'] | ['h', 't', 't', 'p', 's'])
            && text.get(i..i + 3) == Some(&[':', '/', '/'][..]);
        let www = token.starts_with(&['w', 'w', 'w', '.'])
            && token[4..].iter().filter(|c| **c == '.').count() >= 1;
        // A host and a path without a scheme (`ameblo.jp/rina-cafe`, `meet.google.com/abc-defg`):
        // a page to go to; a site only named (`booking.com`) is not.
        let tld = token.iter().rposition(|c| *c == '.').is_some_and(|dot| {
            dot >= 2
                && (2..=6).contains(&(token.len() - dot - 1))
                && token[dot + 1..].iter().all(char::is_ascii_alphabetic)
        });
        let path = text.get(i) == Some(&'/') && text.get(i + 1).is_some_and(|c| is_name_char(*c));
        if scheme || www || (tld && path) {
            signals.link = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn young() -> Conversation {
        Conversation {
            match_age_secs: 3_600,
            sent_by_sender: 1,
            sent_by_other: 1,
        }
    }

    fn kinds(text: &str) -> Vec<&'static str> {
        detect(text).codes()
    }

    /// The money model alone (the rule not asked).
    fn model_says_money(text: &str) -> bool {
        model_says::<true, false>(&rule_and_folded(text).1.chars().collect::<Vec<_>>()).0
    }

    fn rule_says_money(text: &str) -> bool {
        rule_and_folded(text).0.contains(Kind::Money)
    }

    #[test]
    fn the_generated_model_was_trained_on_the_tuned_files_and_the_script_as_they_are_now() {
        let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
        for text in [
            include_str!("../data/safety/tune.jsonl"),
            include_str!("../data/safety/tune-2.jsonl"),
            include_str!("../data/safety/tune-3.jsonl"),
            include_str!("../data/safety/tune-4.jsonl"),
            include_str!("../data/safety/tune-5.jsonl"),
            include_str!("../data/safety/tune-6.jsonl"),
            include_str!("../data/safety/tune-7.jsonl"),
            include_str!("../data/safety/tune-8.jsonl"),
            include_str!("../data/safety/tune-10.jsonl"),
            include_str!("../data/safety/tune-11.jsonl"),
            include_str!("../data/safety/tune-12.jsonl"),
            include_str!("../data/safety/tune-13.jsonl"),
            include_str!("../data/safety/tune-14.jsonl"),
            include_str!("../data/safety/tune-15.jsonl"),
            include_str!("../data/safety/tune-16.jsonl"),
            include_str!("../data/safety/tune-17.jsonl"),
            include_str!("../data/safety/tune-18.jsonl"),
            include_str!("../data/safety/tune-19.jsonl"),
            include_str!("../data/safety/tune-hn.jsonl"),
            include_str!("../../scripts/train_safety.py"),
        ] {
            for byte in text.bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01B3);
            }
        }
        assert_eq!(
            hash,
            model::INPUTS_FNV,
            "the corpus or the script changed: retrain with python3 scripts/train_safety.py"
        );
    }

    #[test]
    fn an_identifier_given_as_a_recipe_or_in_parts_is_contact_details() {
        for text in [
            "IDは名前+誕生日だよ。さくら0412",
            "my insta is my name on here spelled backwards",
            "ID 我分兩次給妳喔，第一段 peng",
        ] {
            assert!(rule(&fold(text)).contains(Kind::OffPlatform), "{text}");
            assert!(kinds(text).contains(&"OFF_PLATFORM"), "{text}");
        }
    }

    #[test]
    fn an_inside_tip_a_wallet_to_connect_or_money_beside_an_identifier_is_never_vetoed() {
        // Told of a relative at work (a discount of 2), still an inside tip.
        let text = "My aunt works at a securities company and tips me off before the announcements";
        assert!(rule(&fold(text)).contains(Kind::Money), "{text}");
        assert!(kinds(text).contains(&"MONEY"), "{text}");
        for text in [
            "I'll show you how to connect your wallet tonight",
            "ＬＩＮＥ交換しよう！ID は yui_0520、投資の話もしたいな",
        ] {
            assert!(kinds(text).contains(&"MONEY"), "{text}");
        }
    }

    #[test]
    fn money_talk_the_rule_misses_is_found_by_the_model() {
        for text in [
            "帳戶要先激活，存一筆押金就能解鎖全部功能",
            "獲利已經到帳了，要先繳一筆準備金才能轉出來",
            "my uncle only shares his tips in a private group, let me invite you",
        ] {
            assert!(!rule_says_money(text), "the rule finds it already: {text}");
            assert!(model_says_money(text), "{text}");
            assert_eq!(kinds(text), ["MONEY"], "{text}");
        }
    }

    #[test]
    fn a_banker_telling_of_their_job_or_plans_over_dinner_is_no_money_talk() {
        for text in [
            "I work at a bank downtown, mostly paperwork and meetings, pretty boring honestly",
            "我在銀行上班，每天都在處理貸款的文件，好累",
            "銀行で働いています。毎日書類ばかりで疲れます",
            "Dinner on Friday? I'll book the ramen place near the station",
            "",
        ] {
            assert!(!model_says_money(text), "{text}");
            assert!(kinds(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn the_model_reads_the_folded_text_so_full_width_and_spaced_forms_score_alike() {
        let plain = "my uncle only shares his tips in a private group, let me invite you";
        let wide: String = plain
            .chars()
            .map(|c| match c {
                '!'..='~' => char::from_u32(c as u32 + 0xFEE0).unwrap_or(c),
                c => c,
            })
            .collect();
        assert!(model_says_money(plain));
        assert!(model_says_money(&wide), "{wide}");
    }

    #[test]
    fn every_listed_word_is_in_nfkc_so_that_a_normalised_text_can_match_it() {
        use unicode_normalization::UnicodeNormalization;
        for word in LISTS
            .iter()
            .flat_map(|(list, _)| words_of(list))
            .chain(number_words_of().map(|(w, _)| w))
        {
            let nfkc: String = word.nfkc().collect();
            assert_eq!(nfkc, word, "{word:?} is not in NFKC: write it as {nfkc:?}");
        }
        let order: Vec<(char, usize)> = number_words_of()
            .map(|(w, _)| (w.chars().next().unwrap(), usize::MAX - w.chars().count()))
            .collect();
        assert!(
            order.is_sorted(),
            "number words are listed by their first character, the longest first among equals"
        );
        for (word, _) in number_words_of() {
            let folded: String = fold(word).into_iter().collect();
            assert_eq!(&folded, word, "number words are matched unfolded");
        }
    }

    #[test]
    fn full_width_spaced_and_invisible_letters_fold_to_one_word() {
        let fold_str = |t: &str| {
            fold(&unicode_normalization::UnicodeNormalization::nfkc(t.chars()).collect::<String>())
                .into_iter()
                .collect::<String>()
        };
        assert_eq!(fold_str("ＬＩＮＥ"), "line");
        assert_eq!(fold_str("L I N E"), "line");
        assert_eq!(fold_str("L.I.N.E: a m y 5 2 0"), "line: amy520");
        assert_eq!(fold_str("l\u{200b}i\u{200b}n\u{200b}e"), "line");
        assert_eq!(fold_str("Ⅼіnе"), "line");
        assert_eq!(fold_str("らいん"), "ライン");
        assert_eq!(fold_str("加 我 賴"), "加我賴");
        assert_eq!(fold_str("I am a cat"), "i am a cat");
    }

    #[test]
    fn symbols_between_a_words_letters_and_look_alike_digits_inside_it_fold_to_the_word() {
        let fold_str = |t: &str| fold(t).into_iter().collect::<String>();
        assert_eq!(fold_str("U💲S💲D💲T"), "usdt");
        assert_eq!(fold_str("U 💰 S 💰 D 💰 T 😎"), "usdt 😎");
        assert_eq!(fold_str("L💚I💚N💚E 交換しよ"), "line 交換シヨ");
        assert_eq!(fold_str("仮💴想💴通💴貨"), "仮想通貨");
        assert_eq!(fold_str("微x:h u a _ 9 9 6"), "微x:hua_996");
        // One separator between letters; two or three only with a symbol or an underscore.
        assert_eq!(fold_str("l-i-n-e / a-k-i-9-9"), "line / aki99");
        assert_eq!(fold_str("a, b, c"), "a, b, c");
        // A symbol between words, not letters, stays.
        assert_eq!(fold_str("好累😊明天見"), "好累😊明天見");
        assert_eq!(fold_str("from 🅒🅡🅨🅟🅣🅞"), "from crypto");
        assert_eq!(
            fold_str("get some b1tc0in, g0ld and F0REX, u$dt"),
            "get some bitcoin, gold and forex, usdt"
        );
        // An identifier's or an amount's digits stay.
        assert_eq!(
            fold_str("kenji88 yui_0520 l0ve88 $100 mp3"),
            "kenji88 yui_0520 l0ve88 $100 mp3"
        );
    }

    #[test]
    fn the_readers_pay_or_savings_asked_about_is_money_talk_ones_own_told_is_not() {
        assert!(rule_says_money("你一個月可以存多少錢下來啊？"));
        assert!(rule_says_money("退職金ってどのくらい出る予定なんですか？"));
        assert!(rule_says_money(
            "So besides teaching, do you have any other income?"
        ));
        assert!(rule_says_money("今の会社のお給料だけで満足してる？"));
        assert!(!rule_says_money("我這個月薪水又少了，好煩"));
        assert!(!rule_says_money("How much was your flight to Osaka?"));
    }

    #[test]
    fn contact_kept_until_a_meeting_and_a_pitch_almost_fallen_for_are_told_not_made() {
        assert!(kinds("電話號碼等見面再給你好了，我們先在這邊多聊聊").is_empty());
        assert!(kinds("I'll give you my number when we meet, hope that's ok").is_empty());
        assert!(kinds("我阿姨前幾天差點被USDT詐騙騙走20萬，還好銀行行員有擋下來").is_empty());
        // Refusing to talk here is still a move elsewhere.
        assert_eq!(
            kinds("以後不要在這邊聊了，妳留個聯絡方式給我"),
            ["OFF_PLATFORM"]
        );
    }

    #[test]
    fn an_identifiers_symbols_said_in_words_are_written_as_symbols_and_times_stay_times() {
        let fold_str = |t: &str| fold(t).into_iter().collect::<String>();
        assert_eq!(fold_str("maya underscore lin"), "maya_lin");
        assert_eq!(fold_str("yun點hsu點tw"), "yun.hsu.tw");
        assert_eq!(fold_str("ken アンダーバー 88"), "ken_88");
        assert_eq!(fold_str("7點30"), "7點30");
        assert_eq!(fold_str("the underscores"), "the underscores");
        assert_eq!(fold_str("thunderscore"), "thunderscore");
    }

    #[test]
    fn chats_u_and_ur_are_read_as_you_and_your() {
        let fold_str = |t: &str| fold(t).into_iter().collect::<String>();
        assert_eq!(fold_str("could u send ur id"), "could you send your id");
        assert_eq!(fold_str("U r cute, umm"), "you r cute, umm");
        assert_eq!(fold_str("500u"), "500u");
        assert_eq!(kinds("could u cover it? i'll pay u back"), ["MONEY"]);
    }

    #[test]
    fn an_app_is_found_in_disguise_and_not_when_a_message_came_on_it() {
        assert_eq!(kinds("sn@pchat: kai.w"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("WhatsApp me"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("エルアイエヌイーで mika_77 を検索"), ["OFF_PLATFORM"]);
        assert!(kinds("母からLINEが来て、猫の写真だった").is_empty());
        assert!(kinds("剛剛LINE來了，是我媽傳的照片").is_empty());
        assert_eq!(kinds("換到別的通訊軟體聊吧"), ["OFF_PLATFORM"]);
        assert!(kinds("他のアプリでも同じ写真使ってる").is_empty());
    }

    #[test]
    fn a_link_written_as_one_is_contact_details_whatever_the_site() {
        assert_eq!(kinds("https://example.org/a"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("www.example.net"), ["OFF_PLATFORM"]);
        assert!(kinds("we.com? no, the other one").is_empty());
    }

    #[test]
    fn a_phone_number_is_contact_details_however_it_is_written() {
        for text in [
            "0912345678",
            "0912-345-678",
            "０９１２．３４５．６７８",
            "0 9 1 2 3 4 5 6 7 8",
            "零九一二三四五六七八",
            "09一二-三四五-六七八",
            "ゼロキュウゼロ イチニサンヨン ゴロクナナハチ",
            "zero nine one two three four five six seven eight",
            "+886 912 345 678",
            "+81 90 1234 5678",
            "(415) 555-0134",
            "plus eight one nine zero one two three four five six seven eight",
            "oh seven nine hundred, one two three, four five six",
        ] {
            assert_eq!(kinds(text), ["OFF_PLATFORM"], "{text}");
        }
    }

    #[test]
    fn times_rooms_flights_prices_and_dates_are_no_phone_numbers() {
        for text in [
            "Taipei 101 at 7:30",
            "flight CI 104",
            "room 1203",
            "NT$350 set menu",
            "an iPhone 15",
            "2024-12-25 19:30",
            "2024/12/25",
            "My birthday is 0815",
        ] {
            assert!(detect(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn an_app_counts_with_an_ask_or_an_id_and_not_in_a_benign_phrase() {
        assert_eq!(kinds("加我賴"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("LINE: jason7788"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("ライン交換しよう"), ["OFF_PLATFORM"]);
        assert!(kinds("I paid with LINE Pay, send me half").is_empty());
        assert!(kinds("週末都在賴床，加油").is_empty());
        assert!(kinds("オンラインで予約した").is_empty());
        assert!(kinds("I saw it on Instagram").is_empty());
    }

    #[test]
    fn addresses_handles_and_links_are_contact_details() {
        for text in [
            "chen.yuhan@gmail.com",
            "yuhan.chen ＠ gmail . com",
            "kevin dot wu at gmail dot com",
            "@tom_tw",
            "tommy#1234",
            "line.me/ti/p/~kevin88",
            "t.me/goldwin888",
        ] {
            assert_eq!(kinds(text), ["OFF_PLATFORM"], "{text}");
        }
    }

    #[test]
    fn money_talk_needs_a_strong_word_or_several_weak_ones() {
        assert_eq!(kinds("Buy USDT and send it to this address"), ["MONEY"]);
        assert_eq!(kinds("可以先借我五萬嗎"), ["MONEY"]);
        assert_eq!(kinds("老師帶我投資，一個月賺兩成"), ["MONEY"]);
        assert!(kinds("I work at a bank, all day loans and investments").is_empty());
        assert!(kinds("我朋友被網路上的投資老師騙了五十萬").is_empty());
    }

    #[test]
    fn an_add_me_with_an_identifier_or_a_qr_code_is_contact_details_whatever_the_app() {
        assert_eq!(kinds("add me: mika_0707"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("掃我的QR就能加到我"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("Kakao?"), ["OFF_PLATFORM"]);
        assert!(kinds("I'll add more photos to my profile").is_empty());
        assert!(kinds("scan the QR on the table to order").is_empty());
    }

    #[test]
    fn an_app_talked_of_for_what_is_on_it_is_no_contact_but_an_identifier_on_it_is() {
        assert!(kinds("妳有推薦的IG咖啡廳帳號嗎？").is_empty());
        assert!(kinds("my brother is following 300 people on TikTok").is_empty());
        assert_eq!(
            kinds("my favorite app is Kik, I'm sora_2024"),
            ["OFF_PLATFORM"]
        );
        assert_eq!(kinds("SMSちょうだい"), ["OFF_PLATFORM"]);
    }

    #[test]
    fn a_number_said_to_be_in_the_profile_or_the_photos_is_contact_details() {
        assert_eq!(kinds("番号はプロフに書いたよ"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("my number is in my last photo"), ["OFF_PLATFORM"]);
        assert!(kinds("my phone died so no photos today").is_empty());
    }

    #[test]
    fn a_pitch_or_an_ask_warned_of_is_told_not_made_but_the_pitch_itself_still_counts() {
        // Round 13: someone else's pitch or ask, with a rejection, is a warning.
        for text in [
            "If someone promises you guaranteed returns, just block them",
            "要是有人叫你加LINE投資，一定是詐騙，不要理",
            "日利5%とか言ってくる人は要注意だよ",
            "前にLINE交換しよって何度も言われて怖かった",
        ] {
            assert!(kinds(text).is_empty(), "{text}");
        }
        // The same words made to the reader are the pitch and the ask.
        assert_eq!(
            kinds("Guaranteed returns, 5% daily, add my LINE: kevin0815"),
            ["OFF_PLATFORM", "MONEY"]
        );
        assert_eq!(kinds("加我LINE：kevin0815"), ["OFF_PLATFORM"]);
    }

    #[test]
    fn ones_own_pay_rent_or_tax_with_a_rate_is_no_return_but_earning_more_than_it_is() {
        // A rate per month is a promised return in a pitch, not in one's own rent or tax.
        assert_eq!(kinds("這個方案每個月穩定5%，你要不要試試"), ["MONEY"]);
        assert!(!rule_says_money("我的房租每個月漲了5%，薪水沒漲"));
        assert!(kinds("Rent went up 6% this month, my salary did not").is_empty());
        assert!(!rule_says_money("消費稅是10%，收據要留著"));
        assert_eq!(
            kinds("My mentor's plan pays 3% daily, way more than my salary ever did"),
            ["MONEY"]
        );
    }

    #[test]
    fn a_number_given_without_its_leading_zero_is_a_phone_number() {
        assert_eq!(kinds("九一八 七七六 五四三，前面加個零"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("918 776 543, add a zero in front"), ["OFF_PLATFORM"]);
        // An amount is none.
        assert!(!kinds("九一八七七六五四三元，前面加個零").contains(&"OFF_PLATFORM"));
    }

    #[test]
    fn a_gain_shown_with_a_figure_or_its_sign_is_money_talk_a_share_of_screenshots_is_not() {
        assert!(rule_says_money("See my screenshot, +¥380,000 since Monday"));
        assert!(rule_says_money("closed the position at noon, +7.2% 😊"));
        assert!(!rule_says_money(
            "My photo gallery is 80% cats and 20% screenshots"
        ));
        assert!(!rule_says_money("the temperature is +3 today"));
    }

    #[test]
    fn a_job_in_finance_told_of_someone_is_no_pitch_but_a_mentor_who_had_it_is() {
        assert!(kinds("我姊是外匯交易員，常常半夜才下班").is_empty());
        assert!(kinds("my dad was a stock analyst for thirty years").is_empty());
        assert_eq!(kinds("我的老師是前外匯交易員，只帶少數學員"), ["MONEY"]);
        assert_eq!(
            kinds("my friend is a trader, you could make 5% a week with him"),
            ["MONEY"]
        );
    }

    #[test]
    fn refusing_a_transfer_and_warnings_about_scams_are_no_money_talk() {
        assert!(kinds("今天我請客，不用轉給我").is_empty());
        assert!(kinds("ここは私が払うから送金しなくていいよ").is_empty());
        assert!(kinds("the police say never buy gift cards for strangers").is_empty());
    }

    #[test]
    fn a_third_persons_own_use_of_an_app_moves_nothing_elsewhere_but_an_ask_to_the_reader_does() {
        assert!(kinds("我姊昨天傳LINE跟我說她要結婚了").is_empty());
        assert!(kinds("父からLINE来て、野菜送ったって").is_empty());
        assert!(kinds("my sister keeps sending me memes on LINE").is_empty());
        assert_eq!(kinds("我媽說你可以加我LINE：mei_0520"), ["OFF_PLATFORM"]);
    }

    #[test]
    fn staying_here_going_elsewhere_in_person_and_news_of_a_fake_account_move_no_talk() {
        assert!(kinds("會面之前我們就在這裡聊就好，不用換").is_empty());
        assert!(kinds("連絡先は会ってから交換しようね").is_empty());
        assert!(kinds("the place was full so we went somewhere else").is_empty());
        assert!(kinds("新聞說有人冒充客服的LINE帳號騙錢").is_empty());
    }

    #[test]
    fn a_warning_to_verify_or_report_and_the_price_of_a_thing_bought_are_no_money_talk() {
        assert!(kinds("有人叫你匯款投資一定要先查證，打165問").is_empty());
        assert!(
            kinds("my aunt lost money to a fake crypto app, so never trust a stranger").is_empty()
        );
        assert!(kinds("we paid the down payment, 頭期款 is done").is_empty());
    }

    #[test]
    fn tips_before_the_market_and_lying_to_the_bank_are_money_talk_even_of_a_relative() {
        assert_eq!(
            kinds("my cousin is an analyst and gets inside info before the market opens"),
            ["MONEY"]
        );
        assert_eq!(
            kinds("銀行に聞かれたら、家族への送金って言ってね"),
            ["MONEY"]
        );
        assert_eq!(
            kinds("your savings just sitting in the bank lose to inflation every year"),
            ["MONEY"]
        );
    }

    #[test]
    fn a_mobile_numbers_start_with_a_word_for_it_is_the_number_given_in_parts() {
        assert_eq!(
            kinds("電話番号の最初は090-77で、残りは後で送るね"),
            ["OFF_PLATFORM"]
        );
        assert_eq!(
            kinds("my number starts 0918, you'll get the rest"),
            ["OFF_PLATFORM"]
        );
        assert!(kinds("room number 1205, third floor").is_empty());
        assert!(kinds("flight CI 0103 lands at 09:40").is_empty());
    }

    #[test]
    fn keycap_digits_tone_marks_and_look_alike_letters_are_folded_before_reading() {
        assert_eq!(kinds("call me 0⃣9⃣1⃣2⃣ 3⃣4⃣5⃣ 6⃣7⃣8⃣"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("電話 ㄌㄧㄥˊ九三二 五五八 七七一"), ["OFF_PLATFORM"]);
        assert_eq!(kinds("my l!ne is kai_0303"), ["OFF_PLATFORM"]);
    }

    #[test]
    fn an_amount_in_numerals_counts_once() {
        let mut signals = Signals::default();
        find_digits(&fold("兩萬 五千元 二十萬"), &mut signals);
        assert_eq!(signals.amounts, 3);
    }

    #[test]
    fn a_promised_growth_in_a_period_or_a_rate_is_money_talk() {
        assert_eq!(kinds("這個方案一個月就翻倍，相信我"), ["MONEY"]);
        assert_eq!(kinds("the plan pays 2 percent daily"), ["MONEY"]);
        assert!(kinds("my plants double in size every month").is_empty());
        assert!(kinds("last month I ate 30% less sugar").is_empty());
    }

    #[test]
    fn contact_details_are_a_caution_only_in_a_young_match_and_money_always() {
        let old = Conversation {
            match_age_secs: SAFETY_YOUNG_MATCH_SECS,
            sent_by_sender: SAFETY_YOUNG_MATCH_MESSAGES,
            sent_by_other: SAFETY_YOUNG_MATCH_MESSAGES,
        };
        assert!(!old.is_young());
        let both = "加我LINE，我教妳在平台賺錢 USDT";
        assert_eq!(screen(both, &young()).codes(), ["OFF_PLATFORM", "MONEY"]);
        assert_eq!(screen(both, &old).codes(), ["MONEY"]);
        let quiet_other = Conversation {
            sent_by_other: SAFETY_YOUNG_MATCH_MESSAGES - 1,
            ..old
        };
        assert!(quiet_other.is_young());
        let new_match = Conversation {
            match_age_secs: SAFETY_YOUNG_MATCH_SECS - 1,
            ..old
        };
        assert!(new_match.is_young());
    }

    #[test]
    fn everyday_chat_lines_are_not_flagged() {
        for text in [
            "Bring the map?",
            "Great! Coffee on Saturday?",
            "Great, see you there",
            "Hi Kai! Coffee this weekend?",
            "Sunday works.",
            "Sure! Sunday at ten?",
            "Five? Show me on our first date!",
            "I finished the book, I'll lend it to you when we meet",
            "bill came to ¥7,480, so ¥3,740 each",
            "中目黒で部屋探してるけど、1Kでも家賃11万とかで泣いてる",
        ] {
            assert!(detect(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn the_recipient_sees_the_stored_kinds_and_the_sender_none() {
        let money = Kinds::EMPTY.with(Kind::Money);
        assert_eq!(caution_for(money, false), Some(money));
        assert_eq!(caution_for(money, true), None);
        assert_eq!(caution_for(Kinds::EMPTY, false), None);
    }

    #[test]
    fn money_queues_a_conversation_once_and_contact_details_alone_never() {
        let off = Kinds::EMPTY.with(Kind::OffPlatform);
        let money = Kinds::EMPTY.with(Kind::Money);
        assert_eq!(
            review_due(Kinds::EMPTY, money, false),
            Some(ReviewCause::Money)
        );
        assert_eq!(
            review_due(off, money, false),
            Some(ReviewCause::OffPlatformThenMoney)
        );
        assert_eq!(
            review_due(Kinds::EMPTY, off.with(Kind::Money), false),
            Some(ReviewCause::OffPlatformThenMoney)
        );
        assert_eq!(review_due(off, off, false), None);
        assert_eq!(review_due(Kinds::EMPTY, Kinds::EMPTY, false), None);
        assert_eq!(review_due(off, money, true), None, "once only");
        for cause in [ReviewCause::Money, ReviewCause::OffPlatformThenMoney] {
            assert_eq!(ReviewCause::parse(cause.as_str()), Some(cause));
        }
    }

    #[test]
    fn kinds_read_and_write_their_codes_and_bits() {
        let both = Kinds::EMPTY.with(Kind::Money).with(Kind::OffPlatform);
        assert_eq!(
            serde_json::to_string(&both).unwrap(),
            r#"["OFF_PLATFORM","MONEY"]"#
        );
        assert_eq!(
            serde_json::from_str::<Kinds>(r#"["MONEY","OFF_PLATFORM"]"#).unwrap(),
            both
        );
        assert!(serde_json::from_str::<Kinds>(r#"["PHOTO"]"#).is_err());
        assert_eq!(Kinds::from_bits(both.bits()), both);
        assert_eq!(Kinds::from_bits(0xff), both);
        assert_eq!(Kind::parse("MONEY"), Some(Kind::Money));
        assert_eq!(Kind::parse("money"), None);
    }

    #[test]
    fn the_common_characters_short_cut_gives_what_nfkc_gives() {
        use unicode_normalization::UnicodeNormalization;
        let mut checked = 0;
        for c in (0..=0x1FFFF).filter_map(char::from_u32) {
            let text = c.to_string();
            if let Some(fast) = common_nfkc(&text) {
                assert_eq!(fast, text.nfkc().collect::<String>(), "U+{:04X}", c as u32);
                checked += 1;
            }
        }
        assert!(checked > 30_000, "{checked}");
        let sentence = "加我ＬＩＮＥ：ｋｅｖｉｎ　０８１５！好嗎？ライン交換しよう😊";
        assert_eq!(common_nfkc(sentence), Some(sentence.nfkc().collect()));
        assert_eq!(
            common_nfkc("ﾗｲﾝ"),
            None,
            "half-width kana compose: the general algorithm's job"
        );
    }

    // proptest's randomness source does not build for wasm32.
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn any_text_is_screened_without_a_panic(text in "\\PC{0,300}") {
            let _ = detect(&text);
        }

        #[test]
        fn digits_separators_and_number_words_in_any_order_are_screened_without_a_panic(
            text in "([0-9 .,\\-+()@#_~%$]|zero|one|nine|oh|零|九|〇|洞|ゼロ|キュウ|ク|シ|ニー|萬|円|k|a|line|賴){0,120}",
        ) {
            let _ = detect(&text);
        }
    }

    #[test]
    fn nfkc_from_the_caller_answers_like_nfkc_here() {
        let text = "加我ＬＩＮＥ：ｋｅｖｉｎ０８１５";
        let normalised: String =
            unicode_normalization::UnicodeNormalization::nfkc(text.chars()).collect();
        assert_eq!(screen_nfkc(&normalised, &young()), screen(text, &young()));
    }
}
