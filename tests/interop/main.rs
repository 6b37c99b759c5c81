//! Interoperability tests against a real AS2 peer (pyas2lib). Filled in by the AS2
//! conformance work (issue 3).
