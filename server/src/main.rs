use clap::Parser;
use kizuna_server::{
    cli::{self, Command},
    configuration::Settings,
    routes, startup, telemetry,
};

fn main() -> anyhow::Result<()> {
    limit_malloc_arenas();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// glibc's malloc gives each thread that allocates while another holds an arena an arena of its
/// own, up to 8 per core, and keeps what a thread freed in its arena for that arena's next
/// allocations. The server's threads (tokio's workers and blocking pool, the image workers, one
/// per SQLite connection) each left megabytes there: two arenas hold the same work in less (the
/// image proxy's peak RSS fell by about 4 MB in `just bench`, with no loss of throughput). Set
/// before the runtime starts its threads. `MALLOC_ARENA_MAX` in the environment still wins.
#[allow(unsafe_code)]
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets a tunable of glibc's allocator; no thread has started yet.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

async fn run() -> anyhow::Result<()> {
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
