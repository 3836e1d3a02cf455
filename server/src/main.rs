use kizuna_server::{cli, configuration::Settings, routes, startup, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("reviewers") {
        return cli::main(&args[2..]).await;
    }
    // The OpenAPI document the server serves, for the web's generated types (`just openapi`).
    if args.get(1).map(String::as_str) == Some("openapi") {
        println!("{}", routes::openapi_json());
        return Ok(());
    }
    telemetry::init_subscriber();
    let settings = Settings::from_env()?;
    match args.get(1).map(String::as_str) {
        None | Some("serve") => {
            startup::Application::build(settings)
                .await?
                .run_until_stopped()
                .await
        }
        Some("migrate") => startup::migrate_only(&settings).await,
        Some("introductions") => kizuna_server::matchmaking::job::cli(&settings, &args[2..]).await,
        Some(other) => {
            anyhow::bail!(
                "unknown command {other:?}: expected `serve` (default), `migrate`, `introductions`, `reviewers` or `openapi`"
            )
        }
    }
}
