//! The invoice numbers (BT-1) an interchange carries, for the archive's search columns
//! and evidence.json; read with the same evaluation the transform runs.

use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{self, Options};

/// What the payload says of its invoices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvoiceNumbers {
    /// BT-1 of each INVOIC that mapped, in order.
    pub numbers: Vec<String>,
    /// Why there may be fewer than the interchange holds, when it has faults.
    pub remark: Option<String>,
}

/// The charset policy the gateway published with the message (tolerant when absent).
pub fn charset_policy(published: Option<edihub_events::CharsetPolicy>) -> CharsetPolicy {
    match published.unwrap_or_default() {
        edihub_events::CharsetPolicy::Strict => CharsetPolicy::Strict,
        edihub_events::CharsetPolicy::Tolerant => CharsetPolicy::Tolerant,
    }
}

/// Evaluates `payload` and collects each mapped invoice's number. CPU work: callers on
/// an async runtime run it on the blocking pool.
pub fn invoice_numbers(payload: &[u8], charset: CharsetPolicy) -> InvoiceNumbers {
    let mut numbers = Vec::new();
    let report = check::evaluate_each_with(payload, &Options { charset }, &mut |message| {
        if let Some(invoice) = message.invoice {
            numbers.push(invoice.invoice_number);
        }
    });
    if report.header.is_none() {
        numbers.clear();
    }
    let remark = if report.header.is_none() {
        Some("payload is not a readable EDIFACT interchange: no invoice numbers".to_owned())
    } else if !report.faults.is_empty() {
        Some(format!(
            "the interchange has {} fault(s): invoice numbers are those of the INVOIC messages that mapped",
            report.faults.len()
        ))
    } else {
        None
    };
    InvoiceNumbers { numbers, remark }
}

#[cfg(test)]
mod tests;
