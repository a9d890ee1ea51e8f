//! What `demo` shows a newcomer: a mock whose promise only a key can check
//! (a signed card) is checked with the mock's own key, so the signed card
//! reads honoured and the tampered one diverged, as the README's behaviour
//! table says — not `unverified` for want of a key no user could have.

use crate::common::run;

const ROW: &str = "signatures[a2a-conform-mock-key]";

#[test]
fn the_demo_verifies_its_signing_mocks_with_their_own_key() {
    let out = run(&["demo", "--behaviour", "signed-card"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.declaration(ROW), "honoured", "{}", out.explain());
    let out = run(&["demo", "--behaviour", "signed-card-tampered"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.declaration(ROW), "diverged", "{}", out.explain());
}
