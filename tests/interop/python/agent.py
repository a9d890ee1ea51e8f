"""An honest A2A agent on the official Python SDK (a2a-sdk 1.x), for
a2a-conform's interop tests.

Built only from the SDK's own server machinery: an AgentExecutor, the SDK's
InMemoryTaskStore and DefaultRequestHandler, and its Starlette route helpers
(agent card, JSON-RPC, HTTP+JSON), served by uvicorn. No LLM:

- a task works for about a second, emitting one artifact in chunks (the first
  chunk creates it, the others append, the last is marked lastChunk), then
  completes;
- cancel is real: the executor's cancel stops the work and the task ends
  canceled;
- a message whose text contains `need-input` goes to input-required; the
  follow-up on the same task (any part) completes it.

v1.0 is served natively and v0.3 through the SDK's compatibility layer
(`enable_v0_3_compat`: JSON-RPC on the same URL, HTTP+JSON under `/v1`); the
card lists both versions' interfaces, so the SDK serves a hybrid card.

    python agent.py --port 0      # 0: any free port; the ready line names it
    python agent.py --sse-ping 0.1  # keep-alive comments every 0.1 s (SDK: 15 s)
    python agent.py --grpc        # also serve gRPC: v1.0 (the SDK's GrpcHandler) and
                                  # v0.3 (its CompatGrpcHandler), on one second port
                                  # on a second port, declared last as host:port

Prints one line `READY <card-url>` on stdout once the socket is bound.
"""

import argparse
import asyncio
import logging
import os
import socket
import sys
import threading

import uvicorn

from sse_starlette.sse import EventSourceResponse

from starlette.applications import Starlette

from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TaskState,
)


CHUNKS = 5
CHUNK_INTERVAL = 0.2  # seconds: CHUNKS * CHUNK_INTERVAL is about a second
NEED_INPUT = 'need-input'
INPUT_MODES = ['text/plain', 'application/json']
OUTPUT_MODES = ['text/plain']


class InteropExecutor(AgentExecutor):
    """Works for about a second per task; cancel stops the work."""

    def __init__(self) -> None:
        # task id -> set when the task is canceled
        self._stops: dict[str, asyncio.Event] = {}

    async def execute(
        self, context: RequestContext, event_queue: EventQueue
    ) -> None:
        task_id = context.task_id or ''
        context_id = context.context_id or ''
        updater = TaskUpdater(event_queue, task_id, context_id)
        text = context.get_user_input()
        current = context.current_task
        resuming = (
            current is not None
            and current.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        )
        stop = self._stops.setdefault(task_id, asyncio.Event())
        if current is None:
            # A new task: the SDK wants the Task before any update. On a
            # follow-up the SDK already holds the Task and logs an error
            # ("Ignoring task replacement") if the executor publishes it again,
            # so, as the SDK intends, a follow-up starts with a status update.
            history = [context.message] if context.message else []
            await event_queue.enqueue_event(
                new_task(
                    task_id,
                    context_id,
                    TaskState.TASK_STATE_SUBMITTED,
                    history=history,
                )
            )
        await updater.start_work()
        if not resuming and NEED_INPUT in text:
            await updater.requires_input(
                updater.new_agent_message(
                    parts=[Part(text='Which input should I use?')]
                )
            )
            return
        artifact_id = f'{task_id}-answer'
        try:
            for i in range(CHUNKS):
                await asyncio.sleep(CHUNK_INTERVAL)
                if stop.is_set():
                    return
                await updater.add_artifact(
                    parts=[Part(text=f'chunk {i + 1} of {CHUNKS}. ')],
                    artifact_id=artifact_id,
                    name='answer',
                    append=i > 0,
                    last_chunk=i == CHUNKS - 1,
                )
            if not stop.is_set():
                await updater.complete()
        finally:
            # Also when the SDK cancels this coroutine on a cancel request.
            self._stops.pop(task_id, None)

    async def cancel(
        self, context: RequestContext, event_queue: EventQueue
    ) -> None:
        task_id = context.task_id or ''
        self._stops.setdefault(task_id, asyncio.Event()).set()
        updater = TaskUpdater(event_queue, task_id, context.context_id or '')
        await updater.cancel()


def build_card(base: str, grpc_target: str | None = None) -> AgentCard:
    jsonrpc = f'{base}/a2a/jsonrpc'
    rest = f'{base}/a2a/rest'
    card = AgentCard(
        name='a2a-conform interop agent (Python SDK)',
        description='Works about a second per task, streams an artifact in chunks, '
        'cancels for real, asks for input on "need-input".',
        version='1.0.0',
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=False
        ),
        default_input_modes=INPUT_MODES,
        default_output_modes=OUTPUT_MODES,
        skills=[
            # The mock peer's skill, so both report the same declarations.
            AgentSkill(
                id='echo',
                name='Chunked answer',
                description='Answers with one artifact in five chunks.',
                tags=['interop'],
                examples=['hello', 'need-input please'],
                input_modes=INPUT_MODES,
                output_modes=OUTPUT_MODES,
            )
        ],
        supported_interfaces=[
            AgentInterface(
                protocol_binding='JSONRPC', protocol_version='1.0', url=jsonrpc
            ),
            AgentInterface(
                protocol_binding='HTTP+JSON', protocol_version='1.0', url=rest
            ),
            AgentInterface(
                protocol_binding='JSONRPC', protocol_version='0.3', url=jsonrpc
            ),
            AgentInterface(
                protocol_binding='HTTP+JSON', protocol_version='0.3', url=rest
            ),
        ],
    )
    if grpc_target is not None:
        # One port serves both: the v1.0 service is `lf.a2a.v1.A2AService`,
        # the v0.3 one `a2a.v1.A2AService`.
        card.supported_interfaces.extend(
            AgentInterface(
                protocol_binding='GRPC', protocol_version=version, url=grpc_target
            )
            for version in ('1.0', '0.3')
        )
    return card


def _exit_at_stdin_eof() -> None:
    sys.stdin.read()
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        '--port',
        type=int,
        default=int(os.environ.get('PORT', '0')),
        help='port on 127.0.0.1 (0: any free port; default $PORT or 0)',
    )
    parser.add_argument(
        '--sse-ping',
        type=float,
        default=None,
        help='seconds between SSE keep-alive comments (default: the SDK\'s, 15)',
    )
    parser.add_argument(
        '--grpc',
        action='store_true',
        help='also serve v1.0 and v0.3 gRPC on a second port (needs a2a-sdk[grpc])',
    )
    parser.add_argument(
        '--exit-with-stdin',
        action='store_true',
        help='exit when stdin closes (a test harness that dies takes the agent along)',
    )
    args = parser.parse_args()
    if args.exit_with_stdin:
        threading.Thread(target=_exit_at_stdin_eof, daemon=True).start()
    if args.sse_ping is not None:
        # The SDK builds its streams on sse-starlette and takes that library's
        # keep-alive interval; a short one puts comments between the events.
        EventSourceResponse.DEFAULT_PING_INTERVAL = args.sse_ping
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    # Bind first, so the card names the real port and the ready line is true.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', args.port))
    sock.listen(128)
    port = sock.getsockname()[1]
    base = f'http://127.0.0.1:{port}'

    if args.grpc:
        asyncio.run(serve_with_grpc(sock, base))
        return
    card = build_card(base)
    server = uvicorn.Server(http_config(build_handler(card), card))
    print(f'READY {base}/.well-known/agent-card.json', flush=True)
    server.run(sockets=[sock])


def build_handler(card: AgentCard) -> DefaultRequestHandler:
    return DefaultRequestHandler(
        agent_executor=InteropExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
    )


def http_config(handler: DefaultRequestHandler, card: AgentCard) -> uvicorn.Config:
    """The card, JSON-RPC and HTTP+JSON routes (both versions), for uvicorn."""
    routes = []
    routes.extend(create_agent_card_routes(agent_card=card))
    routes.extend(
        create_jsonrpc_routes(
            request_handler=handler,
            rpc_url='/a2a/jsonrpc',
            enable_v0_3_compat=True,
        )
    )
    routes.extend(
        create_rest_routes(
            request_handler=handler,
            path_prefix='/a2a/rest',
            enable_v0_3_compat=True,
        )
    )
    app = Starlette(routes=routes)
    return uvicorn.Config(app, log_level='warning', lifespan='off')


async def serve_with_grpc(sock: socket.socket, base: str) -> None:
    """`--grpc`: the same handler also behind the SDK's GrpcHandler, on a
    second port (grpc.aio needs the running loop, hence all in here)."""
    # Imported here: the JSON-RPC and REST agent needs no gRPC packages.
    import grpc

    from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
    from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    grpc_server = grpc.aio.server()
    grpc_port = grpc_server.add_insecure_port('127.0.0.1:0')
    card = build_card(base, f'127.0.0.1:{grpc_port}')
    handler = build_handler(card)
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
    a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(
        CompatGrpcHandler(handler), grpc_server
    )
    server = uvicorn.Server(http_config(handler, card))
    await grpc_server.start()
    print(f'READY {base}/.well-known/agent-card.json', flush=True)
    try:
        await server.serve(sockets=[sock])
    finally:
        await grpc_server.stop(grace=1)


if __name__ == '__main__':
    main()
