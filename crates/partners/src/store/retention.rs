//! "Never shortened": a partnership's archive retention only grows. The objects already
//! locked in COMPLIANCE mode cannot be shortened by anyone, so a lower setting would only
//! pretend, and the partner's later messages would be kept for less time than its earlier
//! ones of the same kind.

use super::StoreError;
use crate::options;
use sqlx::PgConnection;

/// A new `retention_years` for `partner update`, judged against the effective one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionChange {
    pub years: u32,
    /// The hub's default (`s3.retention_years`): the effective retention of a partner
    /// that sets none.
    pub hub_default: u32,
}

/// The value to store for `change`, or why not. Locks the partner's row (the caller's
/// transaction), so that two concurrent updates are judged one after the other.
pub(super) async fn checked(
    conn: &mut PgConnection,
    as2_id: &str,
    change: &RetentionChange,
) -> Result<i32, StoreError> {
    let stored: Option<Option<i32>> =
        sqlx::query_scalar("SELECT retention_years FROM partner WHERE as2_id = $1 FOR UPDATE")
            .bind(as2_id)
            .fetch_optional(conn)
            .await?;
    let stored = stored.ok_or_else(|| StoreError::NoPartner(as2_id.to_owned()))?;
    not_shorter(as2_id, stored, change)
}

/// `change` in range and not below the current effective retention (`stored`, else the
/// hub's default).
fn not_shorter(
    as2_id: &str,
    stored: Option<i32>,
    change: &RetentionChange,
) -> Result<i32, StoreError> {
    let years = options::retention_years(change.years.into())?;
    let current = match stored {
        Some(stored) => options::retention_years(stored.into())?,
        None => change.hub_default,
    };
    if years < current {
        return Err(StoreError::RetentionShortened {
            as2_id: as2_id.to_owned(),
            current,
            requested: years,
        });
    }
    // Within RETENTION_YEARS_RANGE, so it fits.
    Ok(years as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(years: u32) -> RetentionChange {
        RetentionChange {
            years,
            hub_default: 10,
        }
    }

    #[test]
    fn a_longer_or_equal_retention_is_taken() {
        assert_eq!(not_shorter("P", Some(8), &change(8)).unwrap(), 8);
        assert_eq!(not_shorter("P", Some(8), &change(12)).unwrap(), 12);
        assert_eq!(not_shorter("P", None, &change(10)).unwrap(), 10);
    }

    #[test]
    fn a_shorter_one_is_refused_against_the_stored_or_the_default_value() {
        let error = not_shorter("P", Some(12), &change(11)).unwrap_err();
        assert!(
            matches!(
                error,
                StoreError::RetentionShortened {
                    current: 12,
                    requested: 11,
                    ..
                }
            ),
            "{error}"
        );
        assert!(error.to_string().contains("never shortened"), "{error}");
        let error = not_shorter("P", None, &change(8)).unwrap_err();
        assert!(
            matches!(
                error,
                StoreError::RetentionShortened {
                    current: 10,
                    requested: 8,
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn a_retention_outside_a_century_is_refused() {
        for years in [0, 101] {
            let error = not_shorter("P", None, &change(years)).unwrap_err();
            assert!(matches!(error, StoreError::Option(_)), "{error}");
        }
    }
}
