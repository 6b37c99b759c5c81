//! `OutboundStatusChanged`: where a message the hub sends to a partner stands.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Payload of `OutboundStatusChanged` on `edi.outbound.status`.
///
/// Published in the transaction of every change of an outbound message's state, under
/// the message's id as aggregate (the Kafka key), so a subscriber sees one message's
/// changes in the order they happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutboundStatusChanged {
    /// The hub's id of the outbound message (also the aggregate id and the Kafka key).
    pub outbound_id: Uuid,
    /// AS2-To: the partner.
    pub partner: String,
    /// AS2-From: the hub identity that sends.
    pub hub_as2_id: String,
    /// Our AS2 Message-ID, without angle brackets; the same across resends.
    pub as2_message_id: String,
    pub state: OutboundState,
    /// The state before this change; absent when the message was first queued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_state: Option<OutboundState>,
    /// POSTs made since the message was last queued.
    pub attempts: u32,
    /// Why it failed (or why it was sent again); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The MIC the partner's MDN reported (`<base64>, <alg>`), when delivered with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mic: Option<String>,
    pub changed_at: DateTime<Utc>,
    /// `ce_id` of the `OutboundRequested` that asked for the message; absent for the
    /// other sources (the CLI, CONTRLs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<Uuid>,
}

/// Where an outbound message stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutboundState {
    /// Waiting for the sender (first attempt or a retry).
    Queued,
    /// POSTed and accepted; its asynchronous MDN has not come back yet.
    Sent,
    /// The partner's MDN confirmed it (MIC matched), or it answered 2xx when no MDN was
    /// asked for.
    Delivered,
    /// The partner refused it, its MDN did not confirm it, or every attempt failed.
    Failed,
    /// An operator withdrew it before it was delivered.
    Cancelled,
}

impl OutboundState {
    pub const ALL: [OutboundState; 5] = [
        OutboundState::Queued,
        OutboundState::Sent,
        OutboundState::Delivered,
        OutboundState::Failed,
        OutboundState::Cancelled,
    ];

    /// The name used in the event, the database and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            OutboundState::Queued => "queued",
            OutboundState::Sent => "sent",
            OutboundState::Delivered => "delivered",
            OutboundState::Failed => "failed",
            OutboundState::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<OutboundState> {
        Self::ALL.into_iter().find(|state| state.as_str() == text)
    }
}

/// A state name that is none of [`OutboundState::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown outbound state {0:?} (queued, sent, delivered, failed, cancelled)")]
pub struct UnknownState(pub String);

impl TryFrom<String> for OutboundState {
    type Error = UnknownState;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        OutboundState::parse(&text).ok_or(UnknownState(text))
    }
}

impl std::str::FromStr for OutboundState {
    type Err = UnknownState;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OutboundState::parse(text).ok_or_else(|| UnknownState(text.to_owned()))
    }
}

impl std::fmt::Display for OutboundState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_by_name_as_serde_writes_them() {
        for state in OutboundState::ALL {
            assert_eq!(OutboundState::parse(state.as_str()), Some(state));
            let json = serde_json::to_value(state).unwrap();
            assert_eq!(json, state.as_str());
        }
        assert_eq!(OutboundState::parse("SENT"), None);
    }
}
