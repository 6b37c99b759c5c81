//! How much decompression one inbound message may cost.

/// The decompression budget of one inbound message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnwrapLimits {
    /// The most the compressed layers of one message may inflate to, all layers together.
    pub max_decompressed_bytes: usize,
    /// A compressed layer may inflate to at most this many times its compressed size
    /// (EDIFACT compresses about 10:1; a bomb, a thousand and more), though always to
    /// [`EXPANSION_FLOOR`] bytes, so that a small message is never refused for it.
    pub max_expansion_ratio: usize,
}

/// What any compressed layer may inflate to, whatever the ratio (still within the total).
pub const EXPANSION_FLOOR: usize = 1024 * 1024;

impl Default for UnwrapLimits {
    fn default() -> Self {
        Self {
            max_decompressed_bytes: 256 * 1024 * 1024,
            max_expansion_ratio: 100,
        }
    }
}

/// Which limit bounds one compressed layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LayerLimit {
    /// What is left of the message's total.
    Total(usize),
    /// The expansion ratio times the layer's compressed size.
    Ratio(usize),
}

impl LayerLimit {
    pub(super) fn bytes(self) -> usize {
        match self {
            LayerLimit::Total(bytes) | LayerLimit::Ratio(bytes) => bytes,
        }
    }
}

impl UnwrapLimits {
    /// The limit for a compressed layer of `compressed_len` bytes, when `used` bytes of
    /// the total went to earlier layers.
    pub(super) fn layer(&self, compressed_len: usize, used: usize) -> LayerLimit {
        let left = self.max_decompressed_bytes.saturating_sub(used);
        let by_ratio = compressed_len
            .saturating_mul(self.max_expansion_ratio)
            .max(EXPANSION_FLOOR);
        if by_ratio < left {
            LayerLimit::Ratio(by_ratio)
        } else {
            LayerLimit::Total(left)
        }
    }
}
