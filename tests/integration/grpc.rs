//! The gRPC binding end to end: the default suite over gRPC against a
//! gRPC-only mock peer, `--binding grpc` forced on a peer that serves three
//! bindings, and the evidence a gRPC run leaves (metadata with secrets
//! masked, messages as JSON, status, a grpcurl reproduction); the same for
//! v0.3's service (`a2a.v1.A2AService`), with the mock's behaviours over it.

use crate::common::*;
use a2a_conform_mock::{Behaviour, MockPki};
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;

/// Every row of the report that the card declares.
fn declared_rows(out: &Outcome) -> Vec<(String, String)> {
    out.report()["peers"][0]["declarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .filter(|row| row["verdict"] != "not-declared")
        .map(|row| {
            (
                row["id"].as_str().unwrap_or("").to_string(),
                row["verdict"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn evidence_of<'a>(out: &'a Outcome, run: &str) -> &'a [Value] {
    out.run(run)["evidence"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_else(|| panic!("{run} has no evidence:\n{}", out.explain()))
}

#[test]
fn a_grpc_only_peer_keeps_every_declaration_over_grpc() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::GrpcOnly);
    let grpc_addr = peer
        .peer
        .grpc_addr()
        .expect("a v1.0 grpc-only peer serves gRPC");
    let out = check(&peer.card_url(), &["-v"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let report = &out.report()["peers"][0];
    assert_eq!(report["binding"], "grpc", "{}", out.explain());
    // The target as the card spells it (`host:port`), not the URL it is read as.
    assert_eq!(report["endpoint"], grpc_addr.to_string());
    assert!(
        out.stdout
            .contains(&format!("A2A 1.0 over grpc at {grpc_addr}\n")),
        "{}",
        out.stdout
    );
    let rows = declared_rows(&out);
    assert!(
        rows.iter()
            .any(|(id, verdict)| id == "interfaces[GRPC 1.0]" && verdict == "honoured"),
        "{rows:?}"
    );
    for (id, verdict) in &rows {
        assert_eq!(verdict, "honoured", "{id}: {}", out.explain());
    }
    // Error mapping over gRPC: an A2A-Version it does not speak is refused
    // with FAILED_PRECONDITION + VERSION_NOT_SUPPORTED (-32009), push configs
    // with PUSH_NOTIFICATION_NOT_SUPPORTED (-32003); both runs pass only if
    // the status and reason map back to those codes.
    for run in [
        "version-unsupported-refused",
        "push-refused-when-undeclared",
    ] {
        assert_eq!(out.scenario(run), "pass", "{run}: {}", out.explain());
    }
    assert!(!out.stdout.contains("/a2a/jsonrpc"), "{}", out.stdout);
}

#[test]
fn binding_grpc_can_be_forced_on_a_peer_serving_three_bindings() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Grpc);
    let auto = check(&peer.card_url(), &[]);
    assert_eq!(auto.code, 0, "{}", auto.explain());
    assert_eq!(auto.report()["peers"][0]["binding"], "jsonrpc");
    let forced = check(&peer.card_url(), &["--binding", "grpc"]);
    assert_eq!(forced.code, 0, "{}", forced.explain());
    assert_eq!(forced.report()["peers"][0]["binding"], "grpc");
    for out in [&auto, &forced] {
        for id in [
            "interfaces[JSONRPC 1.0]",
            "interfaces[HTTP+JSON 1.0]",
            "interfaces[GRPC 1.0]",
        ] {
            assert_eq!(out.declaration(id), "honoured", "{id}: {}", out.explain());
        }
    }
}

#[test]
fn a_refusing_grpc_interface_diverges_with_a_grpcurl_line_and_no_secret() {
    let secret = "grpc-s3cret-token-value";
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::GrpcRefused);
    let out = check_env(
        &peer.card_url(),
        &["--bearer-env", "GRPC_TEST_TOKEN"],
        &[("GRPC_TEST_TOKEN", secret)],
    );
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.declaration("interfaces[GRPC 1.0]"), "diverged");
    assert_eq!(out.declaration("interfaces[JSONRPC 1.0]"), "honoured");
    let evidence = evidence_of(&out, "interface-served[GRPC 1.0]");
    let request = evidence
        .iter()
        .find(|e| e["kind"] == "request")
        .expect("the request is recorded");
    let summary = request["summary"].as_str().unwrap();
    assert!(
        summary.contains("authorization: Bearer $GRPC_TEST_TOKEN"),
        "{summary}"
    );
    let body: Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["message"]["role"], "ROLE_USER", "{body}");
    let repro = request["curl"].as_str().unwrap();
    assert!(
        repro.starts_with("grpcurl -plaintext -proto a2a.proto")
            && repro.ends_with("lf.a2a.v1.A2AService/SendMessage"),
        "{repro}"
    );
    assert!(
        evidence.iter().any(|e| e["summary"]
            .as_str()
            .unwrap_or("")
            .starts_with("← gRPC UNIMPLEMENTED")),
        "{evidence:#?}"
    );
    for (name, text) in [
        ("stdout", &out.stdout),
        ("stderr", &out.stderr),
        ("report", &out.report().to_string()),
    ] {
        assert!(!text.contains(secret), "the token leaked into {name}");
    }
}

#[test]
fn a_v0_3_grpc_only_peer_keeps_every_declaration_over_grpc_0_3() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::GrpcOnly);
    let grpc_addr = peer
        .peer
        .grpc_addr()
        .expect("a v0.3 grpc-only peer serves gRPC");
    let out = check(&peer.card_url(), &["-v"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let report = &out.report()["peers"][0];
    assert_eq!(report["binding"], "grpc", "{}", out.explain());
    assert_eq!(report["protocol_version"], "0.3", "{}", out.explain());
    assert_eq!(report["endpoint"], grpc_addr.to_string());
    let rows = declared_rows(&out);
    assert!(
        rows.iter()
            .any(|(id, verdict)| id == "interfaces[GRPC 0.3]" && verdict == "honoured"),
        "{rows:?}"
    );
    for (id, verdict) in &rows {
        assert_eq!(verdict, "honoured", "{id}: {}", out.explain());
    }
    // The 0.3 service and its messages are on the wire, reproducible.
    let evidence = evidence_of(&out, "interface-served[GRPC 0.3]");
    let request = evidence
        .iter()
        .find(|e| e["kind"] == "request")
        .expect("the request is recorded");
    let body: Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["message"]["role"], "ROLE_USER", "{body}");
    assert!(body["message"]["content"].is_array(), "{body}");
    let repro = request["curl"].as_str().unwrap();
    assert!(
        repro.starts_with("grpcurl -plaintext -proto a2a.proto")
            && repro.ends_with(&format!("{grpc_addr} a2a.v1.A2AService/SendMessage")),
        "{repro}"
    );
    assert!(!out.stdout.contains("/a2a/jsonrpc"), "{}", out.stdout);
}

#[test]
fn the_honest_v0_3_peer_over_grpc_0_3_honours_every_row() {
    let peer = start_peer_config(a2a_conform_mock::MockConfig {
        grpc: true,
        ..peer_config(ProtocolVersion::V0_3, Behaviour::Honest)
    });
    assert!(peer.peer.grpc_addr().is_some());
    let out = check(&peer.card_url(), &["--binding", "grpc"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.report()["peers"][0]["binding"], "grpc");
    for id in [
        "interfaces[JSONRPC 0.3]",
        "interfaces[HTTP+JSON 0.3]",
        "interfaces[GRPC 0.3]",
        "lifecycle.cancel",
        "lifecycle.completion",
        "capabilities.streaming",
        "protocol.unknownTask",
    ] {
        assert_eq!(out.declaration(id), "honoured", "{id}: {}", out.explain());
    }
    for (id, verdict) in declared_rows(&out) {
        assert_eq!(verdict, "honoured", "{id}: {}", out.explain());
    }
}

#[test]
fn cancel_leak_over_grpc_0_3_diverges() {
    let peer = start_peer_config(a2a_conform_mock::MockConfig {
        grpc: true,
        ..peer_config(ProtocolVersion::V0_3, Behaviour::CancelLeak)
    });
    let out = check(
        &peer.card_url(),
        &["--binding", "grpc", "--var", "quiet_window=1500ms"],
    );
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.report()["peers"][0]["binding"], "grpc");
    assert_eq!(
        out.declaration("lifecycle.cancel"),
        "diverged",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration("interfaces[GRPC 0.3]"),
        "honoured",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration("lifecycle.completion"),
        "honoured",
        "{}",
        out.explain()
    );
}

#[test]
fn a_refusing_grpc_0_3_interface_diverges() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::GrpcRefused);
    let out = check(&peer.card_url(), &[]);
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(
        out.declaration("interfaces[GRPC 0.3]"),
        "diverged",
        "{}",
        out.explain()
    );
    assert_eq!(out.declaration("interfaces[JSONRPC 0.3]"), "honoured");
}

/// The client itself against the mock's gRPC server, in process: a stream
/// read as events, a cancel, a second cancel and a get of an unknown task
/// mapped back to A2A codes, every call recorded.
#[test]
fn the_grpc_client_streams_cancels_and_maps_errors_with_every_call_recorded() {
    use a2a_conform_client::client::{CallOptions, ClientConfig};
    use a2a_conform_client::{PeerClient, Redactor, Reply, StreamOpen, Transcript};
    use a2a_conform_mock::{MockConfig, MockPeer};
    use a2a_conform_protocol::{codes, Binding, Event, Operation, TaskState};
    use serde_json::json;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let peer = MockPeer::start(MockConfig {
            protocol: ProtocolVersion::V1_0,
            behaviour: Behaviour::GrpcOnly,
            timing: fast_timing(),
            ..MockConfig::default()
        })
        .await
        .unwrap();
        let url = url::Url::parse(&format!("http://{}", peer.grpc_addr().unwrap())).unwrap();
        let client = PeerClient::new(
            url,
            ProtocolVersion::V1_0,
            Binding::Grpc,
            ClientConfig::default(),
        )
        .unwrap();
        let transcript = Transcript::new(Arc::new(Redactor::default()));
        let message = json!({"message": {"messageId": "m1", "role": "ROLE_USER",
            "parts": [{"text": "a long answer please"}]}});
        let StreamOpen::Stream(stream) = client
            .open_stream(
                &transcript,
                Operation::SendStreamingMessage,
                message,
                &CallOptions::default(),
            )
            .await
        else {
            panic!("no stream: {:#?}", transcript.entries())
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        assert!(
            stream
                .wait_until(deadline, |items, _| items.len() >= 2)
                .await
        );
        let (items, _) = stream.snapshot();
        let first = items.first().expect("two events");
        let Event::Task(task) = first.event else {
            panic!("first event: {:?}", first.event)
        };
        let id = task.id.clone().expect("the task has an id");

        let canceled = client
            .call(&transcript, Operation::CancelTask, json!({"id": id}))
            .await;
        let Reply::Ok(canceled) = canceled else {
            panic!("cancel: {canceled:?}")
        };
        assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
        let again = client
            .call(&transcript, Operation::CancelTask, json!({"id": id}))
            .await;
        assert!(
            matches!(&again, Reply::Err(e) if e.code == codes::TASK_NOT_CANCELABLE),
            "{again:?}"
        );
        let unknown = client
            .call(
                &transcript,
                Operation::GetTask,
                json!({"id": "no-such-task"}),
            )
            .await;
        assert!(
            matches!(&unknown, Reply::Err(e) if e.code == codes::TASK_NOT_FOUND),
            "{unknown:?}"
        );
        assert!(
            stream
                .wait_until(deadline, |items, end| end.is_some()
                    && items.iter().any(|i| matches!(
                        i.event,
                        Event::StatusUpdate {
                            state: Some(TaskState::Canceled),
                            ..
                        }
                    )))
                .await,
            "{:?}",
            stream.snapshot()
        );

        let summaries: Vec<String> = transcript
            .entries()
            .iter()
            .map(|e| e.summary.clone())
            .collect();
        for wanted in [
            "→ gRPC lf.a2a.v1.A2AService/SendStreamingMessage",
            "→ gRPC lf.a2a.v1.A2AService/CancelTask",
            "← gRPC FAILED_PRECONDITION (ErrorInfo reason TASK_NOT_CANCELABLE)",
            "← gRPC NOT_FOUND (ErrorInfo reason TASK_NOT_FOUND)",
            "← gRPC stream opened after",
            "event #1 task",
            "stream closed by the peer",
        ] {
            assert!(
                summaries.iter().any(|s| s.starts_with(wanted)),
                "{wanted} missing from {summaries:#?}"
            );
        }
        drop(stream);
        peer.shutdown().await;
    });
}

/// A gRPC port that accepts connections and then either says nothing or
/// answers HTTP/1.1 garbage to the HTTP/2 preface.
fn hostile_grpc_port(garbage: bool) -> std::net::SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
                if garbage {
                    let _ = stream.read(&mut buf);
                    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
                }
                // Hold the connection open, reading whatever comes.
                while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
            });
        }
    });
    addr
}

fn grpc_card(addr: std::net::SocketAddr) -> Vec<u8> {
    serde_json::json!({
        "name": "hostile gRPC", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": addr.to_string(), "protocolBinding": "GRPC",
            "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"], "skills": []
    })
    .to_string()
    .into_bytes()
}

#[test]
fn a_silent_or_garbled_grpc_peer_is_a_finding_within_the_timeout() {
    let secret = "hostile-grpc-t0ken";
    for garbage in [false, true] {
        let addr = hostile_grpc_port(garbage);
        let card = serve_static(200, "application/json", grpc_card(addr));
        let started = std::time::Instant::now();
        let out = check_env(
            &card.base_url,
            &["--timeout", "1s", "--bearer-env", "HOSTILE_TOKEN"],
            &[("HOSTILE_TOKEN", secret)],
        );
        let took = started.elapsed();
        let case = if garbage { "garbage" } else { "silent" };
        // Not a valid A2A answer: a peer malfunction (exit 3), which never
        // reads as the card's divergence. No answer within --timeout is the
        // tool's own bound running out: not the peer's fault, and then
        // nothing was verified (exit 4).
        let code = if garbage { 3 } else { 4 };
        assert_eq!(out.code, code, "{case}: {}", out.explain());
        assert_eq!(
            out.declaration("interfaces[GRPC 1.0]"),
            "unverified",
            "{case}: {}",
            out.explain()
        );
        assert_eq!(
            out.run("interface-served[GRPC 1.0]")["error_kind"],
            if garbage {
                "peer-malfunction"
            } else {
                "tool-cap"
            },
            "{case}: {}",
            out.explain()
        );
        // A made-up status from a broken exchange is not the peer's -32603.
        let why = out.run("interface-served[GRPC 1.0]")["message"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let wanted = if garbage {
            "the gRPC exchange broke"
        } else {
            "no answer within 1.00 s"
        };
        assert!(why.contains(wanted), "{case}: {why}");
        // Bounded by --timeout per call, not by the peer: far below the
        // harness's own 120 s limit.
        assert!(
            took < std::time::Duration::from_secs(60),
            "{case}: {took:?}"
        );
        for text in [&out.stdout, &out.stderr, &out.report().to_string()] {
            assert!(!text.contains(secret), "{case}: the token leaked");
        }
    }
}

/// A v1.0 card declaring only a gRPC interface at `target`, with the
/// declarations the mock's gRPC server keeps.
fn tls_grpc_card(target: &str) -> Vec<u8> {
    serde_json::json!({
        "name": "a2a-conform mock peer behind TLS",
        "description": "The mock peer's gRPC server behind a TLS front.",
        "version": "1",
        "supportedInterfaces": [
            {"url": target, "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": true, "pushNotifications": false},
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Chunked echo", "description": "echo",
            "tags": ["mock"], "inputModes": ["text/plain", "application/json"],
            "outputModes": ["text/plain"]}]
    })
    .to_string()
    .into_bytes()
}

/// The gRPC client honours the HTTP client's TLS options (issue #12): a
/// gRPC interface behind TLS (a CA made here, ALPN h2) is refused without
/// its CA, naming --cacert; trusted with --cacert; accepted with --insecure;
/// and an mTLS front is satisfied by --cert/--key and refuses a client
/// without them.
#[test]
fn grpc_over_tls_honours_cacert_insecure_and_client_certificates() {
    let pki = MockPki::generate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = pki.write_to(dir.path()).unwrap();
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::GrpcOnly);
    let grpc_addr = peer.peer.grpc_addr().expect("gRPC served");
    let h2 = |require_client_cert: bool| {
        let mut config = (*pki.server_config(require_client_cert).unwrap()).clone();
        config.alpn_protocols = vec![b"h2".to_vec()];
        std::sync::Arc::new(config)
    };
    let front = tls_front(&format!("http://{grpc_addr}"), h2(false));
    let target = format!("https://127.0.0.1:{}", front.port);
    let card = serve_static(200, "application/json", tls_grpc_card(&target));
    let card_url = format!("{}/.well-known/agent-card.json", card.base_url);

    let untrusted = check(&card_url, &[]);
    assert_eq!(untrusted.code, 3, "{}", untrusted.explain());
    let all = format!("{}{}", untrusted.stdout, untrusted.stderr);
    assert!(
        all.contains("not trusted") && all.contains("--cacert FILE"),
        "{}",
        untrusted.explain()
    );

    let cacert = files.ca.display().to_string();
    let trusted = check(&card_url, &["--cacert", &cacert]);
    assert_eq!(trusted.code, 0, "{}", trusted.explain());
    assert_eq!(trusted.report()["peers"][0]["binding"], "grpc");
    assert_eq!(trusted.report()["peers"][0]["endpoint"], target.as_str());
    assert_eq!(trusted.declaration("interfaces[GRPC 1.0]"), "honoured");
    assert_eq!(trusted.declaration("capabilities.streaming"), "honoured");
    assert_eq!(trusted.declaration("lifecycle.cancel"), "honoured");

    let insecure = check(&card_url, &["--insecure"]);
    assert_eq!(insecure.code, 0, "{}", insecure.explain());
    assert_eq!(insecure.report()["tool"]["insecure"], true);

    let mtls = tls_front(&format!("http://{grpc_addr}"), h2(true));
    let target = format!("https://127.0.0.1:{}", mtls.port);
    let card = serve_static(200, "application/json", tls_grpc_card(&target));
    let card_url = format!("{}/.well-known/agent-card.json", card.base_url);
    let (cert, key) = (
        files.client_cert.display().to_string(),
        files.client_key.display().to_string(),
    );
    let with_identity = check(
        &card_url,
        &["--cacert", &cacert, "--cert", &cert, "--key", &key],
    );
    assert_eq!(with_identity.code, 0, "{}", with_identity.explain());
    assert_eq!(
        with_identity.declaration("interfaces[GRPC 1.0]"),
        "honoured"
    );
    let without = check(&card_url, &["--cacert", &cacert]);
    assert_eq!(without.code, 3, "{}", without.explain());
}

/// A TLS front on 127.0.0.1 that forwards each connection to `backend` (the
/// mock's plaintext gRPC port).
struct TlsFront {
    port: u16,
    _runtime: tokio::runtime::Runtime,
}

fn tls_front(
    backend: &str,
    config: std::sync::Arc<tokio_rustls::rustls::ServerConfig>,
) -> TlsFront {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let backend = url::Url::parse(backend).unwrap();
    let backend = format!(
        "{}:{}",
        backend.host_str().unwrap(),
        backend.port().unwrap()
    );
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    runtime.spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let backend = backend.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(&backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    TlsFront {
        port,
        _runtime: runtime,
    }
}
