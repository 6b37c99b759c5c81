use super::*;
use serde::Deserialize;

#[derive(Deserialize)]
struct Sample {
    #[serde(default)]
    database: DatabaseSettings,
    #[serde(default)]
    kafka: KafkaSettings,
}

#[test]
fn defaults_then_file_then_env() {
    let dir = std::env::temp_dir().join(format!("edihub-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("edihub.toml");
    std::fs::write(
        &file,
        "[kafka]\nbrokers = \"file:9092\"\n[database]\nmax_connections = 3\n",
    )
    .unwrap();

    let defaults: Sample = load_from(None, |_| None).unwrap();
    assert_eq!(defaults.kafka.brokers, "127.0.0.1:9092");
    assert_eq!(
        defaults.database.url.expose(),
        "postgres://postgres:postgres@127.0.0.1:5432/edihub"
    );

    let from_file: Sample = load_from(Some(&file), |_| None).unwrap();
    assert_eq!(from_file.kafka.brokers, "file:9092");
    assert_eq!(from_file.database.max_connections, 3);

    let from_env: Sample = load_from(Some(&file), |name| {
        (name == "KAFKA_BROKERS").then(|| "env:9092".to_owned())
    })
    .unwrap();
    assert_eq!(from_env.kafka.brokers, "env:9092");
    assert_eq!(from_env.database.max_connections, 3);
}

#[test]
fn a_bad_value_is_reported() {
    let dir = std::env::temp_dir().join(format!("edihub-config-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("edihub.toml");
    std::fs::write(&file, "[database]\nmax_connections = \"many\"\n").unwrap();
    let err = load_from::<Sample>(Some(&file), |_| None).err().unwrap();
    assert!(err.to_string().contains("max_connections"), "{err}");
}

#[test]
fn an_empty_s3_endpoint_is_the_providers_own() {
    #[derive(Deserialize)]
    struct WithS3 {
        #[serde(default)]
        s3: S3Settings,
    }
    let default: WithS3 = load_from(None, |_| None).unwrap();
    assert_eq!(
        default.s3.endpoint.as_deref(),
        Some("http://127.0.0.1:9000")
    );
    let set: WithS3 = load_from(None, |name| {
        (name == "S3_ENDPOINT").then(|| "https://minio.example".to_owned())
    })
    .unwrap();
    assert_eq!(set.s3.endpoint.as_deref(), Some("https://minio.example"));
    let empty: WithS3 = load_from(None, |name| (name == "S3_ENDPOINT").then(String::new)).unwrap();
    assert_eq!(empty.s3.endpoint, None);
}
