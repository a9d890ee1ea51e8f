// An honest A2A agent on the official JavaScript SDK (@a2a-js/sdk 1.x), for
// a2a-conform's interop tests.
//
// Built only from the SDK's own server machinery: an AgentExecutor, the SDK's
// InMemoryTaskStore and DefaultRequestHandler, and its Express handlers
// (agent card, JSON-RPC, HTTP+JSON). No LLM:
//
// - a task works for about a second, emitting one artifact in chunks (the
//   first chunk creates it, the others append, the last is marked lastChunk),
//   then completes;
// - cancel is real: the executor's cancelTask stops the work and publishes
//   the canceled status, and the work loop publishes nothing after it;
// - a message whose text contains `need-input` goes to input-required; the
//   follow-up on the same task (any part) completes it.
//
// v1.0 is served natively and v0.3 through the SDK's compatibility layer
// (`legacyCompat`: JSON-RPC on the same URL, HTTP+JSON under `/v1`): the card
// declares v0.3 interfaces next to the v1.0 ones, and the card handler serves
// a hybrid card to callers that do not ask for 1.0.
//
//     node agent.mjs --port 0      # 0: any free port; the ready line names it
//     node agent.mjs --grpc        # also serve v1.0 gRPC (the SDK's grpcService,
//                                  # @grpc/grpc-js) on a second port, declared
//                                  # last as host:port
//
// Prints one line `READY <card-url>` on stdout once the server listens.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import express from 'express';

import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import {
  UserBuilder,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
} from '@a2a-js/sdk/server/express';

const CHUNKS = 5;
const CHUNK_INTERVAL_MS = 200; // CHUNKS * CHUNK_INTERVAL_MS is about a second
const NEED_INPUT = 'need-input';
const INPUT_MODES = ['text/plain', 'application/json'];
const OUTPUT_MODES = ['text/plain'];

const now = () => new Date().toISOString();

function textPart(text) {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} };
}

function agentMessage(taskId, contextId, text) {
  return {
    role: Role.ROLE_AGENT,
    messageId: randomUUID(),
    taskId,
    contextId,
    parts: [textPart(text)],
    extensions: [],
    metadata: {},
    referenceTaskIds: [],
  };
}

function statusUpdate(taskId, contextId, state, message) {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, timestamp: now(), message },
    metadata: {},
  });
}

function userText(message) {
  return (message?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('\n');
}

/** Works for about a second per task; cancelTask stops the work. */
class InteropExecutor {
  // task id -> { canceled, wake } while the task works
  running = new Map();
  // task id -> context id, for the cancel status
  contexts = new Map();

  execute = async (requestContext, eventBus) => {
    const { taskId, contextId } = requestContext;
    const existing = requestContext.task;
    const message = requestContext.userMessage;
    const resuming = existing?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    this.contexts.set(taskId, contextId);

    // The SDK requires a Task (or Message) as the first event of every call.
    eventBus.publish(
      AgentEvent.task(
        existing ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now() },
          artifacts: [],
          history: [message],
          metadata: {},
        }
      )
    );
    eventBus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING));

    if (!resuming && userText(message).includes(NEED_INPUT)) {
      eventBus.publish(
        statusUpdate(
          taskId,
          contextId,
          TaskState.TASK_STATE_INPUT_REQUIRED,
          agentMessage(taskId, contextId, 'Which input should I use?')
        )
      );
      return;
    }

    const run = { canceled: false, wake: () => {} };
    this.running.set(taskId, run);
    try {
      const artifactId = `${taskId}-answer`;
      for (let i = 0; i < CHUNKS; i++) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, CHUNK_INTERVAL_MS);
          run.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        if (run.canceled) return;
        eventBus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId,
              name: 'answer',
              description: '',
              parts: [textPart(`chunk ${i + 1} of ${CHUNKS}. `)],
              metadata: {},
              extensions: [],
            },
            append: i > 0,
            lastChunk: i === CHUNKS - 1,
            metadata: {},
          })
        );
      }
      if (run.canceled) return;
      eventBus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    } finally {
      this.running.delete(taskId);
    }
  };

  cancelTask = async (taskId, eventBus) => {
    const run = this.running.get(taskId);
    if (run) {
      run.canceled = true;
      run.wake();
    }
    eventBus.publish(statusUpdate(taskId, this.contexts.get(taskId) ?? '', TaskState.TASK_STATE_CANCELED));
  };
}

function card(base, grpcTarget) {
  const jsonrpc = `${base}/a2a/jsonrpc`;
  const rest = `${base}/a2a/rest`;
  const grpcInterfaces = grpcTarget
    ? [{ url: grpcTarget, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' }]
    : [];
  return {
    name: 'a2a-conform interop agent (JavaScript SDK)',
    description:
      'Works about a second per task, streams an artifact in chunks, cancels for real, ' +
      'asks for input on "need-input".',
    supportedInterfaces: [
      { url: jsonrpc, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: rest, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      { url: jsonrpc, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      { url: rest, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '0.3' },
      ...grpcInterfaces,
    ],
    version: '1.0.0',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [
      // The mock peer's skill, so both report the same declarations.
      {
        id: 'echo',
        name: 'Chunked answer',
        description: 'Answers with one artifact in five chunks.',
        tags: ['interop'],
        examples: ['hello', 'need-input please'],
        inputModes: INPUT_MODES,
        outputModes: OUTPUT_MODES,
        securityRequirements: [],
      },
    ],
    documentationUrl: '',
    signatures: [],
  };
}

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '0' },
    // Exit when stdin closes: a test harness that dies takes the agent along.
    'exit-with-stdin': { type: 'boolean', default: false },
    // Also serve v1.0 gRPC on a second port (the SDK's grpcService).
    grpc: { type: 'boolean', default: false },
  },
});
if (values['exit-with-stdin']) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
  process.exit(2);
}

// `--grpc`: the gRPC server binds first, so the card can name its port.
// Imported only then: the JSON-RPC and REST agent needs no gRPC packages.
let grpcTarget;
let grpcServer;
if (values.grpc) {
  const grpc = await import('@grpc/grpc-js');
  grpcServer = new grpc.Server();
  const grpcPort = await new Promise((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p)
    )
  );
  grpcTarget = `127.0.0.1:${grpcPort}`;
}

const app = express();
// Bind first, so the card names the real port and the ready line is true.
const server = app.listen(port, '127.0.0.1', async () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const requestHandler = new DefaultRequestHandler(
    card(base, grpcTarget),
    new InMemoryTaskStore(),
    new InteropExecutor()
  );
  if (grpcServer) {
    const { A2AService, grpcService } = await import('@a2a-js/sdk/server/grpc');
    grpcServer.addService(
      A2AService,
      grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication })
    );
  }
  const legacyCompat = { enabled: true };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat })
  );
  app.use(
    '/a2a/rest',
    restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat })
  );
  console.log(`READY ${base}/${AGENT_CARD_PATH}`);
});
server.on('error', (err) => {
  console.error(`the interop agent could not listen on 127.0.0.1:${port}: ${err.message}`);
  process.exit(1);
});
