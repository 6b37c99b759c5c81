use serde::{Deserialize, Deserializer};
use std::fmt;

/// A setting that must not appear in logs (passwords, keys, URLs with credentials).
/// `Debug` and `Display` print a placeholder; call [`Secret::expose`] where the value is used.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Secret)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn debug_does_not_print_the_value() {
        let secret = super::Secret::new("postgres://u:hunter2@h/db");
        assert!(!format!("{secret:?} {secret}").contains("hunter2"));
    }
}
