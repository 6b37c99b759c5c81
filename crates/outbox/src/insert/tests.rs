use super::*;

#[test]
fn the_single_insert_binds_every_column_in_order() {
    assert_eq!(
        single(),
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload, \
         headers, channel) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    );
}

#[test]
fn a_select_part_starts_at_its_first_parameter() {
    assert_eq!(
        select(20, "FROM message"),
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload, \
         headers, channel) SELECT $20, $21, $22, $23, $24, $25, $26, $27 FROM message"
    );
}

#[test]
fn an_unnest_part_takes_typed_arrays_and_one_channel() {
    let sql = unnest(20, "$1::uuid[]", "e.key IS NOT NULL");
    let flat = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        flat,
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload, \
         headers, channel) SELECT e.id, e.aggregate_type, e.aggregate_id, e.event_type, \
         e.topic, e.payload, e.headers, $27 FROM unnest($1::uuid[], $20::uuid[], $21::text[], \
         $22::text[], $23::text[], $24::text[], $25::jsonb[], $26::jsonb[]) WITH ORDINALITY \
         AS e(key, id, aggregate_type, aggregate_id, event_type, topic, payload, headers, n) \
         WHERE e.key IS NOT NULL ORDER BY e.n"
    );
}

#[test]
fn binding_adds_one_value_per_column() {
    let event = NewEvent {
        id: uuid::Uuid::now_v7(),
        aggregate_type: "A".into(),
        aggregate_id: "a".into(),
        event_type: "E".into(),
        topic: "t".into(),
        payload: serde_json::json!({}),
        headers: serde_json::json!({}),
    };
    let mut args = PgArguments::default();
    bind(&mut args, Some(&event), "kafka").expect("bind");
    bind(&mut args, None, "as2-mdn").expect("bind nulls");
    assert_eq!(args.len(), 2 * PARAMETERS);
    let mut arrays = PgArguments::default();
    bind_arrays(&mut arrays, &[Some(&event), None], "kafka").expect("bind arrays");
    assert_eq!(arrays.len(), PARAMETERS);
}
