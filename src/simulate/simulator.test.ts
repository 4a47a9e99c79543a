import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JudgeConfigError, JudgeError } from '../judge/index.js';
import { sequence, startLlmServer, type LlmServer } from '../../test/support/llm-server.js';
import { readPersonaPrompt, simLlm } from '../../test/support/sim-llm.js';
import { END_CALL_TOOL, personaInstruction, personaMessages } from './persona.js';
import { createSimulator } from './simulator.js';

let server: LlmServer;
beforeEach(async () => {
  server = await startLlmServer();
});
afterEach(() => server.close());

const seeded = (): (() => number) => {
  let x = 7;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
};

const simulator = (over: Record<string, unknown> = {}) =>
  createSimulator({
    persona: 'Jamie, booking dinner. Gives the name Jamie Lee when asked.',
    goal: 'Book a table for two at 6 PM, then end the call.',
    config: { service: 'openai', model: 'persona-model', endpoint: server.url },
    env: {},
    random: seeded(),
    retryBaseDelayMs: 1,
    ...over,
  });

describe('the persona prompt', () => {
  it("persona and goal go in word for word; the bot's lines are the model's user messages, the caller's its own", () => {
    const instruction = personaInstruction('Jamie, polite.', 'Book a table.');
    expect(instruction).toContain('Who you are: Jamie, polite.');
    expect(instruction).toContain('What you want from this call: Book a table.');
    expect(instruction).toContain('call the end_call tool');
    expect(
      personaMessages(instruction, [
        { role: 'bot', text: 'Hello!' },
        { role: 'caller', text: 'Hi.' },
        { role: 'bot', text: '  ' },
      ]),
    ).toEqual([
      { role: 'system', content: instruction },
      { role: 'user', content: 'Hello!' },
      { role: 'assistant', content: 'Hi.' },
    ]);
    expect(END_CALL_TOOL.parameters).toMatchObject({ required: ['success', 'reason'] });
  });
});

describe('the caller model on the Chat Completions wire', () => {
  it('offers end_call as a function tool, sends the conversation, and reads a spoken line', async () => {
    server.respond(
      simLlm({
        persona: [{ when: (v) => v.lastBot.includes('how can i help'), say: 'A table for two at 6 PM, please.' }],
      }),
    );
    const move = await simulator().next([{ role: 'bot', text: 'Hello, how can I help?' }]);
    expect(move).toMatchObject({ say: 'A table for two at 6 PM, please.' });
    expect(move).not.toHaveProperty('endCall');
    const body = server.requests[0].body;
    expect(body.model).toBe('persona-model');
    expect(body.tools).toEqual([{ type: 'function', function: END_CALL_TOOL }]);
    expect(readPersonaPrompt(server.requests[0])).toMatchObject({
      persona: 'Jamie, booking dinner. Gives the name Jamie Lee when asked.',
      lastBot: 'hello, how can i help?',
    });
  });

  it('reads an end_call (with content null) and one said with a last line; other tools are ignored', async () => {
    server.respond(
      sequence(
        { toolCalls: [{ name: 'end_call', arguments: { success: true, reason: 'Booked for 6 PM.' } }] },
        {
          content: 'Thanks, bye!',
          toolCalls: [{ name: 'end_call', arguments: '{"success": false, "reason": "No table."}' }],
        },
        { content: 'Okay.', toolCalls: [{ name: 'look_up', arguments: {} }] },
      ),
    );
    const s = simulator();
    expect(await s.next([{ role: 'bot', text: 'You are booked.' }])).toMatchObject({
      say: '',
      endCall: { success: true, reason: 'Booked for 6 PM.' },
    });
    expect(await s.next([{ role: 'bot', text: 'Nothing free.' }])).toMatchObject({
      say: 'Thanks, bye!',
      endCall: { success: false, reason: 'No table.' },
    });
    const other = await s.next([{ role: 'bot', text: 'Hm.' }]);
    expect(other).toMatchObject({ say: 'Okay.' });
    expect(other).not.toHaveProperty('endCall');
  });

  it('a failing model is an error value (after retries); an empty answer is no turn', async () => {
    server.respond(sequence({ status: 503 }, { status: 503 }, { status: 503 }, { content: '' }));
    const failed = await simulator({ maxAttempts: 3 }).next([{ role: 'bot', text: 'Hello?' }]);
    expect(failed).toBeInstanceOf(JudgeError);
    expect((failed as JudgeError).code).toBe('http_status');
    expect(server.requests).toHaveLength(3);
    expect(await simulator().next([{ role: 'bot', text: 'Hello?' }])).toMatchObject({ say: '' });
  });

  it('config problems name the simulator field', () => {
    expect(() => simulator({ config: { service: 'nope' } })).toThrow(JudgeConfigError);
    try {
      simulator({ config: { service: 'openai', endpoint: 'ftp://x' } });
    } catch (err) {
      expect((err as JudgeConfigError).field).toBe('simulator.endpoint');
      expect((err as Error).message).toMatch(/^simulator\.endpoint: must be an http\(s\) URL/);
    }
  });
});
