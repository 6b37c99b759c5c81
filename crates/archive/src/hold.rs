//! Legal holds on archived messages (being written).
