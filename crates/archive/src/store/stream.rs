//! Reading an object without holding it: its declared length first, then its body chunk
//! by chunk, so a large original costs one chunk of memory, not its size.

use super::{ArchiveStore, StoreError, s3_error};
use aws_sdk_s3::primitives::ByteStream;
use futures::Stream;

/// An object version being read: `size` is what S3 declared (Content-Length); the body
/// may still end early or run long, which the reader must check.
pub struct ObjectStream {
    pub size: u64,
    body: ByteStream,
}

impl ObjectStream {
    /// The body's chunks as they arrive.
    pub fn chunks(self) -> impl Stream<Item = Result<impl AsRef<[u8]>, StoreError>> {
        futures::stream::try_unfold(self.body, |mut body| async move {
            let chunk = body
                .try_next()
                .await
                .map_err(|e| s3_error("GetObject body", e))?;
            Ok(chunk.map(|chunk| (chunk, body)))
        })
    }
}

impl ArchiveStore {
    /// Starts reading one object version. Fails without a Content-Length: the size has
    /// to be known before the first byte (a tar header comes before its data).
    pub async fn get_stream(
        &self,
        key: &str,
        version_id: Option<&str>,
    ) -> Result<ObjectStream, StoreError> {
        let output = self.get_object(key, version_id).await?;
        let size = output
            .content_length()
            .and_then(|length| u64::try_from(length).ok())
            .ok_or_else(|| StoreError::NoContentLength(key.to_owned()))?;
        Ok(ObjectStream {
            size,
            body: output.body,
        })
    }
}
