//! The verdict matrix: every mock behaviour × protocol version → the expected
//! verdict of every declaration and the exit code. Each divergence must be
//! caught on the declaration it breaks and on no other; the honest peer must
//! read all honoured.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;

const STREAMING: &str = "capabilities.streaming";
const PUSH: &str = "capabilities.pushNotifications";
const CANCEL: &str = "lifecycle.cancel";
const COMPLETION: &str = "lifecycle.completion";
const TEXT: &str = "defaultInputModes[text/plain]";
const JSON: &str = "defaultInputModes[application/json]";
const SKILL_TEXT: &str = "skills[echo].inputModes[text/plain]";
const SKILL_JSON: &str = "skills[echo].inputModes[application/json]";
const VERSION: &str = "protocol.versionNegotiation";
const SECURITY: &str = "security.enforced";
const UNKNOWN_TASK: &str = "protocol.unknownTask";
const TERMINAL_SUBSCRIBE: &str = "protocol.terminalSubscribe";
const CONTEXT: &str = "protocol.contextMismatch";
const LIST_TASKS: &str = "protocol.listTasks";
const HISTORY: &str = "protocol.historyLength";
const BLOCKING: &str = "protocol.blocking";
const EXTENDED_CARD: &str = "capabilities.extendedAgentCard";
const UNDECLARED_INPUT: &str = "inputModes.undeclaredRefused";
const OUT_TEXT: &str = "defaultOutputModes[text/plain]";
const OUT_JSON: &str = "defaultOutputModes[application/json]";
const SKILL_OUT_TEXT: &str = "skills[echo].outputModes[text/plain]";
const SKILL_OUT_JSON: &str = "skills[echo].outputModes[application/json]";
const REQUIRED_EXTENSION: &str =
    "capabilities.extensions[https://a2a-conform.dev/ext/mock-required/v1]";
const OPTIONAL_EXTENSION: &str =
    "capabilities.extensions[https://a2a-conform.dev/ext/mock-optional/v1]";

/// Expected verdicts, in the order of the declaration constants above.
struct Row {
    exit: i32,
    streaming: &'static str,
    push: &'static str,
    cancel: &'static str,
    completion: &'static str,
    text: &'static str,
    json: &'static str,
    /// `protocol.versionNegotiation` on a v1.0 peer (v0.3 peers do not declare it).
    version: &'static str,
    /// The card declares a JSON-RPC interface it does not serve.
    unserved_interface: bool,
    security: &'static str,
    /// `interfaces[GRPC <version>]`, when the card declares it.
    grpc: Option<&'static str>,
    /// The card declares only its gRPC interface.
    grpc_only: bool,
    /// The card's default input modes include JSON (not for
    /// `secured-skill-scopes`, whose skill alone declares it).
    default_json: bool,
    /// `interfaces[HTTP+JSON <version>]`, declared by every card but gRPC-only.
    rest: &'static str,
    /// `interfaces[JSONRPC <version>]`, declared by every card but gRPC-only.
    jsonrpc: &'static str,
    unknown_task: &'static str,
    /// `protocol.terminalSubscribe` on a v1.0 peer that declares streaming.
    terminal_subscribe: &'static str,
    /// `protocol.contextMismatch` on a v1.0 peer.
    context: &'static str,
    /// `protocol.listTasks` on a v1.0 peer.
    list_tasks: &'static str,
    history: &'static str,
    /// `signatures[a2a-conform-mock-key]`, when the card is signed (checked
    /// with the mock's public key as --trusted-key, see `cell`).
    signature: Option<&'static str>,
    /// `capabilities.extendedAgentCard`.
    extended_card: &'static str,
    /// The text/plain output mode rows (card default and the skill's), when declared.
    output_text: Option<&'static str>,
    /// The application/json output mode rows, when declared.
    output_json: Option<&'static str>,
    /// The required and the optional extension's rows, when declared.
    extensions: Option<(&'static str, &'static str)>,
    /// Checked with `--strict` (a broken SHOULD is a divergence).
    strict: bool,
    /// `protocol.blocking`: a blocking send returns a settled task.
    blocking: &'static str,
    /// `inputModes.undeclaredRefused`: a part of a media type no mode
    /// declares is refused with -32005.
    undeclared_input: &'static str,
    /// `interfaces[<other>] ≡ interfaces[JSONRPC <version>]`: every served
    /// interface against the JSON-RPC one (a declared one not served is an
    /// error on its side, so its pair reads unverified).
    pairs: &'static str,
    /// `interfaces[GRPC <version>] ≡ interfaces[JSONRPC <version>]`, when
    /// the card declares gRPC besides JSON-RPC.
    grpc_pair: &'static str,
}

fn expected(behaviour: Behaviour) -> Row {
    use Behaviour::*;
    let honest = Row {
        exit: 0,
        streaming: "honoured",
        // Not declared, and refused with -32003 as the spec requires.
        push: "not-declared",
        cancel: "honoured",
        completion: "honoured",
        text: "honoured",
        json: "honoured",
        version: "honoured",
        unserved_interface: false,
        // No card but the secured ones requires credentials.
        security: "not-declared",
        grpc: None,
        grpc_only: false,
        default_json: true,
        rest: "honoured",
        jsonrpc: "honoured",
        unknown_task: "honoured",
        terminal_subscribe: "honoured",
        context: "honoured",
        list_tasks: "honoured",
        history: "honoured",
        signature: None,
        // Not declared, and refused as the spec requires.
        extended_card: "not-declared",
        output_text: Some("honoured"),
        output_json: None,
        extensions: None,
        strict: false,
        blocking: "honoured",
        undeclared_input: "honoured",
        pairs: "honoured",
        grpc_pair: "honoured",
    };
    match behaviour {
        // Its HTTP+JSON streams end as JSON-RPC's do, only later (within the
        // task window): the pair agrees. `stream-lag`'s events reach the
        // stream after the cancel's answer, before its canceled status: in
        // flight, no leak (the honest pair of `cancel-leak`).
        Honest | BindingSlowStreamEnd | StreamLag => honest,
        // They break a promise of the 1.1 draft only, checked with the flag
        // in tests/integration/draft.rs; the matrix checks without it.
        GenerationSkips | GenerationRepeats | GenerationHeld | GenerationMatchIgnored => {
            unreachable!("{} is checked in draft.rs", behaviour.name())
        }
        CancelLeak => Row {
            exit: 1,
            cancel: "diverged",
            ..honest
        },
        InputOverdeclared | InputOverdeclaredFails => Row {
            exit: 1,
            json: "diverged",
            ..honest
        },
        // Every resumed task fails, text too: a broken agent, not a refused
        // mode. The text control fails as well, so both rows are unverified.
        // Each HTTP+JSON binding answers one thing otherwise than JSON-RPC:
        // an unknown task, invalid params, an undeclared push config, how a
        // stream ends. Only the pair diverges: every other scenario talks
        // to the card's preferred interface, JSON-RPC.
        BindingDisagrees
        | BindingDisagreesParams
        | BindingDisagreesUnsupported
        | BindingDisagreesStreamEnd => Row {
            exit: 1,
            pairs: "diverged",
            ..honest
        },
        ResumeFails => Row {
            text: "unverified",
            json: "unverified",
            ..honest
        },
        // The stream never shows work, so the cancel scenario cannot start.
        StreamSilent | StreamSilentNothing => Row {
            exit: 1,
            streaming: "diverged",
            cancel: "unverified",
            ..honest
        },
        UnstableCompletion => Row {
            exit: 1,
            completion: "diverged",
            ..honest
        },
        // Everything completes at once: nothing to stream, cancel or resume,
        // no task in progress to send a contradicting contextId to, and no
        // history longer than the first message to bound.
        Instant => Row {
            exit: 0,
            streaming: "unverified",
            cancel: "unverified",
            text: "unverified",
            json: "unverified",
            context: "unverified",
            history: "unverified",
            ..honest
        },
        UndeclaredStreaming => Row {
            exit: 0,
            streaming: "over-delivers",
            cancel: "unverified",
            ..honest
        },
        UndeclaredStreamingRefused => Row {
            exit: 0,
            streaming: "not-declared",
            cancel: "unverified",
            ..honest
        },
        // Refused with -32600 where -32004 is required: a refusal with the
        // wrong code diverges (v0.3, whose servers only SHOULD use the A2A
        // codes, reads unverified with a warning: see `cell`).
        UndeclaredStreamingInvalidRequest => Row {
            exit: 1,
            streaming: "diverged",
            cancel: "unverified",
            ..honest
        },
        // Accepting an undeclared media type breaks a SHOULD (v1 §13.4): a
        // warning, unverified (diverged under --strict, tests/integration/check.rs).
        InputUndeclaredAccepted => Row {
            undeclared_input: "unverified",
            ..honest
        },
        // -32602 where -32005 is the error the spec names (v0.3: a warning, see `cell`).
        InputUndeclaredWrongCode => Row {
            exit: 1,
            undeclared_input: "diverged",
            ..honest
        },
        // -32007 where v1.0 requires -32004; v0.3 names -32007 for it (see `cell`).
        ExtendedCardUndeclaredUnconfigured => Row {
            exit: 1,
            extended_card: "diverged",
            ..honest
        },
        InterfaceUnserved => Row {
            exit: 1,
            unserved_interface: true,
            ..honest
        },
        // Only a v1.0 peer negotiates versions: v0.3 cells expect exit 0 (see `cell`).
        VersionLenient => Row {
            exit: 1,
            version: "diverged",
            ..honest
        },
        Push => Row {
            push: "honoured",
            ..honest
        },
        PushSilent => Row {
            exit: 1,
            push: "diverged",
            ..honest
        },
        // The refusal of a loopback webhook is the SSRF guard the spec
        // recommends: inconclusive, never a divergence.
        PushRefusesLoopback => Row {
            push: "unverified",
            ..honest
        },
        // Checked with the mock's token (see `cell`): every promise kept,
        // and requests without it or with a made-up one are refused with 401.
        Secured => Row {
            security: "honoured",
            ..honest
        },
        SecurityUnenforced => Row {
            exit: 1,
            security: "diverged",
            ..honest
        },
        // v1.0 only (see `cell`): a v0.3 peer of these is the honest one.
        Grpc => Row {
            grpc: Some("honoured"),
            ..honest
        },
        // The whole default suite runs over gRPC.
        GrpcOnly => Row {
            grpc: Some("honoured"),
            grpc_only: true,
            ..honest
        },
        // Its gRPC binding answers every method UNIMPLEMENTED where JSON-RPC
        // answers: the two bindings disagree.
        GrpcRefused => Row {
            exit: 1,
            grpc: Some("diverged"),
            grpc_pair: "diverged",
            ..honest
        },
        // Nothing A2A answers at its HTTP+JSON URL: a malfunction on that
        // side, so the pair cannot be compared.
        RestUnserved => Row {
            exit: 1,
            rest: "diverged",
            pairs: "unverified",
            ..honest
        },
        // Checked with the credentials the card's scheme names (see
        // `cell`): an API key, or tokens from the mock's token endpoint.
        SecuredApiKey | SecuredOauth => Row {
            security: "honoured",
            ..honest
        },
        // The skill's JSON input needs its own scope: verified with a
        // token that carries it.
        SecuredSkillScopes => Row {
            security: "honoured",
            default_json: false,
            ..honest
        },
        UnknownTaskLenient => Row {
            exit: 1,
            unknown_task: "diverged",
            ..honest
        },
        // v1.0 only (see `cell`): a v0.3 peer of these breaks no promise.
        TerminalSubscribeLenient => Row {
            exit: 1,
            terminal_subscribe: "diverged",
            ..honest
        },
        ContextLax => Row {
            exit: 1,
            context: "diverged",
            ..honest
        },
        ListTasksUnpaged => Row {
            exit: 1,
            list_tasks: "diverged",
            ..honest
        },
        HistoryUnbounded => Row {
            exit: 1,
            history: "diverged",
            ..honest
        },
        SignedCard => Row {
            signature: Some("honoured"),
            ..honest
        },
        SignedCardTampered => Row {
            exit: 1,
            signature: Some("diverged"),
            ..honest
        },
        // Checked with the mock's token (see `cell`): the extended card
        // is served to it, and refused without it.
        ExtendedCard => Row {
            extended_card: "honoured",
            ..honest
        },
        ExtendedCardUnconfigured | ExtendedCardPartial => Row {
            exit: 1,
            extended_card: "diverged",
            ..honest
        },
        ExtensionRequired => Row {
            extensions: Some(("honoured", "honoured")),
            ..honest
        },
        ExtensionIgnored => Row {
            exit: 1,
            extensions: Some(("diverged", "honoured")),
            ..honest
        },
        // JSON-only sends are refused with -32005, which the spec allows.
        OutputModes => Row {
            output_json: Some("honoured"),
            ..honest
        },
        // The task of a JSON-only send fails, while the same message without
        // acceptedOutputModes completes: the declared mode is broken.
        OutputModeFails => Row {
            exit: 1,
            output_json: Some("diverged"),
            ..honest
        },
        // Text parts where only JSON is declared and accepted: a broken
        // SHOULD, a divergence under --strict (without it, unverified: see
        // `declared::output_mode_ignored_is_a_warning_without_strict`).
        OutputModeIgnored => Row {
            exit: 1,
            output_text: None,
            output_json: Some("diverged"),
            strict: true,
            ..honest
        },
        // No prompt reaches input-required: the input modes and the history
        // bound (it needs a second turn) stay unverified. A blocking send
        // answers at once with the task unfinished, a broken promise of its
        // own; the run polls the task to completed, so the subscribe to a
        // finished task and the output modes are judged on it.
        InputUnreachable => Row {
            exit: 1,
            text: "unverified",
            json: "unverified",
            history: "unverified",
            blocking: "diverged",
            ..honest
        },
        // The default prompt completes at once; the card's example works
        // longer, and the stream and cancel probes retry with it. The
        // context probe is not retried (its message is not a lone prompt).
        InstantUnlessExample => Row {
            context: "unverified",
            ..honest
        },
        // A follow-up answered by a new task: every resume is a broken
        // promise of continuing the task named, the input modes' and the
        // history bound's (its second turn is a resume) alike.
        ResumeNewTask | ResumeNewTaskSettled => Row {
            exit: 1,
            text: "diverged",
            json: "diverged",
            history: "diverged",
            ..honest
        },
        // The GetTask of an unknown task gets HTTP 500 (that run's
        // malfunction); the connection it broke is retried by whichever run
        // sends on it next, and no other row moves.
        CloseAfter500 => Row {
            exit: 3,
            unknown_task: "unverified",
            pairs: "unverified",
            ..honest
        },
        // Nothing, not even the status line, for longer than the probe
        // window: the stream's first event is late, counted from the request.
        SilentBeforeStatus => Row {
            exit: 1,
            streaming: "diverged",
            cancel: "unverified",
            ..honest
        },
        // Checked with --timeout 2s (see `cell`): every blocking send runs
        // out of the tool's own bound, which leaves what it reaches
        // unverified and blames the peer for nothing.
        SlowSend => Row {
            exit: 0,
            jsonrpc: "unverified",
            rest: "unverified",
            pairs: "unverified",
            text: "unverified",
            json: "unverified",
            terminal_subscribe: "unverified",
            list_tasks: "unverified",
            history: "unverified",
            blocking: "unverified",
            output_text: Some("unverified"),
            ..honest
        },
        // Every blocking send answered `submitted` at once: that row
        // diverges, and every other is judged on the task a poll settles to.
        NonBlocking => Row {
            exit: 1,
            blocking: "diverged",
            ..honest
        },
        // As non-blocking, and JSON refused on the resume the poll reached.
        NonBlockingInputOverdeclared => Row {
            exit: 1,
            json: "diverged",
            blocking: "diverged",
            ..honest
        },
        // Every stream is reset after its first events: the runs reading
        // one are malfunctions (error, kind stream-reset), never a broken
        // promise, so the rows they verify stay unverified and the check
        // exits 3.
        // The pair's streams break too (bindings-agree reads how a stream
        // ends): a malfunction, so the pair is unverified, never diverged.
        StreamReset => Row {
            exit: 3,
            streaming: "unverified",
            cancel: "unverified",
            completion: "unverified",
            pairs: "unverified",
            ..honest
        },
        // The repeated keys are a card warning; the card read (the last
        // values) is the honest one.
        CardDuplicateKeys => honest,
        // Every task completes at once but the one that asks for input,
        // which parks at once: the cancel probe, retried with the card's
        // examples, never meets running work, and says so; the stream
        // probe passes on the interrupted task. The context probe is not
        // retried (its message is not a lone prompt).
        InstantUnlessInput => Row {
            cancel: "unverified",
            context: "unverified",
            ..honest
        },
        // The prompt is given (`need-input` works as on the honest peer):
        // nothing to search for, every row as the honest one.
        DescriptionTrigger => honest,
    }
}

fn cell(behaviour: Behaviour, version: ProtocolVersion) {
    let peer = start_peer(version, behaviour);
    // A peer whose card requires credentials is checked with its token, from
    // the environment as a user would pass theirs.
    let token = peer.peer.auth_token();
    // The leaked events end 480 ms after the cancel, the edge of the fast
    // quiet window: a wider one sees all of them on a loaded machine too, so
    // the evidence (and its golden file) is the same every run.
    let mut extra: Vec<&str> = Vec::new();
    if behaviour == Behaviour::CancelLeak {
        extra.extend(["--var", "quiet_window=1500ms"]);
    }
    if behaviour == Behaviour::SlowSend {
        // Shorter than the mock's 3 s, with room for every other call on a
        // loaded machine.
        extra.extend(["--timeout", "2s"]);
    }
    if expected(behaviour).strict {
        extra.push("--strict");
    }
    // A signed card is checked with the mock's public key, as a user pins theirs.
    let key_dir = tempfile::tempdir().expect("a temp dir");
    let key_file = key_dir.path().join("mock-key.jwk");
    let key_arg = key_file.display().to_string();
    if let Some(jwk) = peer.peer.public_jwk() {
        std::fs::write(&key_file, jwk.to_string()).expect("the key file");
        extra.extend(["--trusted-key", key_arg.as_str()]);
    }
    // Every report file is written too: the same run pins them (golden files).
    let client_id = a2a_conform_mock::auth::CLIENT_ID;
    let out = match (&token, behaviour) {
        (Some(token), Behaviour::SecuredApiKey) => check_every_format(
            &peer.card_url(),
            &[extra.as_slice(), &["--api-key-env", "MATRIX_TOKEN"]].concat(),
            &[("MATRIX_TOKEN", token)],
        ),
        (Some(token), Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes) => {
            check_every_format(
                &peer.card_url(),
                &[
                    extra.as_slice(),
                    &[
                        "--oauth-client-id-env",
                        "MATRIX_CLIENT_ID",
                        "--oauth-client-secret-env",
                        "MATRIX_TOKEN",
                    ],
                ]
                .concat(),
                &[("MATRIX_TOKEN", token), ("MATRIX_CLIENT_ID", client_id)],
            )
        }
        (Some(token), _) => check_every_format(
            &peer.card_url(),
            &[extra.as_slice(), &["--bearer-env", "MATRIX_TOKEN"]].concat(),
            &[("MATRIX_TOKEN", token)],
        ),
        (None, _) => check_every_format(&peer.card_url(), &extra, &[]),
    };
    let mut want = expected(behaviour);
    let cell = format!("{} × {version}", behaviour.name());
    let v = version.as_str();
    let negotiation = if version == ProtocolVersion::V1_0 {
        want.version
    } else {
        // v0.3 has no version negotiation: a lenient v0.3 peer breaks nothing.
        if behaviour == Behaviour::VersionLenient {
            want.exit = 0;
        }
        // 0.3 servers SHOULD use the A2A codes: another one is a warning.
        if behaviour == Behaviour::UndeclaredStreamingInvalidRequest {
            want.exit = 0;
            want.streaming = "unverified";
        }
        if behaviour == Behaviour::InputUndeclaredWrongCode {
            want.exit = 0;
            want.undeclared_input = "unverified";
        }
        // 0.3 names AuthenticatedExtendedCardNotConfigured (-32007) for it.
        if behaviour == Behaviour::ExtendedCardUndeclaredUnconfigured {
            want.exit = 0;
            want.extended_card = "not-declared";
        }
        "not-declared"
    };
    // v0.3 has no ListTasks, no error for a subscribe to a finished task and
    // no rule for a contradicting contextId: those rows are not declared, and
    // a v0.3 peer breaking them breaks nothing.
    let (terminal_subscribe, context, list_tasks) = if version == ProtocolVersion::V1_0 {
        let streams = !matches!(
            behaviour,
            Behaviour::UndeclaredStreaming
                | Behaviour::UndeclaredStreamingRefused
                | Behaviour::UndeclaredStreamingInvalidRequest
        );
        (
            if streams {
                want.terminal_subscribe
            } else {
                "not-declared"
            },
            want.context,
            want.list_tasks,
        )
    } else {
        if matches!(
            behaviour,
            Behaviour::TerminalSubscribeLenient
                | Behaviour::ContextLax
                | Behaviour::ListTasksUnpaged
        ) {
            want.exit = 0;
        }
        ("not-declared", "not-declared", "not-declared")
    };
    let jsonrpc = format!("interfaces[JSONRPC {v}]");
    let unserved = format!("interfaces[JSONRPC {v} #2]");
    let rest = format!("interfaces[HTTP+JSON {v}]");
    let grpc_row = format!("interfaces[GRPC {v}]");
    let mut rows = vec![(VERSION, negotiation)];
    if !want.grpc_only {
        rows.push((jsonrpc.as_str(), want.jsonrpc));
        rows.push((rest.as_str(), want.rest));
    }
    if let Some(grpc) = want.grpc {
        rows.push((grpc_row.as_str(), grpc));
    }
    if want.unserved_interface {
        rows.push((unserved.as_str(), "diverged"));
    }
    let rest_pair = format!("{rest} ≡ {jsonrpc}");
    let grpc_pair = format!("{grpc_row} ≡ {jsonrpc}");
    let unserved_pair = format!("{unserved} ≡ {jsonrpc}");
    if !want.grpc_only {
        rows.push((rest_pair.as_str(), want.pairs));
        if want.grpc.is_some() {
            rows.push((grpc_pair.as_str(), want.grpc_pair));
        }
        if want.unserved_interface {
            rows.push((unserved_pair.as_str(), "unverified"));
        }
    }
    if let Some(signature) = want.signature {
        rows.push(("signatures[a2a-conform-mock-key]", signature));
    }
    rows.extend([
        (STREAMING, want.streaming),
        (PUSH, want.push),
        (CANCEL, want.cancel),
        (COMPLETION, want.completion),
        (TEXT, want.text),
        (SKILL_TEXT, want.text),
        (SKILL_JSON, want.json),
        (SECURITY, want.security),
        (UNKNOWN_TASK, want.unknown_task),
        (TERMINAL_SUBSCRIBE, terminal_subscribe),
        (CONTEXT, context),
        (LIST_TASKS, list_tasks),
        (HISTORY, want.history),
        (EXTENDED_CARD, want.extended_card),
        (BLOCKING, want.blocking),
        (UNDECLARED_INPUT, want.undeclared_input),
    ]);
    if let Some(verdict) = want.output_text {
        rows.extend([(OUT_TEXT, verdict), (SKILL_OUT_TEXT, verdict)]);
    }
    if let Some(verdict) = want.output_json {
        rows.extend([(OUT_JSON, verdict), (SKILL_OUT_JSON, verdict)]);
    }
    if let Some((required, optional)) = want.extensions {
        rows.extend([
            (REQUIRED_EXTENSION, required),
            (OPTIONAL_EXTENSION, optional),
        ]);
    }
    if want.default_json {
        rows.push((JSON, want.json));
    }
    let mut wrong = Vec::new();
    for (id, verdict) in &rows {
        let got = out.declaration(id);
        if got != *verdict {
            wrong.push(format!("{id}: expected {verdict}, got {got}"));
        }
    }
    // A divergence is caught on the declaration it breaks and on no other:
    // every row of the report is one the table expects.
    for row in out.report()["peers"][0]["declarations"].as_array().unwrap() {
        let id = row["id"].as_str().unwrap_or("");
        if !rows.iter().any(|(expected, _)| *expected == id) {
            wrong.push(format!("{id}: unexpected row ({})", row["verdict"]));
        }
    }
    assert!(
        wrong.is_empty(),
        "{cell}:\n  {}\n{}",
        wrong.join("\n  "),
        out.explain()
    );
    assert_eq!(out.code, want.exit, "{cell}: {}", out.explain());
    // Byte for byte what a user reads, once the values that vary between
    // runs are normalized: the JSON report of every cell, and every format
    // of a few cells (tests/golden/matrix/). The other formats of every cell
    // must agree with the JSON's verdicts, row by row.
    let stem = format!("matrix/{}-v{v}", behaviour.name());
    let token_literal = [(token.as_deref().unwrap_or(""), "[TOKEN]")];
    let json = out.json_text.as_deref();
    let json = json.unwrap_or_else(|| panic!("{cell}: no JSON report: {}", out.explain()));
    golden::assert_golden_json(&format!("{stem}.json"), json, &token_literal);
    let junit = out.junit.as_deref();
    let junit = junit.unwrap_or_else(|| panic!("{cell}: no JUnit report: {}", out.explain()));
    let markdown = out.markdown.as_deref();
    let markdown =
        markdown.unwrap_or_else(|| panic!("{cell}: no Markdown report: {}", out.explain()));
    if EVERY_FORMAT.contains(&(behaviour, version)) {
        for (ext, text) in [
            ("xml", junit),
            ("md", markdown),
            ("txt", out.stdout.as_str()),
        ] {
            golden::assert_golden(&format!("{stem}.{ext}"), text, &token_literal);
        }
    }
    formats_agree(
        &cell,
        &out.report()["peers"][0],
        junit,
        markdown,
        &out.stdout,
    );
    // Every diverged declaration carries evidence a person can act on.
    for run in out.report()["peers"][0]["scenarios"].as_array().unwrap() {
        if run["verdict"] == "fail" {
            let evidence = run["evidence"].as_array().expect("evidence");
            assert!(
                evidence.iter().any(|e| e["kind"] == "request"),
                "{cell}: {} has no request in its evidence",
                run["id"]
            );
            assert!(
                evidence.iter().any(|e| e["curl"].is_string()),
                "{cell}: {} has no reproduction line",
                run["id"]
            );
        }
    }
}

/// The cells whose JUnit, Markdown and terminal reports are pinned too: one
/// of each kind of row a renderer draws differently (a divergence with
/// stream evidence, unverified rows on v0.3, an over-delivery, gRPC's own
/// evidence and reproduction, a malfunction, OAuth's redacted tokens, a
/// webhook's evidence). `tests/integration/reports.rs` pins the honest,
/// cancel-leak and input-overdeclared peers in every format besides.
const EVERY_FORMAT: &[(Behaviour, ProtocolVersion)] = &[
    (Behaviour::StreamSilent, ProtocolVersion::V1_0),
    (Behaviour::Instant, ProtocolVersion::V0_3),
    (Behaviour::UndeclaredStreaming, ProtocolVersion::V1_0),
    (Behaviour::GrpcOnly, ProtocolVersion::V1_0),
    (Behaviour::RestUnserved, ProtocolVersion::V0_3),
    (Behaviour::SecuredOauth, ProtocolVersion::V1_0),
    (Behaviour::PushSilent, ProtocolVersion::V1_0),
];

/// Every declaration row of the JSON `peer` reads the same verdict in the
/// terminal table and the Markdown table, and every scenario run of it is a
/// JUnit test case: the formats not pinned for a cell still say what its
/// JSON golden says.
fn formats_agree(cell: &str, peer: &serde_json::Value, junit: &str, markdown: &str, stdout: &str) {
    let mut wrong = Vec::new();
    for row in peer["declarations"].as_array().expect("declarations") {
        let (id, verdict) = (
            row["id"].as_str().unwrap(),
            row["verdict"].as_str().unwrap(),
        );
        let said = |line: &str| line.split_whitespace().any(|word| word == verdict);
        let in_terminal = stdout.lines().any(|line| {
            line.trim_start()
                .strip_prefix(id)
                .is_some_and(|rest| rest.starts_with(' ') && said(rest))
        });
        if !in_terminal {
            wrong.push(format!("terminal: no row `{id}` reading {verdict}"));
        }
        let cell_of = format!("| `{id}` |");
        let in_markdown = markdown.lines().any(|line| {
            line.strip_prefix(&cell_of)
                .is_some_and(|rest| rest.split('|').next().is_some_and(|v| v.contains(verdict)))
        });
        if !in_markdown {
            wrong.push(format!("Markdown: no row `{id}` reading {verdict}"));
        }
    }
    for run in peer["scenarios"].as_array().expect("scenario runs") {
        let id = run["id"].as_str().unwrap();
        let escaped = id
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('"', "&quot;");
        if !junit.contains(&format!("<testcase name=\"{escaped}\"")) {
            wrong.push(format!("JUnit: no test case {id}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{cell}: the formats disagree with the JSON report:\n  {}",
        wrong.join("\n  ")
    );
}

macro_rules! matrix {
    ($($name:ident: $behaviour:ident,)*) => {
        mod v1_0 {
            use super::*;
            $( #[test] fn $name() { cell(Behaviour::$behaviour, ProtocolVersion::V1_0) } )*
        }
        mod v0_3 {
            use super::*;
            $( #[test] fn $name() { cell(Behaviour::$behaviour, ProtocolVersion::V0_3) } )*
        }
        #[test]
        fn the_matrix_covers_every_behaviour() {
            let covered = [$(Behaviour::$behaviour),*];
            for b in Behaviour::all() {
                if crate::draft::DRAFT_BEHAVIOURS.contains(b) {
                    continue;
                }
                assert!(covered.contains(b), "{} is missing from the matrix", b.name());
            }
        }
    };
}

matrix! {
    honest: Honest,
    cancel_leak: CancelLeak,
    input_overdeclared: InputOverdeclared,
    input_overdeclared_fails: InputOverdeclaredFails,
    resume_fails: ResumeFails,
    binding_disagrees: BindingDisagrees,
    binding_disagrees_params: BindingDisagreesParams,
    binding_disagrees_unsupported: BindingDisagreesUnsupported,
    binding_disagrees_stream_end: BindingDisagreesStreamEnd,
    binding_slow_stream_end: BindingSlowStreamEnd,
    stream_lag: StreamLag,
    stream_silent: StreamSilent,
    stream_silent_nothing: StreamSilentNothing,
    unstable_completion: UnstableCompletion,
    instant: Instant,
    undeclared_streaming: UndeclaredStreaming,
    undeclared_streaming_refused: UndeclaredStreamingRefused,
    undeclared_streaming_invalid_request: UndeclaredStreamingInvalidRequest,
    extended_card_undeclared_unconfigured: ExtendedCardUndeclaredUnconfigured,
    input_undeclared_accepted: InputUndeclaredAccepted,
    input_undeclared_wrong_code: InputUndeclaredWrongCode,
    interface_unserved: InterfaceUnserved,
    version_lenient: VersionLenient,
    push: Push,
    push_silent: PushSilent,
    push_refuses_loopback: PushRefusesLoopback,
    secured: Secured,
    security_unenforced: SecurityUnenforced,
    grpc: Grpc,
    grpc_only: GrpcOnly,
    grpc_refused: GrpcRefused,
    rest_unserved: RestUnserved,
    secured_api_key: SecuredApiKey,
    secured_oauth: SecuredOauth,
    secured_skill_scopes: SecuredSkillScopes,
    unknown_task_lenient: UnknownTaskLenient,
    terminal_subscribe_lenient: TerminalSubscribeLenient,
    context_lax: ContextLax,
    list_tasks_unpaged: ListTasksUnpaged,
    history_unbounded: HistoryUnbounded,
    signed_card: SignedCard,
    signed_card_tampered: SignedCardTampered,
    extended_card: ExtendedCard,
    extended_card_unconfigured: ExtendedCardUnconfigured,
    extended_card_partial: ExtendedCardPartial,
    extension_required: ExtensionRequired,
    extension_ignored: ExtensionIgnored,
    output_modes: OutputModes,
    output_mode_ignored: OutputModeIgnored,
    output_mode_fails: OutputModeFails,
    input_unreachable: InputUnreachable,
    instant_unless_example: InstantUnlessExample,
    resume_new_task: ResumeNewTask,
    resume_new_task_settled: ResumeNewTaskSettled,
    close_after_500: CloseAfter500,
    silent_before_status: SilentBeforeStatus,
    slow_send: SlowSend,
    non_blocking: NonBlocking,
    non_blocking_input_overdeclared: NonBlockingInputOverdeclared,
    stream_reset: StreamReset,
    card_duplicate_keys: CardDuplicateKeys,
    instant_unless_input: InstantUnlessInput,
    description_trigger: DescriptionTrigger,
}
