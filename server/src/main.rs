use kizuna_server::{configuration::Settings, startup, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    telemetry::init_subscriber();
    let settings = Settings::from_env()?;
    match std::env::args().nth(1).as_deref() {
        None | Some("serve") => {
            startup::Application::build(settings)
                .await?
                .run_until_stopped()
                .await
        }
        Some("migrate") => startup::migrate_only(&settings).await,
        Some(other) => {
            anyhow::bail!("unknown command {other:?}: expected `serve` (default) or `migrate`")
        }
    }
}
