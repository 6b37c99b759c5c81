//! Mapping profiles: which qualifiers carry which EN 16931 term in one implementation
//! guide.
//!
//! Each table is deliberately small and explicit. Where a list holds several qualifiers,
//! they are tried in the listed order (priority), not in input order. To support another
//! guide, add a table and a rule in [`select`].

use crate::Message;

/// The qualifiers one profile uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileTable {
    /// NAD 3035 qualifiers for the seller (BG-4).
    pub seller: &'static [&'static str],
    /// NAD 3035 qualifiers for the buyer (BG-7).
    pub buyer: &'static [&'static str],
    /// MOA 5025 for BT-106, sum of line net amounts.
    pub line_extension: &'static [&'static str],
    /// MOA 5025 for BT-107, sum of allowances on document level.
    pub allowance_total: &'static [&'static str],
    /// MOA 5025 for BT-108, sum of charges on document level.
    pub charge_total: &'static [&'static str],
    /// MOA 5025 for BT-109, total without VAT.
    pub tax_exclusive: &'static [&'static str],
    /// MOA 5025 for BT-110, total VAT.
    pub tax_total: &'static [&'static str],
    /// MOA 5025 for BT-112, total with VAT.
    pub tax_inclusive: &'static [&'static str],
    /// MOA 5025 for BT-113, paid amount.
    pub prepaid: &'static [&'static str],
    /// MOA 5025 for BT-114, rounding amount.
    pub rounding: &'static [&'static str],
    /// MOA 5025 for BT-115, amount due.
    pub amount_due: &'static [&'static str],
}

/// EANCOM (GS1) INVOIC, e.g. D96A EAN008 and D01B EAN011: seller is NAD+SU, the invoice
/// total is MOA+77 (or MOA+86, message total, which many EANCOM senders use instead).
/// EANCOM has no separate allowance and charge totals in most guides; MOA+131 (net total
/// of charges and allowances) is read as BT-108, so a negative value there means net
/// allowances and BR-CO-13 still adds up.
pub const EANCOM: ProfileTable = ProfileTable {
    seller: &["SU"],
    buyer: &["BY"],
    line_extension: &["79"],
    allowance_total: &["260"],
    charge_total: &["259", "131"],
    tax_exclusive: &["125"],
    tax_total: &["176", "124"],
    tax_inclusive: &["77", "86"],
    prepaid: &["113"],
    rounding: &["366"],
    amount_due: &["9"],
};

/// The CEN/TS 16931-3-4 binding to UN/EDIFACT INVOIC D16B: seller is NAD+SE, totals use
/// MOA 389 (without VAT) and 388 (with VAT).
pub const CEN_D16B: ProfileTable = ProfileTable {
    seller: &["SE"],
    buyer: &["BY"],
    line_extension: &["79"],
    allowance_total: &["260"],
    charge_total: &["259"],
    tax_exclusive: &["389"],
    tax_total: &["176"],
    tax_inclusive: &["388"],
    prepaid: &["113"],
    rounding: &["366"],
    amount_due: &["9"],
};

/// Plain UN/EDIFACT INVOIC without a known guide: accepts both the EANCOM and the CEN
/// choices, preferring the UN code list meaning of each qualifier.
pub const UN_GENERIC: ProfileTable = ProfileTable {
    seller: &["SE", "SU"],
    buyer: &["BY"],
    line_extension: &["79"],
    allowance_total: &["260"],
    charge_total: &["259"],
    tax_exclusive: &["389", "125"],
    tax_total: &["176", "124"],
    tax_inclusive: &["388", "77", "86"],
    prepaid: &["113"],
    rounding: &["366"],
    amount_due: &["9"],
};

/// Chooses the profile from UNH S009: association code `EAN*` means EANCOM; directory
/// D16B (as release, or as code list directory version 0110 the way the CEN examples
/// declare it: `INVOIC:D:14B:UN::16B`) means the CEN binding; anything else is generic.
pub fn select(message: &Message) -> (String, &'static ProfileTable) {
    let directory = format!("{}{}", message.version, message.release);
    if message
        .association_code
        .as_deref()
        .is_some_and(|a| a.starts_with("EAN"))
    {
        return (format!("EANCOM-{directory}"), &EANCOM);
    }
    let code_list_version = message.segments.first().and_then(|unh| unh.component(1, 5));
    if message.agency == "UN" && (message.release == "16B" || code_list_version == Some("16B")) {
        return ("UN-D16B".to_owned(), &CEN_D16B);
    }
    (format!("{}-{directory}", message.agency), &UN_GENERIC)
}
