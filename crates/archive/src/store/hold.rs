//! S3 legal holds on object versions (being written).
