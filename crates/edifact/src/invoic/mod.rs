//! INVOIC to the canonical invoice (EN 16931 semantic model).
//!
//! The canonical form is what downstream teams consume, so it names fields after EN 16931
//! business terms (BT-n) and keeps, for every value, the position of the segment it came
//! from ([`CanonicalInvoice::sources`]): a disputed amount can be traced back to the byte
//! in the archived original.
//!
//! Which qualifier carries which term differs between implementation guides (EANCOM puts
//! the invoice total in MOA+77 and the seller in NAD+SU, the CEN binding uses MOA+388 and
//! NAD+SE), so the mapping reads those choices from a small per-profile table
//! ([`profile`]).

mod map;
pub mod profile;
mod rules;
mod values;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Interchange, Message, SourcePosition};

/// Maps one INVOIC message with the interchange's decimal mark. Every mapping defect of
/// the message is returned (in segment order), not only the first one.
pub fn map_message(
    message: &Message,
    decimal_mark: u8,
) -> Result<CanonicalInvoice, Vec<MappingError>> {
    map::map_message(message, decimal_mark)
}

/// One canonical invoice per INVOIC message in the interchange. Follows the EN 16931
/// semantic model.
///
/// Messages of other types are skipped; an interchange with no INVOIC at all is
/// [`MappingErrorKind::NotAnInvoice`]. The first message that cannot be mapped fails the
/// whole interchange, because the hub accepts or rejects interchanges as a unit.
pub fn to_canonical(interchange: &Interchange) -> Result<Vec<CanonicalInvoice>, MappingError> {
    let decimal_mark = interchange.delimiters.decimal_mark;
    let invoices = interchange
        .messages
        .iter()
        .filter(|m| m.message_type == "INVOIC")
        .map(|m| map::map_message(m, decimal_mark).map_err(|mut errors| errors.swap_remove(0)))
        .collect::<Result<Vec<_>, _>>()?;
    if invoices.is_empty() {
        return Err(MappingError {
            kind: MappingErrorKind::NotAnInvoice(
                interchange
                    .messages
                    .first()
                    .map(|m| m.message_type.clone())
                    .unwrap_or_default(),
            ),
            position: interchange
                .messages
                .first()
                .and_then(|m| m.segments.first())
                .map(|s| s.position),
            element: None,
        });
    }
    Ok(invoices)
}

/// An invoice in the EN 16931 vocabulary. Amounts and quantities are decimal strings with
/// `.` as decimal mark and the sender's digits kept exactly (no floats, no rounding).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct CanonicalInvoice {
    /// UNH 0062.
    pub message_reference: String,
    /// The mapping profile used, e.g. `EANCOM-D96A` or `UN-D16B`.
    pub profile: String,
    /// BT-1, BGM 1004.
    pub invoice_number: String,
    /// BT-2, ISO `YYYY-MM-DD` from DTM+137.
    pub issue_date: String,
    /// BT-3, BGM 1001 (e.g. 380 commercial invoice, 381 credit note).
    pub type_code: String,
    /// BT-5, CUX 6345.
    pub currency: Option<String>,
    /// BG-4.
    pub seller: Party,
    /// BG-7.
    pub buyer: Party,
    /// BG-25.
    pub lines: Vec<Line>,
    /// BG-23, from TAX+7 groups in the summary section.
    pub vat_breakdown: Vec<VatBreakdown>,
    /// BG-20, document level allowances: ALC+A groups in the header section.
    #[serde(default)]
    pub allowances: Vec<AllowanceCharge>,
    /// BG-21, document level charges: ALC+C groups in the header section.
    #[serde(default)]
    pub charges: Vec<AllowanceCharge>,
    /// BG-22.
    pub totals: Totals,
    /// Business term (e.g. `BT-1`, `BG-25[0].BT-131`, `BG-20[0].BT-92`,
    /// `BG-25[1].BG-28[0].BT-141`) to the segment the value came from.
    pub sources: BTreeMap<String, SourcePosition>,
    /// Tags of segments whose content the mapping did not take, deduplicated in order of
    /// first appearance (a tag is listed if at least one of its segments was not used,
    /// e.g. `DTM` for a delivery date next to the mapped issue date).
    pub unmapped_segments: Vec<String>,
    /// Business rules of EN 16931 on the totals (BR-CO-10 to BR-CO-16) that the
    /// sender's figures break. These are *warnings*: the invoice is still published, and
    /// the receiving team decides (see [`Warning`] for why they do not reject).
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

/// A business rule the invoice's figures break.
///
/// Warnings rather than rejections, by design: which MOA qualifier carries which total
/// differs between implementation guides, and a mis-read qualifier on our side must not
/// bounce a partner's correct invoice. The rule, both figures and the segment of the
/// total that disagrees are kept so a person can decide quickly.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The EN 16931 rule id, e.g. `BR-CO-16`.
    pub rule: String,
    /// What disagrees, with both figures.
    pub message: String,
    /// The segment carrying the total that disagrees with the others.
    pub position: Option<SourcePosition>,
}

/// A trading party (NAD and the RFF+VA that follows it).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
pub struct Party {
    /// BT-29/BT-46, NAD C082 3039.
    pub id: Option<String>,
    /// Identifier scheme as ISO 6523 ICD: `0088` (GLN) for code list agency 9, or the
    /// code list qualifier (1131) when it already is an ICD, as in the CEN binding.
    pub scheme: Option<String>,
    /// BT-27/BT-44: party name (C080), or the name-and-address lines (C058) if that is all
    /// the sender gave.
    pub name: Option<String>,
    /// BT-31/BT-48: RFF+VA following the NAD.
    pub vat_id: Option<String>,
    /// BT-40/BT-55: NAD 3207.
    pub country: Option<String>,
}

/// One invoice line (BG-25), from a LIN group.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Line {
    /// BT-126, LIN 1082; the line's ordinal if the sender left 1082 empty.
    pub line_id: String,
    /// BT-157, LIN C212 7140 (item number, e.g. a GTIN).
    pub item_id: Option<String>,
    /// LIN C212 7143 (item number type, e.g. `EN`, `SRV`).
    pub item_id_type: Option<String>,
    /// BT-153, the IMD descriptions, joined with `"; "` when there are several.
    pub description: Option<String>,
    /// BT-129, QTY+47 (or the first QTY if none is qualified 47).
    pub quantity: Option<String>,
    /// BT-130, the QTY's unit code.
    pub unit_code: Option<String>,
    /// BT-131, MOA+203.
    pub net_amount: Option<String>,
    /// BT-146, PRI+AAA.
    pub net_price: Option<String>,
    /// BG-27, line allowances: ALC+A groups inside the LIN group.
    #[serde(default)]
    pub allowances: Vec<AllowanceCharge>,
    /// BG-28, line charges: ALC+C groups inside the LIN group.
    #[serde(default)]
    pub charges: Vec<AllowanceCharge>,
}

/// One allowance or charge, on document level (BG-20, BG-21) or on a line (BG-27,
/// BG-28), from an ALC segment group. Which business terms the fields are depends on
/// where it sits; the terms are named per field as document allowance / document charge /
/// line allowance / line charge.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
pub struct AllowanceCharge {
    /// BT-92 / BT-99 / BT-136 / BT-141: MOA in the ALC group (8, 204 or 23; EANCOM also
    /// 131), as the sender signed it.
    pub amount: Option<String>,
    /// BT-93 / BT-100 / BT-137 / BT-142: MOA+25 in the ALC group.
    pub base_amount: Option<String>,
    /// BT-94 / BT-101 / BT-138 / BT-143: PCD in the ALC group (5245 = 3, 1, 2 or 12).
    pub percentage: Option<String>,
    /// BT-95 / BT-102: TAX 5305 in the ALC group. EN 16931 has no such term on lines;
    /// a line ALC's TAX is kept here all the same.
    pub vat_category: Option<String>,
    /// BT-96 / BT-103: TAX C243 5278 in the ALC group.
    pub vat_rate: Option<String>,
    /// BT-97 / BT-104 / BT-139 / BT-144: ALC C214 7160 (both lines joined with a blank),
    /// or C552 1230 where the profile uses it for text (the CEN binding).
    pub reason: Option<String>,
    /// BT-98 / BT-105 / BT-140 / BT-145: ALC C552 5189 or C214 7161. For an allowance
    /// 5189 is preferred, for a charge 7161, as EN 16931 names those lists.
    pub reason_code: Option<String>,
    /// The code list `reason_code` is from: `UNCL5189` or `UNCL7161`.
    pub reason_code_list: Option<String>,
}

/// One VAT breakdown (BG-23).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct VatBreakdown {
    /// TAX C241 5153, normally `VAT`.
    pub tax_type: Option<String>,
    /// BT-118, TAX 5305 (e.g. `S`, `Z`, `E`).
    pub category: Option<String>,
    /// BT-119, TAX C243 5278.
    pub rate: Option<String>,
    /// BT-116, MOA+125 in the TAX group.
    pub taxable_amount: Option<String>,
    /// BT-117, MOA+124 in the TAX group.
    pub tax_amount: Option<String>,
}

/// Document totals (BG-22); which MOA qualifier feeds each one depends on the profile.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
pub struct Totals {
    /// BT-106, sum of line net amounts.
    pub line_extension: Option<String>,
    /// BT-107, sum of document-level allowances (MOA+260).
    #[serde(default)]
    pub allowance_total: Option<String>,
    /// BT-108, sum of document-level charges (MOA+259; EANCOM MOA+131 is charges net of
    /// allowances, and the rules read it so).
    #[serde(default)]
    pub charge_total: Option<String>,
    /// BT-109, total without VAT.
    pub tax_exclusive: Option<String>,
    /// BT-110, total VAT.
    pub tax_total: Option<String>,
    /// BT-112, total with VAT.
    pub tax_inclusive: Option<String>,
    /// BT-113, amount already paid.
    #[serde(default)]
    pub prepaid: Option<String>,
    /// BT-114, rounding amount.
    #[serde(default)]
    pub rounding: Option<String>,
    /// BT-115, amount due for payment.
    pub amount_due: Option<String>,
}

/// Why a message could not be mapped.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub struct MappingError {
    /// What is wrong.
    pub kind: MappingErrorKind,
    /// The segment at fault, where there is one.
    pub position: Option<SourcePosition>,
    /// The data element at fault inside that segment, where the fault is one value's.
    pub element: Option<crate::ElementPosition>,
}

impl std::fmt::Display for MappingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(p) = self.position {
            write!(f, " at segment {} (byte offset {})", p.segment, p.offset)?;
        }
        Ok(())
    }
}

/// The kinds of mapping failure; all are the sender's fault.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MappingErrorKind {
    /// The interchange holds no INVOIC message (the type found is given).
    #[error("not an invoice (message type {0:?})")]
    NotAnInvoice(String),
    /// A segment the canonical invoice cannot do without, e.g. `BGM` or `DTM+137`.
    #[error("missing segment {0}")]
    MissingSegment(&'static str),
    /// BGM has no document number (BT-1).
    #[error("BGM has no document number")]
    MissingDocumentNumber,
    /// BGM has no document name code (BT-3).
    #[error("BGM has no document type code")]
    MissingDocumentType,
    /// A date that is not a calendar date in the declared format.
    #[error("invalid date {value:?} for format {format:?}")]
    InvalidDate { value: String, format: String },
    /// An amount, quantity or rate that is not a decimal number with the declared mark.
    #[error("invalid number {0:?}")]
    InvalidAmount(String),
}
