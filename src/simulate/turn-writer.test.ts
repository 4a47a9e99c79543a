import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JudgeConfigError, JudgeError } from '../judge/index.js';
import { startLlmServer, type LlmServer } from '../../test/support/llm-server.js';
import { GAIA_CALLER_LINES } from './gaia-prompts.js';
import { cleanUtterance, createTurnWriter } from './turn-writer.js';

let server: LlmServer;
beforeEach(async () => {
  server = await startLlmServer();
});
afterEach(() => server.close());

const persona = { name: 'power_user', description: 'Precise requests, specific file names, multi-step instructions' };
const writer = () =>
  createTurnWriter({
    config: { service: 'openai', model: 'caller-model', endpoint: server.url },
    env: {},
    random: () => 0.5,
    maxAttempts: 1,
  });

describe('the GAIA turn writer', () => {
  it('asks with the objective and persona lines after the conversation, and says what the model wrote', async () => {
    server.respond(() => '"What was Q3 revenue in the acme_q3_report?"');
    const heard = [
      { role: 'bot' as const, text: 'Hello.' },
      { role: 'caller' as const, text: 'Hi.' },
    ];
    expect(await writer().write(persona, 'Ask for Q3 revenue', heard)).toBe(
      'What was Q3 revenue in the acme_q3_report?',
    );
    const { messages } = server.requests[0].body;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const last = String(messages.at(-1)?.content).split('\n');
    expect(last).toContain(`${GAIA_CALLER_LINES.objective}Ask for Q3 revenue`);
    expect(last).toContain(`${GAIA_CALLER_LINES.persona}power_user`);
    expect(last).toContain(`How this persona talks: ${persona.description}`);
  });

  it('a model that writes nothing, or fails, is an error value; a bad block throws naming simulator.*', async () => {
    server.respond(() => '  ""  ');
    expect(await writer().write(persona, 'Ask', [])).toBeInstanceOf(JudgeError);
    server.respond(() => ({ status: 500, body: { error: { message: 'down' } } }));
    expect(await writer().write(persona, 'Ask', [])).toMatchObject({ code: 'http_status' });
    expect(() => createTurnWriter({ config: { service: 'gemini' }, env: {} })).toThrow(JudgeConfigError);
    expect(() => createTurnWriter({ config: { service: 'gemini' }, env: {} })).toThrow(/^simulator\.service/);
  });

  it('keeps the words alone: no speaker label, no wrapping quotes', () => {
    expect(cleanUtterance('Caller: "Which file\n has the budget?"')).toBe('Which file has the budget?');
    expect(cleanUtterance('what about that file')).toBe('what about that file');
  });
});
