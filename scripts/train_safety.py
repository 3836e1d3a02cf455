#!/usr/bin/env python3
"""Trains the safety rule's learned part (kizuna_core::safety's money and contact models) and
writes it to core/src/safety/model.rs. Python 3 standard library only; deterministic (fixed seed,
fixed order).

    python3 scripts/train_safety.py            # leave-one-round-out figures, then the model file
    python3 scripts/train_safety.py --loro     # the leave-one-round-out figures only, nothing written
    python3 scripts/train_safety.py --decision # also the learned decision over the rule's signals (not shipped)

What it learns from: the tuned part of the corpus (core/data/safety/tune.jsonl, tune-2.jsonl to
tune-8.jsonl, tune-10.jsonl to tune-19.jsonl, tune-hn.jsonl), never the held-out rounds
(heldout-9.jsonl and the blind rounds added after it). Each line is read as
the rule reads it: the script runs `cargo run --release -p kizuna-core --example safety_bench --
--dump`, which prints, per tuned line, the folded text (NFKC, invisibles dropped, look-alikes
folded, lower case, hiragana as katakana...) and what the hand-written rule alone finds.

The models: two logistic regressions over hashed features of the folded text, its character 1- to
3-grams (counts, not presence; Latin word unigrams and bigrams, and 4- and 5-grams, were tried and
added nothing in cross-validation), each hashed (FNV-1a over code points, then a multiplicative
hash) into a table of 2^BITS weights (money, labelled MONEY) and 2^OFF_BITS weights (contact,
labelled OFF_PLATFORM: a smaller table, since the chat's wasm module carries both); the sum of a
text's weights is divided by the square root of its number of features. The weights are
quantised to 7 bits, -63 to 63, stored as i8 (one scale per table); the bias and the threshold become one integer threshold
on the sum of the quantised weights, so that Rust (safety::model_scores) and this script decide
alike, bit for bit. A line carries a kind when the rule says so and that kind's score is not under
its veto threshold (a shape, for OFF_PLATFORM, is never vetoed), or when its score reaches its
threshold.

The thresholds are chosen by leave-one-round-out cross-validation: train on eighteen of the nineteen
tuned files, score the nineteenth (each was written independently, by different people, so this
estimates a blind set; tune-hn.jsonl holds hard negatives only), and take the most permissive
threshold that keeps, pooled over the rounds, the false positives the model adds to the rule's
(lines the rule passes and the model flags) at most 0.5 % on hard negatives and on benign lines in
each language; the money model's first, then the contact model's on top of rule + money. Then the
vetoes (since round 10): the highest threshold under each model's that loses, pooled, at most
0.5 % of each language's scam (money veto) or contact (contact veto, over the money veto) lines;
the rules fit the phrasings they were written from, and a new writer's look-alike that trips them
often scores far below anything the model learnt as money talk or an offer of contact. (Until
round 5 the criterion was rule + model at most 1 %; round 5's look-alikes put the rules alone
above 1 % on hard negatives, which left no threshold and switched the model off.) The figures
printed are those of that cross-validation: rule alone, rule + money model, rule + both models,
and with the vetoes.

The generated file starts with an FNV-1a 64 checksum of the nineteen tuned files and this script; a
kizuna-core test recomputes it, so a corpus or a script changed without retraining fails.
"""

import gzip
import json
import math
import os
import pathlib
import random
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "core" / "data" / "safety"
FILES = ["tune", "tune-2", "tune-3", "tune-4", "tune-5", "tune-6", "tune-7", "tune-8", "tune-10", "tune-11",
         "tune-12", "tune-13", "tune-14", "tune-15", "tune-16", "tune-17", "tune-18", "tune-19", "tune-hn"]
OUT = ROOT / "core" / "src" / "safety" / "model.rs"
LANGS = ["zh-TW", "ja", "en"]

BITS = 14
# The contact model's table: 2^13 weights (2^14 found no more contact lines in cross-validation
# and would not fit the chat module's budget).
OFF_BITS = 13
FNV_PRIME = 16_777_619
CHAR_SEED = 2_166_136_261
MAX_N = 3
MASK32 = 0xFFFF_FFFF
SEED = 20261126
# Chosen by the cross-validation below (1- to 3-, 4- or 5-grams, with or without Latin words,
# 2^13 to 2^15 slots, 12 to 100 epochs, L2 1e-5 to 1e-2, rates 0.05 to 1, hard negatives weighing
# 1, 3 or 5, raw counts or counts over sqrt(n), digits as they are or all as 0; a veto of the
# rules' MONEY by a low score): the most scam recall at <= 1 % false positives, in a table that
# keeps the chat's wasm module within its budget.
EPOCHS = 40
RATE = 0.5
L2 = 3e-3
HARD_WEIGHT = 3.0
MAX_ADDED_FP = 0.005


def step(h, c):
    return ((h ^ ord(c)) * FNV_PRIME) & MASK32


def slot(h, bits=BITS):
    return ((h * 0x9E37_79B1) & MASK32) >> (32 - bits)


def features(text, bits=BITS):
    """The slots of a folded text's features, once per occurrence (safety::model_scores)."""
    out = []
    n = len(text)
    for start in range(n):
        h = CHAR_SEED
        for c in text[start : min(n, start + MAX_N)]:
            h = step(h, c)
            out.append(slot(h, bits))
    return out


def inputs_checksum():
    """FNV-1a 64 over the tuned files' bytes and this script's, in that order."""
    h = 0xCBF2_9CE4_8422_2325
    paths = [DATA / f"{f}.jsonl" for f in FILES] + [pathlib.Path(__file__).resolve()]
    for path in paths:
        for b in path.read_bytes():
            h = ((h ^ b) * 0x100_0000_01B3) & 0xFFFF_FFFF_FFFF_FFFF
    return h


def dump():
    saved = os.environ.get("SAFETY_DUMP")  # a saved `--dump`, to try settings without cargo
    if saved:
        out = pathlib.Path(saved).read_text()
    else:
        out = subprocess.run(
            ["cargo", "run", "--release", "-q", "-p", "kizuna-core", "--example", "safety_bench", "--", "--dump"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    for row in rows:
        row["x"] = features(row["folded"])
        row["x_off"] = features(row["folded"], OFF_BITS)
        row["sig"] = row.get("signals", [0] * SIGNALS)
        row["y_off"] = 1 if "OFF_PLATFORM" in row["labels"] else 0
        row["shape"] = bool(row["sig"][SHAPE])
        sig = row["sig"]
        # Decisive for the vetoes (safety::detect_nfkc): a shape, an identifier token, an app with
        # an ask (for OFF_PLATFORM); a rate per period (daily, percent), an inside tip (a bank
        # lied to, a wallet to connect, a bot that trades), money talk beside such a decisive
        # offer of contact (for MONEY).
        row["decisive"] = bool(sig[SHAPE] or sig[13] or (sig[0] and sig[11]))
        row["promise"] = bool((sig[22] and sig[21]) or sig[41] or (sig[4] and row["decisive"]))
        # Money words the rule discounted to -2 or less (a transfer declined, a scam warned of):
        # the money model adds no MONEY there.
        row["declined"] = sig[6] <= -2
        row["y"] = 1 if "MONEY" in row["labels"] else 0
        row["rule_money"] = "MONEY" in row["rule"]
        row["rule_off"] = "OFF_PLATFORM" in row["rule"]
        # Told of (staying here, after meeting, blocked, a pitch warned of: signal 23): not offered.
        row["material"] = (any(row["sig"][i] for i in MATERIAL) and not row["sig"][TOLD]
                           and not (row["sig"][ASIDE] and not row["sig"][YOU]))
    return rows


def train(rows, key="y", xkey="x", bits=BITS):
    """Logistic regression by stochastic gradient descent (seeded shuffles, a falling rate, L2),
    on the features' counts over the square root of their number; hard negatives weigh more, and
    both classes alike in total. Float weights and bias."""
    w = [0.0] * (1 << bits)
    bias = 0.0
    rng = random.Random(SEED)
    order = list(range(len(rows)))
    positives = sum(r[key] for r in rows)
    # Both classes weigh alike in total.
    pos_weight = (len(rows) - positives) / max(1, positives)
    for epoch in range(EPOCHS):
        rng.shuffle(order)
        rate = RATE / (1 + epoch)
        for k in order:
            row = rows[k]
            x = row[xkey]
            norm = 1.0 / math.sqrt(max(1, len(x)))
            z = bias
            for i in x:
                z += w[i]
            z = max(-30.0, min(30.0, bias + (z - bias) * norm))
            p = 1.0 / (1.0 + math.exp(-z))
            g = (p - row[key]) * (pos_weight if row[key] else (HARD_WEIGHT if row["set"] == "hard" else 1.0))
            bias -= rate * g
            for i in x:
                w[i] -= rate * (g * norm + L2 * w[i])
    return w, bias


# The rule's signals (safety::Signals::features, in its order) as the decision's second features.
SIGNALS = 44
SHAPE = 3  # an address, a phone number, a link or a handle: decisive for OFF_PLATFORM
# Contact material (safety::Signals::contact_material): an app named, an identifier word or
# token, a move phrase, a link, a mail word, "dot com", an address, a phone number, a handle, an
# ask to be added, a QR code, a phone word, another app, a talk moved, a mobile number's start.
# The contact model decides whether such material is offered; it finds none by itself ("I'll add
# more photos to my profile"). Cross-validated, the gate costs 0.4 points of contact recall.
MATERIAL = [0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 27, 28, 29, 38, 39, 43]
TOLD = 23
YOU = 26
ASIDE = 40
DECISION_HARD_WEIGHT = 8.0  # 3 tried: less recall at the same false positives on tune-6's fold
SIG_SCALE = 0.25  # signal features enter training scaled, so that one learning rate suits both


def train_decision(rows, key):
    """The learned decision of one kind: a logistic regression over the character n-grams (as
    train) and the rule's signals (unnormalised, scaled by SIG_SCALE)."""
    w = [0.0] * (1 << BITS)
    v = [0.0] * SIGNALS
    bias = 0.0
    rng = random.Random(SEED)
    order = list(range(len(rows)))
    positives = sum(r[key] for r in rows)
    pos_weight = (len(rows) - positives) / max(1, positives)
    for epoch in range(EPOCHS):
        rng.shuffle(order)
        rate = RATE / (1 + epoch)
        for k in order:
            row = rows[k]
            x = row["x"]
            sig = row["sig"]
            norm = 1.0 / math.sqrt(max(1, len(x)))
            z = 0.0
            for i in x:
                z += w[i]
            z *= norm
            z += bias + SIG_SCALE * sum(v[j] * f for j, f in enumerate(sig) if f)
            z = max(-30.0, min(30.0, z))
            p = 1.0 / (1.0 + math.exp(-z))
            g = (p - row[key]) * (pos_weight if row[key] else (DECISION_HARD_WEIGHT if row["set"] == "hard" else 1.0))
            bias -= rate * g
            for i in x:
                w[i] -= rate * (g * norm + L2 * w[i])
            for j, f in enumerate(sig):
                if f:
                    v[j] -= rate * (g * SIG_SCALE * f + L2 * v[j])
    return w, v, bias


def quantise_decision(w, v, bias):
    """n-gram weights to i8 (one scale s); signal weights to integers in units of s / 256, so
    that 256 S / sqrt(n) + C (C: the signals' integer weights times the features) is the logit's
    part over the bias in units of s / 256."""
    scale = max(abs(x) for x in w) / 127.0 or 1.0
    q = [max(-127, min(127, round(x / scale))) for x in w]
    qv = [round(256 * SIG_SCALE * x / scale) for x in v]
    return q, qv, scale, bias


def decision_says(row, q, qv, th):
    """256 S / sqrt(n) + C >= T in integers: 256 S / sqrt(n) >= T - C (safety::decision)."""
    c = sum(a * f for a, f in zip(qv, row["sig"]))
    return decide(score(q, row), len(row["x"]), th - c)


# The shipped weights' range: 7 bits (-63 to 63) in each i8 (127 until round 11). A bit less per
# weight makes the two tables compress smaller in the chat's gzipped module (round 12: room for
# the word lists under its budget); docs/design.md has what it cost in cross-validation.
QUANT_MAX = 63


def quantise(w, bias):
    scale = max(abs(v) for v in w) / QUANT_MAX or 1.0
    q = [max(-QUANT_MAX, min(QUANT_MAX, round(v / scale))) for v in w]
    return q, scale, bias


def int_threshold(scale, bias, logit):
    """The threshold T on 256 x the mean-square-root score: a text whose features' quantised
    weights sum to S over n features is money talk when 256 S / sqrt(n) >= T, that is when its
    logit, bias + scale S / sqrt(n), reaches `logit`."""
    return math.ceil(256 * (logit - bias) / scale)


def decide(total, n, th):
    """256 S / sqrt(n) >= T in integers: sign-preserving squares (safety::money_model)."""
    a = 256 * total
    return a * abs(a) >= th * abs(th) * max(1, n)


def score(q, row, xkey="x"):
    return sum(q[i] for i in row[xkey])


LOGITS = [x / 32 for x in range(-64, 321)]
# The vetoes' thresholds reach lower than the models' (a veto drops the rule's kind only where the
# model is all but sure the text is clean).
VETO_LOGITS = [x / 32 for x in range(-160, 321)]
# A veto may cost, pooled over the leave-one-round-out folds, at most this share of each
# language's scam (money veto) or contact (contact veto) lines the rule and models found.
MAX_LOST_RECALL = 0.005


def tally(rows, flagged):
    """Per language and overall: (hits, of) for scam recall, contact recall, hard FP, benign FP."""
    out = {}
    for lang in LANGS + ["all"]:
        t = {"scam": [0, 0], "contact": [0, 0], "hard": [0, 0], "benign": [0, 0]}
        for row, f in zip(rows, flagged):
            if lang != "all" and row["lang"] != lang:
                continue
            if row["y"]:
                t["scam"][1] += 1
                t["scam"][0] += f["money"]
            if "OFF_PLATFORM" in row["labels"]:
                t["contact"][1] += 1
                t["contact"][0] += f["off"]
            if not row["labels"]:
                key = "hard" if row["set"] == "hard" else "benign"
                t[key][1] += 1
                t[key][0] += f["money"] or f["off"]
        out[lang] = t
    return out


def flags(row, model_money, model_off=False, money_kept=True, off_kept=True):
    """Rule or model; the money model counts only where the rule's money score is over -2, the
    contact model only where the rule saw contact material. The
    rule's MONEY stands unless the money model vetoes it (money_kept false: its score is under
    the veto threshold), never when it holds a rate per period; the rule's OFF_PLATFORM likewise,
    never when a shape (an address, a number, a link, a handle), an identifier or an app with an
    ask found it (safety::detect_nfkc)."""
    return {
        "money": (row["rule_money"] and (money_kept or row["promise"])) or (model_money and not row["declined"]),
        "off": (row["rule_off"] and (row["decisive"] or off_kept)) or (model_off and row["material"]),
    }


def pct(pair):
    return 100.0 * pair[0] / pair[1] if pair[1] else 0.0


def cross_validate(rows):
    """Per logit threshold, what each model alone says of the held-out fold's lines (rows in fold
    order): {"money": {t: [bool]}, "off": {t: [bool]}}. Both models of a fold are trained on the
    other rounds only."""
    said = {"money": {t: [] for t in VETO_LOGITS}, "off": {t: [] for t in VETO_LOGITS}}
    ordered = []
    for held in FILES:
        train_rows = [r for r in rows if r["file"] != held]
        test_rows = [r for r in rows if r["file"] == held]
        for kind, key, xkey, bits in [("money", "y", "x", BITS), ("off", "y_off", "x_off", OFF_BITS)]:
            q, scale, bias = quantise(*train(train_rows, key, xkey, bits))
            scores = [score(q, r, xkey) for r in test_rows]
            for t in VETO_LOGITS:
                th = int_threshold(scale, bias, t)
                said[kind][t].extend(decide(s, len(r[xkey]), th) for r, s in zip(test_rows, scores))
        ordered.extend(test_rows)
        print(f"  fold: trained without {held}.jsonl ({len(train_rows)} lines), scored its {len(test_rows)} lines", file=sys.stderr)
    return ordered, said


def added_fp_ok(rows, base, new):
    """The false positives `new` adds to `base`: at most MAX_ADDED_FP per language and set."""
    t_base, t_new = tally(rows, base), tally(rows, new)
    return all(pct(t_new[lang][k]) - pct(t_base[lang][k]) <= 100 * MAX_ADDED_FP for lang in LANGS for k in ["hard", "benign"])


def choose(ordered, said):
    """The money threshold (over the rule alone), then the contact threshold (over rule + money)."""
    base = [flags(r, False) for r in ordered]
    money_t = next((t for t in LOGITS if added_fp_ok(ordered, base, [flags(r, m) for r, m in zip(ordered, said["money"][t])])), LOGITS[-1])
    with_money = [flags(r, m) for r, m in zip(ordered, said["money"][money_t])]
    off_t = next((t for t in LOGITS if added_fp_ok(
        ordered, with_money, [flags(r, m, o) for r, m, o in zip(ordered, said["money"][money_t], said["off"][t])])), LOGITS[-1])
    return money_t, off_t


def lost_recall_ok(rows, base, new):
    """The scam and contact lines `new` loses against `base`: at most MAX_LOST_RECALL per language."""
    t_base, t_new = tally(rows, base), tally(rows, new)
    return all(pct(t_base[lang][k]) - pct(t_new[lang][k]) <= 100 * MAX_LOST_RECALL for lang in LANGS for k in ["scam", "contact"])


def choose_vetoes(ordered, said, money_t, off_t):
    """The money veto (the highest threshold under money_t that loses at most MAX_LOST_RECALL of
    the lines rule + models find), then the contact veto on top of it; None: no veto."""
    m, o = said["money"][money_t], said["off"][off_t]
    base = [flags(r, a, b) for r, a, b in zip(ordered, m, o)]
    veto_m = None
    for v in (t for t in VETO_LOGITS if t <= money_t):
        if not lost_recall_ok(ordered, base, [flags(r, a, b, k) for r, a, b, k in zip(ordered, m, o, said["money"][v])]):
            break
        veto_m = v
    kept_m = said["money"][veto_m] if veto_m is not None else [True] * len(ordered)
    with_veto = [flags(r, a, b, k) for r, a, b, k in zip(ordered, m, o, kept_m)]
    veto_o = None
    for v in (t for t in VETO_LOGITS if t <= off_t):
        if not lost_recall_ok(ordered, with_veto, [flags(r, a, b, k, ko) for r, a, b, k, ko in zip(ordered, m, o, kept_m, said["off"][v])]):
            break
        veto_o = v
    return veto_m, veto_o


def loro_flags(ordered, said, money_t, off_t, veto_m=None, veto_o=None):
    n = len(ordered)
    kept_m = said["money"][veto_m] if veto_m is not None else [True] * n
    kept_o = said["off"][veto_o] if veto_o is not None else [True] * n
    return [flags(r, a, b, k, ko) for r, a, b, k, ko in zip(ordered, said["money"][money_t], said["off"][off_t], kept_m, kept_o)]


def loro(ordered, said, money_t, off_t, veto_m=None, veto_o=None):
    """The leave-one-round-out table: per held-out round and pooled, per language, the rule alone,
    rule + money model, rule + both models."""
    ways = [
        ("rule alone", [flags(r, False) for r in ordered]),
        (f"rule + money model (logit >= {money_t})", [flags(r, m) for r, m in zip(ordered, said["money"][money_t])]),
        (f"rule + money + contact models (logit >= {off_t})",
         [flags(r, m, o) for r, m, o in zip(ordered, said["money"][money_t], said["off"][off_t])]),
    ]
    if veto_m is not None or veto_o is not None:
        ways.append((f"+ vetoes (money < {veto_m}, contact < {veto_o})", loro_flags(ordered, said, money_t, off_t, veto_m, veto_o)))
    print()
    print(f"leave-one-round-out over the {len(FILES)} tuned rounds (both models trained on the other"
          f" {len(FILES) - 1}, the round scored; the rule as it is now):")
    print(f"  {'held out':<9} {'lang':<6} {'':<50} {'scam recall':>19} {'contact recall':>19} {'hard FP':>17} {'benign FP':>15}")
    for by_file in FILES + [None]:
        for name, fl in ways:
            sub = [(r, f) for r, f in zip(ordered, fl) if by_file is None or r["file"] == by_file]
            t = tally([r for r, _ in sub], [f for _, f in sub])
            for lang in LANGS + ["all"]:
                x = t[lang]
                cells = "".join(f" {pct(x[k]):6.1f} % ({x[k][0]:>4}/{x[k][1]:<4})" for k in ["scam", "contact", "hard", "benign"])
                print(f"  {by_file or 'pooled':<9} {lang:<6} {name:<50}{cells}")
    return ways


def report(title, rows, decisions):
    t = tally(rows, decisions)
    print(title)
    for lang in LANGS + ["all"]:
        x = t[lang]
        print(f"  {lang:<6} scam recall {pct(x['scam']):5.1f} % ({x['scam'][0]}/{x['scam'][1]})"
              f"  contact {pct(x['contact']):5.1f} % ({x['contact'][0]}/{x['contact'][1]})"
              f"  hard FP {pct(x['hard']):4.1f} % ({x['hard'][0]}/{x['hard'][1]})"
              f"  benign FP {pct(x['benign']):4.1f} % ({x['benign'][0]}/{x['benign'][1]})")
    return t


def new_flags(off, money, row):
    return {"money": money, "off": off or row["shape"]}


def cross_validate_decision(rows):
    """Per kind and logit threshold, the held-out fold's decisions (rows in fold order)."""
    said = {"y_off": {t: [] for t in LOGITS}, "y": {t: [] for t in LOGITS}}
    ordered = []
    for held in FILES:
        train_rows = [r for r in rows if r["file"] != held]
        test_rows = [r for r in rows if r["file"] == held]
        for key in said:
            q, qv, scale, bias = quantise_decision(*train_decision(train_rows, key))
            for t in LOGITS:
                th = int_threshold(scale, bias, t)
                said[key][t].extend(decision_says(r, q, qv, th) for r in test_rows)
        ordered.extend(test_rows)
        print(f"  decision fold: trained without {held}.jsonl", file=sys.stderr)
    return ordered, said


def fp_ok(t, limit):
    return all(pct(t[lang][k]) <= 100 * limit for lang in LANGS for k in ["hard", "benign"])


def choose_decision(ordered, said):
    """Per-kind thresholds: the most permissive OFF_PLATFORM threshold whose false positives alone
    stay at most MAX_FP / 2 per language, then the most permissive MONEY threshold with both at
    most MAX_FP per language (pooled cross-validation)."""
    off_t = LOGITS[-1]
    for t in LOGITS:
        f = [new_flags(o, False, r) for o, r in zip(said["y_off"][t], ordered)]
        if fp_ok(tally(ordered, f), MAX_FP / 2):
            off_t = t
            break
    money_t = LOGITS[-1]
    for t in LOGITS:
        f = [new_flags(o, m, r) for o, m, r in zip(said["y_off"][off_t], said["y"][t], ordered)]
        if fp_ok(tally(ordered, f), MAX_FP):
            money_t = t
            break
    return off_t, money_t


MAX_FP = 0.01


def main():
    loro_only = "--loro" in sys.argv or "--cv-only" in sys.argv
    rows = dump()
    print(f"{len(rows)} tuned lines; features: character 1-{MAX_N}-grams, 2^{BITS} (money) and 2^{OFF_BITS} (contact) slots")
    ordered, said = cross_validate(rows)
    money_t, off_t = choose(ordered, said)
    veto_m, veto_o = choose_vetoes(ordered, said, money_t, off_t)
    loro(ordered, said, money_t, off_t, veto_m, veto_o)
    if "--decision" in sys.argv:
        decision_comparison(rows, ordered, [flags(r, m) for r, m in zip(ordered, said["money"][money_t])], money_t)
    if loro_only:
        return
    qm, sm, bm = quantise(*train(rows, "y", "x", BITS))
    qo, so, bo = quantise(*train(rows, "y_off", "x_off", OFF_BITS))

    scores = [(score(qm, r), score(qo, r, "x_off"), len(r["x"])) for r in rows]

    def final_flags(tm, to, vm=None, vo=None):
        thm, tho = int_threshold(sm, bm, tm), int_threshold(so, bo, to)
        tvm = None if vm is None else int_threshold(sm, bm, vm)
        tvo = None if vo is None else int_threshold(so, bo, vo)
        return [flags(r, decide(a, n, thm), decide(b, n, tho), tvm is None or decide(a, n, tvm), tvo is None or decide(b, n, tvo))
                for r, (a, b, n) in zip(rows, scores)]

    def clean_ok(f):
        tt = tally(rows, f)
        return all(tt[lang]["hard"][0] + tt[lang]["benign"][0] <= 0.01 * (tt[lang]["hard"][1] + tt[lang]["benign"][1]) for lang in LANGS)

    def recall_ok(f):
        tt = tally(rows, f)
        return all(tt[lang][k][0] >= 0.95 * tt[lang][k][1] for lang in LANGS for k in ["scam", "contact"])

    # The tuned part's own targets (core/tests/safety_corpus.rs): recall at least 95 % and at most
    # 1 % of clean lines flagged, per language, by rule + models trained on all of it. When the
    # cross-validated thresholds miss them, the money veto rises alone by the fewest steps of 1/32
    # (since round 15: raising the contact veto with it, for false positives that were money,
    # vetoed plain asks to swap numbers), then both vetoes together (never above their model's
    # threshold), and at each the money threshold moves by the fewest steps that meet both (lower
    # for recall, higher for false positives); failing that, both thresholds rise until the clean
    # lines are kept (the recall then fails the test, as it should).
    def raised(v, k, top):
        return None if v is None and k == 0 else min(top, (VETO_LOGITS[0] if v is None else v) + k / 32)

    near = sorted(range(-16, 17), key=lambda k: (abs(k), k))
    steps = [(km, 0, 0, 0, True) for km in sorted(range(-64, 129), key=lambda k: (abs(k), k))]
    steps += [(km, 0, kv, 0, True) for kv in range(1, 97) for km in near]
    steps += [(km, 0, kv, kv, True) for kv in range(1, 97) for km in near]
    steps += [(k, k, 0, 0, False) for k in range(0, 129)]
    for km, ko, kvm, kvo, both in steps:
        tm, to = money_t + km / 32, off_t + ko / 32
        vm, vo = raised(veto_m, kvm, tm), raised(veto_o, kvo, to)
        f = final_flags(tm, to, vm, vo)
        if clean_ok(f) and (recall_ok(f) or not both):
            if km or ko or kvm or kvo:
                print(f"thresholds moved from logits {money_t} / {off_t} (vetoes {veto_m} / {veto_o}) to {tm} / {to}"
                      f" (vetoes {vm} / {vo}): the tuned part's own targets per language")
                money_t, off_t, veto_m, veto_o = tm, to, vm, vo
                print("leave-one-round-out at the shipped thresholds:")
                loro(ordered, said, money_t, off_t, veto_m, veto_o)
            break
    thm, tho = int_threshold(sm, bm, money_t), int_threshold(so, bo, off_t)
    tvm = None if veto_m is None else int_threshold(sm, bm, veto_m)
    tvo = None if veto_o is None else int_threshold(so, bo, veto_o)
    print()
    for name, q, th, t, scale, bias in [("money", qm, thm, money_t, sm, bm), ("contact", qo, tho, off_t, so, bo)]:
        table = bytes(v & 0xFF for v in q)
        print(f"{name} model on all tuned lines: threshold {th} (logit {t}, scale {scale:.6f}, bias {bias:.4f}),"
              f" {sum(1 for v in q if v)} of {len(q)} weights non-zero, table {len(table)} B, {len(gzip.compress(table, 9))} B gzip")
    print(f"vetoes: money {veto_m} (threshold {tvm}), contact {veto_o} (threshold {tvo})")
    report(" on the tuned part (trained on it): rule + models", rows, final_flags(money_t, off_t, veto_m, veto_o))
    lines = [
        "// generated by scripts/train_safety.py; do not edit (python3 scripts/train_safety.py retrains)",
        f"// {len(rows)} tuned lines, features: character 1-{MAX_N}-grams in 2^{BITS} (money) and 2^{OFF_BITS} (contact) slots;",
        f"// logit thresholds {money_t} (money) and {off_t} (contact), vetoes {veto_m} and {veto_o}, chosen by leave-one-round-out cross-validation;",
        f"// money scale {sm:.6f}, bias {bm:.4f}; contact scale {so:.6f}, bias {bo:.4f}.",
        "",
        "/// FNV-1a 64 of core/data/safety/tune{,-2,-3,-4,-5,-6,-7,-8,-10,...,-19,-hn}.jsonl and scripts/train_safety.py, in that order.",
        "#[cfg(test)]",
        f"pub(super) const INPUTS_FNV: u64 = 0x{inputs_checksum():016X};",
        "/// The money table has 2^BITS weights.",
        f"pub(super) const BITS: u32 = {BITS};",
        "/// A text is money talk when 256 x the sum of its n features' money weights over sqrt(n) reaches this.",
        f"pub(super) const MONEY_THRESHOLD: i32 = {thm};",
        "/// The contact table has 2^OFF_BITS weights.",
        f"pub(super) const OFF_BITS: u32 = {OFF_BITS};",
        "/// A text carries contact details or a move elsewhere when 256 x the sum of its n features' contact weights over sqrt(n) reaches this.",
        f"pub(super) const OFF_THRESHOLD: i32 = {tho};",
        "/// The rule's MONEY stands unless the money model's score (as for MONEY_THRESHOLD) is under this.",
        f"pub(super) const MONEY_VETO: Option<i32> = {'None' if tvm is None else f'Some({tvm})'};",
        "/// The rule's OFF_PLATFORM found by words (no shape) stands unless the contact model's score is under this.",
        f"pub(super) const OFF_VETO: Option<i32> = {'None' if tvo is None else f'Some({tvo})'};",
        "/// The quantised weights of the money model.",
        f"pub(super) static MONEY: [i8; 1 << BITS] = [",
    ]
    for k in range(0, len(qm), 32):
        lines.append("    " + ", ".join(str(v) for v in qm[k : k + 32]) + ",")
    lines.append("];")
    lines.append("/// The quantised weights of the contact model.")
    lines.append("pub(super) static OFF: [i8; 1 << OFF_BITS] = [")
    for k in range(0, len(qo), 32):
        lines.append("    " + ", ".join(str(v) for v in qo[k : k + 32]) + ",")
    lines.append("];")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


def decision_comparison(rows, ordered, old_flags, money_t):
    """The learned decision per kind over the n-grams and the rule's signals (not shipped), against
    rule + money model, leave-one-round-out."""
    d_ordered, said = cross_validate_decision(rows)
    off_t, dm_t = choose_decision(d_ordered, said)
    new = [new_flags(o, m, r) for o, m, r in zip(said["y_off"][off_t], said["y"][dm_t], d_ordered)]
    old = {id(r): f for r, f in zip(ordered, old_flags)}
    print()
    print(f"rule + money model (logit >= {money_t}) against the learned decision"
          f" (OFF_PLATFORM logit >= {off_t} or a shape, MONEY logit >= {dm_t}); leave-one-round-out:")
    for by_file in ["tune-6", "tune-7", None]:
        sub = [(r, f) for r, f in zip(d_ordered, new) if by_file is None or r["file"] == by_file]
        t_old = tally([r for r, _ in sub], [old[id(r)] for r, _ in sub])
        t_new = tally([r for r, _ in sub], [f for _, f in sub])
        for lang in LANGS + ["all"]:
            cells = " ".join(f"{pct(t_old[lang][k]):5.1f} -> {pct(t_new[lang][k]):5.1f}" for k in ["scam", "contact", "hard", "benign"])
            print(f"  {by_file or 'pooled':<8} {lang:<6} {cells}")


if __name__ == "__main__":
    main()
