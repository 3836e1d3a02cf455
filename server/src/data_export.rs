//! Preparing a copy of a member's data: one zip of `data.json` (their account, profile as
//! submitted, review decisions with reasons, the appeals they wrote, introductions, likes and
//! passes, matches with both sides' messages, blocks, the reports they filed, their own "We met"
//! answers) and their own stored
//! files. Another member appears only as their member id and nickname, which the member saw
//! anyway; nothing of a reviewer (who decided, their notes) is in it. Requests and downloads are
//! `usecases::export`'s; this runs after a request's commit and from the housekeeping task.

use std::io::Write;

use anyhow::Context;
use kizuna_core::{date::Date, rules};
use sea_orm::DatabaseConnection;
use serde_json::{Value, json};

use crate::{
    file_store::FileStore,
    locale::Locale,
    storage::{
        exports::{self, MemberData, OtherData},
        review::reason_codes,
    },
};

/// Prepares one requested archive and stores it (READY), or marks it FAILED. Run after the
/// request's commit, and again by the housekeeping task for a request whose process died.
pub async fn prepare(
    db: &DatabaseConnection,
    files: &FileStore,
    export_id: i64,
    now: i64,
) -> anyhow::Result<()> {
    let Some(export) = exports::find(db, export_id).await? else {
        return Ok(());
    };
    if export.status != exports::PREPARING {
        return Ok(());
    }
    match build(db, files, export.user_id, now).await {
        Ok(Some(archive)) => {
            let size = archive.len();
            if exports::finish(db, export_id, archive, now).await? {
                metrics::counter!(crate::metric_names::EXPORTS, "stage" => "ready").increment(1);
                tracing::info!(export = export_id, bytes = size, "data export ready");
            }
            Ok(())
        }
        // The user left meanwhile: their request went with them.
        Ok(None) => Ok(()),
        Err(err) => {
            metrics::counter!(crate::metric_names::EXPORTS, "stage" => "failed").increment(1);
            exports::fail(db, export_id).await?;
            Err(err.context("preparing a data export"))
        }
    }
}

/// The zip of everything the user has: `data.json` and their files under `files/`.
async fn build(
    db: &DatabaseConnection,
    files: &FileStore,
    user_id: i64,
    now: i64,
) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(data) = exports::gather(db, user_id).await? else {
        return Ok(None);
    };
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut listed = Vec::new();
    for file in &data.files {
        let name = format!(
            "files/{}-{}.{}",
            file.purpose.to_lowercase(),
            file.id,
            extension(&file.content_type)
        );
        match files.get(&FileStore::original(&file.id)).await? {
            Some(bytes) => {
                listed.push(json!({
                    "path": name, "purpose": file.purpose, "contentType": file.content_type,
                    "uploadedAt": file.created_at,
                }));
                entries.push((name, bytes.into()));
            }
            None => {
                listed.push(json!({
                    "path": Value::Null, "purpose": file.purpose, "uploadedAt": file.created_at,
                    "missing": true,
                }));
            }
        }
    }
    let document = document(&data, listed, now)?;
    let json = serde_json::to_vec_pretty(&document).context("writing data.json")?;
    let archive = tokio::task::spawn_blocking(move || zip(json, entries))
        .await
        .context("the zip task")??;
    Ok(Some(archive))
}

fn extension(content_type: &str) -> &'static str {
    match content_type {
        "image/jpeg" => "jpg",
        "image/png" => "png",
        "image/webp" => "webp",
        _ => "bin",
    }
}

fn zip(json: Vec<u8>, entries: Vec<(String, Vec<u8>)>) -> anyhow::Result<Vec<u8>> {
    use zip::{CompressionMethod, write::SimpleFileOptions};
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(
        "data.json",
        SimpleFileOptions::default().compression_method(CompressionMethod::Deflated),
    )?;
    zip.write_all(&json)?;
    // Photos are compressed already: stored as they are.
    for (name, bytes) in entries {
        zip.start_file(
            name,
            SimpleFileOptions::default().compression_method(CompressionMethod::Stored),
        )?;
        zip.write_all(&bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}

fn other(member: &OtherData) -> Value {
    json!({"memberId": member.member_id, "nickname": member.nickname})
}

fn day(days: i32) -> Value {
    Date::from_days_since_epoch(i64::from(days))
        .map(|d| Value::String(d.to_string()))
        .unwrap_or(Value::Null)
}

/// Reason codes as the export lists them: `reasons`, the codes (as every answer of the API
/// carries them), and `reasonTexts` beside them, each code's label in the member's language (the
/// code itself when the catalogue no longer has it).
fn reasons(
    codes: &[String],
    key_of: impl Fn(&str) -> Option<&'static str>,
    locale: Locale,
) -> Value {
    let texts: Vec<&str> = codes
        .iter()
        .map(|code| {
            key_of(code)
                .and_then(|key| locale.text(key))
                .unwrap_or(code)
        })
        .collect();
    json!({"reasons": codes, "reasonTexts": texts})
}

fn document(data: &MemberData, files: Vec<Value>, now: i64) -> anyhow::Result<Value> {
    let locale = data
        .account
        .locale
        .as_deref()
        .and_then(Locale::from_tag)
        .unwrap_or_else(Locale::fallback);
    let profile = match &data.profile {
        Some(p) => {
            let submitted: Value =
                serde_json::from_str(&p.payload).context("decoding a stored profile")?;
            json!({
                "profileId": p.id,
                "status": kizuna_core::review::ReviewStatus::from(p.status).as_str(),
                "statusReason": p.status_reason,
                "version": p.version,
                "createdAt": p.created_at,
                "updatedAt": p.updated_at,
                "asSubmitted": submitted,
            })
        }
        None => Value::Null,
    };
    let conversations: Vec<Value> = data
        .matches
        .iter()
        .map(|m| {
            let messages: Vec<Value> = data
                .messages
                .iter()
                .filter(|msg| msg.match_id == m.match_id)
                .map(|msg| {
                    json!({
                        "from": if msg.mine { "me" } else { "them" },
                        "text": msg.text,
                        "sentAt": msg.sent_at,
                    })
                })
                .collect();
            json!({
                "matchId": m.match_id,
                "with": other(&m.member),
                "matchedAt": m.created_at,
                "endedAt": m.ended_at,
                "messages": messages,
            })
        })
        .collect();
    Ok(json!({
        "about": "Everything Kizuna holds about you. Times are Unix seconds (UTC); days are \
                  Asia/Taipei dates. Other members appear only by member id and nickname.",
        "exportedAt": now,
        "account": {
            "lineUserId": data.account.line_user_id,
            "lineDisplayName": data.account.display_name,
            "createdAt": data.account.created_at,
            "language": data.account.locale,
        },
        "profile": profile,
        "reviewDecisions": data.decisions.iter().map(|d| {
            let to = kizuna_core::review::ReviewStatus::parse(&d.to_status);
            let mut decision = reasons(
                &reason_codes(d.reasons.as_deref()),
                |code| to.and_then(|to| kizuna_core::review::reason_key(to, code)),
                locale,
            );
            decision["from"] = json!(d.from_status);
            decision["to"] = json!(d.to_status);
            decision["reason"] = json!(d.reason);
            decision["at"] = json!(d.at);
            decision
        }).collect::<Vec<_>>(),
        "appeals": data.appeals.iter().map(|a| json!({
            "text": a.text, "status": a.status, "at": a.at, "decidedAt": a.decided_at,
        })).collect::<Vec<_>>(),
        "introductions": data.introductions.iter().map(|i| json!({
            "day": day(i.day), "member": other(&i.member),
        })).collect::<Vec<_>>(),
        "likesAndPasses": data.reactions.iter().map(|r| json!({
            "kind": r.kind, "at": r.at, "member": other(&r.member),
            "comment": r.comment.as_ref().map(|text| json!({
                "text": text,
                "on": r.comment_answer.as_deref().unwrap_or(if r.comment_on_photo { "PHOTO" } else { "" }),
            })),
        })).collect::<Vec<_>>(),
        "matches": conversations,
        "blocks": data.blocks.iter().map(|b| json!({
            "at": b.at, "member": other(&b.member),
        })).collect::<Vec<_>>(),
        "reportsFiled": data.reports.iter().map(|r| {
            let codes: Vec<String> = r
                .reasons
                .split(',')
                .filter(|code| !code.is_empty())
                .map(str::to_string)
                .collect();
            let mut report = reasons(
                &codes,
                |code| kizuna_core::report::ReportReason::parse(code).map(|r| r.key()),
                locale,
            );
            report["text"] = json!(r.text);
            report["status"] = json!(r.status);
            report["at"] = json!(r.at);
            report["member"] = json!(r.member.as_ref().map(other));
            report
        }).collect::<Vec<_>>(),
        "weMet": data.we_met.iter().map(|w| json!({
            "matchId": w.match_id,
            "with": {"memberId": w.about, "nickname": w.nickname},
            "askedAt": w.asked_at,
            "met": w.met,
            "seeAgain": w.see_again,
            "answeredAt": w.answered_at,
        })).collect::<Vec<_>>(),
        "files": files,
    }))
}

/// Prepares requests whose process died before it finished them (requested over a minute ago
/// and still PREPARING). Answers how many were taken up.
pub async fn resume_stalled(
    db: &DatabaseConnection,
    files: &FileStore,
    now: i64,
) -> anyhow::Result<usize> {
    let stalled = exports::stalled(db, now - 60).await?;
    for export in &stalled {
        prepare(db, files, export.id, now).await?;
    }
    Ok(stalled.len())
}

/// Clears archives whose link expired and forgets requests older than the daily window.
pub async fn sweep(db: &DatabaseConnection, now: i64) -> anyhow::Result<()> {
    exports::sweep(
        db,
        now - rules::DATA_EXPORT_LINK_SECS,
        now - rules::DATA_EXPORT_WINDOW_SECS,
    )
    .await?;
    Ok(())
}
