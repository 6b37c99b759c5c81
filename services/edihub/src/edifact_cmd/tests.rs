use super::*;

const SAMPLE: &str = include_str!("../../../../fixtures/edifact/invoic-eancom-d96a.edi");

fn printed(input: &str) -> String {
    let mut out = Vec::new();
    let mut tally = Tally::default();
    let report = check::evaluate_each_with(input.as_bytes(), &Options::default(), &mut |m| {
        tally.add(&m)
    });
    print_check(Path::new("f.edi"), &report, &tally, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn check_prints_every_fault_with_its_position() {
    let input = SAMPLE
        .replace("UNT+34+1", "UNT+33+1")
        .replace("MOA+9:267.75", "MOA+9:26O");
    let text = printed(&input);
    let moa = input.find("MOA+9:26O").unwrap();
    let unt = input.find("UNT+33").unwrap();
    assert!(
        text.contains(&format!(
            "f.edi: error: segment 31 (byte {moa}), element 1:2: [mapping] invalid number \"26O\" (message 1)"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "f.edi: error: segment 35 (byte {unt}): [syntax] UNT declares 33"
        )),
        "{text}"
    );
    assert!(
        text.ends_with("f.edi: rejected: 2 fault(s), 0 warning(s)\n"),
        "{text}"
    );
}

#[test]
fn check_contrl_prints_the_contrl_or_why_there_is_none() {
    let params = ContrlParams {
        interchange_reference: "PREVIEW".into(),
        message_reference: "1".into(),
        prepared: Prepared {
            year: 2026,
            month: 12,
            day: 2,
            hour: 14,
            minute: 0,
        },
    };
    let print = |input: &str| {
        let mut out = Vec::new();
        let report = check::evaluate(input.as_bytes());
        print_contrl(Path::new("f.edi"), &report, &params, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    let acked = SAMPLE.replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'");
    let text = print(&acked);
    assert!(
        text.starts_with("f.edi: CONTRL (accepted):\nUNA:+.? 'UNB+"),
        "{text}"
    );
    assert!(text.contains("+261202:1400+PREVIEW'"), "{text}");
    assert!(text.ends_with("UNZ+1+PREVIEW'\n"), "{text}");
    assert_eq!(
        print(SAMPLE),
        "f.edi: no CONTRL: UNB does not ask for an acknowledgement (0031)\n"
    );
}

#[test]
fn check_prints_warnings_and_accepts() {
    let text = printed(&SAMPLE.replace("MOA+79:225.00", "MOA+79:225.50"));
    assert!(text.contains("warning: segment 27"), "{text}");
    assert!(text.contains("[BR-CO-10]"), "{text}");
    assert!(
        text.ends_with("accepted: 1 invoice(s), 1 message(s), 2 warning(s)\n"),
        "{text}"
    );
}
