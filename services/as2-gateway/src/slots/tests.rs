use super::{PartnerSlots, Standing};
use crate::connection::ConnectionInfo;
use edihub_config::{GatewaySettings, PartnerSettings};
use edihub_partners::Directory;
use std::net::SocketAddr;
use std::time::Instant;

fn directory() -> Directory {
    let settings = GatewaySettings {
        partners: vec![PartnerSettings {
            as2_id: "PARTNER".into(),
            tls_client_fingerprints: vec!["ab".repeat(32)],
            ..PartnerSettings::default()
        }],
        ..GatewaySettings::default()
    };
    Directory::from_settings(&settings).expect("directory")
}

fn from(address: &str, certificate: Option<[u8; 32]>) -> ConnectionInfo {
    ConnectionInfo {
        peer: address.parse::<SocketAddr>().expect("address"),
        client_certificate_sha256: certificate,
    }
}

#[test]
fn forged_requests_naming_a_partner_do_not_take_its_proven_slots() {
    let directory = directory();
    let slots = PartnerSlots::new(2);
    let partner = from("192.0.2.10:4000", None);
    let attacker = from("198.51.100.7:5000", None);
    slots.authenticated("PARTNER", &partner);

    let forged: Vec<_> = (0..2)
        .map(|_| slots.try_acquire(&directory, "PARTNER", &attacker))
        .collect();
    assert!(forged.iter().all(Option::is_some));
    assert!(
        slots
            .try_acquire(&directory, "PARTNER", &attacker)
            .is_none(),
        "the unproven allowance is full"
    );
    let real = from("192.0.2.10:4001", None);
    assert!(
        slots.try_acquire(&directory, "PARTNER", &real).is_some(),
        "the partner's own address still gets a slot"
    );
}

#[test]
fn a_matching_tls_client_certificate_is_proof_and_another_is_not() {
    let directory = directory();
    let slots = PartnerSlots::new(1);
    let partner = directory.partner("PARTNER").expect("partner");
    let now = Instant::now();
    let pinned = from("203.0.113.1:1", Some([0xab; 32]));
    let other = from("203.0.113.1:1", Some([0xcd; 32]));
    assert_eq!(slots.standing(partner, &pinned, now), Standing::Proven);
    assert_eq!(slots.standing(partner, &other, now), Standing::Unproven);
    assert_eq!(
        slots.standing(partner, &from("203.0.113.1:1", None), now),
        Standing::Unproven
    );
}

#[test]
fn strangers_share_one_allowance_apart_from_partners() {
    let directory = directory();
    let slots = PartnerSlots::new(1);
    let anyone = from("198.51.100.7:5000", None);
    let _held = slots
        .try_acquire(&directory, "NOBODY", &anyone)
        .expect("first");
    assert!(
        slots
            .try_acquire(&directory, "SOMEONE-ELSE", &anyone)
            .is_none()
    );
    assert!(slots.try_acquire(&directory, "PARTNER", &anyone).is_some());
}

#[test]
fn the_memory_of_proven_addresses_is_bounded() {
    let slots = PartnerSlots::new(1);
    for i in 0..(super::MAX_PROVEN + 10) {
        let address = format!("10.{}.{}.{}:1", (i >> 16) & 255, (i >> 8) & 255, i & 255);
        slots.authenticated("PARTNER", &from(&address, None));
    }
    assert!(super::lock(&slots.proven).len() <= super::MAX_PROVEN);
}
