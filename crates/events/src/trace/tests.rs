use super::*;

const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[test]
fn parses_and_formats_a_version_00_value() {
    let parent = TraceParent::parse(VALID).expect("valid");
    assert_eq!(
        parent.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_eq!(parent.parent_id().to_string(), "00f067aa0ba902b7");
    assert!(parent.sampled());
    assert_eq!(parent.to_string(), VALID);
    let unsampled = VALID.replace("-01", "-00");
    assert!(!TraceParent::parse(&unsampled).expect("valid").sampled());
}

#[test]
fn refuses_invalid_versions() {
    for value in [
        VALID.replacen("00", "ff", 1),
        VALID.replacen("00", "0g", 1),
        VALID.replacen("00", "0A", 1),
        VALID.replacen("00", "-0", 1),
    ] {
        assert_eq!(
            TraceParent::parse(&value),
            Err(TraceParentError::Version),
            "{value}"
        );
    }
}

#[test]
fn refuses_all_zero_ids() {
    let zero_trace = format!("00-{}-00f067aa0ba902b7-01", "0".repeat(32));
    assert_eq!(
        TraceParent::parse(&zero_trace),
        Err(TraceParentError::TraceId)
    );
    let zero_parent = format!("00-4bf92f3577b34da6a3ce929d0e0e4736-{}-01", "0".repeat(16));
    assert_eq!(
        TraceParent::parse(&zero_parent),
        Err(TraceParentError::ParentId)
    );
    assert_eq!(TraceId::from_bytes([0; 16]), None);
    assert_eq!(SpanId::from_bytes([0; 8]), None);
}

#[test]
fn refuses_upper_case_hex() {
    assert_eq!(
        TraceParent::parse(&VALID.replace("4bf92f", "4BF92F")),
        Err(TraceParentError::TraceId)
    );
    assert_eq!(
        TraceParent::parse(&VALID.replace("00f067aa", "00F067AA")),
        Err(TraceParentError::ParentId)
    );
    let flags = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A";
    assert_eq!(TraceParent::parse(flags), Err(TraceParentError::Flags));
}

#[test]
fn refuses_wrong_lengths_and_layouts() {
    assert_eq!(TraceParent::parse(""), Err(TraceParentError::Length));
    assert_eq!(
        TraceParent::parse(&VALID[..54]),
        Err(TraceParentError::Length)
    );
    // Version 00 has exactly four fields: nothing may follow the flags.
    assert_eq!(
        TraceParent::parse(&format!("{VALID}-extra")),
        Err(TraceParentError::Length)
    );
    assert_eq!(
        TraceParent::parse(&VALID.replacen('-', "_", 1)),
        Err(TraceParentError::Layout)
    );
    // A short trace-id shifts the separators.
    let short = "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-011";
    assert_eq!(TraceParent::parse(short), Err(TraceParentError::Layout));
    assert_eq!(
        TraceParent::parse(&format!(" {}", &VALID[..54])),
        Err(TraceParentError::Version)
    );
}

#[test]
fn reads_a_later_version_as_00_when_its_prefix_fits() {
    let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    assert_eq!(TraceParent::parse(later).expect("valid").to_string(), VALID);
    let extended = format!("{later}-what-the-future-holds");
    assert_eq!(
        TraceParent::parse(&extended).expect("valid").to_string(),
        VALID
    );
    // A later version must still start a new field after the flags.
    assert_eq!(
        TraceParent::parse(&format!("{later}x")),
        Err(TraceParentError::Layout)
    );
}

#[test]
fn a_child_keeps_the_trace_and_names_the_new_span() {
    let parent = TraceParent::parse(VALID).expect("valid");
    let span = SpanId::from_bytes([1, 2, 3, 4, 5, 6, 7, 8]).expect("non-zero");
    let child = parent.child(span);
    assert_eq!(child.trace_id(), parent.trace_id());
    assert_eq!(child.parent_id(), span);
    assert_eq!(
        child.to_string(),
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0102030405060708-01"
    );
    // Flags this version does not define are not passed on.
    let odd_flags = TraceParent::parse(&VALID.replace("-01", "-ff")).expect("valid");
    assert_eq!(odd_flags.child(span).flags(), 0x03);
    assert_ne!(parent.random_child().parent_id(), parent.parent_id());
}

#[test]
fn a_message_continues_a_valid_incoming_trace_or_starts_its_own() {
    let message_id = Uuid::now_v7();
    let continued = TraceParent::for_message(Some(VALID), message_id);
    assert_eq!(
        continued.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_ne!(continued.parent_id().to_string(), "00f067aa0ba902b7");
    assert_eq!(TraceParent::for_message(Some(VALID), message_id), continued);

    for incoming in [
        None,
        Some("00-garbage"),
        Some(&VALID.replace("4bf", "4BF")[..]),
    ] {
        let started = TraceParent::for_message(incoming, message_id);
        assert_eq!(
            started.trace_id().to_string(),
            message_id.simple().to_string()
        );
        assert_eq!(started.parent_id(), continued.parent_id());
        assert!(started.sampled());
    }
}

#[test]
fn random_roots_format_and_parse_back() {
    let root = TraceParent::random_root();
    assert!(root.sampled());
    assert_eq!(TraceParent::parse(&root.to_string()), Ok(root));
    assert_ne!(TraceParent::random_root().trace_id(), root.trace_id());
}

#[test]
fn tracestate_lists_are_joined_trimmed_and_kept_as_they_came() {
    assert_eq!(
        tracestate(["congo=t61rcWkgMzE", " rojo=00f067aa0ba902b7 ,,"]).as_deref(),
        Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
    );
    assert_eq!(
        tracestate(["tenant1@vendor=x y"]).as_deref(),
        Some("tenant1@vendor=x y")
    );
    assert_eq!(tracestate(["", " , "]), None);
    assert_eq!(tracestate(std::iter::empty()), None);
}

#[test]
fn a_malformed_or_repeated_member_drops_the_whole_tracestate() {
    for bad in [
        "Congo=upper-case-key",
        "congo",
        "congo=a=b",
        "congo=",
        "congo=ta\tb",
        "1abc=key-starts-with-a-digit",
        "t@Vendor=bad-system",
        "congo=1,congo=2",
        "congo=\u{e9}",
    ] {
        assert_eq!(tracestate([bad]), None, "{bad}");
    }
}

#[test]
fn long_tracestates_lose_members_from_the_end() {
    let many: Vec<String> = (0..40).map(|i| format!("k{i}=v")).collect();
    let kept = tracestate([many.join(",").as_str()]).expect("kept");
    assert_eq!(kept.split(',').count(), TRACESTATE_MEMBERS);
    assert!(kept.starts_with("k0=v,k1=v"));

    let long: Vec<String> = (0..4)
        .map(|i| format!("k{i}={}", "x".repeat(200)))
        .collect();
    let kept = tracestate([long.join(",").as_str()]).expect("kept");
    assert_eq!(
        kept.split(',').count(),
        2,
        "two 203-character members fit in 512"
    );
    assert!(kept.len() <= TRACESTATE_KEPT_LEN);
}
