//! The named behaviours of the mock peer: the honest lifecycle and each
//! divergence between what the card declares and what the runtime does.

use clap::ValueEnum;
use std::fmt;
use strum::EnumMessage;

/// How the mock peer behaves. `Honest` keeps every promise of its card; every
/// other variant breaks exactly one, the same way in v1.0 and v0.3.
///
/// Its names are clap's [`ValueEnum`] kebab-case (`cancel-leak`): the one
/// place they are spelled, for `--behaviour`, [`fmt::Display`] and cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, ValueEnum, strum::EnumMessage)]
pub enum Behaviour {
    /// Keeps every declaration of its card.
    #[default]
    #[strum(message = "keeps every declaration of its card")]
    Honest,
    /// Acknowledges a cancel, then keeps streaming artifacts and ends `completed`.
    #[strum(
        message = "acknowledges a cancel, keeps streaming artifacts afterwards, and \
                   the task later reads completed with a partial artifact"
    )]
    CancelLeak,
    /// Declares JSON input but refuses a data part on resume with -32602.
    #[strum(
        message = "declares application/json input but refuses a data part on the \
                   input-required resume with -32602"
    )]
    InputOverdeclared,
    /// Declares JSON input but fails the task when a data part resumes it.
    #[strum(message = "declares application/json input but a data part on the \
                   input-required resume fails the task")]
    InputOverdeclaredFails,
    /// Asks for input, then fails every resumed task whatever its parts,
    /// text too: a broken agent, no declared mode broken (the honest pair
    /// of `InputOverdeclaredFails`).
    #[strum(
        message = "asks for input, then fails every resumed task whatever its parts \
                   (text too): no declared input mode is refused"
    )]
    ResumeFails,
    /// Declares streaming, sends the first event, then only keep-alive comments.
    #[strum(
        message = "declares streaming, sends the first event of a stream, then only \
                   keep-alive comments until it closes"
    )]
    StreamSilent,
    /// Declares streaming, sends the first event, then nothing at all.
    #[strum(
        message = "declares streaming, sends the first event of a stream, then \
                   nothing until it closes"
    )]
    StreamSilentNothing,
    /// Reports `completed`, then keeps changing the artifact set.
    #[strum(message = "reports completed, then adds and rewrites artifacts afterwards")]
    UnstableCompletion,
    /// Completes every task the moment it is created.
    #[strum(message = "completes every task the moment it is created")]
    Instant,
    /// Declares `streaming: false` but serves streams anyway.
    #[strum(message = "declares streaming: false but serves streams anyway")]
    UndeclaredStreaming,
    /// Declares `streaming: false` and refuses streams with -32004 (correct).
    #[strum(message = "declares streaming: false and refuses streams with -32004 \
                   (correct)")]
    UndeclaredStreamingRefused,
    /// Declares `streaming: false` and refuses streams with -32600 where the
    /// spec requires -32004 (a2a-java #1041).
    #[strum(message = "declares streaming: false and refuses streams with -32600 \
                   (InvalidRequest) where the spec requires -32004")]
    UndeclaredStreamingInvalidRequest,
    /// Declares no extended card and answers GetExtendedAgentCard with
    /// -32007 where v1.0 requires -32004 (a2a-java #733, a2a-dotnet #475).
    #[strum(
        message = "declares no extended agent card and answers GetExtendedAgentCard \
                   with -32007 (ExtendedAgentCardNotConfigured) where v1.0 requires -32004"
    )]
    ExtendedCardUndeclaredUnconfigured,
    /// Accepts a part of a media type its card declares nowhere
    /// (CognicellAI/Cognition #166, microsoft/agent-framework #7258).
    #[strum(
        message = "accepts, silently, a part of a media type no input mode of its \
                   card declares instead of refusing it with -32005"
    )]
    InputUndeclaredAccepted,
    /// Refuses a part of an undeclared media type with -32602 where -32005
    /// is the error the spec names (a2a-rs #270).
    #[strum(
        message = "refuses a part of a media type no input mode declares with \
                   -32602 (InvalidParams) where the spec names -32005"
    )]
    InputUndeclaredWrongCode,
    /// Declares one more JSON-RPC interface than it serves.
    #[strum(
        message = "declares a second JSON-RPC interface at /a2a/retired that it does \
                   not serve"
    )]
    InterfaceUnserved,
    /// Serves a request whatever `A2A-Version` it claims (v1.0 only).
    #[strum(
        message = "serves a request whatever A2A-Version it claims instead of \
                   refusing unsupported ones with -32009"
    )]
    VersionLenient,
    /// Declares push notifications and delivers them to the webhook.
    #[strum(
        message = "declares push notifications and POSTs every status change of a \
                   task to its configured (loopback) webhooks"
    )]
    Push,
    /// Declares push notifications, accepts configs, never delivers.
    #[strum(
        message = "declares push notifications and accepts webhook configs, but never \
                   delivers a notification"
    )]
    PushSilent,
    /// Declares push notifications but refuses loopback webhook URLs (SSRF protection).
    #[strum(
        message = "declares push notifications but refuses loopback webhook URLs with \
                   -32602, as SSRF protection (v1 §13.2) recommends"
    )]
    PushRefusesLoopback,
    /// Declares a required bearer scheme and refuses requests without the token with 401.
    #[strum(
        message = "declares a required bearer scheme and answers every A2A request \
                   without the token (mock-peer --token-env, else \
                   a2a-conform-mock-token) with HTTP 401 and WWW-Authenticate: \
                   Bearer; the card stays public"
    )]
    Secured,
    /// Declares a required bearer scheme but serves requests without credentials.
    #[strum(
        message = "declares a required bearer scheme but serves requests without \
                   credentials or with any token"
    )]
    SecurityUnenforced,
    /// Also serves and declares gRPC: JSON-RPC, HTTP+JSON and GRPC.
    #[strum(
        message = "also serves gRPC (lf.a2a.v1.A2AService on a second loopback port; \
                   a2a.v1.A2AService in v0.3) and declares it after JSON-RPC and HTTP+JSON"
    )]
    Grpc,
    /// Declares only a gRPC interface, served honestly.
    #[strum(message = "declares only its gRPC interface")]
    GrpcOnly,
    /// Declares a gRPC interface whose server refuses every method.
    #[strum(
        message = "declares a gRPC interface after JSON-RPC whose server answers \
                   every method UNIMPLEMENTED"
    )]
    GrpcRefused,
    /// Declares its HTTP+JSON interface but serves nothing there (HTTP 404).
    #[strum(
        message = "declares its HTTP+JSON interface at /a2a/rest but serves nothing \
                   there (HTTP 404)"
    )]
    RestUnserved,
    /// Declares a required API key in the `X-API-Key` header and refuses requests without it.
    #[strum(
        message = "declares a required apiKey scheme (header X-API-Key) and answers \
                   every A2A request without the key (mock-peer --token-env, else \
                   a2a-conform-mock-token) with HTTP 401; the card stays public"
    )]
    SecuredApiKey,
    /// Declares a required OAuth 2.0 client-credentials scheme, serves its token endpoint, and refuses
    /// requests without a valid token.
    #[strum(
        message = "declares a required oauth2 client-credentials scheme (scope \
                   a2a:invoke) and serves its token endpoint at /oauth/token (client \
                   a2a-conform-mock-client, secret from mock-peer --token-env, else \
                   a2a-conform-mock-token; tokens expire after 60 s); A2A requests \
                   without a valid token get HTTP 401, with too few scopes 403"
    )]
    SecuredOauth,
    /// As `secured-oauth`, with a skill whose own requirement needs one more scope for JSON input.
    #[strum(
        message = "as secured-oauth, and the skill `echo` requires the scopes \
                   a2a:invoke and echo:data: the card's default input is text only, \
                   and a message with a JSON data part needs a token with echo:data \
                   (HTTP 403 otherwise)"
    )]
    SecuredSkillScopes,
    /// Answers GetTask/CancelTask on an unknown id with a made-up task.
    #[strum(
        message = "answers GetTask and CancelTask on an id it never issued with a \
                   made-up task instead of TaskNotFound (-32001)"
    )]
    UnknownTaskLenient,
    /// Serves SubscribeToTask on a terminal task instead of refusing it (v1.0).
    #[strum(
        message = "serves SubscribeToTask on a finished task (its snapshot, then the \
                   stream closes) instead of refusing it with -32004"
    )]
    TerminalSubscribeLenient,
    /// Accepts a message whose contextId contradicts its task (v1.0).
    #[strum(
        message = "accepts a message naming a task and a contextId other than the \
                   task's instead of rejecting it"
    )]
    ContextLax,
    /// ListTasks ignores pageSize and lists every task (v1.0).
    #[strum(message = "ListTasks ignores pageSize and lists every task")]
    ListTasksUnpaged,
    /// GetTask ignores historyLength and returns the whole history.
    #[strum(message = "GetTask ignores historyLength and returns the whole history")]
    HistoryUnbounded,
    /// Signs its card (ES256, a key made at start; its public JWK is what
    /// `--trusted-key` takes).
    #[strum(
        message = "signs its card (ES256, kid a2a-conform-mock-key, a key made at \
                   start; mock-peer --public-key-out writes the public JWK)"
    )]
    SignedCard,
    /// Signs its card, then changes it: the signature no longer matches.
    #[strum(
        message = "signs its card, then changes its description: the signature no \
                   longer matches the card served"
    )]
    SignedCardTampered,
    /// Declares an extended agent card and serves it to a client with the token.
    #[strum(
        message = "declares an extended agent card and serves it, with one more \
                   skill, to a request with the bearer token (mock-peer --token-env, \
                   else a2a-conform-mock-token); without it, HTTP 401"
    )]
    ExtendedCard,
    /// Declares an extended agent card but answers ExtendedAgentCardNotConfigured.
    #[strum(
        message = "declares an extended agent card but answers every request for it \
                   with -32007 (ExtendedAgentCardNotConfigured)"
    )]
    ExtendedCardUnconfigured,
    /// Declares an extended agent card whose skills leave out the public one.
    #[strum(
        message = "declares an extended agent card and serves it to a request with \
                   the token, but its skills leave out the public card's `echo`"
    )]
    ExtendedCardPartial,
    /// Declares a required extension and refuses requests that do not ask for it.
    #[strum(
        message = "declares a required extension (and an optional one) and refuses a \
                   request whose extensions header does not name it with -32008"
    )]
    ExtensionRequired,
    /// Declares a required extension but serves requests that do not ask for it.
    #[strum(
        message = "declares a required extension but serves requests that do not ask \
                   for it"
    )]
    ExtensionIgnored,
    /// Declares JSON output too, and refuses a send accepting only JSON with -32005.
    #[strum(
        message = "declares text/plain and application/json output and refuses a send \
                   that accepts no text output with -32005 (ContentTypeNotSupported)"
    )]
    OutputModes,
    /// Declares only JSON output but answers text parts whatever the send accepts.
    #[strum(
        message = "declares only application/json output but answers text parts, \
                   whatever the send accepts"
    )]
    OutputModeIgnored,
    /// Declares JSON output too, and fails the task of a send accepting only JSON.
    #[strum(
        message = "declares text/plain and application/json output and fails the task \
                   of a send that accepts no text output (ContentTypeNotSupported would \
                   refuse it)"
    )]
    OutputModeFails,
    /// Never asks for input, whatever the text, and answers a blocking send
    /// at once with the task still working: no prompt reaches input-required.
    #[strum(
        message = "never asks for input, whatever the text (its declared input modes \
                   cannot be verified), and answers a blocking send at once with the \
                   task still working"
    )]
    InputUnreachable,
    /// Completes a task the moment it is created unless its text contains
    /// one of the card's skill examples (`hello`, `need-input`).
    #[strum(
        message = "completes every task the moment it is created unless its text \
                   contains one of its card's skill examples (`hello`, `need-input`), \
                   which work as the honest peer's do"
    )]
    InstantUnlessExample,
    /// Answers a follow-up to an input-required task with a new task; the
    /// original stays input-required.
    #[strum(
        message = "answers a follow-up message to an input-required task with a new \
                   task (another id) and leaves the original input-required forever"
    )]
    ResumeNewTask,
    /// Answers a follow-up to an input-required task with a new task, and
    /// settles the original to completed.
    #[strum(
        message = "answers a follow-up message to an input-required task with a new \
                   task (another id) and settles the original to completed"
    )]
    ResumeNewTaskSettled,
    /// Answers a GetTask for an unknown task with HTTP 500, then resets the
    /// next request on that kept-alive connection (no `Connection: close`).
    #[strum(
        message = "answers GetTask for an unknown task with HTTP 500, then resets the next \
                   request sent on that kept-alive connection, which it closed without \
                   `Connection: close`"
    )]
    #[value(name = "close-after-500")]
    CloseAfter500,
    /// Holds a stream's HTTP response head for `--silence`, then streams honestly.
    #[strum(
        message = "sends nothing on a stream, not even the HTTP status line, for the \
                   silence (--silence), then streams honestly"
    )]
    SilentBeforeStatus,
    /// Answers a blocking send correctly, but only after `--silence`.
    #[strum(
        message = "answers a blocking send correctly, but only after the silence \
                   (--silence): slower than a short --timeout"
    )]
    SlowSend,
    /// Answers every blocking send at once with the task still `submitted`,
    /// then works it to its destination as the honest peer does.
    #[strum(
        message = "answers every blocking send at once with the task still submitted, \
                   then works it (working, then input-required or completed) as the \
                   honest peer does, readable by GetTask"
    )]
    NonBlocking,
    /// As `NonBlocking`, and refuses a data part on the input-required
    /// resume with -32602 (as `InputOverdeclared`).
    #[strum(
        message = "as non-blocking, and declares application/json input but refuses a \
                   data part on the input-required resume with -32602"
    )]
    NonBlockingInputOverdeclared,
    /// Sends the first events of every stream, then resets the TCP
    /// connection (an RST, not a clean close) mid-stream.
    #[strum(
        message = "declares streaming, sends the first events of a stream, then \
                   resets the TCP connection mid-stream (an RST, not a clean close)"
    )]
    StreamReset,
    /// Serves a card whose JSON repeats keys (the later value is the one read).
    #[strum(
        message = "serves a card whose JSON repeats keys (its top-level `name` and \
                   `capabilities.streaming`), the later value of each differing"
    )]
    CardDuplicateKeys,
    /// Completes a task the moment it is created unless its text contains
    /// `need-input`, which parks the task in input-required at once.
    #[strum(
        message = "completes every task the moment it is created unless its text \
                   contains `need-input`, which parks the task in input-required at \
                   once (no working first): no prompt leaves running work to cancel"
    )]
    InstantUnlessInput,
    /// Lists no skill examples; the phrase that makes it ask for input is
    /// only in its skill's description, as generated cards have it.
    #[strum(
        message = "lists no skill examples on its card; the phrase that makes it ask \
                   for input is only in its skill's description (`plan a trip`)"
    )]
    DescriptionTrigger,
    /// Its HTTP+JSON binding answers GetTask of an unknown id with another
    /// error than its JSON-RPC binding.
    #[strum(
        message = "its HTTP+JSON binding answers GetTask on an id it never issued \
                   with InvalidParams (-32602, reason INVALID_PARAMS) while its \
                   JSON-RPC binding answers TaskNotFound (-32001)"
    )]
    BindingDisagrees,
    /// Its HTTP+JSON binding refuses a message with no parts with another
    /// error than its JSON-RPC binding.
    #[strum(
        message = "its HTTP+JSON binding refuses a message with no parts with \
                   ContentTypeNotSupported (-32005, reason CONTENT_TYPE_NOT_SUPPORTED) \
                   while its JSON-RPC binding answers InvalidParams (-32602)"
    )]
    BindingDisagreesParams,
    /// Its HTTP+JSON binding refuses push notification configs (undeclared)
    /// with another error than its JSON-RPC binding.
    #[strum(
        message = "declares no push notifications; its HTTP+JSON binding refuses a \
                   push notification config with UnsupportedOperation (-32004, reason \
                   UNSUPPORTED_OPERATION) while its JSON-RPC binding answers \
                   PushNotificationNotSupported (-32003)"
    )]
    BindingDisagreesUnsupported,
    /// Its HTTP+JSON binding closes a message stream mid-task.
    #[strum(
        message = "its HTTP+JSON binding closes a message stream after the first \
                   update, while the task is still working, where its JSON-RPC binding \
                   streams the task to completed and then closes"
    )]
    BindingDisagreesStreamEnd,
    /// Its HTTP+JSON binding keeps a finished task's stream open for the
    /// silence before closing it: the same end, later.
    #[strum(
        message = "its HTTP+JSON binding keeps a message stream open for the silence \
                   (--silence) after the task completed, where its JSON-RPC binding closes \
                   it at once: the same end, later (the honest pair of \
                   binding-disagrees-stream-end)"
    )]
    BindingSlowStreamEnd,
    /// Serves the 1.1 draft, and every artifact update advances the task's
    /// generation by two instead of one.
    #[strum(
        message = "serves the A2A 1.1 draft additions (generation, long-poll, \
                   ifGenerationMatch, timeline), but every artifact update advances \
                   the task's generation by two: a gap a client reads as a missed event"
    )]
    GenerationSkips,
    /// Serves the 1.1 draft, and the status update after an artifact update
    /// repeats that update's generation.
    #[strum(
        message = "serves the A2A 1.1 draft additions, but the status update that \
                   follows an artifact update carries the same generation as it: two \
                   consecutive events with one generation"
    )]
    GenerationRepeats,
    /// Serves the 1.1 draft, and holds a stale GetTask long-poll for the
    /// whole hold cap instead of answering at once.
    #[strum(
        message = "serves the A2A 1.1 draft additions, but holds a GetTask whose \
                   currentGeneration is already behind the task for the whole hold cap \
                   instead of answering at once"
    )]
    GenerationHeld,
    /// Serves the 1.1 draft, and takes a message whatever its
    /// `ifGenerationMatch` says.
    #[strum(
        message = "serves the A2A 1.1 draft additions, but takes a message to a task \
                   whatever its ifGenerationMatch says instead of refusing a mismatch \
                   with -32010"
    )]
    GenerationMatchIgnored,
    /// Honest, but every stream event is written a lag behind the moment it
    /// happened, as on a loaded network: events produced before a cancel
    /// arrive after its answer, still before the stream's canceled status.
    #[strum(
        message = "honest, but writes every stream event two chunk intervals after it                    happened (a loaded network): work done before a cancel reaches the                    stream after the cancel's answer, before the canceled status (the                    honest pair of cancel-leak)"
    )]
    StreamLag,
}

impl Behaviour {
    /// Every behaviour, in the order `mock-peer --help` lists them.
    pub fn all() -> &'static [Behaviour] {
        Behaviour::value_variants()
    }

    /// The kebab-case name used on the command line (`cancel-leak`).
    pub fn name(self) -> String {
        self.to_string()
    }

    /// One sentence saying what the behaviour does, for help texts and cards
    /// (each variant's `message`).
    pub fn describe(self) -> &'static str {
        // Every variant has a message: the test below holds each to one.
        self.get_message().unwrap_or_default()
    }

    /// Whether the HTTP+JSON interface the card declares is served.
    pub(crate) fn serves_rest(self) -> bool {
        self != Behaviour::RestUnserved
    }

    /// Whether a v1.0 peer serves and declares gRPC.
    pub(crate) fn serves_grpc(self) -> bool {
        matches!(
            self,
            Behaviour::Grpc | Behaviour::GrpcOnly | Behaviour::GrpcRefused
        )
    }

    /// What the card says under `capabilities.streaming`.
    pub(crate) fn declares_streaming(self) -> bool {
        !matches!(
            self,
            Behaviour::UndeclaredStreaming
                | Behaviour::UndeclaredStreamingRefused
                | Behaviour::UndeclaredStreamingInvalidRequest
        )
    }

    /// Whether the runtime answers stream and subscribe requests.
    pub(crate) fn serves_streaming(self) -> bool {
        !matches!(
            self,
            Behaviour::UndeclaredStreamingRefused | Behaviour::UndeclaredStreamingInvalidRequest
        )
    }

    /// Whether an unsupported `A2A-Version` is refused (v1.0 peers).
    pub(crate) fn negotiates_version(self) -> bool {
        self != Behaviour::VersionLenient
    }

    /// What the card says under `capabilities.pushNotifications`.
    pub(crate) fn declares_push(self) -> bool {
        matches!(
            self,
            Behaviour::Push | Behaviour::PushSilent | Behaviour::PushRefusesLoopback
        )
    }

    /// Whether push notifications are actually delivered.
    pub(crate) fn delivers_push(self) -> bool {
        self == Behaviour::Push
    }

    /// Whether every webhook URL is refused as a loopback/private address.
    pub(crate) fn refuses_loopback_webhooks(self) -> bool {
        self == Behaviour::PushRefusesLoopback
    }

    /// Whether the card declares a bearer scheme and requires it.
    pub(crate) fn declares_security(self) -> bool {
        matches!(
            self,
            Behaviour::Secured
                | Behaviour::SecurityUnenforced
                | Behaviour::SecuredApiKey
                | Behaviour::SecuredOauth
                | Behaviour::SecuredSkillScopes
        )
    }

    /// Whether the card declares an oauth2 scheme and the peer serves its token endpoint.
    pub(crate) fn issues_tokens(self) -> bool {
        matches!(
            self,
            Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes
        )
    }

    /// Whether requests without the token are refused with 401.
    pub(crate) fn enforces_security(self) -> bool {
        self == Behaviour::Secured
    }

    /// Whether the HTTP+JSON binding answers GetTask of an unknown id with
    /// InvalidParams instead of TaskNotFound (the other bindings do not).
    pub(crate) fn rest_disagrees_on_unknown_task(self) -> bool {
        self == Behaviour::BindingDisagrees
    }

    /// Whether the HTTP+JSON binding refuses an invalid message with
    /// ContentTypeNotSupported instead of InvalidParams.
    pub(crate) fn rest_disagrees_on_invalid_params(self) -> bool {
        self == Behaviour::BindingDisagreesParams
    }

    /// Whether the HTTP+JSON binding refuses the (undeclared) push config
    /// operations with UnsupportedOperation instead of PushNotificationNotSupported.
    pub(crate) fn rest_disagrees_on_unsupported(self) -> bool {
        self == Behaviour::BindingDisagreesUnsupported
    }

    /// Whether the HTTP+JSON binding closes a message stream after its
    /// first update, mid-task.
    pub(crate) fn rest_cuts_streams_short(self) -> bool {
        self == Behaviour::BindingDisagreesStreamEnd
    }

    /// Whether the HTTP+JSON binding holds a stream open for the silence
    /// after its task's last event.
    pub(crate) fn rest_ends_streams_late(self) -> bool {
        self == Behaviour::BindingSlowStreamEnd
    }

    /// Whether GetTask/CancelTask on an unknown id answer a made-up task.
    pub(crate) fn invents_unknown_tasks(self) -> bool {
        self == Behaviour::UnknownTaskLenient
    }

    /// Whether SubscribeToTask on a terminal task is refused with -32004.
    pub(crate) fn refuses_terminal_subscribe(self) -> bool {
        self != Behaviour::TerminalSubscribeLenient
    }

    /// Whether a message whose contextId contradicts its task is rejected.
    pub(crate) fn checks_context(self) -> bool {
        self != Behaviour::ContextLax
    }

    /// Whether ListTasks honours pageSize.
    pub(crate) fn pages_task_lists(self) -> bool {
        self != Behaviour::ListTasksUnpaged
    }

    /// Whether GetTask honours historyLength.
    pub(crate) fn bounds_history(self) -> bool {
        self != Behaviour::HistoryUnbounded
    }

    /// Whether the card carries a signature.
    pub(crate) fn signs_card(self) -> bool {
        matches!(self, Behaviour::SignedCard | Behaviour::SignedCardTampered)
    }

    /// Whether a text containing `need-input` drives a task to input-required.
    pub(crate) fn asks_for_input(self) -> bool {
        self != Behaviour::InputUnreachable
    }

    /// Whether the card lists its skill's examples.
    pub(crate) fn lists_examples(self) -> bool {
        self != Behaviour::DescriptionTrigger
    }

    /// Whether a blocking send waits for a terminal or interrupted state.
    pub(crate) fn blocks_sends(self) -> bool {
        !matches!(
            self,
            Behaviour::InputUnreachable
                | Behaviour::NonBlocking
                | Behaviour::NonBlockingInputOverdeclared
        )
    }

    /// Whether a data part on the input-required resume is refused with
    /// -32602 although the card declares JSON input.
    pub(crate) fn refuses_json_resume(self) -> bool {
        matches!(
            self,
            Behaviour::InputOverdeclared | Behaviour::NonBlockingInputOverdeclared
        )
    }

    /// Whether a follow-up to an input-required task starts a new task
    /// instead of resuming it.
    pub(crate) fn resumes_as_new_task(self) -> bool {
        matches!(
            self,
            Behaviour::ResumeNewTask | Behaviour::ResumeNewTaskSettled
        )
    }

    /// Whether streams are reset (TCP RST) after their first events.
    pub(crate) fn resets_streams(self) -> bool {
        self == Behaviour::StreamReset
    }

    /// Whether the peer serves the 1.1 draft additions whatever its config
    /// says: the generation behaviours break a promise only the draft makes.
    pub(crate) fn implies_draft(self) -> bool {
        matches!(
            self,
            Behaviour::GenerationSkips
                | Behaviour::GenerationRepeats
                | Behaviour::GenerationHeld
                | Behaviour::GenerationMatchIgnored
        )
    }

    /// Whether a stale GetTask long-poll is held for the whole hold cap.
    pub(crate) fn holds_stale_polls(self) -> bool {
        self == Behaviour::GenerationHeld
    }

    /// Whether a send's `ifGenerationMatch` is read and then ignored.
    pub(crate) fn ignores_generation_match(self) -> bool {
        self == Behaviour::GenerationMatchIgnored
    }

    /// How far behind the moment it happened each stream event is written.
    pub(crate) fn stream_lag(self, chunk_interval: std::time::Duration) -> std::time::Duration {
        match self {
            Behaviour::StreamLag => chunk_interval.saturating_mul(2),
            _ => std::time::Duration::ZERO,
        }
    }

    /// Whether streams go quiet after their first event.
    pub(crate) fn silences_streams(self) -> bool {
        matches!(
            self,
            Behaviour::StreamSilent | Behaviour::StreamSilentNothing
        )
    }
}

impl fmt::Display for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_possible_value() {
            Some(name) => f.pad(name.get_name()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kebab_case_unique_and_parse_back() {
        let names: Vec<String> = Behaviour::all().iter().map(|b| b.name()).collect();
        assert_eq!(
            names,
            [
                "honest",
                "cancel-leak",
                "input-overdeclared",
                "input-overdeclared-fails",
                "resume-fails",
                "stream-silent",
                "stream-silent-nothing",
                "unstable-completion",
                "instant",
                "undeclared-streaming",
                "undeclared-streaming-refused",
                "undeclared-streaming-invalid-request",
                "extended-card-undeclared-unconfigured",
                "input-undeclared-accepted",
                "input-undeclared-wrong-code",
                "interface-unserved",
                "version-lenient",
                "push",
                "push-silent",
                "push-refuses-loopback",
                "secured",
                "security-unenforced",
                "grpc",
                "grpc-only",
                "grpc-refused",
                "rest-unserved",
                "secured-api-key",
                "secured-oauth",
                "secured-skill-scopes",
                "unknown-task-lenient",
                "terminal-subscribe-lenient",
                "context-lax",
                "list-tasks-unpaged",
                "history-unbounded",
                "signed-card",
                "signed-card-tampered",
                "extended-card",
                "extended-card-unconfigured",
                "extended-card-partial",
                "extension-required",
                "extension-ignored",
                "output-modes",
                "output-mode-ignored",
                "output-mode-fails",
                "input-unreachable",
                "instant-unless-example",
                "resume-new-task",
                "resume-new-task-settled",
                "close-after-500",
                "silent-before-status",
                "slow-send",
                "non-blocking",
                "non-blocking-input-overdeclared",
                "stream-reset",
                "card-duplicate-keys",
                "instant-unless-input",
                "description-trigger",
                "binding-disagrees",
                "binding-disagrees-params",
                "binding-disagrees-unsupported",
                "binding-disagrees-stream-end",
                "binding-slow-stream-end",
                "generation-skips",
                "generation-repeats",
                "generation-held",
                "generation-match-ignored",
                "stream-lag",
            ]
        );
        for b in Behaviour::all() {
            assert_eq!(Behaviour::from_str(&b.name(), false), Ok(*b));
            assert!(!b.describe().is_empty());
        }
        assert!(Behaviour::from_str("leaky", false).is_err());
    }
}
