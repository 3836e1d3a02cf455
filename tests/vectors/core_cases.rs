// The vectors of matching, geo, days, review and safety (matching.json, score.json, picks.json,
// geo.json, day.json, review.json). `include!`d by runner.rs: they call kizuna-core directly,
// compiled natively in core/tests/vectors.rs and to wasm32 under Node in wasm/tests/vectors.rs,
// so the same float, hash and date arithmetic is checked on both platforms. Paths are written
// out in full so that nothing here collides with the including test's imports.

const MATCHING: &str = include_str!("matching.json");
const SCORE: &str = include_str!("score.json");
const PICKS: &str = include_str!("picks.json");
const GEO: &str = include_str!("geo.json");
const DAY: &str = include_str!("day.json");
const REVIEW: &str = include_str!("review.json");
const LOCALE: &str = include_str!("locale.json");

type Check<'a> = dyn FnMut(&str, &str, Result<(), String>) + 'a;

fn run_core_cases(check: &mut Check<'_>) {
    matching_cases(check);
    score_cases(check);
    pick_cases(check);
    geo_cases(check);
    day_cases(check);
    review_cases(check);
    locale_cases(check);
}

fn equal<T: PartialEq + std::fmt::Debug>(got: T, wanted: T) -> Result<(), String> {
    if got == wanted { Ok(()) } else { Err(format!("got {got:?} instead of {wanted:?}")) }
}

fn date(value: &Value) -> kizuna_core::date::Date {
    kizuna_core::date::Date::parse(value.as_str().expect("a date")).expect("a valid date")
}

fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{value} does not read: {e}"))
}

/// A shallow merge: a case's fields over a base member's.
fn over(base: &Value, changes: Option<&Value>) -> Value {
    let mut merged = base.clone();
    if let Some(Value::Object(changes)) = changes {
        for (key, value) in changes {
            merged[key] = value.clone();
        }
    }
    merged
}

fn coordinates(value: &Value) -> kizuna_core::profile::Coordinates {
    kizuna_core::profile::Coordinates {
        latitude: value[0].as_f64().expect("latitude"),
        longitude: value[1].as_f64().expect("longitude"),
    }
}

/// A member from the plain values the server keeps in its columns.
fn match_profile(m: &Value) -> kizuna_core::matching::MatchProfile {
    use kizuna_core::matching::{MatchColumns, MatchProfile, PackedConditions, TagSet, Workplace};
    let at = match (m["latitude"].as_f64(), m["longitude"].as_f64()) {
        (Some(latitude), Some(longitude)) => {
            Some(kizuna_core::profile::Coordinates { latitude, longitude })
        }
        _ => None,
    };
    let city = m["city"].as_str().expect("city");
    let conditions: Vec<kizuna_core::conditions::Condition> = typed(&m["valueItem"]);
    MatchProfile::new(MatchColumns {
        id: m["id"].as_u64().expect("id"),
        status: typed(&m["status"]),
        gender: typed(&m["gender"]),
        match_gender: typed(&m["matchGender"]),
        facts: kizuna_core::conditions::MatchFacts {
            height_cm: m["height"].as_u64().expect("height") as u32,
            birthday: date(&m["birthday"]),
            income_range: typed(&m["incomeRange"]),
            education: typed(&m["education"]),
            marriage_record: typed(&m["marriageRecord"]),
            has_children: typed(&m["hasChildren"]),
            smoke: typed(&m["smoke"]),
            tattoo: typed(&m["tattoo"]),
            drink: typed(&m["drink"]),
        },
        wants: PackedConditions::from_list(&conditions),
        home: kizuna_core::geo::home_point(at, city).expect("a known city"),
        recommend_distance_km: m["recommendDistanceKm"].as_u64().expect("radius") as u32,
        tags: TagSet::from_ids(
            m["tagIds"].as_array().expect("tagIds").iter().map(|id| id.as_u64().expect("tag id") as u32),
        ),
        last_active: date(&m["lastActive"]),
        workplace: Workplace::of(m["employer"].as_str(), m["hideColleagues"].as_bool().unwrap_or(false)),
    })
}

fn relation(value: Option<&Value>) -> kizuna_core::matching::Relation {
    let value = value.cloned().unwrap_or(Value::Null);
    let flag = |key: &str| value[key].as_bool().unwrap_or(false);
    kizuna_core::matching::Relation {
        blocked: flag("blocked"),
        reported: flag("reported"),
        matched: flag("matched"),
        viewer_liked: flag("viewerLiked"),
        candidate_liked: flag("candidateLiked"),
        pending_introduction: flag("pendingIntroduction"),
        last_pass: value.get("lastPass").filter(|day| !day.is_null()).map(date),
        former_pair: value.get("formerPair").filter(|day| !day.is_null()).map(date),
    }
}

fn verdict(outcome: Result<(), kizuna_core::matching::Refusal>) -> String {
    match outcome {
        Ok(()) => "OK".into(),
        Err(refusal) => match refusal.side() {
            Some(side) => format!("{}:{}", refusal.code(), side.as_str()),
            None => refusal.code().into(),
        },
    }
}

fn matching_cases(check: &mut Check<'_>) {
    let file: Value = serde_json::from_str(MATCHING).expect("matching.json parses");
    let today = date(&file["today"]);
    for case in file["cases"].as_array().expect("cases") {
        let viewer = match_profile(&over(&file["viewer"], case.get("viewer")));
        let candidate = match_profile(&over(&file["candidate"], case.get("candidate")));
        let forward = relation(case.get("relation"));
        // Seen from the other side: the likes swap; an open introduction is the viewer's own.
        let backward = kizuna_core::matching::Relation {
            viewer_liked: forward.candidate_liked,
            candidate_liked: forward.viewer_liked,
            pending_introduction: false,
            ..forward
        };
        let got = verdict(kizuna_core::matching::check_introduction(&viewer, &candidate, &forward, today));
        let again = kizuna_core::matching::may_introduce(&viewer, &candidate, &forward, today);
        let reversed = verdict(kizuna_core::matching::check_introduction(&candidate, &viewer, &backward, today));
        let outcome = equal(got.as_str(), case["expect"].as_str().expect("expect"))
            .and_then(|()| equal(reversed.as_str(), case["reversed"].as_str().expect("reversed")).map_err(|e| format!("reversed: {e}")))
            .and_then(|()| equal(again, got == "OK").map_err(|e| format!("may_introduce: {e}")));
        check("matching.json", name(case), outcome);
    }
}

fn score_cases(check: &mut Check<'_>) {
    let matching: Value = serde_json::from_str(MATCHING).expect("matching.json parses");
    let file: Value = serde_json::from_str(SCORE).expect("score.json parses");
    let today = date(&file["today"]);
    for case in file["cases"].as_array().expect("cases") {
        let viewer = match_profile(&over(&matching["viewer"], case.get("viewer")));
        let mut ranked = Vec::new();
        let mut outcome = Ok(());
        for wanted in case["candidates"].as_array().expect("candidates") {
            let candidate = match_profile(&over(&matching["candidate"], Some(wanted)));
            let parts = kizuna_core::matching::score_parts(&viewer, &candidate, &relation(wanted.get("relation")), today);
            ranked.push(kizuna_core::matching::Ranked::new(today, viewer.id(), candidate.id(), parts.total()));
            if let Some(expect) = case["expectParts"].get(candidate.id().to_string()) {
                let got = serde_json::json!({
                    "tags": parts.tags, "comfort": parts.comfort, "activity": parts.activity,
                    "distance": parts.distance, "likedYou": parts.liked_you,
                });
                if outcome.is_ok() && !same(&got, expect) {
                    outcome = Err(format!("parts of {} are {got} instead of {expect}", candidate.id()));
                }
            }
        }
        ranked.sort();
        let order: Vec<u64> = ranked.iter().map(|r| r.candidate).collect();
        let outcome = outcome.and_then(|()| equal(order, typed::<Vec<u64>>(&case["expectOrder"])));
        check("score.json", name(case), outcome);
    }
}

fn pick_cases(check: &mut Check<'_>) {
    use kizuna_core::matching::{self, AppearanceCounter, Ranked, Relation};
    let file: Value = serde_json::from_str(PICKS).expect("picks.json parses");
    for case in file["picks"].as_array().expect("picks") {
        let counts: Vec<(u64, u32)> = typed(&case["counts"]);
        let mut counter = AppearanceCounter::from_counts(counts);
        let ranked: Vec<u64> = typed(&case["ranked"]);
        let mut pick = matching::DailyPick::new();
        pick.offer(ranked, &mut counter);
        check("picks.json", name(case), equal(pick.picks().as_slice().to_vec(), typed::<Vec<u64>>(&case["expect"])));
    }
    for case in file["tieBreaks"].as_array().expect("tieBreaks") {
        let got = matching::tie_break(date(&case["day"]), typed(&case["viewer"]), typed(&case["candidate"]));
        let label = format!("tie_break {} {} {}", case["day"], case["viewer"], case["candidate"]);
        check("picks.json", &label, equal(got.to_string().as_str(), case["expect"].as_str().expect("expect")));
    }
    for case in file["equalScores"].as_array().expect("equalScores") {
        let day = date(&case["day"]);
        let viewer: u64 = typed(&case["viewer"]);
        let mut ranked: Vec<Ranked> = typed::<Vec<u64>>(&case["candidates"])
            .into_iter()
            .map(|candidate| Ranked::new(day, viewer, candidate, 500))
            .collect();
        ranked.sort();
        let order: Vec<u64> = ranked.iter().map(|r| r.candidate).collect();
        check("picks.json", name(case), equal(order, typed::<Vec<u64>>(&case["expect"])));
    }
    let matching: Value = serde_json::from_str(MATCHING).expect("matching.json parses");
    let today = date(&matching["today"]);
    for case in file["crowds"].as_array().expect("crowds") {
        let copies = |base: &Value, first: u64, count: u64| -> Vec<matching::MatchProfile> {
            (first..first + count)
                .map(|id| match_profile(&over(base, Some(&serde_json::json!({"id": id})))))
                .collect()
        };
        let viewers = copies(&matching["viewer"], 100, case["viewers"].as_u64().expect("viewers"));
        let candidates = copies(&matching["candidate"], 200, case["candidates"].as_u64().expect("candidates"));
        let mut counter = AppearanceCounter::new();
        let mut ranked = Vec::new();
        // As production picks: the core's ranking, then the day's pick over it.
        let lengths: Vec<usize> = viewers
            .iter()
            .map(|viewer| {
                matching::rank_nearest(viewer, &candidates, [], |_| Relation::NONE, today, &mut ranked);
                matching::DailyPick::from_ranking(&ranked, &mut counter).len()
            })
            .collect();
        let appearances: Vec<u32> = candidates.iter().map(|c| counter.appearances(c.id())).collect();
        let capped = appearances.iter().all(|n| *n <= kizuna_core::rules::DAILY_APPEARANCE_CAP);
        let outcome = equal(lengths, typed::<Vec<usize>>(&case["expectListLengths"]))
            .and_then(|()| if capped { Ok(()) } else { Err(format!("over the cap: {appearances:?}")) })
            .and_then(|()| match case["expectAppearances"].as_u64() {
                Some(each) => equal(appearances.clone(), vec![each as u32; appearances.len()]),
                None => Ok(()),
            });
        check("picks.json", name(case), outcome);
    }
}

fn geo_cases(check: &mut Check<'_>) {
    use kizuna_core::geo::{self, DistanceBand};
    let file: Value = serde_json::from_str(GEO).expect("geo.json parses");
    let cell = |value: &Value| geo::snap(coordinates(value));
    for case in file["snaps"].as_array().expect("snaps") {
        let got = geo::snap(kizuna_core::profile::Coordinates {
            latitude: case["latitude"].as_f64().expect("latitude"),
            longitude: case["longitude"].as_f64().expect("longitude"),
        });
        let wanted = (typed::<i32>(&case["row"]), typed::<i32>(&case["col"]));
        let round_trip = geo::GridPoint::from_cell(got.row(), got.col()) == Some(got);
        let outcome = equal((got.row(), got.col()), wanted)
            .and_then(|()| if round_trip { Ok(()) } else { Err("from_cell refuses the cell".into()) });
        check("geo.json", name(case), outcome);
    }
    for case in file["sameCell"].as_array().expect("sameCell") {
        check("geo.json", name(case), equal(cell(&case["a"]), cell(&case["b"])));
    }
    for case in file["neighbours"].as_array().expect("neighbours") {
        let (a, b) = (cell(&case["a"]), cell(&case["b"]));
        let steps = (b.row() - a.row(), b.col() - a.col());
        check("geo.json", name(case), equal(steps, (typed(&case["rows"]), typed(&case["cols"]))));
    }
    for case in file["bands"].as_array().expect("bands") {
        let km = case["km"].as_f64().expect("km");
        let got = DistanceBand::of(km);
        check("geo.json", &format!("band of {km} km"), equal(got.code(), case["expect"].as_str().expect("expect")));
    }
    for case in file["between"].as_array().expect("between") {
        let got = DistanceBand::between(cell(&case["a"]), cell(&case["b"]));
        check("geo.json", name(case), equal(got.code(), case["expect"].as_str().expect("expect")));
    }
    for case in file["distances"].as_array().expect("distances") {
        let km = cell(&case["a"]).distance_km(cell(&case["b"]));
        let wanted = case["km"].as_f64().expect("km");
        let outcome = if (km - wanted).abs() <= case["tolerance"].as_f64().expect("tolerance") {
            Ok(())
        } else {
            Err(format!("{km} km instead of {wanted}"))
        };
        check("geo.json", name(case), outcome);
    }
    for case in file["radii"].as_array().expect("radii") {
        let (km, radius) = (case["km"].as_f64().expect("km"), typed::<u32>(&case["radius"]));
        let label = format!("{km} km within a radius of {radius}");
        check("geo.json", &label, equal(geo::within_radius(km, radius), typed(&case["expect"])));
    }
    for case in file["homes"].as_array().expect("homes") {
        let at = case["latitude"].as_f64().map(|latitude| kizuna_core::profile::Coordinates {
            latitude,
            longitude: case["longitude"].as_f64().expect("longitude"),
        });
        let got = geo::home_point(at, case["city"].as_str().expect("city")).map(|p| (p.row(), p.col()));
        let wanted = case["row"].as_i64().map(|row| (row as i32, case["col"].as_i64().expect("col") as i32));
        check("geo.json", name(case), equal(got, wanted));
    }
}

fn day_cases(check: &mut Check<'_>) {
    let file: Value = serde_json::from_str(DAY).expect("day.json parses");
    for case in file["cases"].as_array().expect("cases") {
        let got = kizuna_core::date::Date::taipei_day(case["unix"].as_i64().expect("unix")).map(|d| d.to_string());
        check("day.json", name(case), equal(got, case["expect"].as_str().map(str::to_owned)));
    }
}

/// A parser's answer as JSON: the value, or `{errors}`.
fn answer<T: serde::Serialize>(outcome: Result<T, kizuna_core::rules::FieldErrors>) -> Value {
    match outcome {
        Ok(value) => serde_json::to_value(value).expect("serialises"),
        Err(errors) => serde_json::json!({ "errors": errors }),
    }
}

fn expect_same(got: &Value, wanted: &Value) -> Result<(), String> {
    if same(got, wanted) { Ok(()) } else { Err(format!("got {got} instead of {wanted}")) }
}

fn strings(value: &Value) -> Vec<String> {
    typed(value)
}

fn locale_cases(check: &mut Check<'_>) {
    let file: Value = serde_json::from_str(LOCALE).expect("locale.json parses");
    for case in file["picks"].as_array().expect("picks") {
        let language = case["language"].as_str().expect("language");
        let got = kizuna_core::locale::Locale::pick(language).tag();
        check("locale.json", &format!("{language:?}"), equal(got, case["expect"].as_str().expect("expect")));
    }
}

fn review_cases(check: &mut Check<'_>) {
    use kizuna_core::email_code::{CodeCheck, CodeRules, EmailCode, IssuedCode, SendHistory, SendRefusal};
    let code_rules = CodeRules::default();
    use kizuna_core::review::{Decision, ReviewAction, ReviewStatus};
    let file = expand(serde_json::from_str(REVIEW).expect("review.json parses"));
    for case in file["decisions"].as_array().expect("decisions") {
        let got = answer(Decision::parse(
            case["action"].as_str().expect("action"),
            &strings(&case["reasons"]),
            case["note"].as_str(),
        ));
        check("review.json", name(case), expect_same(&got, &case["expect"]));
    }
    for case in file["transitions"].as_array().expect("transitions") {
        let from = ReviewStatus::parse(case["from"].as_str().expect("from")).expect("a status");
        let action = ReviewAction::parse(case["action"].as_str().expect("action")).expect("an action");
        let got = from.apply(action).ok().map(|to| to.as_str().to_owned());
        let label = format!("{} + {}", case["from"], case["action"]);
        check("review.json", &label, equal(got, case["expect"].as_str().map(str::to_owned)));
    }
    for case in file["changedFields"].as_array().expect("changedFields") {
        let old: kizuna_core::profile::UserProfileCreate = typed(&case["old"]);
        let new: kizuna_core::profile::UserProfileCreate = typed(&case["new"]);
        let got: Vec<String> = kizuna_core::review::changed_fields(&old, &new).into_iter().map(str::to_owned).collect();
        check("review.json", name(case), equal(got, strings(&case["expect"])));
    }
    for case in file["emailCodes"].as_array().expect("emailCodes") {
        let text = case["text"].as_str().expect("text");
        let got = EmailCode::parse(text).map(|code| code.as_str().to_owned());
        check("review.json", &format!("code {text:?}"), equal(got, case["expect"].as_str().map(str::to_owned)));
    }
    for case in file["codeNumbers"].as_array().expect("codeNumbers") {
        let number: u32 = typed(&case["number"]);
        let got = EmailCode::from_number(number).map(|code| code.as_str().to_owned());
        check("review.json", &format!("code of {number}"), equal(got, case["expect"].as_str().map(str::to_owned)));
    }
    for case in file["codeChecks"].as_array().expect("codeChecks") {
        let issued = IssuedCode {
            expires_at: code_rules.expires_at(typed(&case["sentAt"])),
            wrong_tries: typed(&case["wrongTries"]),
            used: typed(&case["used"]),
        };
        let got = match code_rules.check(issued, typed(&case["matched"]), typed(&case["now"])) {
            CodeCheck::Accepted => "ACCEPTED".to_owned(),
            CodeCheck::Wrong { tries_left } => format!("WRONG:{tries_left}"),
            CodeCheck::Used => "USED".to_owned(),
            CodeCheck::Expired => "EXPIRED".to_owned(),
            CodeCheck::Locked => "LOCKED".to_owned(),
        };
        check("review.json", name(case), equal(got.as_str(), case["expect"].as_str().expect("expect")));
    }
    for case in file["codeSends"].as_array().expect("codeSends") {
        let history = SendHistory {
            last_sent_here: case["lastSentHere"].as_i64(),
            member_sends: typed(&case["memberSends"]),
            member_oldest: case["memberOldest"].as_i64(),
            address_members: typed(&case["addressMembers"]),
            address_oldest: case["addressOldest"].as_i64(),
        };
        let got = match code_rules.may_send(history, typed(&case["now"])) {
            Ok(()) => "OK".to_owned(),
            Err(SendRefusal::TooSoon { retry_after_secs }) => format!("TOO_SOON:{retry_after_secs}"),
            Err(SendRefusal::MemberLimit { retry_after_secs }) => format!("MEMBER_LIMIT:{retry_after_secs}"),
            Err(SendRefusal::AddressLimit { retry_after_secs }) => format!("ADDRESS_LIMIT:{retry_after_secs}"),
        };
        check("review.json", name(case), equal(got.as_str(), case["expect"].as_str().expect("expect")));
    }
    for case in file["chatTexts"].as_array().expect("chatTexts") {
        let text = case["text"].as_str().expect("text");
        let got = answer(kizuna_core::chat::ChatText::parse(text).map(|t| t.as_str().to_owned()));
        let label = format!("chat text {:?}", text.chars().take(20).collect::<String>());
        check("review.json", &label, expect_same(&got, &case["expect"]));
    }
    for case in file["clientMessageIds"].as_array().expect("clientMessageIds") {
        let id = case["id"].as_str().expect("id");
        let got = kizuna_core::chat::ClientMessageId::parse(id).is_some();
        check("review.json", &format!("client message id {id:?}"), equal(got, typed(&case["expect"])));
    }
    for case in file["reports"].as_array().expect("reports") {
        let got = answer(
            kizuna_core::report::Report::parse(&strings(&case["reasons"]), case["text"].as_str())
                .map(|report| serde_json::json!({"reasons": report.reasons, "text": report.text})),
        );
        check("review.json", name(case), expect_same(&got, &case["expect"]));
    }
}
