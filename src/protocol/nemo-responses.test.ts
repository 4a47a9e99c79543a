import { describe, expect, it } from 'vitest';
import { ClientMessages } from './builders.js';
import { parseServerMessage } from './parse.js';

const answer = (t: string, d: unknown, id = '5') =>
  parseServerMessage({ label: 'rtvi-ai', type: 'server-response', id, data: { t, d } });

describe("NeMo control answers: the bot's d checked where server messages are parsed", () => {
  it('accepts a summary and an initialization result (errors default to [])', () => {
    expect(answer('get_scenario_summary', { actions: [{ name: 'X' }], db_hash: null, db: { a: 1 } })).toEqual({
      ok: true,
      message: {
        type: 'server-response',
        id: '5',
        data: { t: 'get_scenario_summary', d: { actions: [{ name: 'X' }], db_hash: null, db: { a: 1 } } },
      },
    });
    expect(answer('apply_initialization', { success: true })).toMatchObject({
      ok: true,
      message: { data: { d: { success: true, errors: [] } } },
    });
  });

  it('a malformed summary is a bad_data violation naming the field and the request id', () => {
    const parsed = answer('get_scenario_summary', { actions: {}, db_hash: 'x' });
    expect(parsed).toMatchObject({
      ok: false,
      violation: {
        code: 'bad_data',
        id: '5',
        reason: 'server-response: get_scenario_summary: data.d.actions: expected array, got object',
      },
    });
    expect(answer('get_scenario_summary', { actions: [], db_hash: 3 })).toMatchObject({ ok: false });
    expect(answer('get_scenario_summary', undefined)).toMatchObject({ ok: false });
    expect(answer('apply_initialization', { success: 'yes' })).toMatchObject({ ok: false });
  });

  it('answers to other requests, update_system_prompt and reset pass with any d', () => {
    expect(answer('earshot-index-documents', 'anything')).toMatchObject({ ok: true });
    expect(answer('update_system_prompt', undefined)).toMatchObject({ ok: true });
    expect(answer('reset', [1])).toMatchObject({ ok: true });
  });

  it('builds the control requests as client-messages with fresh ids', () => {
    const m = new ClientMessages();
    expect(m.nemoControl('get_scenario_summary', { include_db: true })).toEqual({
      type: 'client-message',
      id: '1',
      data: { t: 'get_scenario_summary', d: { include_db: true } },
    });
    expect(m.nemoControl('reset', undefined)).toEqual({ type: 'client-message', id: '2', data: { t: 'reset', d: {} } });
  });
});
