//! Opening a store against a real PostgreSQL server: PostgreSQL's
//! refusals with their cause and never the password.

#[allow(dead_code)]
mod support;

use a2a_conform_history::Store;
use support::PgServer;

/// `url` with `user:password@` in place of `user@`, and `db` as database.
fn with(url: &str, credentials: &str, db: &str) -> String {
    let rest = url
        .strip_prefix("postgres://postgres@")
        .expect("the harness URL");
    let host = rest.split('/').next().expect("a host");
    format!("postgres://{credentials}@{host}/{db}")
}

/// Opens `url`, which must fail; its message must hold `cause` and not
/// `password`, nor must its debug form.
fn refused(url: &str, cause: &str, password: &str) {
    let error = Store::open(url).expect_err("refused");
    let message = error.to_string();
    assert!(message.contains(cause), "{message}");
    assert!(!message.contains('\n'), "{message}");
    assert!(!message.contains(password), "{message}");
    assert!(!format!("{error:?}").contains(password), "{error:?}");
}

#[test]
fn postgresql_refusals_say_why_and_never_show_the_password() {
    let server = PgServer::start();
    let password = "s3cret-Pw-8d1c";
    refused(
        &with(&server.url, &format!("postgres:{password}"), "no_such_db"),
        "FATAL: database \"no_such_db\" does not exist",
        password,
    );
    let mut admin = postgres::Client::connect(&server.url, postgres::NoTls).expect("connected");
    admin
        .batch_execute(&format!("ALTER ROLE postgres PASSWORD '{password}'"))
        .expect("the password is set");
    server.require_passwords();
    refused(
        &with(&server.url, "postgres:wrong-Pw-77", "postgres"),
        "FATAL: password authentication failed for user \"postgres\"",
        "wrong-Pw-77",
    );
    refused(
        &server.url,
        "invalid configuration: password missing",
        password,
    );
    let url = with(&server.url, &format!("postgres:{password}"), "postgres");
    let mut store = Store::open(&url).expect("the right password opens it");
    assert_eq!(store.latest().expect("read").0, 0);
}
