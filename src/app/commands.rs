//! The other subcommands: `merge`, `diff`, `card`, `suite` and `mock-peer`.

use super::options::{
    binding_choice, check_peer_urls, env_secret, load_suite, mock_draft, mock_protocol,
    protocol_choice, tls_settings, top, PeerClients,
};
use super::output::{is_stdout, use_color, Outputs};
use crate::cli::{
    CardArgs, DiffArgs, MergeArgs, MockPeerArgs, OutputArgs, ProgressArg, SuiteCommand,
};
use crate::config::ConfigFile;
use crate::error::{AppError, UsageError};
use crate::settings::{PeerSettings, Profiles, Sources};
use a2a_conform_client::client::ClientConfig;
use a2a_conform_engine::runner::{self, RunOptions};
use a2a_conform_engine::scenario::Suite;
use a2a_conform_mock::{MockConfig, MockPeer, MockPki, MockTiming, MockTls};
use a2a_conform_report::baseline::Baseline;
use a2a_conform_report::diff;
use a2a_conform_report::exit;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::Summarized;

/// `merge`: joins shard reports (read by the one report loader, capped and
/// version-checked), prints the terminal report, writes the files and
/// exits as the merged, concluded report calls for.
pub(super) fn merge(args: MergeArgs) -> Result<i32, AppError> {
    let report = a2a_conform_report::merge::merge_files(&args.reports)?;
    let outputs = Outputs::new(&args.files);
    outputs.check()?;
    let output = OutputArgs {
        color: args.color,
        quiet: args.quiet,
        verbose: args.verbose,
        progress: ProgressArg::None,
    };
    outputs.show(&report, &output);
    outputs.write(&report)?;
    Ok(report.summary().exit_code)
}

pub(super) fn diff(args: DiffArgs) -> Result<i32, AppError> {
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let markdown_to_stdout = args.markdown.as_deref().is_some_and(is_stdout);
    if let Some(path) = args.markdown.as_deref().filter(|p| !is_stdout(p)) {
        a2a_conform_report::check_writable(path).map_err(|source| UsageError::ReportPath {
            flag: a2a_conform_report::Format::Markdown.flag(),
            path: path.to_path_buf(),
            source,
        })?;
    }
    let options = diff::DiffOptions {
        fail_on: args.fail_on,
        accept: args.accept.clone(),
        baseline,
    };
    if args.json && markdown_to_stdout {
        return Err(UsageError::StdoutTwice.into());
    }
    let d = diff::diff_files(&args.old, &args.new, &options)?;
    let shown = if args.json {
        format!("{}\n", d.to_json())
    } else {
        d.render_styled(use_color(args.color, markdown_to_stdout))
    };
    if markdown_to_stdout {
        eprint!("{shown}");
    } else {
        print!("{shown}");
    }
    if let Some(path) = &args.markdown {
        let text = d.render_markdown();
        if is_stdout(path) {
            print!("{text}");
        } else {
            a2a_conform_report::write_atomically(path, &text).map_err(|source| {
                AppError::WriteReport {
                    path: path.clone(),
                    source,
                }
            })?;
        }
    }
    for id in &d.unmatched_accepts {
        eprintln!(
            "warning: accepted `{}` names no change between these reports",
            terminal(id)
        );
    }
    Ok(if d.failed { exit::DIVERGED } else { exit::OK })
}

pub(super) async fn card(
    args: CardArgs,
    config: Option<&ConfigFile>,
    sources: &Sources,
) -> Result<i32, AppError> {
    // A peer named by its config section reads that section's URL, timeout
    // and TLS files, as `check` does (in the same precedence).
    let resolved = crate::config::resolve_peers(config, std::slice::from_ref(&args.peer))?;
    let peer = resolved.urls.first().cloned().unwrap_or(args.peer.clone());
    check_peer_urls(std::slice::from_ref(&peer))?;
    let layers = match config {
        Some(config) => config.section_layers(&peer, &mut Profiles::default())?,
        None => Vec::new(),
    };
    let flags = PeerSettings {
        timeout: args.timeout,
        ..tls_settings(&args.tls)
    };
    let settings = top(flags, &[], sources)?.resolve(&layers, &[]);
    let options = RunOptions {
        protocol: protocol_choice(args.protocol),
        binding: binding_choice(args.binding),
        client: ClientConfig {
            timeout: settings.timeout.value,
            tls: PeerClients::new(args.tls.insecure).tls(&settings)?,
            ..ClientConfig::default()
        },
        ..RunOptions::default()
    };
    let card = runner::fetch_card(&peer, &options)
        .await
        .map_err(|e| AppError::Peer(terminal(&e.reason).into_owned()))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&card).unwrap_or_else(|e| e.to_string())
        );
        return Ok(exit::OK);
    }
    // Everything here but the labels is the peer's text.
    let color = use_color(args.color, false);
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let name = terminal(&card.name);
    println!("{name} — {}", terminal(card.fetched_from.as_str()));
    println!("  layout:   {}", card.layout);
    println!(
        "  endpoint: A2A {} over {} at {}",
        card.protocol_version(),
        card.binding(),
        terminal(card.endpoint.shown_target())
    );
    for i in &card.interfaces {
        println!(
            "  interface: {} {} at {}",
            if i.declared_version.is_empty() {
                "?".into()
            } else {
                terminal(&i.declared_version)
            },
            terminal(&i.binding_name),
            terminal(i.url.as_str())
        );
    }
    println!("  digest:   {}", card.digest);
    println!("  declarations:");
    for d in card.declarations() {
        println!(
            "    {:<48} {}",
            terminal(&d.id.to_string()),
            if d.declared {
                paint("32", "declared")
            } else {
                paint("2", "not declared")
            }
        );
    }
    for w in &card.warnings {
        println!("  {} {}", paint("33", "warning:"), terminal(&w.to_string()));
    }
    Ok(exit::OK)
}

pub(super) fn suite(cmd: SuiteCommand) -> Result<i32, AppError> {
    match cmd {
        SuiteCommand::Lint {
            files,
            no_default_suite,
        } => {
            // Checked against the default suite, as `check --suite` loads
            // them: a file redefining a default id fails both the same way.
            let mut suite = if no_default_suite {
                Suite::default()
            } else {
                Suite::embedded()?
            };
            let mut failed = false;
            for file in &files {
                let before = suite.scenarios.len();
                match suite.add_file(file) {
                    Ok(()) => println!(
                        "ok: {}: {} scenario(s)",
                        terminal(&file.display().to_string()),
                        suite.scenarios.len() - before
                    ),
                    Err(e) => {
                        // Lint shows every bad file, not only the first.
                        AppError::from(e).print();
                        failed = true;
                    }
                }
            }
            Ok(if failed { exit::USAGE } else { exit::OK })
        }
        SuiteCommand::List {
            suites,
            no_default_suite,
            json,
        } => {
            let suite = load_suite(&suites, no_default_suite)?;
            if json {
                let rows: Vec<serde_json::Value> = suite
                    .scenarios
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "id": s.id(),
                            "title": s.def.title,
                            "verifies": s.verifies.iter().map(ToString::to_string).collect::<Vec<_>>(),
                            "when": s.gate.as_ref().map(ToString::to_string),
                            "for_each": s.def.for_each.map(|f| f.to_string()),
                            "file": s.file,
                            "line": s.line,
                        })
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(&rows).unwrap_or_else(|e| e.to_string())
                );
                return Ok(exit::OK);
            }
            for s in &suite.scenarios {
                let gate = s
                    .gate
                    .as_ref()
                    .map(|g| format!(" (when {g})"))
                    .unwrap_or_default();
                let each = s
                    .def
                    .for_each
                    .map(|f| format!(" ({f})"))
                    .unwrap_or_default();
                let verifies: Vec<String> = s.verifies.iter().map(ToString::to_string).collect();
                println!(
                    "{}  verifies {}{gate}{each}",
                    terminal(s.id()),
                    terminal(&verifies.join(", "))
                );
                println!(
                    "    {}  [{}:{}]",
                    terminal(&s.def.title.to_string()),
                    terminal(&s.file),
                    s.line
                );
            }
            Ok(exit::OK)
        }
    }
}

pub(super) async fn mock_peer(args: MockPeerArgs) -> Result<i32, AppError> {
    let behaviour = args.behaviour;
    let auth_token = match &args.token_env {
        None => None,
        Some(var) => Some(env_secret("--token-env", var)?.trim().to_string()),
    };
    let config = MockConfig {
        protocol: mock_protocol(args.protocol),
        behaviour,
        port: args.port,
        timing: MockTiming {
            chunks: args.chunks,
            chunk_interval: args.chunk_interval,
            silence: args.silence,
            ..MockTiming::default()
        },
        auth_token,
        tls: None,
        grpc: args.grpc,
        draft_1_1: mock_draft(args.protocol),
    };
    let config = match &args.tls {
        None => config,
        Some(dir) => {
            let failed = |source: Box<dyn std::error::Error + Send + Sync>| AppError::MockTls {
                dir: dir.clone(),
                source,
            };
            let pki = MockPki::generate().map_err(|e| failed(e.into()))?;
            let files = pki.write_to(dir).map_err(|e| failed(e.into()))?;
            eprintln!(
                "mock peer CA: {} (check with --cacert {}{})",
                files.ca.display(),
                files.ca.display(),
                if args.require_client_cert {
                    format!(
                        " --cert {} --key {}",
                        files.client_cert.display(),
                        files.client_key.display()
                    )
                } else {
                    String::new()
                }
            );
            MockConfig {
                tls: Some(MockTls {
                    pki: std::sync::Arc::new(pki),
                    require_client_cert: args.require_client_cert,
                }),
                ..config
            }
        }
    };
    let peer = MockPeer::start(config)
        .await
        .map_err(|source| AppError::MockPeer {
            action: "listen",
            address: format!("127.0.0.1:{}", args.port),
            source,
        })?;
    if let (Some(path), Some(jwk)) = (&args.public_key_out, peer.public_jwk()) {
        std::fs::write(path, format!("{jwk}\n")).map_err(|source| AppError::MockPeer {
            action: "write the public key to",
            address: path.display().to_string(),
            source,
        })?;
    }
    println!("{}", peer.card_url());
    eprintln!(
        "mock peer ({behaviour}, A2A {}{}) serving on {}; Ctrl-C stops it",
        peer.protocol(),
        if peer.serves_draft() {
            " + the 1.1 draft"
        } else {
            ""
        },
        peer.base_url()
    );
    let _ = tokio::signal::ctrl_c().await;
    peer.shutdown().await;
    Ok(exit::OK)
}
