//! The parts of an acknowledgement that are not levels: errors (CONTRL 0085 with its
//! positions, APERAK ERC with its texts), references, texts, dates and APERAK's BGM.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SourcePosition;

/// One error an acknowledgement reports.
///
/// A CONTRL error has the ISO 9735 syntax error code (0085) and says where the fault
/// is: on a service segment (`segment_tag`, from UCI, UCF or UCM 0013), in a segment of
/// the message (`segment_position`, UCS 0096) and in one of its values (`element`,
/// S011). An APERAK error has the application error code (ERC 9321), the code list it
/// is from, and the FTX texts and RFF references that follow the ERC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReportedError {
    /// 0085 (CONTRL) or ERC 9321 (APERAK). `None` only for a CONTRL level that names a
    /// faulty segment or value without saying what is wrong with it.
    pub code: Option<String>,
    /// What a CONTRL's 0085 code means in the ISO 9735 code list, e.g. `invalid value`
    /// for 12; `None` for a code not in the list and for APERAK codes, whose lists are
    /// the partner's (`code_list`, `agency`).
    pub meaning: Option<String>,
    /// 0013: the service segment at fault (e.g. `UNT`, `UNZ`), from UCI, UCF or UCM.
    pub segment_tag: Option<String>,
    /// UCS 0096: the position of the faulty segment in its message, UNH = 1.
    pub segment_position: Option<u32>,
    /// S011: the faulty value in that segment.
    pub element: Option<ErroneousElement>,
    /// ERC 1131: the code list `code` is from.
    pub code_list: Option<String>,
    /// ERC 3055: the agency responsible for that list.
    pub agency: Option<String>,
    /// APERAK: the FTX texts following the ERC, in order.
    #[serde(default)]
    pub texts: Vec<Text>,
    /// APERAK: the RFF references following the ERC (segment group 4), e.g. the line in
    /// error.
    #[serde(default)]
    pub references: Vec<Reference>,
    /// Where the segment reporting the error (UCI, UCF, UCM, UCS, UCD or ERC) is in the
    /// acknowledgement.
    pub position: SourcePosition,
}

impl ReportedError {
    /// An error with only a code and the segment that reports it; the decoders fill in
    /// the rest.
    pub(super) fn at(code: Option<String>, position: SourcePosition) -> Self {
        Self {
            code,
            meaning: None,
            segment_tag: None,
            segment_position: None,
            element: None,
            code_list: None,
            agency: None,
            texts: Vec::new(),
            references: Vec::new(),
            position,
        }
    }
}

/// S011, data element identification: where the faulty value is in its segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErroneousElement {
    /// 0098: the data element's position in the segment, 1 = the first after the tag.
    pub element: u32,
    /// 0104: the component's position in the element, when the fault is one
    /// component's.
    pub component: Option<u32>,
    /// 0136 (syntax 4): the occurrence of a repeated element.
    pub occurrence: Option<u32>,
}

/// An RFF reference (C506).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    /// 1153, e.g. `ACW` (reference to previous message), `ON` (order number).
    pub qualifier: String,
    /// 1154, the reference itself.
    pub value: Option<String>,
    /// 1156, a line number inside the referenced document.
    pub line: Option<String>,
    /// The DTM segments following the RFF (e.g. 171, the reference's date).
    #[serde(default)]
    pub dates: Vec<DateTime>,
    /// Where the RFF is.
    pub position: SourcePosition,
}

/// A DTM (C507), as sent: the value is not interpreted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DateTime {
    /// 2005, e.g. `137` (document date).
    pub qualifier: String,
    /// 2380.
    pub value: Option<String>,
    /// 2379, e.g. `102` (CCYYMMDD).
    pub format: Option<String>,
}

/// An FTX free text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Text {
    /// 4451, the text subject, e.g. `AAO` (error description).
    pub subject: Option<String>,
    /// C107/4441, a coded text, where the partner sends one.
    pub code: Option<String>,
    /// C108/4440: the literal lines, joined with `\n` (empty when the text is coded
    /// only).
    pub text: String,
}

/// An APERAK's BGM, with the DTM and FTX segments of the message itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Document {
    /// C002/1001, the document name, e.g. `313` (message acknowledgement) or `305`.
    pub name_code: Option<String>,
    /// 1004, the APERAK's document number.
    pub number: Option<String>,
    /// 1225, the message function, e.g. `27` (not accepted), `29` (accepted without
    /// amendment).
    pub function_code: Option<String>,
    /// 4343, the response type, e.g. `AP` (accepted), `RE` (rejected).
    pub response_type: Option<String>,
    /// The message's DTM segments, outside references.
    #[serde(default)]
    pub dates: Vec<DateTime>,
    /// The message's FTX segments, outside error groups.
    #[serde(default)]
    pub texts: Vec<Text>,
    /// Where the BGM is.
    pub position: SourcePosition,
}
