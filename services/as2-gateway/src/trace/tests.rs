use super::*;
use axum::http::HeaderValue;

fn request(traceparent: &str, tracestate: &str) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in [("traceparent", traceparent), ("tracestate", tracestate)] {
        map.insert(name, HeaderValue::from_str(value).expect("header value"));
    }
    map
}

#[test]
fn tracestate_travels_only_with_the_partners_trace() {
    let id = Uuid::now_v7();
    let valid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let continued = trace_context(&request(valid, "congo=t61rcWkgMzE"), id);
    assert_eq!(
        continued.parent.trace_id().to_string(),
        "0af7651916cd43dd8448eb211c80319c"
    );
    assert_eq!(continued.state.as_deref(), Some("congo=t61rcWkgMzE"));

    // A new trace is the hub's own: the partner's vendor data has no place in it.
    let restarted = trace_context(&request("00-garbage", "congo=t61rcWkgMzE"), id);
    assert_eq!(
        restarted.parent.trace_id().to_string(),
        id.simple().to_string()
    );
    assert_eq!(restarted.state, None);
}
