//! The guards over the official SDK peers (see `interop`): `a2a-conform
//! send` against the Python (`a2a-sdk`) and JavaScript (`@a2a-js/sdk`)
//! agents, over JSON-RPC and HTTP+JSON, v1.0 and v0.3. These agents are
//! honest: a probed stream is kept, a cancel is confirmed by reads, an
//! input-required task is resumed with the declared JSON mode, and nothing
//! is demoted. None of them shows a divergence the guards exist for (see
//! docs/interop.md); the nearest, a part of a media type the card never
//! declares, is accepted, which breaks no declaration, and is tested here
//! as such. Every test name starts with `sdk_`, as in `interop`.

use crate::common::{run, Outcome};
use crate::interop::{start, Agent, Sdk};

/// Every version and binding both SDK agents serve (their hybrid cards).
const ROUTES: [(&str, &str); 4] = [
    ("1.0", "jsonrpc"),
    ("0.3", "jsonrpc"),
    ("1.0", "rest"),
    ("0.3", "rest"),
];

fn send(agent: &Agent, version: &str, binding: &str, extra: &[&str]) -> Outcome {
    let mut args = vec![
        "send",
        agent.card_url.as_str(),
        "--protocol",
        version,
        "--binding",
        binding,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn honest(sdk: Sdk) {
    let agent = start(sdk, &[]);
    for (version, binding) in ROUTES {
        let context = |out: &Outcome| {
            format!(
                "{sdk:?} {version} {binding}: {}\n{}",
                out.explain(),
                agent.log()
            )
        };
        let streamed = send(
            &agent,
            version,
            binding,
            &["--text", "hello", "--stream", "--probe-window", "10s"],
        );
        assert_eq!(streamed.code, 0, "{}", context(&streamed));
        assert!(
            streamed.stdout.contains("(on a stream)"),
            "{}",
            context(&streamed)
        );
        assert!(
            streamed.stdout.contains("outcome: completed"),
            "{}",
            context(&streamed)
        );
        assert!(
            !streamed.stdout.contains("demoted:"),
            "{}",
            context(&streamed)
        );

        let resumed = send(
            &agent,
            version,
            binding,
            &[
                "--text",
                "need-input please",
                "--resume-data",
                r#"{"answer": 42}"#,
            ],
        );
        assert_eq!(resumed.code, 0, "{}", context(&resumed));
        assert!(
            resumed.stdout.contains("resumed with the primary part(s)"),
            "{}",
            context(&resumed)
        );
        assert!(
            resumed.stdout.contains("outcome: completed"),
            "{}",
            context(&resumed)
        );

        let canceled = send(
            &agent,
            version,
            binding,
            &[
                "--text",
                "hello",
                "--stream",
                "--probe-window",
                "10s",
                "--cancel-after",
                "200ms",
            ],
        );
        assert_eq!(canceled.code, 0, "{}", context(&canceled));
        assert!(
            canceled.stdout.contains("outcome: canceled, confirmed"),
            "{}",
            context(&canceled)
        );
        assert!(
            !canceled.stdout.contains("demoted:"),
            "{}",
            context(&canceled)
        );
    }
}

#[test]
fn sdk_python_guards_keep_every_declaration_on_both_versions_and_bindings() {
    honest(Sdk::Python);
}

#[test]
fn sdk_js_guards_keep_every_declaration_on_both_versions_and_bindings() {
    honest(Sdk::Js);
}
