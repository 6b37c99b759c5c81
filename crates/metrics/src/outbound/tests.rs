use super::*;

#[test]
fn a_failure_counts_under_its_class_only() {
    let count = |class: FailureClass| OUTBOUND_FAILURES.with_label_values(&[class.as_str()]).get();
    let before = FailureClass::ALL.map(count);
    record_failure(FailureClass::MicMismatch);
    let after = FailureClass::ALL.map(count);
    for (i, class) in FailureClass::ALL.into_iter().enumerate() {
        let expected = if class == FailureClass::MicMismatch {
            1
        } else {
            0
        };
        assert_eq!(after[i] - before[i], expected, "{}", class.as_str());
    }
}

#[test]
fn an_mdn_wait_is_observed_unless_it_is_negative_or_not_a_number() {
    let before = OUTBOUND_MDN_WAIT_SECONDS.get_sample_count();
    record_mdn_wait(2.5);
    record_mdn_wait(-1.0);
    record_mdn_wait(f64::NAN);
    record_mdn_wait(f64::INFINITY);
    assert_eq!(OUTBOUND_MDN_WAIT_SECONDS.get_sample_count() - before, 1);
}

#[test]
fn the_backlog_is_rendered_with_every_failure_class_present() {
    set_backlog(&OutboundBacklog {
        queued: 3,
        sent: 0,
        oldest_undelivered_seconds: 4200,
    });
    set_backlog(&OutboundBacklog {
        queued: 2,
        sent: 1,
        oldest_undelivered_seconds: -5,
    });
    let rendered = crate::render();
    assert!(
        rendered.contains("edihub_outbound_backlog{state=\"queued\"} 2\n"),
        "{rendered}"
    );
    assert!(
        rendered.contains("edihub_outbound_backlog{state=\"sent\"} 1\n"),
        "{rendered}"
    );
    // A clock behind the database's reads as no age, not a negative one.
    assert!(
        rendered.contains("edihub_outbound_oldest_undelivered_seconds 0\n"),
        "{rendered}"
    );
    for class in FailureClass::ALL {
        let series = format!(
            "edihub_outbound_failures_total{{reason=\"{}\"}}",
            class.as_str()
        );
        assert!(rendered.contains(&series), "{series} in {rendered}");
    }
    assert!(
        rendered.contains("edihub_outbound_mdn_wait_seconds_count"),
        "{rendered}"
    );
}
