//! Builds the application: database, migrations, file store, LINE verifier (and the mock), routes;
//! binds the listener (port 0 in tests) and runs until SIGINT/SIGTERM with a graceful shutdown.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use anyhow::Context;
use poem::{
    Endpoint, EndpointExt, IntoEndpoint, IntoResponse, Route, Server,
    endpoint::make_sync,
    get,
    http::{StatusCode, header},
    listener::{Acceptor, Listener, TcpAcceptor, TcpListener},
    middleware::CatchPanic,
    web::Html,
};

use kizuna_core::rules;

use crate::{
    cleanup,
    compress::CompressJson,
    configuration::Settings,
    connections::{BoundedAcceptor, PerClient},
    error::{ApiError, error_response},
    file_store::FileStore,
    identity::{LineVerifier, SessionStore},
    images::{admission::UploadSlots, workers::ImageWorkers},
    instance::Instance,
    line::push::{PushQueue, PushWorker},
    mail::{Mailer, MockOutbox},
    middleware::ApiPlumbing,
    mock_line::MockLine,
    rate_limit::Limits,
    routes::{self, AppState, State},
    security_headers::SecurityHeaders,
    static_site::StaticSite,
    storage,
    telemetry::RequestTrace,
};

pub struct Application {
    addr: SocketAddr,
    acceptor: TcpAcceptor,
    state: State,
    mock: Option<Arc<MockLine>>,
    /// The mock mail outbox at /__mock/mail (only beside the mock LINE platform).
    mail_outbox: Option<MockOutbox>,
    push_worker: PushWorker,
    /// Other processes' announcements (`relay`) and the pool's updater that applies them.
    relay: Option<tokio::task::JoinHandle<()>>,
    pool_updater: tokio::task::JoinHandle<()>,
    /// Marks this process alive (PostgreSQL) or holds the SQLite file (`instance`) until it stops.
    instance: Instance,
    /// What `/readyz` says: starting, ready, draining.
    readiness: crate::readiness::Readiness,
    /// The Prometheus listener (KIZUNA_METRICS_BIND), bound at start.
    metrics: Option<crate::monitoring::MetricsListener>,
    /// How many housekeeping passes (`cleanup::spawn`) have finished.
    housekeeping: tokio::sync::watch::Sender<u64>,
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Application> {
        let acceptor = TcpListener::bind(settings.bind.clone())
            .into_acceptor()
            .await
            .with_context(|| format!("binding {}", settings.bind))?;
        let addr = acceptor
            .local_addr()
            .first()
            .and_then(|a| a.as_socket_addr().copied())
            .context("the listener has no TCP address")?;

        std::fs::create_dir_all(&settings.data_dir)
            .with_context(|| format!("creating the data dir {}", settings.data_dir.display()))?;
        // Bound before anything else: a bad or taken address stops the start at once.
        let metrics = match &settings.metrics_bind {
            Some(bind) => Some(crate::monitoring::MetricsListener::bind(bind).await?),
            None => None,
        };
        let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
        // Before anything is written: a second process on one SQLite file stops here.
        let instance = Instance::start(&db, &settings.database_url()).await?;
        storage::migrate(&db).await?;
        let files = FileStore::open(&settings.file_store, &settings.data_dir)?;
        crate::cleanup::check_store_holds_files(&db, &files, 20).await?;

        let own_base = {
            let host = if addr.ip().is_unspecified() {
                "127.0.0.1".to_string()
            } else {
                addr.ip().to_string()
            };
            format!("http://{host}:{}", addr.port())
        };
        let api_base = match (&settings.line.api_base, settings.line.mock) {
            (Some(base), _) => base.clone(),
            (None, true) => format!("{own_base}/__mock/line"),
            (None, false) => "https://api.line.me".into(),
        };
        let mock = settings.line.mock.then(|| {
            Arc::new(
                MockLine::new(
                    &settings.line.channel_id,
                    &settings.line.channel_access_token,
                )
                .with_login_token(&settings.line.login_channel_token)
                .with_webhook(
                    &settings.line.channel_secret,
                    format!("{own_base}/api/line/webhook"),
                ),
            )
        });
        let mailer = Mailer::new(&settings.mail)?;
        let mail_outbox = if settings.line.mock {
            mailer.outbox()
        } else {
            None
        };
        let push = PushQueue::new();
        let push_worker = PushWorker::new(
            db.clone(),
            &api_base,
            &settings.line.channel_access_token,
            settings.push.clone(),
            push.clone(),
        )?
        .with_liff_id(&settings.line.liff_id)
        .with_clock(settings.clock.clone());
        let chat = crate::chat::ChatHub::new();
        let pool = crate::matchmaking::PoolCache::new(settings.pool_ttl, instance.id());
        let session_ends = crate::identity::ends::SessionEnds::new();
        let relay =
            crate::relay::start(&db, chat.clone(), session_ends.clone(), pool.clone()).await?;
        let pool_updater = pool.spawn_updater(db.clone());
        tracing::info!(%addr, line_api = %api_base, mock = settings.line.mock, "kizuna-server ready");

        let state = Arc::new(app_state(
            settings,
            Parts {
                db,
                files,
                process: instance.id(),
                api_base,
                push,
                mailer,
                chat,
                pool,
                session_ends,
            },
        )?);
        // A database restored from a backup: the deletions made since come off it before anyone
        // is served.
        crate::restore::replay(&state)
            .await
            .context("replaying the deletions recorded outside the database")?;
        Ok(Application {
            addr,
            acceptor,
            state,
            mock,
            mail_outbox,
            push_worker,
            relay,
            pool_updater,
            instance,
            readiness: Default::default(),
            metrics,
            housekeeping: tokio::sync::watch::Sender::new(0),
        })
    }

    /// Counts the housekeeping passes finished. The first runs at start, and a caller that works
    /// on what a pass works on (a test that queues a removal) waits for it, or the two race.
    pub fn housekeeping_passes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.housekeeping.subscribe()
    }

    /// Where Prometheus scrapes `/metrics`, when KIZUNA_METRICS_BIND is set.
    pub fn metrics_address(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|m| m.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn address(&self) -> SocketAddr {
        self.addr
    }

    pub fn state(&self) -> State {
        self.state.clone()
    }

    pub fn endpoint(&self) -> impl Endpoint + 'static {
        build_routes(
            self.state.clone(),
            self.readiness.clone(),
            self.mock.clone(),
            self.mail_outbox.clone(),
        )
    }

    /// Serves until SIGINT/SIGTERM; in-flight requests get 30 s to finish.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `stop` completes (a signal, or a test's own trigger), then shuts down as
    /// [`run_until_stopped`](Self::run_until_stopped) does.
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let app = self.endpoint();
        let cleanup = cleanup::spawn(
            self.state.db.clone(),
            self.state.files.clone(),
            Duration::from_secs(600),
            self.housekeeping,
        );
        let backfill =
            crate::photo_backfill::spawn(self.state.db.clone(), self.state.files.clone());
        let housekeeping = self
            .state
            .limits
            .spawn_housekeeping(Duration::from_secs(60));
        let quiet_matches =
            crate::matchmaking::quiet::spawn(self.state.clone(), crate::matchmaking::quiet::EVERY);
        let pushes = self.push_worker.clone().spawn();
        let we_met = crate::we_met::spawn(self.state.clone(), crate::we_met::EVERY);
        let metrics = self.metrics.map(|m| m.spawn(self.state.clone()));
        let warm_up = spawn_warm_up(self.state.clone(), self.readiness.clone());
        let chat = self.state.chat.clone();
        let readiness = self.readiness.clone();
        let drain = self.state.settings.drain;
        // First not ready (the balancer stops sending requests while they are still served),
        // then open events streams end, so that the requests in flight are what the grace period
        // waits for.
        let stopping = async move {
            stop.await;
            readiness.drain();
            if !drain.is_zero() {
                tracing::info!(
                    secs = drain.as_secs(),
                    "draining: /readyz answers 503 while requests are still served"
                );
                tokio::time::sleep(drain).await;
            }
            tracing::info!("shutting down: finishing in-flight requests");
            chat.shut_down();
        };
        let introductions = self.state.settings.introductions.clone().map(|schedule| {
            crate::matchmaking::schedule::spawn(
                self.state.db.clone(),
                self.state.settings.clock.clone(),
                schedule,
                self.state.settings.line.liff_id.clone(),
                self.state.push.clone(),
            )
        });
        let acceptor = BoundedAcceptor::new(
            self.acceptor,
            self.state.settings.connections.clone(),
            self.state.settings.trusted_proxy_header.is_some(),
        );
        let result = Server::new_with_acceptor(acceptor)
            .run_with_graceful_shutdown(app, stopping, Some(Duration::from_secs(30)))
            .await;
        cleanup.abort();
        backfill.abort();
        housekeeping.abort();
        we_met.abort();
        quiet_matches.abort();
        warm_up.abort();
        if let Some(metrics) = metrics {
            metrics.abort();
        }
        // At least once: a push in flight is sent again (same retry key) after its lease.
        pushes.abort();
        if let Some(relay) = self.relay {
            relay.abort();
        }
        self.pool_updater.abort();
        // A run cut short gives its claim back, for the next process to run at once.
        if let Some(introductions) = introductions {
            introductions.stop().await;
        }
        self.state.db.clone().close().await.ok();
        drop(self.instance);
        result.context("serving HTTP")
    }
}

/// What the shared state is made of besides the settings: made by [`Application::build`] for a
/// serving process, by [`operator_state`] for an operator command.
struct Parts {
    db: sea_orm::DatabaseConnection,
    files: FileStore,
    process: i32,
    /// Where LINE's API is (the real one, the configured one or the mock's).
    api_base: String,
    push: PushQueue,
    mailer: Mailer,
    chat: Arc<crate::chat::ChatHub>,
    pool: crate::matchmaking::PoolCache,
    session_ends: Arc<crate::identity::ends::SessionEnds>,
}

fn app_state(settings: Settings, parts: Parts) -> anyhow::Result<AppState> {
    let Parts {
        db,
        files,
        process,
        api_base,
        push,
        mailer,
        chat,
        pool,
        session_ends,
    } = parts;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .no_proxy()
        .build()
        .context("building the HTTP client")?;
    let deauthorizer =
        crate::line::deauthorize::Deauthorizer::new(&api_base, &settings.line.login_channel_token)?;
    Ok(AppState {
        deauthorizer,
        verifier: LineVerifier::new(http, &api_base, &settings.line.channel_id),
        sessions: SessionStore::new(db.clone(), settings.clock.clone(), session_ends.cache()),
        image_workers: ImageWorkers::new(settings.image_workers)?,
        upload_slots: UploadSlots::new(
            settings.uploads.in_flight,
            rules::UPLOADS_IN_FLIGHT_PER_USER,
        ),
        limits: Limits::for_database(&db),
        push,
        mailer,
        files,
        db,
        pool,
        process,
        settings,
        chat,
        session_ends,
    })
}

/// The state an operator command runs the use-cases with (`kizuna-server members …`), on the
/// serving processes' database and store: migrated first; on SQLite it takes the file as `serve`
/// does, so it refuses while a server serves it (that server's pool and streams would not hear of
/// the change). It serves nothing and hears no other process: what the use-cases announce after
/// their commit (ended sessions, pool changes, chat events) reaches the serving processes on
/// PostgreSQL through NOTIFY, and pushes written to the outbox are sent by their push workers.
/// LINE's API is called for nothing (no member's access token is at hand). Hold the
/// [`Instance`] until the command ends.
pub async fn operator_state(settings: Settings) -> anyhow::Result<(State, Instance)> {
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    let instance = Instance::start(&db, &settings.database_url()).await?;
    storage::migrate(&db).await?;
    let files = FileStore::open(&settings.file_store, &settings.data_dir)?;
    let api_base = settings
        .line
        .api_base
        .clone()
        .unwrap_or_else(|| "https://api.line.me".into());
    let mailer = Mailer::new(&settings.mail)?;
    let pool = crate::matchmaking::PoolCache::new(settings.pool_ttl, instance.id());
    let state = app_state(
        settings,
        Parts {
            db,
            files,
            process: instance.id(),
            api_base,
            push: PushQueue::new(),
            mailer,
            chat: crate::chat::ChatHub::new(),
            pool,
            session_ends: crate::identity::ends::SessionEnds::new(),
        },
    )?;
    Ok((Arc::new(state), instance))
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("stop signal received");
}

/// Loads the match pool before the process says it is ready (the first member's list then does
/// not wait for it); tries again every second while the database cannot be reached.
fn spawn_warm_up(
    state: State,
    readiness: crate::readiness::Readiness,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match state.pool.get(&state.db).await {
                Ok(_) => {
                    readiness.started();
                    return;
                }
                Err(err) => {
                    tracing::warn!(error = ?err, "loading the match pool at start; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    })
}

fn build_routes(
    state: State,
    readiness: crate::readiness::Readiness,
    mock: Option<Arc<MockLine>>,
    mail_outbox: Option<MockOutbox>,
) -> impl Endpoint + 'static {
    let service = routes::api_service();
    // The paths and methods of poem-openapi's own document are the served one's (which only adds
    // to schemas): reading them from it spares every start building the served document.
    let route_table = routes::RouteTable::from_document(&service.spec());
    let http_metrics = crate::monitoring::HttpMetrics::new(route_table.clone());
    let development = mock.is_some();
    let mut api = Route::new();
    // Development only: production's document is `kizuna-server openapi` (and the copy in the
    // web app); the live server does not hand a map of its API to scrapers, and Swagger UI's
    // inline script would need a hole in the Content-Security-Policy.
    if development {
        // Made on the first request, not at start: the served document and Swagger UI's page
        // (about 2.4 MB of strings, and a `Value` of the document while it is made) would
        // otherwise stay in every development server's memory from its start (issue 46).
        let document: Arc<std::sync::OnceLock<String>> = Arc::default();
        let docs_html: Arc<std::sync::OnceLock<String>> = Arc::default();
        let document_for_docs = document.clone();
        api = api
            .at(
                "/openapi.json",
                get(make_sync(move |_| {
                    poem::Response::builder()
                        .content_type("application/json")
                        .body(document.get_or_init(routes::openapi_json).clone())
                })),
            )
            .at(
                "/docs",
                get(make_sync(move |_| {
                    let html = docs_html.get_or_init(|| {
                        let service = routes::api_service();
                        // The UI embeds the document it shows: the served one, not
                        // poem-openapi's own.
                        service.swagger_ui_html().replace(
                            &service.spec(),
                            document_for_docs.get_or_init(routes::openapi_json),
                        )
                    });
                    // Swagger UI is one page of inline script and style (development only).
                    Html(html.clone()).with_header(
                        header::CONTENT_SECURITY_POLICY,
                        "default-src 'none'; script-src 'unsafe-inline'; \
                         style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
                         frame-ancestors 'none'",
                    )
                })),
            );
    }
    let api = api
        .nest("/", service)
        .with(ApiPlumbing::new(route_table))
        .with(CompressJson);
    let mut app = Route::new()
        .nest("/api", api)
        .at("/healthz", get(routes::health::healthz))
        .at("/readyz", get(routes::health::readyz).data(readiness))
        .at("/_ipx/*path", get(routes::ipx::ipx))
        // The web app's page, with the first card's photo in its frame for a returning member.
        .at("/today", routes::pages::TodayPage);
    if let Some(mock) = mock {
        app = app.nest("/__mock/line", mock.routes());
        app = app.nest("/__mock/reviewers", crate::mock_review::routes());
        app = app.nest("/__mock/clock", crate::mock_review::clock_routes());
        app = app.nest(
            "/__mock/introductions",
            crate::mock_review::introductions_routes(),
        );
        app = app.nest(
            "/__mock/quiet-matches",
            crate::mock_review::quiet_matches_routes(),
        );
    }
    if let Some(outbox) = mail_outbox {
        app = app.at("/__mock/mail", outbox.endpoint());
    }
    if !development {
        // Without these, the web app's fallback would answer them with its page (200), and the
        // client-side /dev tools would load in production.
        let not_found = || make_sync(|_| StatusCode::NOT_FOUND);
        app = app.nest("/__mock", not_found()).nest("/dev", not_found());
    }
    let web_dir = state.settings.web_dir.clone();
    app.nest("/", StaticSite::new(web_dir).into_endpoint())
        // A bug must cost one request a 500, not the connection (and never a crashed worker).
        .with(CatchPanic::new().with_handler(|_| {
            tracing::error!("a request handler panicked");
            error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                &ApiError::Internal(anyhow::anyhow!("panic")).body(),
            )
        }))
        .with(RequestTrace)
        .with(PerClient::new(
            state.settings.trusted_proxy_header.clone(),
            state.settings.connections.per_address,
        ))
        // Every answer counts, a refusal for too many requests in flight included.
        .with(http_metrics)
        // Outermost: every answer, a refusal or a caught panic included, carries them.
        .with(SecurityHeaders)
        .data(state)
}

/// `kizuna-server migrate`, the upgrade step: applies this build's pending migrations and says
/// what it did (on stdout). Processes of the previous build go on serving meanwhile, since a
/// release only expands the schema (docs/operations.md, "Upgrading").
pub async fn migrate_only(settings: &Settings) -> anyhow::Result<()> {
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    let report = storage::migrate(&db).await;
    db.close().await.ok();
    let report = report?;
    println!("{}", describe_migrations(&report));
    Ok(())
}

fn describe_migrations(report: &storage::migration::run::Report) -> String {
    let mut said = if report.applied.is_empty() {
        "no migration to apply: every migration of this build is applied".to_string()
    } else {
        format!(
            "applied {} migrations: {}",
            report.applied.len(),
            report.applied.join(", ")
        )
    };
    if !report.unknown.is_empty() {
        said.push_str(&format!(
            "\nthe database also holds {} migrations of a newer build: {}",
            report.unknown.len(),
            report.unknown.join(", ")
        ));
    }
    said
}
