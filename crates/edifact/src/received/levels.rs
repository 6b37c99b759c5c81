//! What a CONTRL says about the levels below the interchange: groups (UCF) and
//! messages (UCM), each with its own action and errors.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Action, ReportedError};
use crate::SourcePosition;

/// An interchange party or application as a CONTRL names it (S002, S003, S006, S007).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Party {
    /// The identification (0004, 0010, 0040 or 0044).
    pub id: String,
    /// Its code qualifier (0007), e.g. `14` for a GLN.
    pub qualifier: Option<String>,
}

/// One UCF: a functional group of the acknowledged interchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AcknowledgedGroup {
    /// UCF 0048: UNG 0048 of the acknowledged group.
    pub reference: String,
    /// UCF S006: UNG's application sender.
    pub application_sender: Option<Party>,
    /// UCF S007: UNG's application recipient.
    pub application_recipient: Option<Party>,
    /// UCF 0083, made `partially-accepted` when the group is accepted and one of its
    /// messages is not.
    pub action: Action,
    /// UCF's own error (on UNG or UNE), if any.
    #[serde(default)]
    pub errors: Vec<ReportedError>,
    /// Where the UCF is in the acknowledgement.
    pub position: SourcePosition,
}

/// One UCM: a message of the acknowledged interchange, with its UCS and UCD errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AcknowledgedMessage {
    /// UCM 0062: UNH 0062 of the acknowledged message.
    pub reference: String,
    /// UCM S009/0065, e.g. `INVOIC`.
    pub message_type: Option<String>,
    /// S009/0052, e.g. `D`.
    pub version: Option<String>,
    /// S009/0054, e.g. `96A`.
    pub release: Option<String>,
    /// S009/0051, e.g. `UN`.
    pub agency: Option<String>,
    /// S009/0057, e.g. `EAN008`.
    pub association_code: Option<String>,
    /// UCF 0048 of the group the UCM follows (segment group 3 of CONTRL); `None` for a
    /// message outside groups.
    pub group_reference: Option<String>,
    /// UCM 0083.
    pub action: Action,
    /// UCM's own error (on UNH or UNT) first, then one per UCS and UCD, in order.
    #[serde(default)]
    pub errors: Vec<ReportedError>,
    /// Where the UCM is in the acknowledgement.
    pub position: SourcePosition,
}
