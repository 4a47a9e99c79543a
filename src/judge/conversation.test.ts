import { describe, expect, it } from 'vitest';
import { ConversationLog, latestReply, latestReplyText } from './conversation.js';

describe('ConversationLog', () => {
  it('opens an exchange per user input and files bot segments under the latest one', () => {
    const log = new ConversationLog();
    log.user('What is two plus two?');
    log.botText("That's four.");
    log.dtmf('123#');
    log.botText('You entered 1 2 3.');
    expect(log.snapshot()).toEqual({
      modality: 'text',
      exchanges: [
        { user: { kind: 'text', text: 'What is two plus two?' }, reply: [{ kind: 'segment', text: "That's four." }] },
        { user: { kind: 'dtmf', keys: '123#' }, reply: [{ kind: 'segment', text: 'You entered 1 2 3.' }] },
      ],
    });
  });

  it('files output before any user input under an exchange with no user (a greeting)', () => {
    const log = new ConversationLog('audio');
    log.botText('Hello, how can I help?');
    const snap = log.snapshot();
    expect(snap.modality).toBe('audio');
    expect(snap.exchanges).toEqual([{ reply: [{ kind: 'segment', text: 'Hello, how can I help?' }] }]);
  });

  it('ignores blank user input and blank segments', () => {
    const log = new ConversationLog();
    log.user('  ');
    log.dtmf('');
    log.botText(' ');
    expect(log.snapshot().exchanges).toEqual([]);
  });

  it('completes a function call with its result by tool_call_id', () => {
    const log = new ConversationLog();
    log.user('Weather in Paris?');
    log.botText('Let me check.');
    log.functionCall({ tool_call_id: 't1', name: 'get_weather', args: { city: 'Paris' } });
    log.functionCall({ tool_call_id: 't2', name: 'get_weather', args: { city: 'Lyon' } });
    log.functionStopped({ tool_call_id: 't1', result: { temp_c: 21 }, cancelled: false });
    log.functionStopped({ tool_call_id: 't2', cancelled: true });
    log.botText('It is 21 degrees.');
    expect(latestReply(log.snapshot())).toEqual([
      { kind: 'segment', text: 'Let me check.' },
      {
        kind: 'function_call',
        tool_call_id: 't1',
        name: 'get_weather',
        args: { city: 'Paris' },
        result: { temp_c: 21 },
        cancelled: false,
      },
      { kind: 'function_call', tool_call_id: 't2', name: 'get_weather', args: { city: 'Lyon' }, cancelled: true },
      { kind: 'segment', text: 'It is 21 degrees.' },
    ]);
  });

  it('matches a stop without an id to the latest open call of that name, and records an unseen call on its own', () => {
    const log = new ConversationLog();
    log.user('Book it');
    log.functionCall({ name: 'book' });
    log.functionStopped({ name: 'book', result: 'ok' });
    log.functionStopped({ name: 'notify', result: 'sent' });
    expect(latestReply(log.snapshot())).toEqual([
      { kind: 'function_call', name: 'book', result: 'ok' },
      { kind: 'function_call', name: 'notify', result: 'sent' },
    ]);
  });

  it('hands out snapshots that later additions and caller mutation cannot change', () => {
    const log = new ConversationLog();
    const args = { city: 'Paris' };
    log.user('Weather?');
    log.functionCall({ name: 'get_weather', args });
    const before = log.snapshot();
    args.city = 'Rome';
    log.botText('Sunny.');
    expect(latestReply(before)).toEqual([{ kind: 'function_call', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(Object.isFrozen(before.exchanges)).toBe(true);
  });

  it('gives the latest reply text as its segments joined by spaces, function calls left out', () => {
    const log = new ConversationLog();
    log.user('Hi');
    log.botText('Let me check. ');
    log.functionCall({ name: 'lookup' });
    log.botText(' Found it.');
    expect(latestReplyText(log.snapshot())).toBe('Let me check. Found it.');
    expect(latestReplyText(new ConversationLog().snapshot())).toBe('');
  });
});
