//! The web app's route guard: where a request for an app path is sent instead. A rule's path
//! matches exactly, or as a prefix when it ends in `*`; an exact rule beats any prefix, and of
//! the prefixes the longest wins.

use sea_orm::ConnectionTrait;

use crate::storage::{StorageError, route_rules};

#[derive(Debug, thiserror::Error)]
pub enum RouteRulesError {
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// Where a request for `path` is sent instead, if a rule says so.
pub async fn redirect_for(
    db: &impl ConnectionTrait,
    path: &str,
) -> Result<Option<String>, RouteRulesError> {
    if let Some(redirect) = route_rules::exact(db, path).await? {
        return Ok(Some(redirect));
    }
    Ok(longest_prefix(path, route_rules::prefixes(db).await?))
}

/// The redirect of the longest prefix rule (`path*`) that `path` starts with.
fn longest_prefix(path: &str, prefixes: Vec<(String, String)>) -> Option<String> {
    prefixes
        .into_iter()
        .filter(|(prefix, _)| path.starts_with(prefix.trim_end_matches('*')))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, redirect)| redirect)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, r)| (p.to_string(), r.to_string()))
            .collect()
    }

    #[test]
    fn the_longest_matching_prefix_wins() {
        let prefixes = rules(&[("/a*", "/short"), ("/a/b*", "/long"), ("/c*", "/other")]);
        assert_eq!(
            longest_prefix("/a/b/c", prefixes.clone()),
            Some("/long".into())
        );
        assert_eq!(
            longest_prefix("/a/x", prefixes.clone()),
            Some("/short".into())
        );
        assert_eq!(longest_prefix("/z", prefixes), None);
    }

    #[test]
    fn a_star_alone_matches_every_path() {
        assert_eq!(
            longest_prefix("/anything", rules(&[("*", "/everywhere")])),
            Some("/everywhere".into())
        );
    }
}
