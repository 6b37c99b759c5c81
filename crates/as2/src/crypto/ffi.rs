//! The CMS calls the `openssl` crate does not wrap: adding a signer with a chosen digest
//! and our own signing time, and feeding it the content piece by piece. Declared here
//! against the libcrypto that `openssl-sys` already links.

use std::os::raw::{c_int, c_uint, c_void};

unsafe extern "C" {
    pub fn CMS_add1_signer(
        cms: *mut openssl_sys::CMS_ContentInfo,
        signer: *mut openssl_sys::X509,
        pk: *mut openssl_sys::EVP_PKEY,
        md: *const openssl_sys::EVP_MD,
        flags: c_uint,
    ) -> *mut c_void;
    pub fn CMS_signed_add1_attr_by_NID(
        si: *mut c_void,
        nid: c_int,
        attr_type: c_int,
        bytes: *const c_void,
        len: c_int,
    ) -> c_int;
    pub fn CMS_dataInit(
        cms: *mut openssl_sys::CMS_ContentInfo,
        icont: *mut openssl_sys::BIO,
    ) -> *mut openssl_sys::BIO;
    pub fn CMS_dataFinal(
        cms: *mut openssl_sys::CMS_ContentInfo,
        bio: *mut openssl_sys::BIO,
    ) -> c_int;
}
