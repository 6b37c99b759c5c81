//! Wiring of the AS2 gateway: settings, the HTTP listener, the pool, the routes.
//! The AS2 protocol lives in `edihub-as2`, the decision on each message in
//! `edihub-inbound`, the journal transaction in `edihub-journal`.

mod answer;
mod connection;
mod entry;
mod error;
mod routes;
mod serve;
mod slots;
mod trace;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::post;
use edihub_config::{DatabaseSettings, GatewaySettings, KafkaSettings};
use edihub_inbound::Policy;
use edihub_journal::AcceptQueue;
use edihub_mdn_delivery::MdnPoster;
use edihub_outbox::{Relay, channels};
use edihub_partners::live::LiveDirectory;
use serde::Deserialize;
use slots::PartnerSlots;
use sqlx::PgPool;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The gateway's settings (see the README for the file format and variables).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub gateway: GatewaySettings,
    /// Only the topic names are used here: the outbox row records where it goes.
    pub kafka: KafkaSettings,
}

/// Shared by every request.
pub struct AppState {
    pub pool: PgPool,
    /// Where accepted messages are committed, batched with concurrent ones.
    pub journal: AcceptQueue,
    pub settings: Settings,
    /// What the decision on each message takes from the settings.
    policy: Arc<Policy>,
    /// The hub's identities and the partnerships (settings file and database), kept
    /// current by a reload task.
    directory: Arc<LiveDirectory>,
    /// Per-partner request allowances (`gateway.max_concurrent_per_partner`).
    slots: PartnerSlots,
}

pub struct Application {
    listener: TcpListener,
    router: Router,
    /// Delivers asynchronous MDNs (outbox channel `as2-mdn`) while the gateway runs.
    mdn_relay: Relay<MdnPoster>,
    directory: Arc<LiveDirectory>,
    pool: PgPool,
    reload_interval: Duration,
    /// Request heads longer than this are not unfolded (hyper refuses them anyway).
    max_head_bytes: usize,
}

impl Application {
    /// Binds the listener (port 0 picks a free one) and builds the pool (lazily
    /// connected: the gateway starts while the database is down and answers 503).
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let pool = edihub_db::pool(&settings.database)?;
        Self::build_with_pool(settings, pool).await
    }

    /// Fails when a key or certificate file named in the settings cannot be read or
    /// does not parse, so a misconfigured gateway never starts accepting.
    pub async fn build_with_pool(settings: Settings, pool: PgPool) -> anyhow::Result<Self> {
        let directory = Arc::new(LiveDirectory::new(&settings.gateway)?);
        // The database's partners before the first request when the database is up;
        // when it is not, the reload task keeps trying (file partners work meanwhile).
        if let Err(error) = directory.reload(&pool).await {
            tracing::warn!(%error, "partners from the database not loaded yet");
        }
        let listener = TcpListener::bind(&settings.gateway.listen).await?;
        let async_mdn = &settings.gateway.async_mdn;
        let client = edihub_mdn_delivery::http_client(Duration::from_millis(async_mdn.timeout_ms))?;
        let mdn_relay = Relay::for_channel(
            pool.clone(),
            MdnPoster::new(pool.clone(), client),
            async_mdn.retry.clone(),
            channels::AS2_MDN,
        );
        let slots = PartnerSlots::new(settings.gateway.max_concurrent_per_partner);
        let reload_interval = Duration::from_millis(settings.gateway.partner_reload_ms);
        // hyper's own head limit is about 400 KiB; past that, unfolding is moot.
        let max_head_bytes = settings.gateway.max_header_bytes.max(64 * 1024) * 2;
        let journal = AcceptQueue::start(
            pool.clone(),
            settings.gateway.journal_writers,
            settings.gateway.journal_batch,
        );
        let policy = Arc::new(Policy {
            hub_as2_id: settings.gateway.hub_as2_id.clone(),
            max_decompressed_bytes: settings.gateway.max_decompressed_bytes,
        });
        let router = router(Arc::new(AppState {
            pool: pool.clone(),
            journal,
            settings,
            policy,
            directory: Arc::clone(&directory),
            slots,
        }));
        Ok(Self {
            listener,
            router,
            mdn_relay,
            directory,
            pool,
            reload_interval,
            max_head_bytes,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Serves until `shutdown`, then lets in-flight requests finish. Asynchronous MDNs
    /// are delivered meanwhile; a delivery cut short by shutdown is retried by the next
    /// gateway to run (its row stays PENDING).
    pub async fn run_until_stopped(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let relay_shutdown = shutdown.clone();
        let mdn_relay = self.mdn_relay;
        let deliveries = async move {
            // `run` fails only when it cannot LISTEN (database down): the rows wait in
            // the outbox, so try again until the database is back or we stop.
            while let Err(error) = mdn_relay.run(relay_shutdown.clone()).await {
                tracing::error!(%error, "async MDN delivery interrupted; retrying in 5 s");
                tokio::select! {
                    _ = relay_shutdown.cancelled() => break,
                    _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                }
            }
        };
        let directory = Arc::clone(&self.directory);
        let (pool, interval) = (self.pool.clone(), self.reload_interval);
        let reload_shutdown = shutdown.clone();
        let reloads = async move { directory.run(&pool, interval, reload_shutdown).await };
        let server = serve::serve(self.listener, self.router, self.max_head_bytes, shutdown);
        let (served, (), ()) = tokio::join!(server, deliveries, reloads);
        served
    }
}

pub fn router(state: Arc<AppState>) -> Router {
    let limit = state.settings.gateway.max_body_bytes;
    // Ready when the database answers: without it no message can be accepted.
    let probe = edihub_metrics::probe_with(state.pool.clone(), |pool| async move {
        edihub_db::is_reachable(&pool).await
    });
    Router::new()
        .route("/as2", post(routes::receive))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
        .merge(edihub_metrics::routes(probe))
}
