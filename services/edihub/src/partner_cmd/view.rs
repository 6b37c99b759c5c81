//! A partnership as `partner add|update|show|list` print it: as text, or as JSON with
//! `--json`, with what an operator should know about it (warnings).

use edihub_as2::AlgorithmPolicy;
use edihub_partners::options;
use edihub_partners::store::{self, CertificateInfo, PartnerRow};
use serde_json::{Value, json};

/// One thing to know about a partnership: about one of its certificates, or about the
/// partnership itself (`certificate` is `None`).
pub struct Warning {
    pub kind: &'static str,
    pub certificate: Option<String>,
    pub message: String,
}

impl Warning {
    fn about_partnership(kind: &'static str, message: &str) -> Warning {
        Warning {
            kind,
            certificate: None,
            message: message.to_owned(),
        }
    }

    pub fn json(&self) -> Value {
        json!({ "kind": self.kind, "certificate": self.certificate, "message": self.message })
    }
}

pub struct PartnerView<'a> {
    pub row: &'a PartnerRow,
    pub certificates: Vec<CertificateInfo>,
    pub policy: AlgorithmPolicy,
    pub warnings: Vec<Warning>,
}

impl<'a> PartnerView<'a> {
    /// The partnership as of `now_unix`; `hub_key_known`: whether the CLI knows of a hub
    /// key that could decrypt its messages.
    pub fn new(
        row: &'a PartnerRow,
        now_unix: i64,
        hub_key_known: bool,
    ) -> anyhow::Result<PartnerView<'a>> {
        let policy = options::algorithms(row.min_rsa_bits()?, &row.digests, &row.ciphers)?;
        let certificates = store::describe_certificates(row)?;
        let mut warnings = partnership_warnings(row, certificates.is_empty(), hub_key_known);
        for warning in store::partner_warnings(row, now_unix)? {
            warnings.push(Warning {
                kind: warning.kind(),
                certificate: Some(warning.sha256().to_owned()),
                message: warning.to_string(),
            });
        }
        Ok(PartnerView {
            row,
            certificates,
            policy,
            warnings,
        })
    }

    /// Warns on stderr about everything [`Self::warnings`] lists.
    pub fn warn(&self) {
        for warning in &self.warnings {
            eprintln!("warning: partner {}: {}", self.row.as2_id, warning.message);
        }
    }

    pub fn json(&self) -> Value {
        let row = self.row;
        json!({
            "as2_id": row.as2_id,
            "name": row.name,
            "require_signature": row.require_signature,
            "require_encryption": row.require_encryption,
            "allow_expired_certificates": row.allow_expired_certificates,
            "async_mdn_urls": row.async_mdn_urls,
            "async_mdn_allowed_networks": row.async_mdn_allowed_networks,
            "tls_client_fingerprints": row.tls_client_fingerprints,
            "min_rsa_bits": self.policy.min_rsa_bits,
            "digests": self.policy.digests.iter().map(|d| d.as_str()).collect::<Vec<_>>(),
            "ciphers": self.policy.ciphers.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "outbound_tls": row.outbound_tls.0,
            "edifact_charset": row.edifact_charset,
            "retention_years": row.retention_years,
            "outbound": row.outbound.as_ref().map(|json| &json.0),
            "certificates": self.certificates.iter().map(certificate_json).collect::<Vec<_>>(),
            "warnings": self.warnings.iter().map(Warning::json).collect::<Vec<_>>(),
        })
    }

    pub fn print(&self) {
        let row = self.row;
        let list = |items: &[String]| {
            if items.is_empty() {
                "-".to_owned()
            } else {
                items.join(", ")
            }
        };
        println!("as2_id:                     {}", row.as2_id);
        println!(
            "name:                       {}",
            row.name.as_deref().unwrap_or("-")
        );
        println!(
            "signature:                  {}",
            requirement(row.require_signature)
        );
        println!(
            "encryption:                 {}",
            requirement(row.require_encryption)
        );
        println!(
            "allow expired certificates: {}",
            row.allow_expired_certificates
        );
        println!("async MDN URLs:             {:?}", row.async_mdn_urls);
        println!(
            "async MDN networks allowed: {}",
            list(&row.async_mdn_allowed_networks)
        );
        println!(
            "TLS client fingerprints:    {}",
            list(&row.tls_client_fingerprints)
        );
        println!(
            "minimum RSA key:            {} bits",
            self.policy.min_rsa_bits
        );
        println!("digests:                    {}", self.digests());
        println!("ciphers:                    {}", self.ciphers());
        println!("EDIFACT charset:            {}", row.edifact_charset);
        match row.retention_years {
            Some(years) => println!("archive retention:          {years} years"),
            None => println!("archive retention:          the hub's default (s3.retention_years)"),
        }
        let tls = &row.outbound_tls.0;
        println!("outbound TLS server:        {}", server_trust(&tls.server));
        match &tls.client {
            Some(c) => println!(
                "outbound TLS client:        {} (key {})",
                c.certificate.display(),
                c.private_key.display()
            ),
            None => println!("outbound TLS client:        -"),
        }
        print_outbound(row.outbound.as_ref().map(|json| &json.0));
        println!("certificates:               {}", self.certificates.len());
        for (i, c) in self.certificates.iter().enumerate() {
            let role = if i == 0 { " (encryption)" } else { "" };
            println!("  sha256 {}{role}", c.sha256);
            println!("    subject   {}", c.subject);
            println!("    valid     {} .. {}", c.not_before, c.not_after);
        }
        if !self.warnings.is_empty() {
            println!("warnings:");
        }
        for warning in &self.warnings {
            println!("  {}", warning.message);
        }
    }

    fn digests(&self) -> String {
        let names: Vec<_> = self.policy.digests.iter().map(|d| d.as_str()).collect();
        let all = self.row.digests.is_empty();
        format!(
            "{}{}",
            names.join(", "),
            if all { " (all known)" } else { "" }
        )
    }

    fn ciphers(&self) -> String {
        let names: Vec<_> = self.policy.ciphers.iter().map(|c| c.as_str()).collect();
        let all = self.row.ciphers.is_empty();
        format!(
            "{}{}",
            names.join(", "),
            if all { " (all known)" } else { "" }
        )
    }
}

pub fn requirement(required: bool) -> &'static str {
    if required { "required" } else { "optional" }
}

pub fn certificate_json(c: &CertificateInfo) -> Value {
    json!({
        "sha256": c.sha256,
        "subject": c.subject,
        "not_before": c.not_before,
        "not_after": c.not_after,
        "not_before_unix": c.not_before_unix,
        "not_after_unix": c.not_after_unix,
        "rsa_bits": c.rsa_bits,
    })
}

/// What the partnership's settings let through that a secure one would not.
fn partnership_warnings(row: &PartnerRow, no_certificate: bool, hub_key: bool) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if !row.require_signature {
        warnings.push(Warning::about_partnership(
            "unsigned_accepted",
            "accepts unsigned messages: anyone who knows its AS2 name can send as this partner",
        ));
    }
    if !row.require_encryption {
        warnings.push(Warning::about_partnership(
            "unencrypted_accepted",
            "accepts unencrypted messages: their content crosses the network readable",
        ));
    }
    if row.require_signature && no_certificate {
        warnings.push(Warning::about_partnership(
            "no_certificate",
            "requires signed messages but has no certificate: every message is refused",
        ));
    }
    if row.require_encryption && !hub_key {
        warnings.push(Warning::about_partnership(
            "no_hub_key",
            "requires encryption, but neither the database nor this settings file has a hub \
             key: encrypted messages can be read only if the gateway's settings name one \
             (gateway.hub_private_key)",
        ));
    }
    if let Some(outbound) = &row.outbound {
        warnings.extend(outbound_warnings(&outbound.0, hub_key));
    }
    warnings
}

/// What the outbound settings give up that the secure default would not.
fn outbound_warnings(
    outbound: &edihub_config::PartnerOutboundSettings,
    hub_key: bool,
) -> Vec<Warning> {
    let none = |field: &Option<String>| field.as_deref() == Some("none");
    let mut warnings = Vec::new();
    if none(&outbound.sign) {
        warnings.push(Warning::about_partnership(
            "outbound_unsigned",
            "sends unsigned messages: the partner cannot tell that they come from the hub",
        ));
    } else if !hub_key {
        warnings.push(Warning::about_partnership(
            "outbound_no_hub_key",
            "signs what it sends, but neither the database nor this settings file has a hub \
             key: nothing can be sent unless the gateway's settings name one",
        ));
    }
    if none(&outbound.encrypt) {
        warnings.push(Warning::about_partnership(
            "outbound_unencrypted",
            "sends unencrypted messages: their content crosses the network readable",
        ));
    }
    if none(&outbound.mdn) {
        warnings.push(Warning::about_partnership(
            "outbound_no_mdn",
            "asks for no MDN: a 2xx answer counts as delivered, without proof of receipt",
        ));
    }
    warnings
}

fn server_trust(trust: &edihub_outbound_tls::ServerTrust) -> String {
    use edihub_outbound_tls::ServerTrust;
    match trust {
        ServerTrust::System => "the platform's roots".to_owned(),
        ServerTrust::ExtraCa { ca_pem } => {
            let subjects: Vec<String> = store::read_certificates(ca_pem.as_bytes())
                .map(|cs| cs.into_iter().map(|c| c.subject).collect())
                .unwrap_or_default();
            format!("the platform's roots and CA {}", subjects.join("; "))
        }
        ServerTrust::Pinned { sha256 } => format!("pinned sha256 {}", sha256.join(", ")),
    }
}

/// The outbound setting as stored (normalised, so every field is there).
fn print_outbound(outbound: Option<&edihub_config::PartnerOutboundSettings>) {
    let Some(o) = outbound else {
        println!("outbound:                   - (the hub sends nothing)");
        return;
    };
    let text = |t: &Option<String>| t.clone().unwrap_or_else(|| "-".to_owned());
    let number = |n: Option<u64>| n.map_or("-".to_owned(), |n| n.to_string());
    println!("outbound URL:               {}", o.url);
    println!(
        "outbound as:                {}",
        o.hub_as2_id.as_deref().unwrap_or("the main hub identity")
    );
    println!("outbound sign:              {}", text(&o.sign));
    println!("outbound encrypt:           {}", text(&o.encrypt));
    println!("outbound compress:          {}", o.compress);
    println!(
        "outbound MDN:               {} (signed: {}){}",
        text(&o.mdn),
        text(&o.mdn_signed),
        o.async_mdn_url
            .as_ref()
            .map(|url| format!(" to {url}"))
            .unwrap_or_default()
    );
    println!(
        "outbound timeouts:          {} ms per POST, {} ms for an async MDN",
        number(o.timeout_ms),
        number(o.mdn_timeout_ms)
    );
    println!(
        "outbound attempts:          {} (backoff {} ms doubling to {} ms)",
        number(o.max_attempts.map(u64::from)),
        number(o.base_backoff_ms),
        number(o.max_backoff_ms)
    );
}
