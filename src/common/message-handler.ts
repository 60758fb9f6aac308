/**
 * Request/reply over a webview's postMessage, used by both ends of both panels: a request carries a
 * `messageId`; the message that answers it carries `inReplyTo` with that id and settles the
 * request's promise. Everything else is a notification, posted exactly as given. Pure (no DOM, Node
 * or VS Code), so the host and the webview bundles share it.
 */

/** What the handler adds to a message on the wire. */
export interface Correlation {
  messageId?: number;
  inReplyTo?: number;
}

interface Message {
  type: string;
}

/** For each request type sent, the type of the message that answers it. */
export type ReplyTypes<Out extends Message, In extends Message> = { [K in Out['type']]?: In['type'] };

export interface MessageHandlerOptions<Out extends Message, In extends Message> {
  post(message: Out & Correlation): void;
  /** A message from the other side that is not a reply; what it returns answers a request. */
  handle(message: In & Correlation): Out | undefined | Promise<Out | undefined>;
  /** `handle` threw or rejected. */
  failed(message: In, error: unknown): void;
}

/**
 * One end of a panel's messages: `Out` what it sends, `In` what it receives, `Replies` the requests
 * it makes (none on the host's side: only the webviews ask).
 */
export class MessageHandler<
  Out extends Message,
  In extends Message,
  Replies extends ReplyTypes<Out, In> = Record<never, never>,
> {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(reply: In): void; reject(error: Error): void }>();

  constructor(private readonly options: MessageHandlerOptions<Out, In>) {}

  notify(message: Out): void {
    this.options.post(message);
  }

  /** Posts a request; settles with the message the other side answers it with. */
  request<K extends keyof Replies & Out['type']>(
    message: Extract<Out, { type: K }>,
  ): Promise<Extract<In, { type: Replies[K] }>> {
    const messageId = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(messageId, { resolve: resolve as (reply: In) => void, reject });
      this.options.post({ ...message, messageId });
    });
  }

  /**
   * A message from the other side. A reply nobody waits for (its request came from a page since
   * reloaded) is handled as a message of its own.
   */
  async receive(message: In & Correlation): Promise<void> {
    const waiting = message.inReplyTo === undefined ? undefined : this.waiting.get(message.inReplyTo);
    if (waiting !== undefined) {
      this.waiting.delete(message.inReplyTo!);
      waiting.resolve(message);
      return;
    }
    try {
      const reply = await this.options.handle(message);
      if (reply !== undefined && message.messageId !== undefined)
        this.options.post({ ...reply, inReplyTo: message.messageId });
    } catch (error) {
      this.options.failed(message, error);
    }
  }

  /** Requests still waiting fail: the other side is gone. */
  dispose(): void {
    for (const { reject } of this.waiting.values()) reject(new Error('The webview was closed'));
    this.waiting.clear();
  }
}
