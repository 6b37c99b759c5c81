//! Logging set-up: `RUST_LOG` filters (default `info`), `EDIHUB_LOG_FORMAT=json` for
//! structured lines in production.

use tracing_subscriber::EnvFilter;

pub fn init(service: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new(format!(
            "info,sqlx=warn,{}=debug",
            service.replace('-', "_")
        ))
    });
    let json = std::env::var("EDIHUB_LOG_FORMAT").is_ok_and(|v| v == "json");
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    // `try_init` so that tests which start several services in one process do not panic.
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
