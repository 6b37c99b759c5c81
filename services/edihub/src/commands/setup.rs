//! `edihub migrate` and `edihub init`: the set-up an empty stack needs.

use crate::Settings;
use anyhow::Context;
use edihub_archive::ArchiveStore;

pub async fn migrate(settings: &Settings) -> anyhow::Result<()> {
    edihub_db::create_and_migrate(&settings.database)
        .await
        .context("migrating the database")?;
    println!("database migrated");
    Ok(())
}

pub async fn init(settings: &Settings) -> anyhow::Result<()> {
    migrate(settings).await?;
    let topics = settings.kafka.topics.all();
    edihub_kafka::ensure_topics(&settings.kafka, &topics)
        .await
        .context("creating topics")?;
    println!("topics ready: {}", topics.join(", "));
    let store = ArchiveStore::new(&settings.s3);
    store.ensure_bucket().await.context("creating the bucket")?;
    println!("bucket ready: {} (Object Lock enabled)", store.bucket());
    Ok(())
}
