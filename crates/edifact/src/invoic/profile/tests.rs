//! Unit tests of `profile`.

use super::*;

/// The selection table, spelled out: UNH S009 (0065:0052:0054:0051:0057:0110) to
/// profile name and table.
#[test]
fn unh_identifiers_select_profiles() {
    let cases: &[(&str, &str, &ProfileTable)] = &[
        ("INVOIC:D:96A:UN:EAN008", "EANCOM-D96A", &EANCOM),
        ("INVOIC:D:01B:UN:EAN010", "EANCOM-D01B", &EANCOM),
        ("INVOIC:D:01B:UN:EAN011", "EANCOM-D01B", &EANCOM),
        // An EANCOM code on an unlisted directory still reads as EANCOM.
        ("INVOIC:D:93A:UN:EAN007", "EANCOM-D93A", &EANCOM),
        ("INVOIC:D:96A:UN", "UN-D96A", &UN_GENERIC),
        ("INVOIC:D:97A:UN", "UN-D97A", &UN_GENERIC),
        ("INVOIC:D:00A:UN", "UN-D00A", &UN_GENERIC),
        ("INVOIC:D:03B:UN", "UN-D03B", &UN_GENERIC),
        ("INVOIC:D:14B:UN::16B", "UN-D16B", &CEN),
        ("INVOIC:D:16B:UN", "UN-D16B", &CEN),
        ("INVOIC:D:14B:UN", "UN-D14B", &CEN),
        ("INVOIC:D:06A:UN:2.8d", "UN-D06A", &UN_GENERIC),
    ];
    for (s009, name, table) in cases {
        let parts: Vec<&str> = s009.split(':').collect();
        let get = |i: usize| parts.get(i).copied().filter(|v| !v.is_empty());
        let (profile, selected) = select_by(parts[1], parts[2], parts[3], get(4), get(5));
        assert_eq!(&profile, name, "{s009}");
        assert_eq!(selected, *table, "{s009}: wrong table");
    }
}

#[test]
fn every_known_row_is_reachable() {
    for row in KNOWN {
        let association = match row.association {
            Association::OneOf(codes) => Some(codes[0]),
            Association::NotEancom => None,
        };
        let (version, release) = row.directory.split_at(1);
        let (profile, _) = select_by(
            version,
            release,
            row.agency,
            association,
            row.code_list_version,
        );
        assert_eq!(profile, row.profile, "{row:?}");
    }
}
