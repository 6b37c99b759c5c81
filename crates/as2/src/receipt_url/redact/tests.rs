use super::*;

#[test]
fn user_info_is_replaced() {
    assert_eq!(redacted("http://u:s3cret@h/x"), "http://***@h/x");
    assert_eq!(
        redacted("https://token@h:8443/x?a=b@c"),
        "https://***@h:8443/x?a=b@c"
    );
    assert_eq!(redacted("http://a@b:p@ss@h/"), "http://***@h/");
    assert_eq!(redacted("http:\\\\u:p@h\\x"), "http:\\\\***@h\\x");
    assert_eq!(redacted("http:u:p@h/x"), "http:***@h/x");
}

#[test]
fn strings_that_do_not_parse_are_redacted_too() {
    assert_eq!(redacted("http://u:s3cret@[::1/x"), "http://***@[::1/x");
    assert_eq!(redacted("u:s3cret@h"), "u:***@h");
    assert_eq!(redacted("s3cret@h/x"), "***@h/x");
}

#[test]
fn urls_without_user_info_are_unchanged() {
    for plain in [
        "https://h/mdn/a@b",
        "http://h/?x=@",
        "http://h#@",
        "not a url",
        "",
    ] {
        assert_eq!(redacted(plain), plain);
    }
}
