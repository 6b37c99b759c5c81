//! Wiring of the AS2 gateway: settings, the partner port (HTTPS or plain HTTP), the
//! operations port, the pool, the routes.
//! The AS2 protocol lives in `edihub-as2`, the decision on each message in
//! `edihub-inbound`, the journal transaction in `edihub-journal`.

mod answer;
mod body;
mod connection;
mod connections;
mod entry;
mod error;
mod ready;
mod refusal_budget;
mod routes;
mod serve;
mod slots;
mod tls;
mod trace;
mod unfolding;

use anyhow::Context;
use axum::Router;
use axum::routing::post;
use body::BodyLimits;
use connections::ConnectionLimit;
use edihub_config::{DatabaseSettings, GatewaySettings, KafkaSettings};
use edihub_inbound::Policy;
use edihub_journal::AcceptQueue;
use edihub_mdn_delivery::MdnPoster;
use edihub_metrics::{OpsServer, Probe};
use edihub_outbox::{Relay, channels};
use edihub_partners::live::LiveDirectory;
use refusal_budget::RefusalBudget;
use serde::Deserialize;
use serve::Transport;
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
    /// How many refusals of unauthenticated requests are written to the database.
    refusal_budget: RefusalBudget,
    /// How much of a request body is read, and how fast it must come.
    body_limits: BodyLimits,
}

pub struct Application {
    listener: TcpListener,
    router: Router,
    transport: Transport,
    /// Keeps the TLS certificate current; `None` with plain HTTP.
    tls: Option<tls::Tls>,
    /// `/metrics`, `/health` and `/ready`, on `gateway.ops_listen`.
    ops: OpsServer,
    probe: Probe,
    /// Delivers asynchronous MDNs (outbox channel `as2-mdn`) while the gateway runs.
    mdn_relay: Relay<MdnPoster>,
    directory: Arc<LiveDirectory>,
    pool: PgPool,
    reload_interval: Duration,
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
        let tls = partner_port_security(&settings.gateway)?;
        let directory = Arc::new(LiveDirectory::new(&settings.gateway)?);
        // The database's partners before the first request when the database is up;
        // when it is not, the reload task keeps trying (file partners work meanwhile).
        if let Err(error) = directory.reload(&pool).await {
            tracing::warn!(%error, "partners from the database not loaded yet");
        }
        let listener = TcpListener::bind(&settings.gateway.listen).await?;
        let ops = OpsServer::bind(&settings.gateway.ops_listen)
            .await
            .with_context(|| format!("gateway.ops_listen {}", settings.gateway.ops_listen))?;
        let async_mdn = &settings.gateway.async_mdn;
        let clients = edihub_mdn_delivery::Clients::new(async_mdn)?;
        let mdn_relay = Relay::for_channel(
            pool.clone(),
            MdnPoster::new(pool.clone(), clients),
            async_mdn.retry.clone(),
            channels::AS2_MDN,
        );
        let slots = PartnerSlots::new(settings.gateway.max_concurrent_per_partner);
        let reload_interval = Duration::from_millis(settings.gateway.partner_reload_ms);
        let transport = Transport {
            tls: tls.as_ref().map(tls::Tls::acceptor),
            limit: ConnectionLimit::new(settings.gateway.max_connections),
            idle_timeout: Duration::from_millis(settings.gateway.idle_timeout_ms),
            // hyper's own head limit is about 400 KiB; past that, unfolding is moot.
            max_head_bytes: settings.gateway.max_header_bytes.max(64 * 1024) * 2,
        };
        let body_limits = BodyLimits::from_settings(&settings.gateway);
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
            // Enough for every refusal a working partner causes; a flood is cut to this.
            refusal_budget: RefusalBudget::new(20, 200),
            body_limits,
        }));
        Ok(Self {
            listener,
            router,
            transport,
            tls,
            ops,
            probe: ready::probe(pool.clone()),
            mdn_relay,
            directory,
            pool,
            reload_interval,
        })
    }

    /// Where `/metrics`, `/health` and `/ready` are served.
    pub fn ops_address(&self) -> Option<SocketAddr> {
        self.ops.address()
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
        let (tls, tls_shutdown) = (self.tls, shutdown.clone());
        let tls_reloads = async move {
            if let Some(tls) = tls {
                tracing::info!(certificate = %tls.certificate_path().display(), "serving HTTPS");
                tls.reload_until(tls_shutdown).await;
            }
        };
        let ops = self.ops.run(self.probe, shutdown.clone());
        let server = serve::serve(self.listener, self.router, self.transport, shutdown);
        let (served, ops, (), (), ()) = tokio::join!(server, ops, deliveries, reloads, tls_reloads);
        served.and(ops)
    }
}

/// HTTPS, unless the settings say plain HTTP; refuses to start with neither, or both.
fn partner_port_security(gateway: &GatewaySettings) -> anyhow::Result<Option<tls::Tls>> {
    match (&gateway.tls, gateway.plain_http) {
        (Some(settings), false) => Ok(Some(tls::Tls::load(settings)?)),
        (None, true) => Ok(None),
        (None, false) => anyhow::bail!(
            "the partner port needs gateway.tls (certificate and private_key, to serve HTTPS) \
             or gateway.plain_http = true (behind a TLS-terminating proxy)"
        ),
        (Some(_), true) => anyhow::bail!(
            "gateway.tls and gateway.plain_http are both set: serve either HTTPS or plain HTTP"
        ),
    }
}

/// The partner port's routes: `POST /as2` only (the operations routes are on
/// `gateway.ops_listen`). The route reads the body itself, within `body_limits`.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/as2", post(routes::receive))
        .with_state(state)
}
