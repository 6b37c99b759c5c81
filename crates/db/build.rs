// `sqlx::migrate!` embeds the migrations at compile time but cannot tell cargo to look at
// the folder again: without this, a new migration file is missed by incremental builds.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
