//! Checking the archive: one message's evidence (`edihub audit show`) and a period's
//! objects and ledger segments (`edihub audit verify`).
