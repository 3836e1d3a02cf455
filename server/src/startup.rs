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
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .no_proxy()
            .build()
            .context("building the HTTP client")?;
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
        )?;
        let chat = crate::chat::ChatHub::new();
        let pool = crate::matchmaking::PoolCache::new(settings.pool_ttl, instance.id());
        let relay = crate::relay::start(&db, chat.clone(), pool.clone()).await?;
        let pool_updater = pool.spawn_updater(db.clone());
        tracing::info!(%addr, line_api = %api_base, mock = settings.line.mock, "kizuna-server ready");

        let deauthorizer = crate::line::deauthorize::Deauthorizer::new(
            &api_base,
            &settings.line.login_channel_token,
        )?;
        let limits = Limits::for_database(&db);
        let state = Arc::new(AppState {
            deauthorizer,
            verifier: LineVerifier::new(http, &api_base, &settings.line.channel_id),
            sessions: SessionStore::new(db.clone(), settings.clock.clone()),
            image_workers: ImageWorkers::new(settings.image_workers)?,
            log_limiter: limits.per_minute("log", rules::LOG_LINES_PER_MINUTE_MEMBER),
            anonymous_log_limiter: limits
                .per_minute("log-anonymous", rules::LOG_LINES_PER_MINUTE_ANONYMOUS),
            log_lookup_limiter: limits
                .per_minute("log-lookup", rules::LOG_SESSION_LOOKUPS_PER_MINUTE),
            chat_limiter: limits.per_minute("chat", kizuna_core::rules::CHAT_MESSAGES_PER_MINUTE),
            render_limiter: limits.per_minute("ipx-render", rules::IMAGE_RENDERS_PER_MINUTE),
            login_user_limiter: limits.per_minute("login-user", rules::LOGINS_PER_MINUTE_PER_USER),
            login_address_limiter: limits
                .per_minute("login-address", rules::LOGINS_PER_MINUTE_PER_ADDRESS),
            switch_limiter: limits.per_minute("switch", rules::SWITCH_CHANGES_PER_MINUTE),
            edit_limiter: limits.per_minute("profile-edit", rules::PROFILE_EDITS_PER_MINUTE),
            upload_limiter: limits.per_minute("upload", rules::UPLOADS_PER_MINUTE),
            upload_slots: UploadSlots::new(
                settings.uploads.in_flight,
                rules::UPLOADS_IN_FLIGHT_PER_USER,
            ),
            limits,
            push,
            mailer,
            files,
            db,
            pool,
            process: instance.id(),
            settings,
            chat,
        });
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
        })
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
        );
        let housekeeping = self
            .state
            .limits
            .spawn_housekeeping(Duration::from_secs(60));
        let pushes = self.push_worker.clone().spawn();
        let chat = self.state.chat.clone();
        // Open events streams never finish by themselves: they end first, so that the requests
        // in flight are what the grace period waits for.
        let stopping = async move {
            stop.await;
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
        housekeeping.abort();
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
    tracing::info!("shutting down: finishing in-flight requests");
}

fn build_routes(
    state: State,
    mock: Option<Arc<MockLine>>,
    mail_outbox: Option<MockOutbox>,
) -> impl Endpoint + 'static {
    let service = routes::api_service();
    let document = routes::openapi_json();
    // The UI embeds the document it shows: the served one, not poem-openapi's own.
    let docs_html = service
        .swagger_ui_html()
        .replace(&service.spec(), &document);
    let route_table = routes::RouteTable::from_document(&document);
    let development = mock.is_some();
    let mut api = Route::new();
    // Development only: production's document is `kizuna-server openapi` (and the copy in the
    // web app); the live server does not hand a map of its API to scrapers, and Swagger UI's
    // inline script would need a hole in the Content-Security-Policy.
    if development {
        api = api
            .at(
                "/openapi.json",
                get(make_sync(move |_| {
                    poem::Response::builder()
                        .content_type("application/json")
                        .body(document.clone())
                })),
            )
            .at(
                "/docs",
                get(make_sync(move |_| {
                    // Swagger UI is one page of inline script and style (development only).
                    Html(docs_html.clone()).with_header(
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
        .at("/_ipx/*path", get(routes::ipx::ipx));
    if let Some(mock) = mock {
        app = app.nest("/__mock/line", mock.routes());
        app = app.nest("/__mock/reviewers", crate::mock_review::routes());
        app = app.nest("/__mock/clock", crate::mock_review::clock_routes());
        app = app.nest(
            "/__mock/introductions",
            crate::mock_review::introductions_routes(),
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
        // Outermost: every answer, a refusal or a caught panic included, carries them.
        .with(SecurityHeaders)
        .data(state)
}

/// `kizuna-server migrate`: apply pending migrations and exit.
pub async fn migrate_only(settings: &Settings) -> anyhow::Result<()> {
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    storage::migrate(&db).await?;
    db.close().await.ok();
    Ok(())
}
