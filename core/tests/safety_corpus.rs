//! The safety corpus (core/data/safety/) is well formed, and the rule keeps meeting its targets on
//! the part it was tuned on: tune.jsonl and tune-2.jsonl to tune-8.jsonl, eight independently
//! written sets whose held-out parts (rounds 1 to 8) were each reported on once and then folded
//! into them, tune-10.jsonl to tune-19.jsonl (rounds 10 to 19, held out until rounds 12, 13, 14
//! and 15), and tune-hn.jsonl, hard negatives written blind for tuning. The held-out part,
//! heldout-9.jsonl and heldout-20.jsonl to heldout-28.jsonl (rounds 20 to 28, written blind
//! during rounds 15 and 16), is never tuned on; its figures are `just bench-safety`'s to print (and to fail on): a test that
//! pinned them would invite tuning on it.

use kizuna_core::safety::{self, Kind};
use serde::Deserialize;
use std::collections::HashSet;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    lang: String,
    set: String,
    labels: Vec<Kind>,
    text: String,
}

fn read(jsonl: &str) -> Vec<Line> {
    jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The tuned part (tune.jsonl, tune-2.jsonl to tune-8.jsonl, tune-10.jsonl to tune-19.jsonl,
/// tune-hn.jsonl) and the held-out part (heldout-9.jsonl, round 9, and the blind rounds after it).
fn parts() -> (Vec<Line>, Vec<Line>) {
    let mut tune = read(include_str!("../data/safety/tune.jsonl"));
    tune.extend(read(include_str!("../data/safety/tune-2.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-3.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-4.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-5.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-6.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-7.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-8.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-10.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-11.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-12.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-13.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-14.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-15.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-16.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-17.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-18.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-19.jsonl")));
    tune.extend(read(include_str!("../data/safety/tune-hn.jsonl")));
    let mut heldout = read(include_str!("../data/safety/heldout-9.jsonl"));
    heldout.extend(read(include_str!("../data/safety/heldout-20.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-21.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-22.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-23.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-24.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-25.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-26.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-27.jsonl")));
    heldout.extend(read(include_str!("../data/safety/heldout-28.jsonl")));
    (tune, heldout)
}

#[test]
fn every_line_is_once_in_the_corpus_with_the_labels_of_its_set_and_three_hundred_a_language() {
    let (tune, heldout) = parts();
    let mut seen = HashSet::new();
    for line in tune.iter().chain(&heldout) {
        assert!(seen.insert(line.text.as_str()), "twice: {}", line.text);
        let wanted: &[Kind] = match line.set.as_str() {
            "scam" => &[Kind::Money],
            "contact" => &[Kind::OffPlatform],
            "both" => &[Kind::OffPlatform, Kind::Money],
            "hard" | "benign" => &[],
            other => panic!("unknown set {other}"),
        };
        let mut labels = line.labels.clone();
        labels.sort();
        assert_eq!(labels, wanted, "{}", line.text);
    }
    for lang in ["zh-TW", "ja", "en"] {
        let count = |lines: &[Line], set: &str| {
            lines
                .iter()
                .filter(|l| l.lang == lang && (set.is_empty() || l.set == set))
                .count()
        };
        let (t, h) = (count(&tune, ""), count(&heldout, ""));
        assert!(t + h >= 300, "{lang}: {} lines", t + h);
    }
}

/// Fails while the held-out files are empty: the lead adds the blind sets. The issue asks for a
/// fifth kept aside; more held out only makes the figures harder to flatter. The ceiling, two
/// fifths, keeps most of each language to tune on while new blind rounds join before a round of
/// the rule folds older ones in (rounds 26 to 28 joined while round 16's retrain did not land).
#[test]
fn the_held_out_part_is_a_fifth_to_two_fifths_of_each_language_with_ten_lines_of_each_set() {
    let (tune, heldout) = parts();
    for lang in ["zh-TW", "ja", "en"] {
        let count = |lines: &[Line], set: &str| {
            lines
                .iter()
                .filter(|l| l.lang == lang && (set.is_empty() || l.set == set))
                .count()
        };
        let (t, h) = (count(&tune, ""), count(&heldout, ""));
        assert!(
            h * 5 >= t + h && h * 5 <= (t + h) * 2,
            "{lang}: {h} of {} held out",
            t + h
        );
        for set in ["scam", "contact", "hard", "benign"] {
            assert!(
                count(&heldout, set) >= 10,
                "{lang}: too few held-out {set} lines"
            );
        }
    }
}

#[test]
fn on_the_tuned_part_recall_is_at_least_95_percent_and_false_positives_at_most_1_percent() {
    let (tune, _) = parts();
    for lang in ["zh-TW", "ja", "en"] {
        let lines: Vec<&Line> = tune.iter().filter(|l| l.lang == lang).collect();
        for kind in Kind::ALL {
            let labelled: Vec<&&Line> = lines.iter().filter(|l| l.labels.contains(&kind)).collect();
            let found = labelled
                .iter()
                .filter(|l| safety::detect(&l.text).contains(kind))
                .count();
            assert!(
                found * 100 >= labelled.len() * 95,
                "{lang} {kind:?}: {found} of {}",
                labelled.len()
            );
        }
        let clean: Vec<&&Line> = lines.iter().filter(|l| l.labels.is_empty()).collect();
        let flagged = clean
            .iter()
            .filter(|l| !safety::detect(&l.text).is_empty())
            .count();
        assert!(
            flagged * 100 <= clean.len(),
            "{lang}: {flagged} of {} clean lines flagged",
            clean.len()
        );
    }
}
