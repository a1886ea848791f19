// What the generated client needs from a transport: a unary call and a
// stream of events, both by wire method name with JSON params. The HTTP and
// stdio transports implement it; a test or an IDE host may bring its own.

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (and closes its stream). */
  signal?: AbortSignal | undefined;
  /** Bound on the call in milliseconds (on opening, for a stream); the transport's default otherwise. */
  timeoutMs?: number | undefined;
}

/** Options of one streaming call. */
export interface StreamOptions extends CallOptions {
  /**
   * Resume position: only events after this one are delivered. The `id` of
   * the last event seen (the SSE `Last-Event-ID`; stdio `stream/resume`).
   */
  lastEventId?: number | undefined;
}

/** One event of a stream. */
export interface StreamEvent<T> {
  /** The event, of the method's result type. */
  readonly data: T;
  /**
   * The event's resume position when the stream has one (the task's event
   * sequence, the namespace cursor of a domain event): pass the last one
   * seen as `lastEventId` to continue after it.
   */
  readonly id: number | undefined;
}

/** Carries calls of the extension's methods to an agent. */
export interface Transport {
  /** One unary call: the method's result, or a rejection with the typed error. */
  call(method: string, params: object, options?: CallOptions): Promise<unknown>;
  /** One streaming call: its events until the stream ends; an error ends the iteration with a throw. */
  stream(method: string, params: object, options?: StreamOptions): AsyncIterable<StreamEvent<unknown>>;
  /** Releases the transport; calls made afterwards fail. */
  close(): Promise<void>;
}

/** A failure of the transport itself: no answer, a broken connection, an answer that is not the protocol. */
export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TransportError";
  }
}
