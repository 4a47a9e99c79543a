import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { faultyBots, fixture, harnessTrouble, runAgainst, verdicts } from './faults.testutil.js';

/**
 * Bots that send what they should not: text that is not JSON, random bytes,
 * JSON of the wrong shape, a frame too large to read, a storm of messages.
 * The harness never crashes on a frame: the first violation ends the scenario
 * with protocol_error, quoting the offending message (truncated); a frame over
 * the size limit is refused before it is buffered; a storm of valid messages
 * changes no verdict and does not grow memory.
 */
const bot = faultyBots();

const SCENARIOS = [fixture('greeting'), fixture('one_question'), fixture('menu')];
const NAMES = ['fault_greeting', 'fault_one_question', 'fault_menu'];
const WAITING = "the bot broke the protocol while waiting for 'llm_response': ";

describe('a bot that sends garbage', () => {
  it('garbage: every scenario fails protocol_error at its first turn, quoting the first non-JSON frame; the run goes on', async () => {
    const b = await bot('garbage');
    const run = await runAgainst(b.url, SCENARIOS, ['--timeout', '5']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual(NAMES.map((n) => [n, 'failed', ['protocol_error']]));
    for (const r of run.results) {
      expect(r.failures[0]).toMatchObject({ turn_index: 0, event: 'llm_response' });
      expect(r.failures[0].reason).toMatch(
        new RegExp(`^${escapeRegExp(WAITING)}not JSON: .*: \\}\\{ this is not json$`),
      );
      // At the first bad frame, not at the 5 s deadline.
      expect(r.duration_ms).toBeLessThan(1500);
      const trace = readFileSync(join(run.out, r.artifacts!.trace!), 'utf8');
      expect(trace).toContain('protocol violation (not_json)');
    }
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(8000);
    expect(b.child.exitCode).toBeNull();
  }, 30_000);

  it('a long offending frame is quoted truncated to 200 characters, in the failure and in the trace', async () => {
    // Not a refbot fault: a bot that answers client-ready with bot-ready, then 100 kB of text that is not JSON.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const long = `<html>${'A'.repeat(100_000)}`;
    wss.on('connection', (ws) => {
      ws.once('message', () => {
        ws.send(JSON.stringify({ label: 'rtvi-ai', type: 'bot-ready', id: '1', data: { version: '2.1.0' } }));
        ws.send(long);
      });
    });
    try {
      const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
      const run = await runAgainst(url, [fixture('greeting')], ['--timeout', '5']);
      expect(harnessTrouble(run)).toEqual([]);
      const [r] = run.results;
      expect(r.failures.map((f) => f.kind)).toEqual(['protocol_error']);
      const quoted = r.failures[0].reason.slice(r.failures[0].reason.lastIndexOf(': ') + 2);
      expect(quoted).toBe(`${long.slice(0, 200)}…`);
      expect(r.failures[0].reason.length).toBeLessThan(500);
      const trace = readFileSync(join(run.out, r.artifacts!.trace!), 'utf8');
      expect(trace).not.toContain('A'.repeat(600));
      expect(run.wallMs).toBeLessThan(6000);
    } finally {
      wss.close();
    }
  }, 30_000);

  it('terminal control sequences in a bot frame never reach the terminal (-v) or the trace raw', async () => {
    // Not a refbot fault: after bot-ready, a text frame that would retitle the window and turn the terminal red.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const hostile = '\u001b]0;pwned\u0007\u001b[31mRED\r\nforged line';
    wss.on('connection', (ws) => {
      ws.once('message', () => {
        ws.send(JSON.stringify({ label: 'rtvi-ai', type: 'bot-ready', id: '1', data: { version: '2.1.0' } }));
        ws.send(hostile);
      });
    });
    try {
      const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
      const run = await runAgainst(url, [fixture('greeting')], ['--timeout', '5', '--reporter', 'list', '-v']);
      expect(run.results.map((r) => r.failures.map((f) => f.kind))).toEqual([['protocol_error']]);
      const trace = readFileSync(join(run.out, run.results[0].artifacts!.trace!), 'utf8');
      for (const text of [run.stdout, run.stderr, trace]) {
        expect(text).not.toContain('\u001b');
        expect(text).not.toContain('\u0007');
        expect(text).not.toMatch(/^forged line/m);
      }
      expect(trace).toContain('\\u001b]0;pwned\\u0007\\u001b[31mRED\\u000d\\u000aforged line');
    } finally {
      wss.close();
    }
  }, 30_000);

  it('malformed-rtvi: valid JSON of the wrong shape fails protocol_error, naming the field and quoting the message', async () => {
    const b = await bot('malformed-rtvi');
    const run = await runAgainst(b.url, SCENARIOS, ['--timeout', '5']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual(NAMES.map((n) => [n, 'failed', ['protocol_error']]));
    for (const r of run.results) {
      expect(r.failures[0]).toMatchObject({
        turn_index: 0,
        reason: `${WAITING}bot-llm-text: data.text: expected string, got number: {"label":"rtvi-ai","type":"bot-llm-text","data":{"text":42}}`,
      });
      expect(r.duration_ms).toBeLessThan(1500);
    }
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(8000);
  }, 30_000);
});

describe('a bot that sends too much', () => {
  it('huge-frame=10000000: the 10 MB frame is refused unread (1009), protocol_error for each scenario, memory flat', async () => {
    const b = await bot('huge-frame=10000000');
    const run = await runAgainst(b.url, SCENARIOS, ['--timeout', '5']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual(NAMES.map((n) => [n, 'failed', ['protocol_error']]));
    for (const r of run.results) {
      expect(r.failures[0].reason).toMatch(
        /^the bot broke the protocol while waiting for 'llm_response': frame larger than maxPayloadBytes \(4194304\); the connection is closed with 1009$/,
      );
      expect(r.duration_ms).toBeLessThan(2000);
    }
    // Three 10 MB frames arrived; none was buffered whole, let alone decoded.
    expect(run.peakRssMb).toBeLessThan(160);
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(10_000);
  }, 30_000);

  it('huge-frame=3000000: a 3 MB frame, under the 4 MiB limit, is read and ignored; the scenarios pass', async () => {
    const b = await bot('huge-frame=3000000');
    const run = await runAgainst(b.url, [fixture('greeting'), fixture('one_question')], ['--timeout', '5']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_greeting', 'passed', []],
      ['fault_one_question', 'passed', []],
    ]);
    expect(run.peakRssMb).toBeLessThan(200);
    expect(run.code).toBe(0);
  }, 30_000);

  it('flood=10000: a storm of valid, irrelevant messages changes no verdict, and memory stays bounded', async () => {
    const b = await bot('flood=10000');
    const run = await runAgainst(
      b.url,
      [fixture('one_question'), fixture('two_questions'), fixture('another_question')],
      ['--timeout', '8'],
    );
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_one_question', 'passed', []],
      ['fault_two_questions', 'passed', []],
      ['fault_another_question', 'passed', []],
    ]);
    // The storm's messages are no events: results and traces stay the size of the conversation.
    for (const r of run.results) {
      expect(r.events!.length).toBeLessThan(50);
      expect(readFileSync(join(run.out, r.artifacts!.trace!), 'utf8').split('\n').length).toBeLessThan(200);
    }
    expect(run.peakRssMb).toBeLessThan(200);
    expect(run.code).toBe(0);
    expect(run.wallMs).toBeLessThan(20_000);
  }, 40_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
