//! One MIME entity as the S/MIME layers see it: its content type, its transfer encoding
//! and its body, split off the header block.

use crate::mime;

/// A MIME entity split into its content type, transfer encoding and body.
pub(super) struct Entity {
    pub(super) content_type: String,
    pub(super) transfer_encoding: Option<String>,
    pub(super) body: Vec<u8>,
}

pub(super) fn split_entity(bytes: &[u8]) -> Result<Entity, String> {
    let (fields, body_start) = mime::parse_fields(bytes, true)?;
    Ok(Entity {
        content_type: mime::field(&fields, "Content-Type")
            .unwrap_or("text/plain")
            .to_string(),
        transfer_encoding: mime::field(&fields, "Content-Transfer-Encoding").map(str::to_string),
        body: bytes.get(body_start..).unwrap_or_default().to_vec(),
    })
}

/// The MIME entity inside a layer. Some senders encrypt or compress the bare document,
/// without MIME headers: what does not start with a header block naming a Content-Type is
/// taken whole as an opaque payload, rather than read as headers (an EDIFACT line such as
/// `UNA:+.? '` would otherwise parse as a header and leave an empty body).
pub(super) fn inner_entity(bytes: &[u8]) -> Entity {
    match mime::parse_fields(bytes, true) {
        Ok((fields, _)) if mime::field(&fields, "Content-Type").is_some() => {
            split_entity(bytes).unwrap_or_else(|_| opaque(bytes))
        }
        _ => opaque(bytes),
    }
}

fn opaque(bytes: &[u8]) -> Entity {
    Entity {
        content_type: "application/octet-stream".to_string(),
        transfer_encoding: None,
        body: bytes.to_vec(),
    }
}
