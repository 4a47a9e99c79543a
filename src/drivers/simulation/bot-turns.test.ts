import { describe, expect, it } from 'vitest';
import { BotTurns } from './bot-turns.js';

describe('when the bot has finished a reply (the simulated caller answers each one)', () => {
  it('text: each llm_response is a reply; text split by a function call waits for the text after it', () => {
    const turns = new BotTurns(false);
    expect(turns.observe({ name: 'llm_response', at_ms: 1, text: 'Hello!' })).toBe('Hello!');
    expect(turns.observe({ name: 'llm_started', at_ms: 2 })).toBeNull();
    expect(turns.observe({ name: 'function_call', at_ms: 3, function_name: 'check' })).toBeNull();
    expect(turns.observe({ name: 'llm_response', at_ms: 4, text: 'Let me check.' })).toBeNull();
    expect(turns.observe({ name: 'function_call_stopped', at_ms: 5, function_name: 'check' })).toBeNull();
    expect(turns.observe({ name: 'llm_response', at_ms: 6, text: ' It is free. ' })).toBe('Let me check. It is free.');
    // In text mode the bot's transcribed speech is not what the caller reads.
    expect(turns.observe({ name: 'response', at_ms: 7, text: 'it is free' })).toBeNull();
  });

  it("audio: the transcription of the bot's speech is the reply; empty text is none", () => {
    const turns = new BotTurns(true);
    expect(turns.observe({ name: 'llm_response', at_ms: 1, text: 'Hello!' })).toBeNull();
    expect(turns.observe({ name: 'response', at_ms: 2, text: '   ' })).toBeNull();
    expect(turns.observe({ name: 'response', at_ms: 3, text: 'hello there' })).toBe('hello there');
  });

  it('flush hands over what is held when the call ends', () => {
    const turns = new BotTurns(false);
    turns.observe({ name: 'function_call', at_ms: 1 });
    turns.observe({ name: 'llm_response', at_ms: 2, text: 'One moment.' });
    expect(turns.flush()).toBe('One moment.');
    expect(turns.flush()).toBeNull();
  });
});
