//! Where the mock serves and what its card declares it accepts: the
//! endpoint paths and media modes that the card, the router, the bindings and
//! the lifecycle all name. A leaf, so none of them imports another for these.

/// The well-known discovery path.
pub(crate) const CARD_PATH: &str = "/.well-known/agent-card.json";
/// Where the JSON-RPC interface is served.
pub(crate) const JSONRPC_PATH: &str = "/a2a/jsonrpc";
/// Where the HTTP+JSON interface is served (v0.3 below its `/v1`).
pub(crate) const REST_PATH: &str = "/a2a/rest";

/// The input modes the card declares (card defaults and the one skill).
pub(crate) const INPUT_MODES: &[&str] = &["text/plain", "application/json"];
/// The output modes the card declares.
pub(crate) const OUTPUT_MODES: &[&str] = &["text/plain"];

/// The text that drives a new task into input-required.
pub(crate) const NEED_INPUT: &str = "need-input";
/// The skill's examples: prompts the peer handles (`need-input` asks for
/// input; `instant-unless-example` works only on these).
pub(crate) const EXAMPLES: [&str; 2] = ["hello", NEED_INPUT];
/// `description-trigger`: the phrase its skill's description quotes, which
/// drives a new task into input-required as `need-input` does.
pub(crate) const DESCRIBED_TRIGGER: &str = "plan a trip";

/// Where the OAuth token endpoint of the `secured-oauth` mocks is served.
pub(crate) const TOKEN_PATH: &str = "/oauth/token";
