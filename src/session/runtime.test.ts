import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineError, QueueClosedError } from '../events/index.js';
import type { ServerMessage } from '../protocol/index.js';
import { freePort, waitFor } from '../protocol/loopback.testutil.js';
import type { EarshotEvent } from '../results/events.js';
import type { Scenario } from '../scenario/index.js';
import type { DriverRuntime, SaidInput, SessionDriver } from './driver.js';
import { ScenarioFiles } from './media/scenario.testutil.js';
import { SessionRuntime } from './runtime.js';
import { llmReply, SessionClock, settle, startScriptedBot, type ScriptedBot } from './scripted-bot.testutil.js';

/**
 * The runtime on a real loopback socket and manual time, driven by small
 * drivers written here: what a turn scope does and in which order, what it
 * drops, and the teardown on every way a session can end.
 */
const files = new ScenarioFiles();
let scenario: Scenario;
beforeAll(async () => {
  scenario = await files.load(
    'name: seam\nscenarios:\n  - name: two\n    turns:\n      - user: one\n      - user: two\n',
  );
});
afterAll(() => files.cleanup());

const bots: ScriptedBot[] = [];
afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.close()));
});
async function bot(script: Parameters<typeof startScriptedBot>[0]): Promise<ScriptedBot> {
  const b = await startScriptedBot(script);
  bots.push(b);
  return b;
}

/** A driver from a function, with the planned turns of the scenario. */
function driver(run: (rt: DriverRuntime, signal: AbortSignal) => Promise<void>): SessionDriver {
  return { plannedTurns: () => [{ user: 'one' }, { user: 'two' }], run };
}

const isReply = (e: EarshotEvent): boolean => e.name === 'llm_response';
const textOf = (e: EarshotEvent): string => ('text' in e ? e.text : '');

describe('the session runtime and its turn scope', () => {
  it('sends a turn only after dropping the output an earlier turn left queued, and anchors the turn at its send', async () => {
    const b = await bot({ greeting: llmReply('Hello there.'), onText: (text) => llmReply(`You said ${text}.`) });
    const time = new SessionClock();
    const heard: string[] = [];
    const outcome = await new SessionRuntime(scenario, time.config({ url: b.url }), [{ user: 'one' }]).drive(
      driver(async (rt) => {
        // The handshake's bot_ready and the greeting stay queued: nobody reads them.
        await time.until(/event: llm_response "Hello there\."/);
        time.pass(250);
        const turn = rt.openTurn(0);
        const sent = await turn.send({ user: 'one' });
        expect(sent).toEqual({ anchorMs: time.clock.now(), kind: 'text' });
        heard.push(textOf(await rt.stream.next(isReply, sent.anchorMs + 5000)));
        turn.end([]);
      }),
    );
    expect(heard).toEqual(['You said one.']);
    expect(time.trace.some((l) => /discard: dropped 3 queued event\(s\) before send/.test(l))).toBe(true);
    expect(outcome.result.status).toBe('passed');
    expect(outcome.result.turns[0]).toMatchObject({ index: 0, status: 'passed', started_at_ms: 250 });
    // What the harness said, in order: the handshake, then the one turn.
    expect(b.received).toEqual(['client-ready', 'send-text:one']);
  });

  it('tells its listeners what the user said and every event as it arrives, before a driver takes it', async () => {
    const call: ServerMessageOf<'llm-function-call-in-progress'> = {
      type: 'llm-function-call-in-progress',
      data: { function_name: 'lookup', tool_call_id: 'c1', arguments: { q: 'two' } },
    };
    const b = await bot({ onText: (text) => (text === 'two' ? [call, ...llmReply('Found it.')] : llmReply('Ok.')) });
    const time = new SessionClock();
    const said: SaidInput[] = [];
    const arrived: string[] = [];
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        rt.listen({ userSaid: (s) => said.push(s), event: (e) => arrived.push(e.name) });
        for (const words of ['one', 'two']) {
          const turn = rt.openTurn({ user: words });
          const sent = await turn.send({ user: words });
          await rt.stream.next(isReply, sent.anchorMs + 5000);
          turn.end([]);
        }
        const keys = rt.openTurn({ dtmf: '42#' });
        await keys.send({ dtmf: '42#' });
        keys.end([]);
      }),
    );
    expect(said).toEqual([
      { kind: 'text', text: 'one' },
      { kind: 'text', text: 'two' },
      { kind: 'dtmf', keys: '42#' },
    ]);
    // From the moment it listens: bot_ready came before.
    expect(arrived).toEqual(['llm_started', 'llm_response', 'function_call', 'llm_started', 'llm_response']);
    expect(b.received.at(-1)).toBe('dtmf');
  });

  it('refuses a second send, and anything once the turn has ended', async () => {
    const b = await bot({ onText: () => llmReply('Ok.') });
    const time = new SessionClock();
    const errors: string[] = [];
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const turn = rt.openTurn({ user: 'one' });
        await turn.send({ user: 'one' });
        await turn.send({ user: 'again' }).catch((e: Error) => errors.push(e.message));
        turn.end([]);
        expect(() => turn.end([])).toThrow(/turn 0: end after the turn ended/);
        expect(() => turn.record({ index: 0, event: 'llm_response', status: 'passed' })).toThrow(
          /after the turn ended/,
        );
      }),
    );
    expect(errors).toEqual(['turn 0: its input was already sent']);
    expect(b.received).toEqual(['client-ready', 'send-text:one']);
  });

  it('an observing turn sends nothing and keeps what is queued: its anchor is now', async () => {
    const b = await bot({ greeting: llmReply('Welcome.') });
    const time = new SessionClock();
    let greeting = '';
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        await time.until(/event: llm_response/);
        const turn = rt.openTurn({});
        const sent = await turn.send({});
        expect(sent.kind).toBe('none');
        greeting = textOf(await rt.stream.next(isReply, sent.anchorMs + 1000));
        turn.end([]);
      }),
    );
    expect(greeting).toBe('Welcome.');
    expect(b.received).toEqual(['client-ready']);
  });
});

describe('the session runtime tears down whatever happened', () => {
  it('a driver that throws: a harness_error of the turn under way, the socket closed, eval-cancel sent when asked', async () => {
    const b = await bot({ onText: () => llmReply('Ok.') });
    const time = new SessionClock();
    const outcome = await new SessionRuntime(scenario, time.config({ url: b.url, stopBot: true }), [
      { user: 'one' },
      { user: 'two' },
    ]).drive(
      driver(async (rt) => {
        const turn = rt.openTurn(0);
        await turn.send({ user: 'one' });
        throw new Error('the driver lost its place');
      }),
    );
    expect(outcome.result.status).toBe('error');
    expect(outcome.result.failures).toEqual([
      {
        kind: 'harness_error',
        turn_index: 0,
        expectation_index: null,
        event: null,
        reason: 'the driver lost its place',
      },
    ]);
    expect(outcome.result.turns.map((t) => t.status)).toEqual(['failed', 'not_run']);
    await waitClosed(b);
    expect(b.received).toEqual(['client-ready', 'send-text:one', 'client-message:eval-cancel']);
    expect(b.ended).toEqual(['closed 1000']);
  });

  it('a bot that never says ready: handshake_timeout once the gate has passed, the driver never runs', async () => {
    const b = await bot({ ready: false });
    const time = new SessionClock();
    let ran = false;
    const drive = new SessionRuntime(scenario, time.config({ url: b.url, handshakeTimeoutMs: 10_000 }), []).drive(
      driver(async () => {
        ran = true;
      }),
    );
    await waitFor(() => b.received.includes('client-ready'));
    time.pass(9_999);
    await settle();
    time.pass(1);
    const outcome = await drive;
    expect(ran).toBe(false);
    expect(outcome.result.failures.map((f) => [f.kind, f.reason])).toEqual([
      ['handshake_timeout', 'bot-ready not received within 10000ms'],
    ]);
    await waitClosed(b);
  });

  it('a bot that hangs up mid-turn ends every wait on the stream: the driver sees the close, the result says why', async () => {
    const b = await bot({ onText: () => 'hang-up' });
    const time = new SessionClock();
    let seen: unknown;
    const outcome = await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const turn = rt.openTurn({ user: 'one' });
        const sent = await turn.send({ user: 'one' });
        seen = await rt.stream.next(isReply, sent.anchorMs + 60_000).catch((e: unknown) => e);
        turn.end([]);
      }),
    );
    expect(seen).toBeInstanceOf(QueueClosedError);
    expect((seen as QueueClosedError).why).toBe('connection closed by the bot (code 1000: bot hung up)');
    expect(outcome.result.status).toBe('passed');
    expect(outcome.trace).toMatch(/connection closed \(1000 bot hung up, by the bot\)/);
  });

  it('a wait on the stream ends at its deadline on the session clock, not before', async () => {
    const b = await bot({});
    const time = new SessionClock();
    let waited: unknown;
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const deadline = time.clock.now() + 30_000;
        const next = rt.stream.next(isReply, deadline).catch((e: unknown) => e);
        time.pass(29_999);
        await settle();
        time.pass(1);
        waited = await next;
        expect(time.clock.now()).toBe(deadline);
      }),
    );
    expect(waited).toBeInstanceOf(DeadlineError);
  });

  it('a bot that cannot be reached: connect_failed, no throw, nothing else attempted', async () => {
    const time = new SessionClock();
    const port = await freePort();
    let ran = false;
    const outcome = await new SessionRuntime(
      scenario,
      time.config({ url: `ws://127.0.0.1:${port}`, connectTimeoutMs: 300 }),
      [{ user: 'one' }],
    ).drive(
      driver(async () => {
        ran = true;
      }),
    );
    expect(ran).toBe(false);
    expect(outcome.result.status).toBe('failed');
    expect(outcome.result.failures.map((f) => f.kind)).toEqual(['connect_failed']);
    expect(outcome.result.turns.map((t) => t.status)).toEqual(['not_run']);
  });

  it('an interrupted run rethrows the abort after closing the socket', async () => {
    const b = await bot({});
    const time = new SessionClock();
    const controller = new AbortController();
    const drive = new SessionRuntime(scenario, time.config({ url: b.url, signal: controller.signal }), []).drive(
      driver(async (rt) => {
        controller.abort(new Error('SIGINT'));
        await rt.stream.next(isReply, time.clock.now() + 60_000);
      }),
    );
    await expect(drive).rejects.toThrow('SIGINT');
    await waitClosed(b);
  });

  it('drives one conversation only', async () => {
    const time = new SessionClock();
    const port = await freePort();
    const runtime = new SessionRuntime(
      scenario,
      time.config({ url: `ws://127.0.0.1:${port}`, connectTimeoutMs: 100 }),
      [],
    );
    const first = runtime.drive(driver(async () => undefined));
    await expect(runtime.drive(driver(async () => undefined))).rejects.toThrow(/drives one conversation/);
    expect((await first).result.failures.map((f) => f.kind)).toEqual(['connect_failed']);
  });
});

type ServerMessageOf<T extends string> = Extract<ServerMessage, { type: T }>;

async function waitClosed(b: ScriptedBot): Promise<void> {
  await waitFor(() => b.ended.length > 0);
}
