//! What a partner's CONTRL or APERAK is matched by, on acknowledgements decoded from
//! small hand-written interchanges.

use super::*;
use edihub_edifact::{Interchange, received};

fn decoded(identifier: &str, body: &str) -> ReceivedAcknowledgement {
    let text = format!(
        "UNB+UNOC:3+PARTNER:14+HUB:14+261203:1015+PA1'UNH+ACK1+{identifier}'{body}UNT+9+ACK1'UNZ+1+PA1'"
    );
    let (mut interchange, _) = Interchange::parse_tolerant(text.as_bytes()).expect("parses");
    received::read(&interchange.messages.remove(0))
        .expect("an acknowledgement")
        .expect("readable")
}

#[test]
fn a_contrl_names_the_interchange_and_its_sender() {
    let ack = decoded("CONTRL:D:3:UN", "UCI+HB0001+HUB:14+PARTNER:14+7'");
    assert_eq!(
        subject(&ack),
        Some(Subject::Interchange {
            reference: "HB0001",
            sender: Some("HUB"),
        })
    );
}

#[test]
fn an_aperak_names_what_its_top_level_references_say() {
    let ack = decoded(
        "APERAK:D:96A:UN:EAN002",
        "BGM+305+AP1+9'RFF+IV:INV-42'DTM+171:20261203:102'ERC+11'RFF+ON:PO-7'",
    );
    // The ERC's own RFF says what the error is about, not what is acknowledged.
    assert_eq!(subject(&ack), Some(Subject::References(vec!["INV-42"])));
}

#[test]
fn an_aperak_without_references_names_nothing() {
    let ack = decoded("APERAK:D:96A:UN:EAN002", "BGM+305+AP1+9'");
    assert_eq!(subject(&ack), None);
}
