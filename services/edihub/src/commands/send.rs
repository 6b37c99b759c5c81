//! `edihub send`: a file sent to a hub as a partner's AS2 software would, and its MDN
//! checked.

use anyhow::{Context, bail};
use edihub_as2::receipt::check_receipt;
use edihub_as2::{
    Encryption, Identity, Mic, MicAlg, PlainMessageSpec, SecureMessageSpec, VerifiedMdn,
};
use std::path::PathBuf;
use uuid::Uuid;

/// What `edihub send` sends, from where to where.
#[derive(clap::Args, Debug, Clone)]
pub struct SendArgs {
    pub file: PathBuf,
    /// The hub's AS2 endpoint.
    #[arg(
        long,
        env = "EDIHUB_AS2_URL",
        default_value = "http://127.0.0.1:8080/as2"
    )]
    pub url: String,
    /// Our AS2 name (the partner's).
    #[arg(long, default_value = "ACME-SUPPLIER")]
    pub from: String,
    /// The hub's AS2 name.
    #[arg(long, default_value = "EDIHUB")]
    pub to: String,
    /// Message-ID to send (default: a fresh one). Reuse one to test resends.
    #[arg(long)]
    pub message_id: Option<String>,
    #[arg(long, default_value = "application/edifact")]
    pub content_type: String,
    #[command(flatten)]
    pub security: SendSecurity,
}

/// The S/MIME options of `edihub send`: the same choices a partner's AS2 software offers.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SendSecurity {
    /// Sign with this digest (sha1, sha224, sha256, sha384, sha512). Needs --key and --cert.
    #[arg(long, value_parser = parse_mic_alg)]
    pub sign: Option<MicAlg>,
    /// Encrypt to the hub with this cipher (3des, aes128, aes192, aes256; aes128-gcm and
    /// aes256-gcm make authenticated enveloped data). Needs --hub-cert.
    #[arg(long, value_parser = parse_encryption)]
    pub encrypt: Option<Encryption>,
    /// Compress the content (RFC 5402) before signing.
    #[arg(long)]
    pub compress: bool,
    /// Ask for a signed MDN whose MIC uses this digest, and verify its signature against
    /// --hub-cert. Needs --hub-cert.
    #[arg(long, value_parser = parse_mic_alg)]
    pub signed_mdn: Option<MicAlg>,
    /// Our private key (PEM), to sign with.
    #[arg(long)]
    pub key: Option<PathBuf>,
    /// Our certificate (PEM), sent with the signature.
    #[arg(long)]
    pub cert: Option<PathBuf>,
    /// The hub's certificate (PEM): what we encrypt to and verify signed MDNs with.
    #[arg(long)]
    pub hub_cert: Option<PathBuf>,
}

fn parse_mic_alg(s: &str) -> Result<MicAlg, String> {
    MicAlg::parse(s)
        .ok_or_else(|| format!("unknown digest {s:?} (sha1, sha224, sha256, sha384, sha512)"))
}

fn parse_encryption(s: &str) -> Result<Encryption, String> {
    Encryption::parse(s).ok_or_else(|| {
        format!("unknown cipher {s:?} (3des, aes128, aes192, aes256, aes128-gcm, aes256-gcm)")
    })
}

fn read_file(path: &std::path::Path, what: &str) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {what} {}", path.display()))
}

pub async fn send(args: SendArgs) -> anyhow::Result<()> {
    let payload =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let message_id = args
        .message_id
        .unwrap_or_else(|| format!("{}@{}", Uuid::now_v7(), args.from));
    let security = &args.security;
    let identity = match (&security.key, &security.cert) {
        (Some(key), Some(cert)) => Some(
            Identity::from_pem(&read_file(cert, "certificate")?, &read_file(key, "key")?)
                .context("our signing identity")?,
        ),
        (None, None) => None,
        _ => bail!("--key and --cert go together"),
    };
    let hub_certificates = match &security.hub_cert {
        Some(path) => edihub_as2::certificates_from_pem(&read_file(path, "hub certificate")?)
            .context("the hub's certificate")?,
        None => Vec::new(),
    };
    let sign = match (security.sign, &identity) {
        (Some(alg), Some(identity)) => Some((identity, alg)),
        (Some(_), None) => bail!("--sign needs --key and --cert"),
        (None, _) => None,
    };
    let encrypt = match (security.encrypt, hub_certificates.first()) {
        (Some(cipher), Some(certificate)) => Some((certificate, cipher)),
        (Some(_), None) => bail!("--encrypt needs --hub-cert"),
        (None, _) => None,
    };
    if security.signed_mdn.is_some() && hub_certificates.is_empty() {
        bail!("--signed-mdn needs --hub-cert to verify the MDN's signature");
    }
    let boundary = format!("----=_edihub_send_{}", Uuid::new_v4().simple());
    let built = edihub_as2::build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: &args.from,
            as2_to: &args.to,
            message_id: &message_id,
            subject: "EDI message",
            content_type: &args.content_type,
            payload: &payload,
            request_mdn_to: Some("edihub-cli"),
            request_signed_mdn: security.signed_mdn,
        },
        compress: security.compress,
        sign,
        encrypt,
        boundary: &boundary,
        now_unix: chrono::Utc::now().timestamp(),
    })
    .context("building the message")?;
    let sent = built.sent_message();
    let client = reqwest::Client::new();
    let mut request = client.post(&args.url);
    for (name, value) in &built.message.headers {
        request = request.header(name, value);
    }
    let response = request
        .body(built.message.body)
        .send()
        .await
        .with_context(|| format!("posting to {}", args.url))?;
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = response.bytes().await?;
    println!("AS2 Message-ID: {message_id}");
    println!("HTTP status:    {status}");
    if !status.is_success() {
        bail!(
            "the hub answered {status}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let read =
        edihub_as2::read_mdn(&content_type, &body, &hub_certificates).context("reading the MDN")?;
    print_mdn(&read);
    // RFC 4130 section 7.3.1, as `check_receipt` applies it: the MIC in the algorithm
    // the hub names when we accept it, none needed in an unsigned MDN we did not ask to
    // be signed.
    let receipt = check_receipt(&sent, &read)?;
    match &receipt.mic {
        Some(mic) => println!("MIC verified ({})", mic.alg.as_str()),
        None => println!("No MIC (an unsigned MDN need not carry one)"),
    }
    if let Some(warning) = receipt.warning {
        println!("Warning: {}", warning.as_str());
    }
    Ok(())
}

/// Prints the hub's MDN as read.
fn print_mdn(read: &VerifiedMdn) {
    let mdn = &read.report;
    println!("--- MDN ---");
    println!(
        "Signature:              {}",
        if read.signed {
            "verified against the hub's certificate"
        } else {
            "(unsigned)"
        }
    );
    println!("Original-Message-ID:    {}", mdn.original_message_id);
    println!("Final-Recipient:        {}", mdn.final_recipient);
    println!(
        "Received-Content-MIC:   {}",
        mdn.received_content_mic
            .as_ref()
            .map(Mic::header_value)
            .unwrap_or_else(|| "(none)".into())
    );
    println!("Disposition:            {}", mdn.disposition.field_value());
    println!("{}", mdn.human_text);
}
