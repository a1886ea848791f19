// A minimal A2A 1.0 agent on the official JavaScript SDK (@a2a-js/sdk), gated
// by a2a-conformance as a subject.
//
// One process, the SDK's own server pieces on every binding it has: JSON-RPC
// at http://HOST:PORT/, HTTP+JSON under http://HOST:PORT/rest and gRPC at
// HOST:GRPC_PORT, the Agent Card at /.well-known/agent-card.json. Tasks and
// push configs live in the SDK's in-memory stores; push notifications are
// sent by the SDK's sender.
//
// The executor follows the ACTS SUT behaviour contract (§11): the first text
// part's prefix picks a behaviour (`tck-multi-turn`, `tck-stream-basic`, ...);
// any other message completes its task with an echo artifact.
//
//   node peer.mjs --port 7000 --grpc-port 7001
//
// ES modules resolve packages next to the importing file: run it from the
// directory its package.json was installed in.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import {
  UserBuilder,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
} from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';

const { values: args } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string' },
    'grpc-port': { type: 'string' },
  },
});
if (!args.port || !args['grpc-port']) {
  console.error('usage: node peer.mjs --port PORT --grpc-port PORT [--host HOST]');
  process.exit(2);
}
const host = args.host;
const port = Number(args.port);
const grpcPort = Number(args['grpc-port']);

// Longest first, so the most specific prefix wins.
const BEHAVIOURS = [
  'tck-complete-task',
  'tck-message-response',
  'tck-input-required',
  'tck-multi-turn',
  'tck-auth-required',
  'tck-task-failure',
  'tck-reject-task',
  'tck-cancel',
  'tck-long-running',
  'tck-artifact-text',
  'tck-artifact-file-url',
  'tck-artifact-file',
  'tck-artifact-data',
  'tck-stream-basic',
  'tck-stream-chunked',
].sort((a, b) => b.length - a.length);

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

function firstText(message) {
  const content = message?.parts?.[0]?.content;
  return content?.$case === 'text' ? content.value.trimStart() : '';
}

const behaviourOf = (message) => BEHAVIOURS.find((b) => firstText(message).startsWith(b)) ?? '';

function agentMessage(parts, taskId, contextId) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

class TckExecutor {
  contexts = new Map(); // task id -> context id, for cancelTask

  async execute(ctx, bus) {
    const message = ctx.userMessage;
    const { taskId, contextId } = ctx;
    this.contexts.set(taskId, contextId);
    const openedBy = ctx.task?.history?.length ? behaviourOf(ctx.task.history[0]) : '';
    const behaviour = openedBy === 'tck-multi-turn' ? openedBy : behaviourOf(message);

    if (behaviour === 'tck-message-response' && !ctx.task) {
      bus.publish(AgentEvent.message(agentMessage([text('Direct message response')], '', contextId)));
      return;
    }

    // Every call starts with the task, a follow-up turn too.
    bus.publish(
      AgentEvent.task(
        ctx.task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [message],
          metadata: undefined,
        },
      ),
    );
    const status = (state, note) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: note ? agentMessage([text(note)], taskId, contextId) : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    const artifact = (parts, { artifactId = randomUUID(), name = '', append = false, lastChunk = false } = {}) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId, name, description: '', parts, metadata: undefined, extensions: [] },
          append,
          lastChunk,
          metadata: undefined,
        }),
      );
    const file = (content) => ({ content, metadata: undefined, filename: 'output.txt', mediaType: 'text/plain' });

    switch (behaviour) {
      case 'tck-multi-turn':
        if (openedBy === 'tck-multi-turn' && firstText(message).toLowerCase().startsWith('done')) {
          status(TaskState.TASK_STATE_COMPLETED, 'Conversation complete');
        } else {
          status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Please provide more input');
        }
        break;
      case 'tck-input-required':
        status(TaskState.TASK_STATE_INPUT_REQUIRED);
        break;
      case 'tck-auth-required':
        status(TaskState.TASK_STATE_AUTH_REQUIRED, 'Authentication required to continue');
        break;
      case 'tck-task-failure':
        status(TaskState.TASK_STATE_WORKING);
        status(TaskState.TASK_STATE_FAILED, 'Task failed as requested');
        break;
      case 'tck-reject-task':
        status(TaskState.TASK_STATE_REJECTED, 'rejected');
        break;
      case 'tck-cancel':
        status(TaskState.TASK_STATE_WORKING); // working until canceled
        break;
      case 'tck-long-running':
        status(TaskState.TASK_STATE_WORKING);
        await new Promise((resolve) => setTimeout(resolve, 2000));
        artifact([text('Long-running result')]);
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-artifact-text':
        artifact([text('Generated text content')]);
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-artifact-file':
        artifact([file({ $case: 'raw', value: Buffer.from('tck') })]);
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-artifact-file-url':
        artifact([file({ $case: 'url', value: 'https://example.com/output.txt' })]);
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-artifact-data':
        artifact([{ content: { $case: 'data', value: { key: 'value', count: 42 } }, metadata: undefined, filename: '', mediaType: '' }]);
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-stream-basic':
        status(TaskState.TASK_STATE_WORKING);
        artifact([text('Streamed content')]);
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-stream-chunked':
        status(TaskState.TASK_STATE_WORKING);
        artifact([text('chunk-1 ')], { artifactId: 'chunked' });
        artifact([text('chunk-2')], { artifactId: 'chunked', append: true, lastChunk: true });
        status(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'tck-complete-task':
        status(TaskState.TASK_STATE_COMPLETED, 'Hello from TCK');
        break;
      default: {
        const echo = message.parts.filter((p) => p.content?.$case === 'text');
        artifact(echo.length ? echo : [text('')], { name: 'echo' });
        status(TaskState.TASK_STATE_COMPLETED);
      }
    }
  }

  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: this.contexts.get(taskId) ?? '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }
}

const origin = `http://${host}:${port}`;
const card = {
  name: 'a2a-js peer',
  description: 'The official JavaScript SDK serving the ACTS SUT behaviours.',
  supportedInterfaces: [
    { url: `${origin}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${origin}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    { url: `${host}:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
  ],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: true, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'echo',
      name: 'echo',
      description: 'Completes a task with an artifact echoing its message.',
      tags: ['echo'],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

const pushStore = new InMemoryPushNotificationStore();
const handler = new DefaultRequestHandler(
  card,
  new InMemoryTaskStore(),
  new TckExecutor(),
  undefined,
  pushStore,
  new DefaultPushNotificationSender(pushStore),
);
const userBuilder = UserBuilder.noAuthentication;

const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/rest', restHandler({ requestHandler: handler, userBuilder }));
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder }));
const http = app.listen(port, host);

const grpcServer = new grpc.Server();
grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder }));
grpcServer.bindAsync(`${host}:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    console.error(`gRPC listener: ${err.message}`);
    process.exit(1);
  }
});

const stop = () => {
  http.close();
  grpcServer.forceShutdown();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
