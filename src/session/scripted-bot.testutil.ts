/**
 * A bot for the runtime's and the drivers' unit tests: a real WebSocket server
 * on 127.0.0.1 (the eval wire) that answers the handshake and each typed turn
 * as the test scripts it, and records what the harness sent, in order. The
 * session runs on manual time: a deadline passes only when the test advances
 * the clock (`SessionClock.pass`), so a timeout is a step of the test, never a
 * wait; everything else is real socket I/O.
 */
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import { startServer, waitFor } from '../protocol/loopback.testutil.js';
import type { ClientMessage, ServerMessage, WirePeer, WireServer } from '../protocol/index.js';
import { resolveSessionConfig, type SessionConfig } from './config.js';
import type { SessionOptions } from './options.js';

export interface BotScript {
  /** Send `bot-ready` after `client-ready` (default true). */
  ready?: boolean;
  /** What the bot says right after `bot-ready`, before any turn (a greeting). */
  greeting?: ServerMessage[];
  /** The bot's answer to a typed turn; `'hang-up'` closes the socket instead. */
  onText?: (text: string, turn: number) => ServerMessage[] | 'hang-up';
}

export interface ScriptedBot {
  url: string;
  /** Each client message the bot received, as `type` (or `client-message:<t>`, `send-text:<text>`), in order. */
  received: string[];
  /** How each connection ended, once it did: `closed <code>`. */
  ended: string[];
  /** The open peer, once a client connected. */
  peer(): WirePeer | undefined;
  close(): Promise<void>;
}

/** An LLM reply as a Pipecat bot streams it: started, its text in chunks, stopped. */
export function llmReply(...chunks: string[]): ServerMessage[] {
  return [
    { type: 'bot-llm-started' },
    ...chunks.map((text): ServerMessage => ({ type: 'bot-llm-text', data: { text } })),
    { type: 'bot-llm-stopped' },
  ];
}

export async function startScriptedBot(script: BotScript = {}): Promise<ScriptedBot> {
  const received: string[] = [];
  const ended: string[] = [];
  let current: WirePeer | undefined;
  const { server } = await startServer('pipecat-eval', {
    onConnection: (peer) => {
      current = peer;
      void serve(peer, script, received, ended);
    },
  });
  return {
    url: server.url(),
    received,
    ended,
    peer: () => current,
    close: () => closeServer(server),
  };
}

async function serve(peer: WirePeer, script: BotScript, received: string[], ended: string[]): Promise<void> {
  const conn = peer.connection;
  let turn = 0;
  for (;;) {
    const item = await conn.receive();
    if (item === null) break;
    if (item.kind !== 'rtvi') continue;
    const message = item.message;
    if (message.type === 'unknown') continue;
    received.push(describe(message));
    if (message.type === 'client-ready' && script.ready !== false) {
      conn.send({ type: 'bot-ready', id: message.id, data: { version: '2.1.0' } });
      for (const m of script.greeting ?? []) conn.send(m);
    }
    if (message.type === 'send-text') {
      const answer = script.onText?.(message.data.content, turn++) ?? [];
      if (answer === 'hang-up') {
        await conn.close(1000, 'bot hung up');
        break;
      }
      for (const m of answer) conn.send(m);
    }
  }
  const info = await conn.closed;
  ended.push(`closed ${info.code}`);
}

function describe(message: ClientMessage): string {
  if (message.type === 'send-text') return `send-text:${message.data.content}`;
  if (message.type === 'client-message') return `client-message:${message.data.t}`;
  return message.type;
}

async function closeServer(server: WireServer): Promise<void> {
  await server.close();
}

/** Real I/O already under way (a frame on the socket) lands before the test looks or moves time on. */
export async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 20));
}

/** The session's manual time, and a way to let real I/O settle before a deadline is passed. */
export class SessionClock {
  readonly clock = new ManualClock(1_000_000);
  readonly timers = new ManualTimerDriver(this.clock);
  /** Every trace line, as the session writes it. */
  readonly trace: string[] = [];

  /** A session config on this manual time, with no judge cache and an empty environment. */
  config(options: Omit<SessionOptions, 'clock' | 'timers' | 'traceEcho'>): SessionConfig {
    return resolveSessionConfig({
      env: {},
      noJudgeCache: true,
      ...options,
      clock: this.clock,
      timers: this.timers,
      traceEcho: (line) => this.trace.push(line),
    });
  }

  /** Waits (in real time) until the trace has a line matching `pattern`. */
  async until(pattern: RegExp): Promise<void> {
    await waitFor(() => this.trace.some((l) => pattern.test(l)));
  }

  /** Lets `ms` of session time pass, firing every deadline in it. */
  pass(ms: number): void {
    this.timers.advance(ms);
  }
}
