//! `--expiring-within 30d`: a span of time as operators write it.

/// Seconds in `text`: a whole number followed by `w` (weeks), `d` (days), `h` (hours),
/// `m` (minutes) or `s` (seconds), e.g. `30d`, `12h`, `2w`.
pub fn parse_span(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?}: give a unit, e.g. 30d, 12h, 2w"))?;
    let (number, unit) = text.split_at(unit_at);
    let seconds_per_unit = match unit {
        "w" => 7 * 86_400,
        "d" => 86_400,
        "h" => 3_600,
        "m" => 60,
        "s" => 1,
        _ => return Err(format!("{text:?}: the unit is one of w, d, h, m, s")),
    };
    let number: i64 = number
        .parse()
        .map_err(|_| format!("{text:?}: a whole number before the unit, e.g. 30d"))?;
    number
        .checked_mul(seconds_per_unit)
        .ok_or_else(|| format!("{text:?} is too long"))
}

#[cfg(test)]
mod tests;
