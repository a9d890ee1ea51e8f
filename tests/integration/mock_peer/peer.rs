//! The peer's own lifecycle: shutdown and drop.

use super::support::*;

use a2a_conform_mock::{Behaviour, MockTiming};
use a2a_conform_protocol::ProtocolVersion;
use std::time::Duration;

#[tokio::test]
async fn shutdown_ends_open_streams_and_frees_the_port() {
    let slow = MockTiming {
        silence: Duration::from_secs(300),
        ..timing()
    };
    let p = start_with(ProtocolVersion::V1_0, Behaviour::StreamSilentNothing, slow).await;
    let mut sse = p.stream_message(message(p.version, "hello")).await;
    assert!(matches!(sse.next().await, Some(Ev::Task(_))));
    let url = p.peer.card_url();
    within(WAIT, "shutdown", p.peer.shutdown()).await;
    let ended = within(WAIT, "stream ends", async {
        loop {
            match sse.response.chunk().await {
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => return,
            }
        }
    })
    .await;
    let () = ended;
    assert!(
        p.http.get(url).send().await.is_err(),
        "nothing listens any more"
    );
}

#[tokio::test]
async fn dropping_the_peer_stops_it() {
    let p = start(ProtocolVersion::V0_3, Behaviour::Honest).await;
    let url = p.peer.card_url();
    drop(p.peer);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(p.http.get(url).send().await.is_err());
}
