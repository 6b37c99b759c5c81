//! The outbox's INSERT, written once.
//!
//! [`crate::enqueue_on`] runs it on its own. The journal embeds it in statements of its
//! own: its accept is one statement (message, MDN and outbox rows, one round trip), and
//! its group commit inserts a batch of those from `unnest`ed arrays. These functions give
//! such statements the outbox's part, so the columns and their order are named only here.

use crate::NewEvent;
use sqlx::Arguments as _;
use sqlx::error::BoxDynError;
use sqlx::postgres::PgArguments;
use std::sync::LazyLock;

/// The columns an INSERT fills, in the order their values are bound, with their types
/// (for the arrays of [`unnest`]). The channel comes last: it is one value per statement
/// part, not one per event.
const COLUMNS: [(&str, &str); 8] = [
    ("id", "uuid"),
    ("aggregate_type", "text"),
    ("aggregate_id", "text"),
    ("event_type", "text"),
    ("topic", "text"),
    ("payload", "jsonb"),
    ("headers", "jsonb"),
    ("channel", "text"),
];

/// How many parameters one outbox part takes: one per column.
pub const PARAMETERS: usize = COLUMNS.len();

/// `INSERT INTO outbox (id, ..., channel)`.
fn into() -> String {
    let names: Vec<&str> = COLUMNS.iter().map(|(name, _)| *name).collect();
    format!("INSERT INTO outbox ({})", names.join(", "))
}

/// `$first, ..., $last` for `count` parameters.
fn placeholders(first: usize, count: usize) -> String {
    let numbers: Vec<String> = (first..first + count).map(|n| format!("${n}")).collect();
    numbers.join(", ")
}

/// The statement [`crate::enqueue_on`] runs, its parameters bound by [`bind`].
pub(crate) fn single() -> &'static str {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("{} VALUES ({})", into(), placeholders(1, PARAMETERS)));
    &SQL
}

/// An INSERT of one event from parameters `$first` onwards (bound by [`bind`]), for each
/// row `rest` yields: `rest` is the rest of the SELECT, e.g. `FROM message`, where
/// `message` is a CTE that returns a row only when the message was inserted.
pub fn select(first: usize, rest: &str) -> String {
    format!(
        "{} SELECT {} {rest}",
        into(),
        placeholders(first, PARAMETERS)
    )
}

/// An INSERT of a batch of events (bound by [`bind_arrays`] from `$first` onwards), in
/// batch order. Each event is unnested beside its element of `key`, an array parameter
/// as long as the batch (e.g. `$1::uuid[]`, the ids of the messages the events belong
/// to), and inserted when `filter` holds: `filter` can name `e.key` and the columns as
/// `e.id`, `e.aggregate_id`, ...
pub fn unnest(first: usize, key: &str, filter: &str) -> String {
    let per_event = &COLUMNS[..PARAMETERS - 1];
    let selected: Vec<String> = per_event
        .iter()
        .map(|(name, _)| format!("e.{name}"))
        .collect();
    let arrays: Vec<String> = per_event
        .iter()
        .enumerate()
        .map(|(n, (_, sql_type))| format!("${}::{sql_type}[]", first + n))
        .collect();
    let names: Vec<&str> = per_event.iter().map(|(name, _)| *name).collect();
    format!(
        "{into} SELECT {selected}, ${channel}
         FROM unnest({key}, {arrays}) WITH ORDINALITY AS e(key, {names}, n)
         WHERE {filter}
         ORDER BY e.n",
        into = into(),
        selected = selected.join(", "),
        channel = first + PARAMETERS - 1,
        arrays = arrays.join(", "),
        names = names.join(", "),
    )
}

/// Adds one event's values to `args`, in column order, for [`select`]. `None` adds
/// NULLs: the statement then filters on `$first IS NOT NULL` to write no row.
pub fn bind(
    args: &mut PgArguments,
    event: Option<&NewEvent>,
    channel: &str,
) -> Result<(), BoxDynError> {
    args.add(event.map(|e| e.id))?;
    args.add(event.map(|e| e.aggregate_type.as_str()))?;
    args.add(event.map(|e| e.aggregate_id.as_str()))?;
    args.add(event.map(|e| e.event_type.as_str()))?;
    args.add(event.map(|e| e.topic.as_str()))?;
    args.add(event.map(|e| &e.payload))?;
    args.add(event.map(|e| &e.headers))?;
    args.add(channel)
}

/// Adds a batch of events to `args` as one array per column, then `channel`, for
/// [`unnest`]. A `None` is a row of NULLs, which the statement's filter drops.
pub fn bind_arrays(
    args: &mut PgArguments,
    events: &[Option<&NewEvent>],
    channel: &str,
) -> Result<(), BoxDynError> {
    args.add(column(events, |e| e.id))?;
    args.add(column(events, |e| e.aggregate_type.as_str()))?;
    args.add(column(events, |e| e.aggregate_id.as_str()))?;
    args.add(column(events, |e| e.event_type.as_str()))?;
    args.add(column(events, |e| e.topic.as_str()))?;
    args.add(column(events, |e| &e.payload))?;
    args.add(column(events, |e| &e.headers))?;
    args.add(channel)
}

fn column<'a, T>(
    events: &[Option<&'a NewEvent>],
    field: impl Fn(&'a NewEvent) -> T,
) -> Vec<Option<T>> {
    events.iter().map(|event| event.map(&field)).collect()
}

#[cfg(test)]
mod tests;
