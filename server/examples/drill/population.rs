//! A populated service for the drills: members who registered with a photo and a proof, were
//! approved by a reviewer, matched in pairs and chatted, all through the API of a running server
//! (the simulated members of `just chaos`).

use std::time::Instant;

use anyhow::{Context, bail};
use futures_util::{StreamExt, stream};
use reqwest::Method;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::json;

use crate::members::{self, Balancer, Line, Member};

pub struct Population {
    pub members: Vec<Member>,
    /// The match of pair `p` (members `2p` and `2p + 1`).
    pub matches: Vec<i64>,
}

/// Signs a reviewer in (put on the list through `base`'s mock route), registers `pairs` pairs,
/// approves and matches them.
pub async fn populate(
    lb: &Balancer,
    line: &Line,
    base: &str,
    database_url: &str,
    pairs: usize,
) -> anyhow::Result<Population> {
    let started = Instant::now();
    let line_id = "U00000000000000000000000000d7111e";
    let id_token = line.id_token(line_id).await?;
    let r = lb
        .client
        .post(format!("{base}/__mock/reviewers"))
        .json(&json!({"userId": line_id}))
        .send()
        .await?;
    if !r.status().is_success() {
        bail!("making the reviewer: {}", r.status());
    }
    let mut reviewer = Member {
        index: usize::MAX,
        line_id: line_id.into(),
        token: String::new(),
        address: "10.255.255.254".into(),
        profile_id: 0,
        photo: String::new(),
    };
    let login = json!({"account": line_id, "password": line_id});
    let session = lb
        .ok(
            Some(&reviewer),
            Method::POST,
            "/api/user/login",
            Some(&login),
            &[("X-Line-Id-Token", &id_token)],
        )
        .await?;
    reviewer.token = session["token"].as_str().context("a session")?.into();

    let mut all: Vec<Member> = stream::iter(0..pairs * 2)
        .map(|i| members::register(lb, line, i))
        .buffered(8)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    let db = sea_orm::Database::connect(database_url).await?;
    let rows = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT u.line_user_id AS line, p.id AS id FROM profiles p JOIN users u ON u.id = p.user_id",
        ))
        .await?;
    db.close().await.ok();
    let ids: std::collections::HashMap<String, i64> = rows
        .iter()
        .map(|r| {
            Ok((
                r.try_get::<String>("", "line")?,
                r.try_get::<i64>("", "id")?,
            ))
        })
        .collect::<Result<_, sea_orm::DbErr>>()?;
    for m in &mut all {
        m.profile_id = *ids.get(&m.line_id).context("a registered profile")?;
    }
    stream::iter(&all)
        .map(|m| members::approve(lb, &reviewer, m))
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<Vec<_>>>()?;
    let matches: Vec<i64> = stream::iter(0..pairs)
        .map(|p| members::match_pair(lb, &all[2 * p], &all[2 * p + 1]))
        .buffered(8)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    println!(
        "  {} members registered with a photo and a proof, approved, {} pairs matched ({:.0} s)",
        all.len(),
        matches.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(Population {
        members: all,
        matches,
    })
}

/// Each member of each pair sends `per_member` messages (client ids `{tag}-{member}-{n}`).
pub async fn chat(
    lb: &Balancer,
    population: &Population,
    per_member: usize,
    tag: &str,
) -> anyhow::Result<usize> {
    let sends = population.members.iter().flat_map(|m| {
        let match_id = population.matches[m.index / 2];
        (0..per_member).map(move |n| (m, match_id, n))
    });
    let sent = stream::iter(sends)
        .map(|(m, match_id, n)| async move {
            let body = json!({
                "clientMessageId": format!("{tag}-{:05}-{n:04}", m.index),
                "text": format!("message {n} from member {}", m.index),
            });
            lb.ok(
                Some(m),
                Method::POST,
                &format!("/api/matches/{match_id}/messages"),
                Some(&body),
                &[],
            )
            .await
        })
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    let sent = sent.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    Ok(sent.len())
}
