//! Numeric and date values, converted without floats.

/// Normalises an EDIFACT numeric value to a `.`-decimal string, keeping every digit.
///
/// Only the decimal mark the interchange declared is accepted: with a comma mark, `1.000`
/// could be a thousands separator, which EDIFACT forbids, so guessing would risk
/// turning 1000 into 1. An optional leading minus sign is kept.
pub(crate) fn decimal(value: &str, mark: u8) -> Option<String> {
    let (sign, digits) = match value.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", value),
    };
    let mark = char::from(mark);
    let (int, frac) = match digits.split_once(mark) {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || frac.is_some_and(|f| !all_digits(f)) {
        return None;
    }
    if frac.is_none() || mark == '.' {
        // Already in the canonical form.
        return Some(value.to_owned());
    }
    let mut out = String::with_capacity(value.len());
    out.push_str(sign);
    out.push_str(int);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    Some(out)
}

/// Converts a DTM value to ISO `YYYY-MM-DD`.
///
/// Supported formats (code 2379): 102 `CCYYMMDD`, 203 `CCYYMMDDHHMM`, 204
/// `CCYYMMDDHHMMSS`, 303/304 (203/204 followed by a time zone such as `+00`). An empty
/// format is read as 102, the usual default in implementation guides. For 102 a value
/// with a time appended (12 or 14 digits) is accepted: real senders do this and the date
/// part is unambiguous.
pub(crate) fn iso_date(value: &str, format: Option<&str>) -> Option<String> {
    let digits_len = value.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &value[digits_len..];
    let ok = match format.unwrap_or("102") {
        "102" => rest.is_empty() && matches!(digits_len, 8 | 12 | 14),
        "203" => rest.is_empty() && digits_len == 12,
        "204" => rest.is_empty() && digits_len == 14,
        "303" | "304" => {
            matches!(digits_len, 12 | 14)
                && (rest.is_empty()
                    || (rest.starts_with(['+', '-'])
                        && rest.len() > 1
                        && rest[1..].bytes().all(|b| b.is_ascii_digit())))
        }
        _ => false,
    };
    if !ok {
        return None;
    }
    let year: u32 = value.get(0..4)?.parse().ok()?;
    let month: u32 = value.get(4..6)?.parse().ok()?;
    let day: u32 = value.get(6..8)?.parse().ok()?;
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month)
        .contains(&day)
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests;
