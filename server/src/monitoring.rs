//! Metrics in Prometheus' text format on a listener of their own (`KIZUNA_METRICS_BIND`, off by
//! default, never the public port; docs/operations.md lists every metric and the alerts on them).
//!
//! Recording goes through the `metrics` crate, a facade: any module records a counter, gauge or
//! histogram with one macro call (`metrics::counter!(names::…, "label" => value)`), with no new
//! parameter and no handle to pass, and costs nothing while no recorder is installed (tests,
//! the operator commands). `metrics-exporter-prometheus`, the facade's Prometheus recorder, keeps
//! the values and renders them at each scrape. Both are maintained together (metrics-rs); the
//! exporter's own HTTP listener is left out: this module serves `/metrics` with poem, as the rest
//! of the server.
//!
//! Labels are chosen from small fixed sets only: a route's pattern from the API document (never
//! the path a client sent, which carries ids), a method, a status, a limit's name, a LINE status
//! code. Never a member id, a LINE user id or any text a person wrote
//! (`server/tests/api/metrics.rs` scrapes after real traffic and checks every label).

use std::{sync::OnceLock, time::Instant};

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use poem::{
    Endpoint, EndpointExt, IntoResponse, Middleware, Request, Response, Result, Route, get,
    handler,
    http::StatusCode,
    listener::{Acceptor, Listener, TcpAcceptor, TcpListener},
    web::Data,
};

use crate::{routes::RouteTable, state::State};

pub use crate::metric_names as names;

/// Latency buckets (seconds) of the requests and of chat delivery: the objectives' thresholds
/// (200 ms for chat, 1 s for the API) are bucket bounds, so a ratio under them is exact.
const LATENCY_BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// The daily job's duration buckets (seconds).
const JOB_BUCKETS: [f64; 9] = [1.0, 5.0, 15.0, 60.0, 180.0, 300.0, 600.0, 1200.0, 1800.0];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// One more of something in flight (a gauge) until dropped: a request that hangs up counts off
/// too.
pub struct InFlight(&'static str);

impl InFlight {
    pub fn new(gauge: &'static str) -> InFlight {
        metrics::gauge!(gauge).increment(1.0);
        InFlight(gauge)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics::gauge!(self.0).decrement(1.0);
    }
}

/// The process's recorder, installed on first use (one per process: the facade is global).
pub fn install() -> anyhow::Result<&'static PrometheusHandle> {
    if let Some(handle) = HANDLE.get() {
        return Ok(handle);
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(names::HTTP_DURATION.into()), &LATENCY_BUCKETS)?
        .set_buckets_for_metric(
            Matcher::Full(names::CHAT_DELIVERY_LAG.into()),
            &LATENCY_BUCKETS,
        )?
        .set_buckets_for_metric(Matcher::Full(names::JOB_DURATION.into()), &JOB_BUCKETS)?
        .set_buckets_for_metric(Matcher::Full(names::DB_BEGIN_WAIT.into()), &LATENCY_BUCKETS)?
        .build_recorder();
    let handle = recorder.handle();
    // A second application in the same process (tests) finds the first one's recorder.
    if metrics::set_global_recorder(recorder).is_ok() {
        let _ = HANDLE.set(handle);
    }
    HANDLE
        .get()
        .ok_or_else(|| anyhow::anyhow!("another metrics recorder is installed in this process"))
}

/// The route a request is counted under: the API document's pattern, or the fixed name of the
/// other endpoints; never the path itself.
pub fn route_label(routes: &RouteTable, path: &str) -> String {
    if let Some(api) = path.strip_prefix("/api") {
        return match routes.pattern(api) {
            Some(pattern) => format!("/api{pattern}"),
            None => "/api/{unknown}".into(),
        };
    }
    match path {
        "/healthz" | "/readyz" => path.into(),
        _ if path.starts_with("/_ipx/") => "/_ipx/{modifiers}/{source}".into(),
        _ if path.starts_with("/__mock/") => "/__mock/{development}".into(),
        _ => "/{web app}".into(),
    }
}

fn method_label(method: &poem::http::Method) -> &'static str {
    use poem::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Counts every answer and times it, by route pattern, method and status.
pub struct HttpMetrics {
    routes: std::sync::Arc<RouteTable>,
}

impl HttpMetrics {
    pub fn new(routes: RouteTable) -> HttpMetrics {
        HttpMetrics {
            routes: std::sync::Arc::new(routes),
        }
    }
}

impl<E: Endpoint> Middleware<E> for HttpMetrics {
    type Output = HttpMetricsEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        HttpMetricsEndpoint {
            inner: ep,
            routes: self.routes.clone(),
        }
    }
}

pub struct HttpMetricsEndpoint<E> {
    inner: E,
    routes: std::sync::Arc<RouteTable>,
}

impl<E: Endpoint> Endpoint for HttpMetricsEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Response> {
        let route = route_label(&self.routes, req.uri().path());
        let method = method_label(req.method());
        let started = Instant::now();
        let resp = match self.inner.call(req).await {
            Ok(r) => r.into_response(),
            Err(err) => err.into_response(),
        };
        let status = resp.status().as_u16().to_string();
        metrics::histogram!(names::HTTP_DURATION, "method" => method, "route" => route.clone())
            .record(started.elapsed().as_secs_f64());
        metrics::counter!(
            names::HTTP_REQUESTS,
            "method" => method,
            "route" => route,
            "status" => status
        )
        .increment(1);
        Ok(resp)
    }
}

/// Sets the gauges that describe the process and the database, then renders every metric.
async fn scrape(state: &State, handle: &PrometheusHandle) -> String {
    use metrics::gauge;
    let now = state.now();
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        crate::storage::gauges::read(&state.db, crate::matchmaking::schedule::JOB),
    )
    .await;
    match read {
        Ok(Ok(db)) => {
            gauge!(names::GAUGES_READ).set(1.0);
            gauge!(names::REVIEW_QUEUE).set(db.review_queue as f64);
            gauge!(names::REVIEW_OLDEST_AGE)
                .set(db.review_oldest_at.map_or(0, |at| (now - at).max(0)) as f64);
            gauge!(names::PUSHES_PENDING).set(db.pushes_pending as f64);
            gauge!(names::PUSHES_OLDEST_AGE)
                .set(db.pushes_oldest_at.map_or(0, |at| (now - at).max(0)) as f64);
            if let Some(last) = db.job_last {
                gauge!(names::JOB_FINISHED).set(last.finished_at as f64);
                gauge!(names::JOB_LAST_DURATION)
                    .set((last.finished_at - last.started_at).max(0) as f64);
                gauge!(names::JOB_LAST_LISTS).set(last.lists as f64);
            }
        }
        Ok(Err(err)) => {
            tracing::warn!(error = ?err, "metrics: the database's gauges could not be read");
            gauge!(names::GAUGES_READ).set(0.0);
        }
        Err(_) => {
            tracing::warn!("metrics: the database's gauges took over 5 s");
            gauge!(names::GAUGES_READ).set(0.0);
        }
    }
    gauge!(names::CHAT_STREAMS).set(state.chat.open_streams() as f64);
    if let Some((members, age)) = state.pool.status() {
        gauge!(names::POOL_MEMBERS).set(members as f64);
        gauge!(names::POOL_AGE).set(age.as_secs_f64());
    }
    gauge!(names::UPLOADS_IN_FLIGHT).set(state.upload_slots.in_use() as f64);
    let (size, idle, max) = pool_use(&state.db);
    gauge!(names::DB_CONNECTIONS).set(size as f64);
    gauge!(names::DB_IDLE).set(idle as f64);
    gauge!(names::DB_MAX).set(max as f64);
    handle.render()
}

/// The database pool's connections: open, idle, and the most it may open.
fn pool_use(db: &sea_orm::DatabaseConnection) -> (u32, usize, u32) {
    match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => {
            let pool = db.get_postgres_connection_pool();
            (
                pool.size(),
                pool.num_idle(),
                pool.options().get_max_connections(),
            )
        }
        _ => {
            let pool = db.get_sqlite_connection_pool();
            (
                pool.size(),
                pool.num_idle(),
                pool.options().get_max_connections(),
            )
        }
    }
}

#[handler]
async fn metrics_text(state: Data<&State>) -> Response {
    let Some(handle) = HANDLE.get() else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let text = scrape(&state, handle).await;
    Response::builder()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text)
}

/// The metrics listener, bound at start (a bad or taken address stops the start).
pub struct MetricsListener {
    acceptor: TcpAcceptor,
    pub addr: std::net::SocketAddr,
}

impl MetricsListener {
    pub async fn bind(bind: &str) -> anyhow::Result<MetricsListener> {
        use anyhow::Context;
        install()?;
        let acceptor = TcpListener::bind(bind.to_string())
            .into_acceptor()
            .await
            .with_context(|| format!("binding KIZUNA_METRICS_BIND {bind}"))?;
        let addr = acceptor
            .local_addr()
            .first()
            .and_then(|a| a.as_socket_addr().copied())
            .context("the metrics listener has no TCP address")?;
        Ok(MetricsListener { acceptor, addr })
    }

    /// Serves `GET /metrics` until the task is aborted.
    pub fn spawn(self, state: State) -> tokio::task::JoinHandle<()> {
        let app = Route::new().at("/metrics", get(metrics_text)).data(state);
        tokio::spawn(async move {
            if let Err(err) = poem::Server::new_with_acceptor(self.acceptor)
                .run(app)
                .await
            {
                tracing::error!(error = %err, "the metrics listener stopped");
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_is_labelled_by_its_pattern_never_its_ids() {
        let routes = RouteTable::from_document(&crate::routes::openapi_json());
        assert_eq!(
            route_label(&routes, "/api/matches/12/messages"),
            "/api/matches/{matchId}/messages"
        );
        assert_eq!(
            route_label(
                &routes,
                "/api/user/review-status/U4af4980629a1b2c3d4e5f60718293a4b"
            ),
            "/api/user/review-status/{userId}"
        );
        assert_eq!(route_label(&routes, "/api/nope/12"), "/api/{unknown}");
        assert_eq!(
            route_label(&routes, "/_ipx/w_400/api/file/fetch/0123abcd"),
            "/_ipx/{modifiers}/{source}"
        );
        assert_eq!(route_label(&routes, "/today/12"), "/{web app}");
        assert_eq!(route_label(&routes, "/readyz"), "/readyz");
        assert_eq!(
            route_label(&routes, "/__mock/line/users/U4af4980629a1b2c3d4e5f6071829"),
            "/__mock/{development}"
        );
    }
}
