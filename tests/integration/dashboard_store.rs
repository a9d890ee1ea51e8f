//! The dashboard over a PostgreSQL store that goes away: the built binary
//! serves a real PostgreSQL the harness starts, the server is restarted
//! (and stopped) under it, and the next request is answered again — a
//! request failing meanwhile is a 500 and one line on the dashboard's
//! stderr, without the URL's password.

use crate::common::postgres::PgServer;
use crate::dashboard::get;
use a2a_conform_history::Store;
use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PEER: &str = "https://a.example/.well-known/agent-card.json";

/// A dashboard whose stderr goes to a file the test reads; killed on drop.
struct Logged {
    child: Child,
    base: String,
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the dashboard over `db` on a free loopback port, its stderr into
/// `log`; waits for the address it prints there.
fn start(db: &str, log: &Path) -> Logged {
    let file = std::fs::File::create(log).expect("the log file");
    let child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(["dashboard", "--db", db, "--listen", "127.0.0.1:0"])
        .env_remove("A2A_CONFORM_DASHBOARD_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(file)
        .spawn()
        .expect("the dashboard starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut dashboard = Logged {
        child,
        base: String::new(),
    };
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(addr) = text
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
        {
            dashboard.base = format!("http://{addr}");
            return dashboard;
        }
        assert!(
            dashboard.child.try_wait().expect("wait").is_none(),
            "the dashboard ended: {text}"
        );
        assert!(Instant::now() < deadline, "no address in {text:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_dashboard_reconnects_after_postgresql_restarts_and_logs_what_failed() {
    let server = PgServer::start();
    let row = DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Honoured).build();
    let report = RunReport::new(vec![PeerReport::builder(PEER)
        .declarations(vec![row])
        .build()]);
    Store::open(&server.url)
        .expect("the store opens")
        .record(&report)
        .expect("recorded");
    // A password in the URL (the harness trusts every local connection):
    // it must never be shown.
    let password = "pw-4c1e-never-shown";
    let url = server
        .url
        .replace("postgres@", &format!("postgres:{password}@"));
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("stderr");
    let dashboard = start(&url, &log);
    let (status, _, body) = get(&dashboard.base, "/api/fleet", None);
    assert_eq!(status, 200, "{body}");

    server.restart();
    for path in ["/api/fleet", "/", "/metrics"] {
        let (status, _, body) = get(&dashboard.base, path, None);
        assert_eq!(status, 200, "{path} after the restart: {body}");
        assert!(body.contains("a.example"), "{path}: {body}");
    }

    server.stop();
    let (status, _, body) = get(&dashboard.base, "/api/fleet", None);
    assert_eq!(status, 500, "{body}");
    assert!(
        body.starts_with(
            "the history store failed: PostgreSQL history database: error connecting to server: "
        ),
        "{body}"
    );
    let text = std::fs::read_to_string(&log).expect("the log");
    let failed: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("dashboard: a request failed: "))
        .collect();
    assert_eq!(
        failed,
        [format!("dashboard: a request failed: {}", body.trim_end())],
        "{text}"
    );
    assert!(!text.contains(password), "{text}");

    server.start_again();
    let (status, _, body) = get(&dashboard.base, "/api/fleet", None);
    assert_eq!(status, 200, "once the server is back: {body}");
}
