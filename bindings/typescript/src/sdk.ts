// Interop with the official A2A JavaScript SDK (@a2a-js/sdk): the request
// options that make the SDK's own client (its JSON-RPC and HTTP+JSON
// transports, for the standard A2A methods) activate the extension, and the
// standard A2A payloads that the extension's results embed (a session's tasks, a
// domain event's StreamResponse, session/tell's SendMessageResponse, the
// Agent Card of stdio `initialize`) converted into the SDK's own types, so
// a plugin that drives the standard methods with the SDK handles them with
// the same code. The conversions are the SDK's ProtoJSON decoders.
//
// The package's own types stay the wire form (see README: the SDK's types
// are an in-memory protobuf model, not the JSON on the wire).

import {
  AgentCard as SdkAgentCard,
  Message as SdkMessage,
  SendMessageResponse as SdkSendMessageResponse,
  StreamResponse as SdkStreamResponse,
  Task as SdkTask,
} from "@a2a-js/sdk";
import { ServiceParameters, withA2AExtensions, type RequestOptions } from "@a2a-js/sdk/client";
import type { AgentCard, Message, SendMessageResponse, StreamResponse, Task } from "./gen/a2a.js";
import { EXTENSION_URI, EXTENSION_VERSION_HEADER, type ExtensionVersion } from "./gen/contract.js";

/**
 * Request options for the SDK's client that activate the extension (its URI
 * in the A2A extensions header) and ask for `extensionVersion` when given:
 * what HttpTransport sends with every call, for the standard methods the
 * SDK's client makes.
 */
export function withExtension(options: RequestOptions = {}, extensionVersion?: ExtensionVersion): RequestOptions {
  const version = (parameters: ServiceParameters): void => {
    if (extensionVersion !== undefined) parameters[EXTENSION_VERSION_HEADER] = extensionVersion;
  };
  return {
    ...options,
    serviceParameters: ServiceParameters.createFrom(options.serviceParameters, withA2AExtensions(EXTENSION_URI), version),
  };
}

/** A wire Task as the SDK's Task. */
export function toSdkTask(task: Task): SdkTask {
  return SdkTask.fromJSON(task);
}

/** A wire Message as the SDK's Message. */
export function toSdkMessage(message: Message): SdkMessage {
  return SdkMessage.fromJSON(message);
}

/** A wire StreamResponse (a domain event's `event`) as the SDK's. */
export function toSdkStreamResponse(event: StreamResponse): SdkStreamResponse {
  return SdkStreamResponse.fromJSON(event);
}

/** A wire SendMessageResponse (session/tell's result) as the SDK's. */
export function toSdkSendMessageResponse(response: SendMessageResponse): SdkSendMessageResponse {
  return SdkSendMessageResponse.fromJSON(response);
}

/** A wire Agent Card (stdio `initialize`, the well-known card) as the SDK's. */
export function toSdkAgentCard(card: AgentCard): SdkAgentCard {
  return SdkAgentCard.fromJSON(card);
}

export type { SdkAgentCard, SdkMessage, SdkSendMessageResponse, SdkStreamResponse, SdkTask };
