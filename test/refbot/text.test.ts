import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerInbound } from '../../src/protocol/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { Client, shape } from './support.js';

/**
 * The reference bot in text mode (pipecat-eval, skip_tts), as a subprocess on
 * a real socket: what it sends, in which order, for each kind of input.
 */
const GREETING =
  'Hello, I can answer questions. You can also press 1 for business hours, press 2 for our location, or press 3 and we will call you back.';

let bot: RefbotProcess;
beforeAll(async () => {
  bot = await startRefbotProcess();
});
afterAll(async () => {
  await bot.stop();
});

async function textClient(): Promise<Client> {
  const client = await Client.open(bot.url, { flags: { skipTts: true } });
  await client.handshake();
  await client.waitForType('bot-llm-stopped', 5000);
  return client;
}

const dataOf = (m: ServerInbound): Record<string, unknown> => ('data' in m ? (m.data as Record<string, unknown>) : {});

describe('handshake and greeting', () => {
  it('answers client-ready with bot-ready (same id, protocol 2.1.0), then greets as one streamed LLM response', async () => {
    const client = await Client.open(bot.url, { flags: { skipTts: true } });
    const ready = client.messages.clientReady({ library: 'earshot-test' });
    client.connection.send(ready);
    const stopped = await client.waitForType('bot-llm-stopped', 5000);
    expect(client.seen[0].message).toEqual({
      type: 'bot-ready',
      id: ready.id,
      data: { version: '2.1.0', about: { library: 'earshot-refbot' } },
    });
    expect(shape(client.types(0))).toEqual(['bot-ready', 'bot-llm-started', 'bot-llm-text…', 'bot-llm-stopped']);
    expect(client.replyText(0, stopped)).toBe(GREETING);
    // Streamed like an LLM: several chunks, a few ms apart, with ttfb and processing metrics.
    const chunks = client.seen.filter((s) => s.message.type === 'bot-llm-text');
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks[chunks.length - 1].at - chunks[0].at).toBeGreaterThan(chunks.length * 4);
    const metrics = client.seen.filter((s) => s.message.type === 'metrics').map((s) => dataOf(s.message));
    expect(metrics[0]).toEqual({
      ttfb: [{ processor: 'RefbotLLMService#0', model: 'refbot-brain', value: expect.any(Number) }],
    });
    expect(metrics[1]).toEqual({
      processing: [{ processor: 'RefbotLLMService#0', model: 'refbot-brain', value: expect.any(Number) }],
    });
    // skip_tts: no speech at all, not even for the greeting.
    expect(client.types().some((t) => t.startsWith('bot-tts') || t.endsWith('speaking'))).toBe(false);
    await client.close();
  });
});

describe("what Pipecat's observer sends by default besides the LLM text", () => {
  it('sends bot-transcription once per sentence, right after the chunk that ends it, with the sentence so far', async () => {
    const client = await textClient();
    const from = client.seen.length;
    client.connection.send(
      client.messages.sendText('What is the weather in San Francisco, and a restaurant for dinner?'),
    );
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    const reply = client.replyText(from, stopped);
    const seen = client.seen.slice(from, stopped);
    const transcripts = seen
      .filter((s) => s.message.type === 'bot-transcription')
      .map((s) => (dataOf(s.message) as { text: string }).text);
    expect(transcripts.length).toBeGreaterThan(1);
    expect(transcripts.join('')).toBe(reply);
    for (const t of transcripts) expect(t.trim()).toMatch(/[.!?]$/);
    const first = seen.findIndex((s) => s.message.type === 'bot-transcription');
    expect(seen[first - 1].message.type).toBe('bot-llm-text');
    // Text mode: nothing is spoken, so no bot-output (Pipecat's observer holds it until the bot speaks).
    expect(client.types(from).includes('bot-output')).toBe(false);
    await client.close();
  });
});

describe('send-text', () => {
  it('answers a question with user-llm-text then one LLM response, and no user speaking events', async () => {
    const client = await textClient();
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('What is the capital of France?'));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    expect(shape(client.types(from))).toEqual(['user-llm-text', 'bot-llm-started', 'bot-llm-text…', 'bot-llm-stopped']);
    expect(dataOf(client.seen[from].message)).toEqual({ text: 'What is the capital of France?' });
    expect(client.replyText(from, stopped)).toBe('The capital of France is Paris.');
    await client.close();
  });

  it('run_immediately text interrupts the story: bot-interrupted, the old response stopped, then the new answer', async () => {
    const client = await textClient();
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('Tell me a long story about the history of Paris.'));
    await client.waitForType('bot-llm-text', 5000, from, 5);
    const cut = client.seen.length;
    client.connection.send(client.messages.sendText("Actually, never mind that. What's the capital of Japan?"));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, cut + 2);
    const after = shape(client.types(cut));
    expect(after.slice(0, 5)).toEqual([
      'bot-interrupted',
      'bot-llm-stopped',
      'user-llm-text',
      'bot-llm-started',
      'bot-llm-text…',
    ]);
    const story = client.replyText(from, cut);
    expect(story.startsWith('Paris began more than')).toBe(true);
    expect(story).not.toContain('Eiffel');
    const restart = client.seen.findIndex((s, i) => i > cut && s.message.type === 'bot-llm-started');
    expect(client.replyText(restart, stopped)).toBe('The capital of Japan is the city of Tokyo.');
    await client.close();
  });

  it('sends no bot-interrupted when nothing is in flight', async () => {
    const client = await textClient();
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('Tell me a joke.'));
    await client.waitForType('bot-llm-stopped', 5000, from);
    expect(client.types(from)).not.toContain('bot-interrupted');
    await client.close();
  });

  it('run_immediately: false adds to the conversation without an answer', async () => {
    const client = await textClient();
    client.connection.send(client.messages.sendText('My name is Priya.', { runImmediately: false }));
    await new Promise((r) => setTimeout(r, 300));
    const from = client.seen.length;
    expect(client.types(from - 1)).toEqual(['bot-llm-stopped']);
    client.connection.send(client.messages.sendText('What is my name?'));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    expect(client.replyText(from, stopped)).toBe('Your name is Priya.');
    await client.close();
  });
});

describe('function calls', () => {
  const question = "What's the weather in San Francisco, and what's a good restaurant there?";

  async function callTurn(
    level?: 'none' | 'name' | 'full',
  ): Promise<{ client: Client; from: number; stopped: number }> {
    const client = await textClient();
    if (level) client.connection.send(client.messages.evalConfigure({ function_call_report_level: { '*': level } }));
    const from = client.seen.length;
    client.connection.send(client.messages.sendText(question));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    return { client, from, stopped };
  }

  it('reports calls inside the response: started, in progress, stopped in completion order, then the text', async () => {
    const { client, from, stopped } = await callTurn('full');
    expect(shape(client.types(from))).toEqual([
      'user-llm-text',
      'bot-llm-started',
      'llm-function-call-started',
      'llm-function-call-started',
      'llm-function-call-in-progress',
      'llm-function-call-in-progress',
      'llm-function-call-stopped',
      'llm-function-call-stopped',
      'bot-llm-text…',
      'bot-llm-stopped',
    ]);
    const at = (type: string, n: number): Seen => client.seen.filter((s, i) => i >= from && s.message.type === type)[n];
    type Seen = (typeof client.seen)[number];
    expect(dataOf(at('llm-function-call-in-progress', 0).message)).toEqual({
      tool_call_id: 'call_1',
      function_name: 'get_current_weather',
      arguments: { location: 'San Francisco' },
    });
    expect(dataOf(at('llm-function-call-in-progress', 1).message)).toEqual({
      tool_call_id: 'call_2',
      function_name: 'get_restaurant_recommendation',
      arguments: { location: 'San Francisco' },
    });
    // They run in parallel for their durations (300 and 200 ms): the shorter one reports first.
    expect(dataOf(at('llm-function-call-stopped', 0).message)).toEqual({
      tool_call_id: 'call_2',
      cancelled: false,
      function_name: 'get_restaurant_recommendation',
      result: { name: 'The Golden Dragon' },
    });
    expect(dataOf(at('llm-function-call-stopped', 1).message)).toEqual({
      tool_call_id: 'call_1',
      cancelled: false,
      function_name: 'get_current_weather',
      result: { conditions: 'sunny', temperature: 75, unit: 'fahrenheit' },
    });
    const inProgressAt = at('llm-function-call-in-progress', 0).at;
    expect(at('llm-function-call-stopped', 0).at - inProgressAt).toBeGreaterThanOrEqual(195);
    expect(at('llm-function-call-stopped', 1).at - inProgressAt).toBeGreaterThanOrEqual(295);
    expect(client.replyText(from, stopped)).toBe(
      'It is 75 degrees and sunny in San Francisco. For dinner, I recommend The Golden Dragon.',
    );
    await client.close();
  });

  it('hides names and arguments at the default level (none), as Pipecat bots do', async () => {
    const { client, from } = await callTurn();
    const calls = client.seen
      .slice(from)
      .filter((s) => s.message.type.startsWith('llm-function-call'))
      .map((s) => dataOf(s.message));
    expect(calls).toEqual([
      {},
      {},
      { tool_call_id: 'call_1' },
      { tool_call_id: 'call_2' },
      { tool_call_id: 'call_2', cancelled: false },
      { tool_call_id: 'call_1', cancelled: false },
    ]);
    await client.close();
  });

  it('level name reveals the function name but neither arguments nor results', async () => {
    const { client, from } = await callTurn('name');
    const calls = client.seen
      .slice(from)
      .filter((s) => s.message.type.startsWith('llm-function-call'))
      .map((s) => dataOf(s.message));
    expect(calls[2]).toEqual({ tool_call_id: 'call_1', function_name: 'get_current_weather' });
    expect(calls[4]).toEqual({
      tool_call_id: 'call_2',
      cancelled: false,
      function_name: 'get_restaurant_recommendation',
    });
    await client.close();
  });
});

describe('DTMF', () => {
  it('"1#" is flushed at once on # as a DTMF transcription turn, answered by the keypad menu', async () => {
    const client = await textClient();
    const from = client.seen.length;
    const sent = performance.now();
    client.connection.send(client.messages.dtmf('1#'));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    expect(shape(client.types(from))).toEqual([
      'user-started-speaking',
      'user-transcription',
      'user-stopped-speaking',
      'user-llm-text',
      'bot-llm-started',
      'bot-llm-text…',
      'bot-llm-stopped',
    ]);
    expect(dataOf(client.seen[from + 1].message)).toMatchObject({ text: 'DTMF: 1#', final: true });
    expect(client.seen[from].at - sent).toBeLessThan(500);
    expect(client.replyText(from, stopped)).toBe('We are open 9 AM to 5 PM, Monday through Friday.');
    await client.close();
  });

  it('"2" without # is flushed after the 2 s idle timeout', async () => {
    const client = await textClient();
    const from = client.seen.length;
    const sent = performance.now();
    client.connection.send(client.messages.dtmf('2'));
    const t = await client.waitForType('user-transcription', 5000, from);
    expect(dataOf(client.seen[t].message)).toMatchObject({ text: 'DTMF: 2', final: true });
    expect(client.seen[t].at - sent).toBeGreaterThanOrEqual(1900);
    const stopped = await client.waitForType('bot-llm-stopped', 5000, t);
    expect(client.replyText(t, stopped)).toBe('Our office is located at 123 Main Street.');
    await client.close();
  });

  it('the first key interrupts a reply in flight, before the entry is complete', async () => {
    const client = await textClient();
    client.connection.send(client.messages.sendText('Tell me a story.'));
    await client.waitForType('bot-llm-text', 5000, client.seen.length, 3);
    const from = client.seen.length;
    client.connection.send(client.messages.dtmf('3'));
    await client.waitForType('bot-llm-stopped', 1000, from);
    expect(client.types(from).slice(0, 2)).toEqual(['bot-interrupted', 'bot-llm-stopped']);
    const t = await client.waitForType('user-transcription', 5000, from);
    const stopped = await client.waitForType('bot-llm-stopped', 5000, t);
    expect(client.replyText(t, stopped)).toBe('Please enter the number to call you back on, then press the pound key.');
    await client.close();
  });
});

describe('eval control messages', () => {
  it('eval-context seeds the conversation without a reply; the bot then uses it', async () => {
    const client = await textClient();
    client.connection.send(
      client.messages.evalContext([{ role: 'system', content: 'The user has already introduced themselves as Alex.' }]),
    );
    await new Promise((r) => setTimeout(r, 200));
    const from = client.seen.length;
    expect(client.types(from - 1)).toEqual(['bot-llm-stopped']);
    client.connection.send(client.messages.sendText('Do you remember my name?'));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    expect(client.replyText(from, stopped)).toBe('Your name is Alex.');
    await client.close();
  });

  it('each connection has its own memory, and connections may overlap', async () => {
    const [a, b] = await Promise.all([textClient(), textClient()]);
    a.connection.send(a.messages.sendText('My name is Ada.'));
    await a.waitForType('bot-llm-stopped', 5000, a.seen.length);
    const from = b.seen.length;
    b.connection.send(b.messages.sendText('What is my name?'));
    const stopped = await b.waitForType('bot-llm-stopped', 5000, from);
    expect(b.replyText(from, stopped)).toBe('You have not told me your name yet.');
    await Promise.all([a.close(), b.close()]);
  });

  it('rejects what it cannot use: an unknown type gets error-response with its id, bad JSON an error', async () => {
    const client = await textClient();
    const from = client.seen.length;
    client.connection.sendRaw(JSON.stringify({ label: 'rtvi-ai', type: 'teleport', id: 'x-1', data: {} }));
    client.connection.sendRaw('{not json');
    await client.waitForType('error', 2000, from);
    const reply = client.seen.find((s, i) => i >= from && s.message.type === 'error-response')!.message;
    expect(reply).toEqual({ type: 'error-response', id: 'x-1', data: { error: 'Unsupported type teleport' } });
    const error = client.seen.find((s, i) => i >= from && s.message.type === 'error')!.message;
    expect(dataOf(error)).toMatchObject({
      fatal: false,
      error: expect.stringMatching(/^Invalid RTVI transport message: not JSON/),
    });
    // Still serving.
    client.connection.send(client.messages.sendText('Hello'));
    await client.waitForType('bot-llm-stopped', 5000, from);
    await client.close();
  });
});

describe('lifecycle of the process', () => {
  it('eval-cancel makes the bot close the connection and exit 0', async () => {
    const own = await startRefbotProcess();
    const client = await Client.open(own.url, { flags: { skipTts: true } });
    await client.handshake();
    client.connection.send(client.messages.evalCancel());
    const info = await client.connection.closed;
    expect(info.byPeer).toBe(true);
    expect(await own.exited).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM stops it cleanly (exit 0), closing open connections with 1001', async () => {
    const own = await startRefbotProcess();
    const client = await Client.open(own.url, { flags: { skipTts: true } });
    await client.handshake();
    own.child.kill('SIGTERM');
    expect((await client.connection.closed).code).toBe(1001);
    expect(await own.exited).toEqual({ code: 0, signal: null });
  });

  it('trigger_disconnect runs the disconnect handler (logged); with --exit-on-disconnect the bot then exits', async () => {
    const own = await startRefbotProcess(['--exit-on-disconnect']);
    const plain = await Client.open(own.url, { flags: { skipTts: true } });
    await plain.handshake();
    await plain.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(own.child.exitCode).toBeNull(); // a client that did not ask leaves the bot running
    const client = await Client.open(own.url, { flags: { skipTts: true, triggerDisconnect: true } });
    await client.handshake();
    await client.close();
    expect(await own.exited).toEqual({ code: 0, signal: null });
    expect(own.stderr()).toMatch(/on_client_disconnected ran \(trigger_disconnect\); exiting/);
  });

  it('a wrong flag is a one-line usage error with exit code 2', async () => {
    await expect(startRefbotProcess(['--fault', 'explode'])).rejects.toThrow(
      /exited \(2\).*--fault explode: unknown fault "explode"/s,
    );
  });
});

it('speaks plain WebSocket: any RTVI client can drive it', async () => {
  const ws = new WebSocket(`${bot.url}/?skip_tts=true`);
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          label: 'rtvi-ai',
          type: 'client-ready',
          id: 'r1',
          data: { version: '2.1.0', about: { library: 'raw' } },
        }),
      ),
    );
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string };
      got.push(m.type);
      if (m.type === 'bot-llm-stopped') resolve();
    });
    ws.on('error', reject);
  });
  ws.close();
  expect(got[0]).toBe('bot-ready');
});
