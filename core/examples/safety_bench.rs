//! `just bench-safety`: the safety rule (kizuna_core::safety) over the hand-written corpus in
//! core/data/safety/. The tuned part is tune.jsonl and tune-2.jsonl to tune-8.jsonl: eight
//! independently written sets whose held-out parts (rounds 1 to 8) were each reported on once and
//! then folded into them (rounds 3's to 8's, written blind, are tune-3.jsonl to tune-8.jsonl
//! whole), tune-10.jsonl and tune-11.jsonl (rounds 10 and 11, written blind, held out until
//! round 12), tune-12.jsonl and tune-13.jsonl (rounds 12 and 13, written blind, held out until
//! round 13), tune-14.jsonl to tune-16.jsonl (rounds 14 to 16, written blind, held out until
//! round 14), tune-17.jsonl to tune-19.jsonl (rounds 17 to 19, written blind, held out until
//! round 15), and tune-hn.jsonl, about 1,200 hard negatives written blind for tuning in round 10.
//! The held-out part is rounds written blind, by people who never saw the rule, never tuned on:
//! heldout-9.jsonl (round 9) and heldout-20.jsonl to heldout-28.jsonl (rounds 20 to 28, written
//! blind during rounds 15 and 16).
//! Prints, per language and part (each tuned set, the tuned sets together, each held-out round,
//! the held-out part), recall on
//! scam lines (labelled MONEY) and on contact lines (labelled OFF_PLATFORM), the false-positive
//! rate on benign lines and on hard negatives (any kind found), then the cost of one
//! 200-character message. Exits 1 when a target is missed on the held-out part: recall >= 95 %
//! (per language and overall), false positives <= 1 % (over the languages), <= 20 µs; and
//! when a held-out round is empty (nothing to judge the rule by).
//!
//! `cargo run --release -p kizuna-core --example safety_bench -- --misses` lists what the rule
//! gets wrong on the tuned part (never the held-out part); `-- --dump` prints, per tuned line, its
//! folded text and what the hand-written rules alone find (JSON lines), which
//! scripts/train_safety.py trains the money and contact models on; `-- --explain TEXT` shows how
//! the rule reads and scores a text; `-- --tuned` prints only the tuned part's table; `-- --cost`
//! prints only the cost per message; `-- --instructions` screens each of its messages once, for
//! callgrind (`valgrind --tool=callgrind --toggle-collect='*screen_each*'`; `train_safety.py --loro`
//! prints the leave-one-round-out estimate over the tuned rounds).

use kizuna_core::safety::{self, Conversation, Kind};
use serde::Deserialize;
use std::hint::black_box;
use std::process::ExitCode;

/// The tuned rounds, by file name (without .jsonl): `--dump` names them so.
const TUNED: [(&str, &str); 19] = [
    ("tune", include_str!("../data/safety/tune.jsonl")),
    ("tune-2", include_str!("../data/safety/tune-2.jsonl")),
    ("tune-3", include_str!("../data/safety/tune-3.jsonl")),
    ("tune-4", include_str!("../data/safety/tune-4.jsonl")),
    ("tune-5", include_str!("../data/safety/tune-5.jsonl")),
    ("tune-6", include_str!("../data/safety/tune-6.jsonl")),
    ("tune-7", include_str!("../data/safety/tune-7.jsonl")),
    ("tune-8", include_str!("../data/safety/tune-8.jsonl")),
    ("tune-10", include_str!("../data/safety/tune-10.jsonl")),
    ("tune-11", include_str!("../data/safety/tune-11.jsonl")),
    ("tune-12", include_str!("../data/safety/tune-12.jsonl")),
    ("tune-13", include_str!("../data/safety/tune-13.jsonl")),
    ("tune-14", include_str!("../data/safety/tune-14.jsonl")),
    ("tune-15", include_str!("../data/safety/tune-15.jsonl")),
    ("tune-16", include_str!("../data/safety/tune-16.jsonl")),
    ("tune-17", include_str!("../data/safety/tune-17.jsonl")),
    ("tune-18", include_str!("../data/safety/tune-18.jsonl")),
    ("tune-19", include_str!("../data/safety/tune-19.jsonl")),
    ("tune-hn", include_str!("../data/safety/tune-hn.jsonl")),
];
/// The held-out rounds, written blind and never tuned on.
const HELD_OUT: [(&str, &str); 10] = [
    ("held-out-9", include_str!("../data/safety/heldout-9.jsonl")),
    (
        "held-out-20",
        include_str!("../data/safety/heldout-20.jsonl"),
    ),
    (
        "held-out-21",
        include_str!("../data/safety/heldout-21.jsonl"),
    ),
    (
        "held-out-22",
        include_str!("../data/safety/heldout-22.jsonl"),
    ),
    (
        "held-out-23",
        include_str!("../data/safety/heldout-23.jsonl"),
    ),
    (
        "held-out-24",
        include_str!("../data/safety/heldout-24.jsonl"),
    ),
    (
        "held-out-25",
        include_str!("../data/safety/heldout-25.jsonl"),
    ),
    (
        "held-out-26",
        include_str!("../data/safety/heldout-26.jsonl"),
    ),
    (
        "held-out-27",
        include_str!("../data/safety/heldout-27.jsonl"),
    ),
    (
        "held-out-28",
        include_str!("../data/safety/heldout-28.jsonl"),
    ),
];
const LANGS: [&str; 3] = ["zh-TW", "ja", "en"];

const MIN_RECALL: f64 = 0.95;
const MAX_FALSE_POSITIVES: f64 = 0.01;
const MAX_MICROS_PER_200_CHARS: f64 = 20.0;

#[derive(Deserialize)]
struct Line {
    lang: String,
    set: String,
    labels: Vec<Kind>,
    text: String,
}

fn read(jsonl: &str) -> Vec<Line> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[derive(Default, Clone, Copy)]
struct Tally {
    scam: (u32, u32),
    contact: (u32, u32),
    benign: (u32, u32),
    hard: (u32, u32),
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        for (a, b) in [
            (&mut self.scam, other.scam),
            (&mut self.contact, other.contact),
            (&mut self.benign, other.benign),
            (&mut self.hard, other.hard),
        ] {
            a.0 += b.0;
            a.1 += b.1;
        }
    }
}

fn rate((hits, of): (u32, u32)) -> f64 {
    if of == 0 {
        0.0
    } else {
        f64::from(hits) / f64::from(of)
    }
}

fn cell(pair: (u32, u32)) -> String {
    format!(
        "{:>6.1} % ({:>3}/{:<3})",
        100.0 * rate(pair),
        pair.0,
        pair.1
    )
}

fn tally(lines: &[&Line], misses: bool) -> Tally {
    let mut t = Tally::default();
    for line in lines {
        let found = safety::detect(&line.text);
        let count = |pair: &mut (u32, u32), hit: bool| {
            pair.1 += 1;
            pair.0 += u32::from(hit);
        };
        for kind in Kind::ALL {
            if line.labels.contains(&kind) {
                let pair = if kind == Kind::Money {
                    &mut t.scam
                } else {
                    &mut t.contact
                };
                count(pair, found.contains(kind));
                if misses && !found.contains(kind) {
                    println!(
                        "  missed {:<12} [{}] {}",
                        kind.as_str(),
                        line.lang,
                        line.text
                    );
                }
            }
        }
        if line.labels.is_empty() {
            let pair = if line.set == "hard" {
                &mut t.hard
            } else {
                &mut t.benign
            };
            count(pair, !found.is_empty());
            if misses && !found.is_empty() {
                println!(
                    "  false   {:<12} [{}] {}",
                    found.codes().join(","),
                    line.lang,
                    line.text
                );
            }
        }
    }
    t
}

/// 200-character messages cut from the corpus lines of one language, joined by spaces.
fn messages_of(lines: &[Line], lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in lines.iter().filter(|l| l.lang == lang) {
        for c in line.text.chars().chain([' ']) {
            current.push(c);
            if current.chars().count() == 200 {
                out.push(std::mem::take(&mut current));
            }
        }
    }
    out
}

/// CPU time of this thread in nanoseconds (Linux's schedstat), so that other processes on the
/// shared machine do not inflate the figures; wall-clock time where it is unavailable.
struct Clock {
    wall: std::time::Instant,
    cpu: Option<u64>,
}

fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: std::time::Instant::now(),
            cpu: thread_cpu_ns(),
        }
    }

    fn seconds(&self) -> f64 {
        match (self.cpu, thread_cpu_ns()) {
            (Some(start), Some(now)) => (now - start) as f64 / 1e9,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

/// Mean microseconds of `safety::screen` per message (thread CPU time), over the fastest of
/// five passes.
fn cost(messages: &[String]) -> f64 {
    let young = Conversation {
        match_age_secs: 3_600,
        sent_by_sender: 3,
        sent_by_other: 4,
    };
    let rounds = 200;
    (0..5)
        .map(|_| {
            let clock = Clock::start();
            for _ in 0..rounds {
                for m in messages {
                    black_box(safety::screen(black_box(m), &young));
                }
            }
            clock.seconds() * 1e6 / (rounds * messages.len()) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// `safety::screen` over each message once (`--instructions`), not inlined so that callgrind can
/// count it alone.
#[inline(never)]
fn screen_each(messages: &[String]) {
    let young = Conversation {
        match_age_secs: 3_600,
        sent_by_sender: 3,
        sent_by_other: 4,
    };
    for m in messages {
        black_box(safety::screen(black_box(m), &young));
    }
}

/// The cost of a 200-character message per language; a miss of the target goes to `failures`.
fn measure_cost(failures: &mut Vec<String>) {
    println!(
        "cost of safety::screen (NFKC included), release build, thread CPU time, fastest of 5 passes:"
    );
    // Rounds 1 to 5, as the figures before round 6 were measured.
    let corpus: Vec<Line> = TUNED[..5].iter().flat_map(|(_, text)| read(text)).collect();
    for lang in LANGS {
        let messages = messages_of(&corpus, lang);
        let micros = cost(&messages);
        println!(
            "  {lang:<6} {micros:>6.2} µs per 200-character message ({} messages x 200)",
            messages.len()
        );
        if micros > MAX_MICROS_PER_200_CHARS {
            failures.push(format!(
                "{lang}: {micros:.2} µs per 200-character message > 20 µs"
            ));
        }
    }
}

fn main() -> ExitCode {
    let misses = std::env::args().any(|a| a == "--misses");
    let tuned: Vec<(&str, Vec<Line>)> = TUNED
        .iter()
        .map(|(name, text)| (*name, read(text)))
        .collect();
    let held_out: Vec<(&str, Vec<Line>)> = HELD_OUT
        .iter()
        .map(|(name, text)| (*name, read(text)))
        .collect();
    let tune_all: Vec<&Line> = tuned.iter().flat_map(|(_, lines)| lines).collect();
    let heldout: Vec<&Line> = held_out.iter().flat_map(|(_, lines)| lines).collect();
    if let Some(at) = std::env::args().position(|a| a == "--explain") {
        // A text (or, without one, each line of stdin) as the rule reads and scores it.
        let args: Vec<String> = std::env::args().skip(at + 1).collect();
        let texts: Vec<String> = if args.is_empty() {
            std::io::stdin().lines().map_while(Result::ok).collect()
        } else {
            args
        };
        for text in texts {
            println!("{}", safety::explain(&text));
        }
        return ExitCode::SUCCESS;
    }
    if std::env::args().any(|a| a == "--dump") {
        // For scripts/train_safety.py: each tuned line with what the hand-written rule alone
        // finds and the folded text the model reads.
        for (file, lines) in &tuned {
            for line in lines {
                let (rule, folded) = safety::rule_and_folded(&line.text);
                let row = serde_json::json!({
                    "file": file,
                    "lang": line.lang,
                    "set": line.set,
                    "labels": line.labels.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
                    "rule": rule.codes(),
                    "folded": folded,
                    "signals": safety::signal_features(&line.text),
                });
                println!("{row}");
            }
        }
        return ExitCode::SUCCESS;
    }
    if std::env::args().any(|a| a == "--instructions") {
        // Each 200-character message of the cost's corpus screened once, for an instruction count
        // that the machine's load does not change: `valgrind --tool=callgrind
        // --toggle-collect='*screen_each*'` counts the instructions inside `screen_each` alone.
        let corpus: Vec<Line> = TUNED[..5].iter().flat_map(|(_, text)| read(text)).collect();
        // The word index is built at first use: not part of a message's cost.
        black_box(safety::detect("warm-up"));
        // `--instructions en`: one language's messages alone.
        let only = std::env::args()
            .skip_while(|a| a != "--instructions")
            .nth(1);
        for lang in LANGS
            .into_iter()
            .filter(|l| only.as_deref().is_none_or(|o| o == *l))
        {
            let messages = messages_of(&corpus, lang);
            screen_each(&messages);
            println!("{lang}: {} messages", messages.len());
        }
        return ExitCode::SUCCESS;
    }
    if std::env::args().any(|a| a == "--cost") {
        // The cost alone, to check a change without reading the held-out part.
        let mut failures = Vec::new();
        measure_cost(&mut failures);
        println!("{}", failures.join("\n"));
        return if failures.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if misses {
        println!("What the rule gets wrong on the tuned part:");
        tally(&tune_all, true);
        return ExitCode::SUCCESS;
    }

    let mut failures = Vec::new();
    println!(
        "safety rule over core/data/safety (recall: share of lines found; false positives: share of lines flagged)"
    );
    println!(
        "{:<11} {:<8} {:<22} {:<22} {:<22} {:<22}",
        "part", "lang", "recall scam", "recall contact", "FP benign", "FP hard negatives"
    );
    let mut parts: Vec<(String, Vec<&Line>)> = tuned
        .iter()
        .map(|(name, lines)| {
            let name = if *name == "tune" { "tune-1" } else { name };
            (name.to_string(), lines.iter().collect())
        })
        .collect();
    parts.push(("tune".to_string(), tune_all));
    // `--tuned`: the tuned part's table alone, to check a change without reading the held-out part.
    let tuned_only = std::env::args().any(|a| a == "--tuned");
    if !tuned_only {
        for (name, lines) in &held_out {
            parts.push((name.to_string(), lines.iter().collect()));
        }
        parts.push(("held-out".to_string(), heldout));
    }

    for (part, lines) in &parts {
        let part = part.as_str();
        if lines.is_empty() {
            // The blind set is written by someone else and added by the lead: until then there is
            // nothing to judge the rule by, which is a miss, not a pass.
            println!("{part:<11} (empty: core/data/safety/ has no held-out lines yet)");
            failures.push(format!(
                "the {part} part is empty: nothing to judge the rule by"
            ));
            continue;
        }
        let mut all = Tally::default();
        for lang in LANGS {
            let of_lang: Vec<&Line> = lines.iter().copied().filter(|l| l.lang == lang).collect();
            let t = tally(&of_lang, false);
            all.add(&t);
            println!(
                "{part:<11} {lang:<8} {} {} {} {}",
                cell(t.scam),
                cell(t.contact),
                cell(t.benign),
                cell(t.hard)
            );
            if part == "held-out" {
                for (what, pair) in [("scam recall", t.scam), ("contact recall", t.contact)] {
                    if rate(pair) < MIN_RECALL {
                        failures.push(format!(
                            "{lang} held-out {what} {:.1} % < 95 %",
                            100.0 * rate(pair)
                        ));
                    }
                }
            }
        }
        println!(
            "{part:<11} {:<8} {} {} {} {}",
            "all",
            cell(all.scam),
            cell(all.contact),
            cell(all.benign),
            cell(all.hard)
        );
        if part == "held-out" {
            for (what, pair) in [("scam recall", all.scam), ("contact recall", all.contact)] {
                if rate(pair) < MIN_RECALL {
                    failures.push(format!(
                        "held-out {what} {:.1} % < 95 %",
                        100.0 * rate(pair)
                    ));
                }
            }
            for (what, pair) in [
                ("benign false positives", all.benign),
                ("hard-negative false positives", all.hard),
            ] {
                if rate(pair) > MAX_FALSE_POSITIVES {
                    failures.push(format!("held-out {what} {:.1} % > 1 %", 100.0 * rate(pair)));
                }
            }
        }
    }

    if tuned_only {
        return ExitCode::SUCCESS;
    }
    println!();
    measure_cost(&mut failures);

    if failures.is_empty() {
        println!(
            "\nsafety: every target met (held-out recall >= 95 % per language and overall, false positives <= 1 %, <= 20 µs)"
        );
        ExitCode::SUCCESS
    } else {
        println!("\nsafety: targets missed:\n  {}", failures.join("\n  "));
        ExitCode::FAILURE
    }
}
