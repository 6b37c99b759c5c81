//! The first pass over an INVOIC: which segment plays which role.
//!
//! INVOIC has three sections: header (up to the first LIN), detail (LIN groups) and
//! summary (after UNS). The same tag means different things in each (a MOA+125 in the
//! summary is a document total, inside a summary TAX group it is the taxable amount of
//! one VAT rate), so the walk records segment indices per role and leaves building the
//! values to the second pass. Segment groups are not delimited in EDIFACT: a group ends
//! at the first tag that cannot belong to it, which is what [`NAD_GROUP`] and
//! [`ALC_GROUP`] list.

use crate::Segment;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Detail,
    Summary,
}

/// A header NAD and the RFF+VA of its group (indices into the message's segments).
pub(super) struct NadDraft {
    pub(super) nad: usize,
    pub(super) vat: Option<usize>,
}

#[derive(Default)]
pub(super) struct LineDraft {
    pub(super) lin: usize,
    pub(super) imd: Vec<usize>,
    pub(super) qty: Option<usize>,
    pub(super) moa: Option<usize>,
    pub(super) pri: Option<usize>,
    pub(super) alcs: Vec<AlcDraft>,
}

/// An ALC segment group: the ALC and the MOA, PCD and TAX segments of the group. MOAs
/// after the group's TAX belong to the TAX (its tax amount) and are not collected.
pub(super) struct AlcDraft {
    pub(super) alc: usize,
    pub(super) moas: Vec<usize>,
    pub(super) pcds: Vec<usize>,
    pub(super) tax: Option<usize>,
}

impl AlcDraft {
    fn new(alc: usize) -> Self {
        Self {
            alc,
            moas: Vec::new(),
            pcds: Vec::new(),
            tax: None,
        }
    }

    /// Takes segment `i` (tag `tag`) into the group.
    fn take(&mut self, i: usize, tag: &str) {
        match tag {
            "MOA" if self.tax.is_none() => self.moas.push(i),
            "PCD" => self.pcds.push(i),
            "TAX" if self.tax.is_none() => self.tax = Some(i),
            _ => {}
        }
    }
}

/// A summary TAX+7 group: the TAX and its taxable (MOA+125) and tax (MOA+124) amounts.
pub(super) struct VatDraft {
    pub(super) tax: usize,
    pub(super) taxable: Option<usize>,
    pub(super) tax_amount: Option<usize>,
}

/// Segments that may follow NAD inside its segment group (INVOIC SG2..SG5). Any other tag
/// ends the group, so an RFF+VA further down is not attributed to the party.
const NAD_GROUP: &[&str] = &["NAD", "LOC", "FII", "RFF", "DTM", "DOC", "CTA", "COM"];

/// Segments that may follow ALC inside its segment group (ALI, DTM and the QTY, PCD, MOA,
/// RTE and TAX subgroups with their RNG and MOA). Any other tag ends the group.
const ALC_GROUP: &[&str] = &["ALI", "DTM", "QTY", "RNG", "PCD", "MOA", "RTE", "TAX"];

/// What the walk found, as indices into the message's segments.
#[derive(Default)]
pub(super) struct Drafts {
    pub(super) bgm: Option<usize>,
    /// DTM+137.
    pub(super) issue_date: Option<usize>,
    pub(super) currency: Option<usize>,
    pub(super) nads: Vec<NadDraft>,
    pub(super) lines: Vec<LineDraft>,
    /// Header ALC groups: document level allowances and charges.
    pub(super) document_alcs: Vec<AlcDraft>,
    pub(super) vats: Vec<VatDraft>,
    /// Summary MOAs outside TAX groups: the candidates for the document totals.
    pub(super) summary_moas: Vec<usize>,
}

/// Walks `segments` (UNH..UNT of one message). Returns the drafts and, per segment,
/// whether the walk already knows it to be mapped; the second pass marks the rest.
pub(super) fn walk(segments: &[Segment<'_>]) -> (Drafts, Vec<bool>) {
    let mut walk = Walk {
        segments,
        used: vec![false; segments.len()],
        section: Section::Header,
        open_nad: None,
        in_tax_group: false,
        alc_open: false,
        drafts: Drafts::default(),
    };
    for i in 0..segments.len() {
        walk.segment(i);
    }
    (walk.drafts, walk.used)
}

struct Walk<'s> {
    segments: &'s [Segment<'s>],
    used: Vec<bool>,
    section: Section,
    /// The NAD group that is open, as an index into `drafts.nads`.
    open_nad: Option<usize>,
    /// A summary TAX+7 group is open: its MOAs are its amounts.
    in_tax_group: bool,
    /// An ALC group is open (in the header: the last of `document_alcs`; in the detail
    /// section: the last ALC of the last line; in the summary: one that is not mapped).
    alc_open: bool,
    drafts: Drafts,
}

impl Walk<'_> {
    fn segment(&mut self, i: usize) {
        let segment = &self.segments[i];
        let (tag, qualifier) = (segment.tag, segment.qualifier());
        if !NAD_GROUP.contains(&tag) {
            self.open_nad = None;
        }
        if !ALC_GROUP.contains(&tag) {
            self.alc_open = false;
        }
        if self.section == Section::Summary && tag != "MOA" {
            self.in_tax_group = false;
        }
        match tag {
            "UNH" | "UNT" => self.used[i] = true,
            // UNS+D opens the detail section, UNS+S the summary section.
            "UNS" => {
                self.section = if qualifier == Some("D") {
                    Section::Detail
                } else {
                    Section::Summary
                };
                self.used[i] = true;
            }
            // A LIN is always a line, even where a sender put UNS+S too early (seen in
            // generated BDEW skeletons): reading it as summary data would lose the line.
            "LIN" => {
                self.section = Section::Detail;
                self.drafts.lines.push(LineDraft {
                    lin: i,
                    ..LineDraft::default()
                });
                self.used[i] = true;
            }
            _ => match self.section {
                Section::Header => self.header(i, tag, qualifier),
                Section::Detail => self.detail(i, tag, qualifier),
                Section::Summary => self.summary(i, tag, qualifier),
            },
        }
    }

    /// Header section: document number, date, currency, parties and the document level
    /// allowances and charges.
    fn header(&mut self, i: usize, tag: &str, qualifier: Option<&str>) {
        let drafts = &mut self.drafts;
        match tag {
            "ALC" => {
                drafts.document_alcs.push(AlcDraft::new(i));
                self.alc_open = true;
            }
            _ if self.alc_open => {
                if let Some(alc) = drafts.document_alcs.last_mut() {
                    alc.take(i, tag);
                }
            }
            "BGM" if drafts.bgm.is_none() => {
                drafts.bgm = Some(i);
                self.used[i] = true;
            }
            "DTM" if drafts.issue_date.is_none() && qualifier == Some("137") => {
                drafts.issue_date = Some(i);
                self.used[i] = true;
            }
            "CUX" if drafts.currency.is_none() => {
                drafts.currency = Some(i);
                self.used[i] = true;
            }
            "NAD" => {
                drafts.nads.push(NadDraft { nad: i, vat: None });
                self.open_nad = Some(drafts.nads.len() - 1);
            }
            "RFF" if qualifier == Some("VA") => {
                if let Some(nad) = self.open_nad.and_then(|n| drafts.nads.get_mut(n)) {
                    nad.vat.get_or_insert(i);
                }
            }
            _ => {}
        }
    }

    /// Detail section: the segments of the last LIN group, and its ALC groups (line
    /// allowances and charges).
    fn detail(&mut self, i: usize, tag: &str, qualifier: Option<&str>) {
        let Some(line) = self.drafts.lines.last_mut() else {
            return;
        };
        if tag == "ALC" {
            line.alcs.push(AlcDraft::new(i));
            self.alc_open = true;
            return;
        }
        if self.alc_open {
            if let Some(alc) = line.alcs.last_mut() {
                alc.take(i, tag);
            }
            return;
        }
        let segments = self.segments;
        let slot = match (tag, qualifier) {
            ("IMD", _) => {
                line.imd.push(i);
                self.used[i] = true;
                None
            }
            // Prefer the invoiced quantity (47) over any other QTY.
            ("QTY", Some("47"))
                if line
                    .qty
                    .is_none_or(|q| segments[q].qualifier() != Some("47")) =>
            {
                Some(&mut line.qty)
            }
            ("QTY", _) if line.qty.is_none() => Some(&mut line.qty),
            ("MOA", Some("203")) if line.moa.is_none() => Some(&mut line.moa),
            ("PRI", Some("AAA")) if line.pri.is_none() => Some(&mut line.pri),
            _ => None,
        };
        if let Some(slot) = slot {
            if let Some(previous) = slot.replace(i) {
                self.used[previous] = false;
            }
            self.used[i] = true;
        }
    }

    /// Summary section: the VAT breakdown (TAX+7 groups) and the document totals.
    fn summary(&mut self, i: usize, tag: &str, qualifier: Option<&str>) {
        match tag {
            // Summary ALC groups restate allowance and charge amounts per type (EANCOM
            // SG50); their MOAs are not document totals. Left unmapped.
            "ALC" => self.alc_open = true,
            _ if self.alc_open => {}
            "TAX" if qualifier == Some("7") => {
                self.drafts.vats.push(VatDraft {
                    tax: i,
                    taxable: None,
                    tax_amount: None,
                });
                self.in_tax_group = true;
                self.used[i] = true;
            }
            "MOA" => {
                let vat = self.drafts.vats.last_mut().filter(|_| self.in_tax_group);
                let slot = match (vat, qualifier) {
                    (Some(v), Some("125")) if v.taxable.is_none() => Some(&mut v.taxable),
                    (Some(v), Some("124")) if v.tax_amount.is_none() => Some(&mut v.tax_amount),
                    _ => None,
                };
                match slot {
                    Some(slot) => {
                        *slot = Some(i);
                        self.used[i] = true;
                    }
                    None => self.drafts.summary_moas.push(i),
                }
            }
            _ => {}
        }
    }
}
