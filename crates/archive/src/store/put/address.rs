//! Where a PUT goes: the object's URL from the S3 settings, as the SDK would address it.

use url::Url;

/// How the bucket's objects are addressed: the scheme, host and port of the endpoint,
/// and whether the bucket is in the path or in the host name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Address {
    /// `scheme://host[:port]` and, for path-style, `/bucket`; no trailing slash.
    prefix: String,
}

#[derive(Debug, thiserror::Error)]
pub enum AddressError {
    #[error("S3 endpoint {endpoint:?} is not a URL: {source}")]
    NotAUrl {
        endpoint: String,
        source: url::ParseError,
    },
    #[error("S3 endpoint {0:?} has no host, or is not http(s)")]
    NoHost(String),
    #[error("S3 endpoint {0:?} has a path, a query or credentials; give scheme, host and port")]
    NotABase(String),
    #[error("bucket {0:?} cannot be a host name label; set force_path_style")]
    BucketNotALabel(String),
}

impl Address {
    /// `endpoint` `None` is AWS's own regional endpoint. Virtual-hosted addressing puts the
    /// bucket in the host name, which needs a bucket name that is one DNS label.
    pub(crate) fn new(
        endpoint: Option<&str>,
        region: &str,
        bucket: &str,
        path_style: bool,
    ) -> Result<Self, AddressError> {
        let base = match endpoint {
            Some(endpoint) => endpoint_base(endpoint)?,
            None => format!("https://s3.{region}.amazonaws.com"),
        };
        let prefix = if path_style {
            format!("{base}/{}", encode(bucket))
        } else {
            if !is_host_label(bucket) {
                return Err(AddressError::BucketNotALabel(bucket.to_owned()));
            }
            let (scheme, authority) = base.split_once("://").unwrap_or(("https", &base));
            format!("{scheme}://{bucket}.{authority}")
        };
        Ok(Self { prefix })
    }

    /// The URL of `key`, each of its bytes outside S3's unreserved set percent-encoded
    /// once, as SigV4 for S3 canonicalises it.
    pub(crate) fn object_url(&self, key: &str) -> String {
        format!("{}/{}", self.prefix, encode(key))
    }
}

/// `scheme://host[:port]` of an endpoint, which may end in one slash.
fn endpoint_base(endpoint: &str) -> Result<String, AddressError> {
    let url = Url::parse(endpoint).map_err(|source| AddressError::NotAUrl {
        endpoint: endpoint.to_owned(),
        source,
    })?;
    let host = match url.host_str() {
        Some(host) if matches!(url.scheme(), "http" | "https") => host,
        _ => return Err(AddressError::NoHost(endpoint.to_owned())),
    };
    if url.path() != "/" || url.query().is_some() || !url.username().is_empty() {
        return Err(AddressError::NotABase(endpoint.to_owned()));
    }
    Ok(match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    })
}

/// Lower-case letters, digits and inner hyphens: a bucket name that is one DNS label
/// (a dotted name would not match a TLS certificate's wildcard).
fn is_host_label(bucket: &str) -> bool {
    !bucket.is_empty()
        && bucket.len() <= 63
        && !bucket.starts_with('-')
        && !bucket.ends_with('-')
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Percent-encodes every byte but `A-Z a-z 0-9 - . _ ~` and `/`.
fn encode(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(endpoint: Option<&str>, bucket: &str, path_style: bool, key: &str) -> String {
        Address::new(endpoint, "eu-west-1", bucket, path_style)
            .unwrap()
            .object_url(key)
    }

    #[test]
    fn path_style_puts_the_bucket_after_the_endpoint() {
        assert_eq!(
            url(Some("http://127.0.0.1:9000/"), "archive", true, "a/b.edi"),
            "http://127.0.0.1:9000/archive/a/b.edi"
        );
    }

    #[test]
    fn virtual_hosted_puts_the_bucket_in_the_host_name() {
        assert_eq!(
            url(Some("https://minio.example:9443"), "archive", false, "k"),
            "https://archive.minio.example:9443/k"
        );
        assert_eq!(
            url(None, "archive", false, "k"),
            "https://archive.s3.eu-west-1.amazonaws.com/k"
        );
        assert_eq!(
            url(None, "archive", true, "k"),
            "https://s3.eu-west-1.amazonaws.com/archive/k"
        );
    }

    #[test]
    fn a_key_is_encoded_once_outside_the_unreserved_set() {
        assert_eq!(
            url(None, "b", true, "x/a b+c=d~é.edi"),
            "https://s3.eu-west-1.amazonaws.com/b/x/a%20b%2Bc%3Dd~%C3%A9.edi"
        );
    }

    #[test]
    fn endpoints_and_buckets_that_cannot_address_an_object_are_refused() {
        let refused = |endpoint: Option<&str>, bucket: &str, path_style: bool| {
            Address::new(endpoint, "eu-west-1", bucket, path_style).unwrap_err()
        };
        assert!(matches!(
            refused(Some("127.0.0.1:9000"), "b", true),
            AddressError::NotAUrl { .. } | AddressError::NoHost(_)
        ));
        assert!(matches!(
            refused(Some("ftp://host"), "b", true),
            AddressError::NoHost(_)
        ));
        assert!(matches!(
            refused(Some("http://host/prefix"), "b", true),
            AddressError::NotABase(_)
        ));
        assert!(matches!(
            refused(None, "my.bucket", false),
            AddressError::BucketNotALabel(_)
        ));
    }
}
