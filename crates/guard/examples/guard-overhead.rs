//! What the guards cost per task, against the mock peer: `TASKS` tasks
//! delegated one after another, either guarded (`open_task` by a plain
//! send, then `await_terminal`: terminal and stable on two reads) or
//! unguarded (the same send, then `GetTask` reads until the first terminal
//! one). Both read every `POLL` ms. It prints the requests per task, the
//! wall time per task and the mean `GetTask` round trip, measured in the
//! process; time the whole process side by side to get the ratio.
//!
//! ```console
//! $ cargo run --release -p a2a-conform-guard --example guard-overhead -- guarded
//! $ cargo run --release -p a2a-conform-guard --example guard-overhead -- unguarded
//! ```
//!
//! docs/performance.md ("Guards") has the figures.

use a2a_conform_client::{
    ClientConfig, PeerClient, Record, RecordKind, Redactor, Reply, Transcript,
};
use a2a_conform_guard::{CacheOptions, CapabilityCache, Guard, GuardOptions};
use a2a_conform_mock::{MockConfig, MockPeer, MockTiming};
use a2a_conform_protocol::{MessagePart, Operation, SendResult, TaskView};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TASKS: u32 = 40;
const POLL: Duration = Duration::from_millis(20);

type Failure = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "guarded".into());
    let peer = MockPeer::start(MockConfig {
        timing: MockTiming {
            chunks: 2,
            chunk_interval: Duration::from_millis(25),
            ..MockTiming::default()
        },
        ..MockConfig::default()
    })
    .await?;
    let started = Instant::now();
    let records = match mode.as_str() {
        "guarded" => guarded(&peer).await?,
        "unguarded" => unguarded(&peer).await?,
        other => return Err(format!("unknown mode `{other}` (guarded, unguarded)").into()),
    };
    let wall = started.elapsed();
    let requests = records.iter().filter(|r| r.kind == RecordKind::Request);
    let reads = requests
        .clone()
        .filter(|r| r.summary.contains("GetTask"))
        .count();
    println!(
        "{mode}: {TASKS} tasks, {:.2} requests/task ({:.2} GetTask), {:.1} ms/task, GetTask round trip {:.2} ms",
        requests.count() as f64 / f64::from(TASKS),
        reads as f64 / f64::from(TASKS),
        wall.as_secs_f64() * 1000.0 / f64::from(TASKS),
        read_round_trip(&peer).await? * 1000.0,
    );
    peer.shutdown().await;
    Ok(())
}

/// Every task under the guards, by a plain send and stable reads.
async fn guarded(peer: &MockPeer) -> Result<Vec<Record>, Failure> {
    let options = GuardOptions {
        poll_interval: POLL,
        streaming: false,
        ..GuardOptions::default()
    };
    let cache = CapabilityCache::in_memory(CacheOptions::default());
    let guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache, options).await?;
    let mut records = Vec::new();
    for _ in 0..TASKS {
        let task = guard
            .open_task(&[MessagePart::Text("hello".into())])
            .await?;
        task.await_terminal().await?;
        drop(task);
        records.extend(guard.take_exchanges());
    }
    Ok(records)
}

/// Every task as an orchestrator without guards does it: the send, then
/// reads until the first terminal one.
async fn unguarded(peer: &MockPeer) -> Result<Vec<Record>, Failure> {
    let (client, version) = client(peer).await?;
    let mut records = Vec::new();
    for n in 0..TASKS {
        let transcript = Transcript::new(Arc::new(Redactor::default()));
        let message = version.message(
            &[MessagePart::Text("hello".into())],
            &format!("m{n}"),
            None,
            None,
        );
        let sent = answer(
            client
                .call(
                    &transcript,
                    Operation::SendMessage,
                    version.send_params(message, false),
                )
                .await,
        )?;
        let SendResult::Task(task) = SendResult::from_result(&sent) else {
            return Err("no task".into());
        };
        let id = task.id.ok_or("no task id")?;
        loop {
            tokio::time::sleep(POLL).await;
            let read = answer(
                client
                    .call(&transcript, Operation::GetTask, version.task_params(&id))
                    .await,
            )?;
            if TaskView::from_json(&read)
                .state
                .is_some_and(|s| s.is_terminal())
            {
                break;
            }
        }
        records.extend(transcript.entries());
    }
    Ok(records)
}

/// The mean of 50 `GetTask` round trips of one finished task: what each
/// stable read costs beyond the poll interval it waits.
async fn read_round_trip(peer: &MockPeer) -> Result<f64, Failure> {
    let (client, version) = client(peer).await?;
    let transcript = Transcript::new(Arc::new(Redactor::default()));
    let message = version.message(&[MessagePart::Text("hello".into())], "rt", None, None);
    let sent = answer(
        client
            .call(
                &transcript,
                Operation::SendMessage,
                version.send_params(message, false),
            )
            .await,
    )?;
    let SendResult::Task(task) = SendResult::from_result(&sent) else {
        return Err("no task".into());
    };
    let id = task.id.ok_or("no task id")?;
    let started = Instant::now();
    for _ in 0..50 {
        answer(
            client
                .call(&transcript, Operation::GetTask, version.task_params(&id))
                .await,
        )?;
    }
    Ok(started.elapsed().as_secs_f64() / 50.0)
}

async fn client(
    peer: &MockPeer,
) -> Result<(PeerClient, a2a_conform_protocol::ProtocolVersion), Failure> {
    let card = a2a_conform_client::card_fetch::fetch_card(
        &peer.card_url(),
        &ClientConfig::default(),
        Default::default(),
        Default::default(),
        &Redactor::default(),
    )
    .await?;
    let version = card.protocol_version();
    let client = PeerClient::new(
        card.endpoint.url.parse()?,
        version,
        card.binding(),
        ClientConfig::default(),
    )?;
    Ok((client, version))
}

fn answer(reply: Reply) -> Result<serde_json::Value, Failure> {
    match reply {
        Reply::Ok(value) => Ok(value),
        other => Err(format!("{other:?}").into()),
    }
}
