//! Mapping profiles: which qualifiers carry which EN 16931 term in one implementation
//! guide, and which UNH message identifiers select which profile.
//!
//! Each table is deliberately small and explicit. Where a list holds several qualifiers,
//! they are tried in the listed order (priority), not in input order.
//!
//! The directories the hub knows ([`KNOWN`]) were compared for the qualifiers this
//! mapping reads (NAD 3035, MOA 5025, PCD 5245, ALC 5463, TAX 5305 and the ALC composites
//! C552/C214). The code values used are the same in D96A, D97A, D00A, D01B, D03B, D14B
//! and D16B; what differs is the *implementation guide's* choice among them (EANCOM's
//! MOA+77/NAD+SU against the CEN binding's MOA+388/NAD+SE, and the CEN binding's use of
//! C552 1230 for the reason text). So directories of one guide share one table, and the
//! selection by directory is explicit in [`KNOWN`] rather than implied by the tables. To
//! support another guide, add a table and a row.

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
    /// The qualifiers of [`ProfileTable::charge_total`] that carry charges *net of
    /// allowances* (EANCOM MOA+131, "total charges/allowances"). When BT-108 comes from
    /// one of these, the rules compare it with charges minus allowances.
    pub net_charge_total: &'static [&'static str],
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
    /// MOA 5025 in an ALC group for the allowance or charge amount (BT-92, BT-99, BT-136,
    /// BT-141): 8 allowance or charge amount, 204 allowance amount, 23 charge amount.
    pub alc_amount: &'static [&'static str],
    /// MOA 5025 in an ALC group for the base amount (BT-93, BT-100, BT-137, BT-142).
    pub alc_base: &'static [&'static str],
    /// PCD 5245 in an ALC group for the percentage (BT-94, BT-101, BT-138, BT-143).
    pub alc_percentage: &'static [&'static str],
    /// MOA 5025 that makes a line-level ALC group an item price discount (BT-147, part
    /// of the price details) rather than a line allowance: such groups are not mapped as
    /// BG-27 and stay in the unmapped list.
    pub price_discount: &'static [&'static str],
    /// ALC C552 1230 holds the reason as text (the CEN binding: `ALC+A+Discount:95`). In
    /// the UN directories and EANCOM it is an allowance or charge *number*, so the reason
    /// text is read from C214 7160 only.
    pub reason_text_in_1230: bool,
}

/// ALC qualifiers shared by every profile: the code values are the same in all
/// directories listed in [`KNOWN`].
const ALC_AMOUNT: &[&str] = &["8", "204", "23"];
const ALC_BASE: &[&str] = &["25"];
/// 1 allowance, 2 charge, 3 allowance or charge, 12 discount.
const ALC_PERCENTAGE: &[&str] = &["3", "1", "2", "12"];

/// EANCOM (GS1) INVOIC, D96A EAN008 and D01B EAN010/EAN011: seller is NAD+SU, the
/// invoice total is MOA+77 (or MOA+86, message total, which many EANCOM senders use
/// instead). EANCOM has no separate allowance and charge totals in most guides; MOA+131
/// (net total of charges and allowances) is read as BT-108 and flagged as net, so the
/// rules compare it with charges minus allowances. ALC amounts may also be MOA+131.
pub const EANCOM: ProfileTable = ProfileTable {
    seller: &["SU"],
    buyer: &["BY"],
    line_extension: &["79"],
    allowance_total: &["260"],
    charge_total: &["259", "131"],
    net_charge_total: &["131"],
    tax_exclusive: &["125"],
    tax_total: &["176", "124"],
    tax_inclusive: &["77", "86"],
    prepaid: &["113"],
    rounding: &["366"],
    amount_due: &["9"],
    alc_amount: &["8", "204", "23", "131"],
    alc_base: ALC_BASE,
    alc_percentage: ALC_PERCENTAGE,
    price_discount: &[],
    reason_text_in_1230: false,
};

/// The CEN/TS 16931-3-4 binding to UN/EDIFACT INVOIC (D16B code lists, as
/// `INVOIC:D:14B:UN::16B` or `INVOIC:D:16B:UN`): seller is NAD+SE, totals use MOA 389
/// (without VAT) and 388 (with VAT), allowance and charge totals MOA 260 and 259, the
/// reason text of an allowance or charge is ALC C552 1230, and a line ALC with MOA+509
/// is the item price discount.
pub const CEN: ProfileTable = ProfileTable {
    seller: &["SE"],
    buyer: &["BY"],
    line_extension: &["79"],
    allowance_total: &["260"],
    charge_total: &["259"],
    net_charge_total: &[],
    tax_exclusive: &["389"],
    tax_total: &["176"],
    tax_inclusive: &["388"],
    prepaid: &["113"],
    rounding: &["366"],
    amount_due: &["9"],
    alc_amount: ALC_AMOUNT,
    alc_base: ALC_BASE,
    alc_percentage: ALC_PERCENTAGE,
    price_discount: &["509"],
    reason_text_in_1230: true,
};

/// The former name of [`CEN`].
pub const CEN_D16B: ProfileTable = CEN;

/// Plain UN/EDIFACT INVOIC without a known guide (D96A, D97A, D00A, D03B and any other
/// directory): accepts both the EANCOM and the CEN choices, preferring the UN code list
/// meaning of each qualifier.
pub const UN_GENERIC: ProfileTable = ProfileTable {
    seller: &["SE", "SU"],
    buyer: &["BY"],
    line_extension: &["79"],
    allowance_total: &["260"],
    charge_total: &["259"],
    net_charge_total: &[],
    tax_exclusive: &["389", "125"],
    tax_total: &["176", "124"],
    tax_inclusive: &["388", "77", "86"],
    prepaid: &["113"],
    rounding: &["366"],
    amount_due: &["9"],
    alc_amount: ALC_AMOUNT,
    alc_base: ALC_BASE,
    alc_percentage: ALC_PERCENTAGE,
    price_discount: &[],
    reason_text_in_1230: false,
};

/// Which UNH S009 association code (0057) a row asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Association {
    /// One of these codes (EANCOM subset versions such as `EAN008`).
    OneOf(&'static [&'static str]),
    /// Any code that is not an EANCOM one (`EAN*`), or none.
    NotEancom,
}

/// One row of the selection table: UNH S009 values and the profile they select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileRow {
    /// S009 0052 and 0054 together, e.g. `D96A`.
    pub directory: &'static str,
    /// S009 0051.
    pub agency: &'static str,
    /// S009 0057.
    pub association: Association,
    /// S009 0110 (code list directory version), where the row requires one.
    pub code_list_version: Option<&'static str>,
    /// The profile name published in [`super::CanonicalInvoice::profile`].
    pub profile: &'static str,
    pub table: &'static ProfileTable,
}

const fn row(
    directory: &'static str,
    association: Association,
    code_list_version: Option<&'static str>,
    profile: &'static str,
    table: &'static ProfileTable,
) -> ProfileRow {
    ProfileRow {
        directory,
        agency: "UN",
        association,
        code_list_version,
        profile,
        table,
    }
}

/// The directories and guides the hub maps by name, first matching row wins. A message
/// that matches no row still maps: `EAN*` association codes with the EANCOM table, any
/// other with the generic UN table (see [`select_by`]).
pub const KNOWN: &[ProfileRow] = &[
    row(
        "D96A",
        Association::OneOf(&["EAN008"]),
        None,
        "EANCOM-D96A",
        &EANCOM,
    ),
    // EANCOM 2002 INVOIC is EAN010; syntax-4 editions of the same subset say EAN011.
    row(
        "D01B",
        Association::OneOf(&["EAN010", "EAN011"]),
        None,
        "EANCOM-D01B",
        &EANCOM,
    ),
    // The CEN examples declare the D14B message with the D16B code lists (0110 = 16B).
    row("D14B", Association::NotEancom, Some("16B"), "UN-D16B", &CEN),
    row("D16B", Association::NotEancom, None, "UN-D16B", &CEN),
    row("D14B", Association::NotEancom, None, "UN-D14B", &CEN),
    row("D96A", Association::NotEancom, None, "UN-D96A", &UN_GENERIC),
    row("D97A", Association::NotEancom, None, "UN-D97A", &UN_GENERIC),
    row("D00A", Association::NotEancom, None, "UN-D00A", &UN_GENERIC),
    row("D03B", Association::NotEancom, None, "UN-D03B", &UN_GENERIC),
];

/// Chooses the profile from the UNH S009 values (0052, 0054, 0051, 0057, 0110).
pub fn select_by(
    version: &str,
    release: &str,
    agency: &str,
    association: Option<&str>,
    code_list_version: Option<&str>,
) -> (String, &'static ProfileTable) {
    let directory = format!("{version}{release}");
    let eancom = association.is_some_and(|a| a.starts_with("EAN"));
    let known = KNOWN.iter().find(|row| {
        row.directory == directory
            && row.agency == agency
            && match row.association {
                Association::OneOf(codes) => association.is_some_and(|a| codes.contains(&a)),
                Association::NotEancom => !eancom,
            }
            && row
                .code_list_version
                .is_none_or(|v| code_list_version == Some(v))
    });
    match known {
        Some(row) => (row.profile.to_owned(), row.table),
        None if eancom => (format!("EANCOM-{directory}"), &EANCOM),
        None => (format!("{agency}-{directory}"), &UN_GENERIC),
    }
}

/// Chooses the profile for one message from its UNH (see [`select_by`] and [`KNOWN`]).
pub fn select(message: &Message) -> (String, &'static ProfileTable) {
    let code_list_version = message.segments.first().and_then(|unh| unh.component(1, 5));
    select_by(
        &message.version,
        &message.release,
        &message.agency,
        message.association_code.as_deref(),
        code_list_version,
    )
}

#[cfg(test)]
mod tests;
