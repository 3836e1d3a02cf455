use clap::Parser;
use kizuna_server::{
    cli::{self, Command},
    configuration::Settings,
    routes, startup, telemetry,
};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = cli::Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve);
    match command {
        Command::Reviewers { action } => return cli::main(action).await,
        Command::Members { action } => return cli::members_main(action).await,
        Command::Openapi => {
            println!("{}", routes::openapi_json());
            return Ok(());
        }
        _ => {}
    }
    if let Command::Files { action } = &command {
        return cli::files(action.clone()).await;
    }
    telemetry::init_subscriber();
    let settings = Settings::from_env()?;
    match command {
        Command::Serve => {
            startup::Application::build(settings)
                .await?
                .run_until_stopped()
                .await
        }
        Command::Migrate => startup::migrate_only(&settings).await,
        Command::Introductions { day } => cli::introductions(&settings, day).await,
        Command::Funnel { first, last } => cli::funnel(&settings, first, last).await,
        Command::Reviewers { .. }
        | Command::Members { .. }
        | Command::Openapi
        | Command::Files { .. } => {
            unreachable!("answered above")
        }
    }
}
