//! A real PostgreSQL server for tests, started on a temporary data
//! directory and 127.0.0.1 (as the `postgres` or `nobody` user when the
//! tests run as root, which PostgreSQL refuses) and stopped on drop.
//! Missing server binaries fail the test, naming the package. Shared by
//! this crate's tests and the CLI's (tests/integration/common), so it
//! needs nothing but std and tempfile.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Debian's PostgreSQL 15 server binaries; `A2A_CONFORM_PG_BIN` overrides
/// (`.ci/run` sets it to the newest installed version).
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// A PostgreSQL server on a temporary data directory, stopped on drop.
pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    user: Option<String>,
    port: u16,
    pub url: String,
}

impl PgServer {
    pub fn start() -> PgServer {
        let bin = PathBuf::from(std::env::var("A2A_CONFORM_PG_BIN").unwrap_or(PG_BIN.into()));
        assert!(
            bin.join("initdb").is_file() && bin.join("pg_ctl").is_file(),
            "the PostgreSQL server binaries are not in {} (initdb, pg_ctl): install them \
             with `apt-get install postgresql` (Debian; .ci/run does), or point \
             A2A_CONFORM_PG_BIN at another PostgreSQL's bin folder",
            bin.display()
        );
        let dir = tempfile::tempdir().expect("a temporary folder");
        let user = server_user(dir.path());
        let data = dir.path().join("data");
        let initdb = bin.join("initdb");
        let out = run(
            user.as_deref(),
            &initdb,
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-A".as_ref(),
                "trust".as_ref(),
                "-U".as_ref(),
                "postgres".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--no-sync".as_ref(),
            ],
        );
        assert!(out.status.success(), "initdb failed: {}", text(&out));
        let mut server = PgServer {
            dir,
            bin,
            user,
            port: 0,
            url: String::new(),
        };
        // A free port can be taken between asking and binding: try a few.
        for _ in 0..5 {
            let port = free_port();
            if server.pg_ctl_start(port) {
                server.port = port;
                server.url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
                return server;
            }
        }
        let log = std::fs::read_to_string(server.dir.path().join("log")).unwrap_or_default();
        panic!("the PostgreSQL server did not start:\n{log}");
    }

    /// Stops the server (as `pg_ctl stop -m fast` does: every session is
    /// told and closed) and starts it again on the same port and data
    /// directory: what a client sees of a database restart.
    pub fn restart(&self) {
        self.stop();
        self.start_again();
    }

    /// Stops the server (`-m fast`); [`PgServer::start_again`] brings it back.
    pub fn stop(&self) {
        let out = self.pg_ctl(&["-m", "fast", "-w", "stop"]);
        assert!(out.status.success(), "pg_ctl stop failed: {}", text(&out));
    }

    /// Starts the stopped server again on its port and data directory.
    pub fn start_again(&self) {
        assert!(
            self.pg_ctl_start(self.port),
            "the PostgreSQL server did not start again on port {}:\n{}",
            self.port,
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    /// From now on, connections over TCP must bring the password their
    /// role has (set one first, e.g. `ALTER ROLE postgres PASSWORD '…'`):
    /// `scram-sha-256` in pg_hba.conf, then the server reloads it.
    pub fn require_passwords(&self) {
        let hba = self.dir.path().join("data").join("pg_hba.conf");
        // Written over, not replaced: the file keeps its owner (the server user).
        std::fs::write(
            &hba,
            "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
        )
        .expect("pg_hba.conf is written");
        let out = self.pg_ctl(&["reload"]);
        assert!(out.status.success(), "pg_ctl reload failed: {}", text(&out));
    }

    /// Runs `pg_ctl -D DATA ARGS`.
    fn pg_ctl(&self, args: &[&str]) -> Output {
        let data = self.dir.path().join("data");
        let mut all: Vec<&std::ffi::OsStr> = vec!["-D".as_ref(), data.as_os_str()];
        all.extend(args.iter().map(|a| -> &std::ffi::OsStr { a.as_ref() }));
        run(self.user.as_deref(), &self.bin.join("pg_ctl"), &all)
    }

    fn pg_ctl_start(&self, port: u16) -> bool {
        let options = format!("-h 127.0.0.1 -p {port} -k {} -F", self.dir.path().display());
        let data = self.dir.path().join("data");
        let log = self.dir.path().join("log");
        let out = run(
            self.user.as_deref(),
            &self.bin.join("pg_ctl"),
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        );
        out.status.success()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = self.pg_ctl(&["-m", "immediate", "-w", "stop"]);
    }
}

/// Who runs the server: the current user, or (as root, which PostgreSQL
/// refuses) `postgres` or else `nobody`, given the folder.
fn server_user(dir: &Path) -> Option<String> {
    let meta = std::fs::metadata(dir).expect("the folder exists");
    if meta.uid() != 0 {
        return None;
    }
    let user = ["postgres", "nobody"]
        .into_iter()
        .find(|user| id(user, "-u").is_some())
        .expect("a `postgres` or `nobody` user to run the PostgreSQL server as (it refuses root)");
    let uid = id(user, "-u").expect("its uid");
    let gid = id(user, "-g").expect("its gid");
    std::os::unix::fs::chown(dir, Some(uid), Some(gid)).expect("the folder is given to it");
    Some(user.to_string())
}

fn id(user: &str, flag: &str) -> Option<u32> {
    let out = Command::new("id").args([flag, user]).output().ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// Runs a server program (from `/`: the server user may not enter the
/// test's working folder).
fn run(user: Option<&str>, program: &Path, args: &[&std::ffi::OsStr]) -> Output {
    let mut command = match user {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    };
    command
        .current_dir("/")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}
