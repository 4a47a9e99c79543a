import { describe, expect, it } from 'vitest';
import { parseClientMessage, parseServerMessage } from './parse.js';
import { CLIENT_MESSAGE_SAMPLES, CLIENT_SAMPLES, SERVER_SAMPLES } from './messages.testutil.js';
import type { ParseResult, ProtocolViolation } from './violation.js';

const wire = (m: object): string => JSON.stringify({ label: 'rtvi-ai', ...m });

function violationOf<M>(r: ParseResult<M>): ProtocolViolation {
  if (r.ok) throw new Error(`expected a violation, got ${JSON.stringify(r.message)}`);
  return r.violation;
}

// Fields whose value is free-form by design (Pipecat types them `Any`; `content` is append-to-context's LLM content).
const FREE_FORM = new Set(['d', 'result', 'payload', 'platform_details', 'content']);

function wrongTyped(value: unknown): unknown {
  return typeof value === 'string' ? 42 : 'not-the-right-type';
}

describe('parseServerMessage', () => {
  it('accepts every bot message as Pipecat sends it (text, bytes or parsed value)', () => {
    for (const sample of Object.values(SERVER_SAMPLES)) {
      expect(parseServerMessage(wire(sample))).toEqual({ ok: true, message: sample });
      expect(parseServerMessage(Buffer.from(wire(sample)))).toEqual({ ok: true, message: sample });
      expect(parseServerMessage({ label: 'rtvi-ai', ...sample })).toEqual({ ok: true, message: sample });
    }
  });

  it('rejects text that is not JSON, with an excerpt of it', () => {
    const v = violationOf(parseServerMessage('hello, I am not JSON'));
    expect(v.code).toBe('not_json');
    expect(v.excerpt).toBe('hello, I am not JSON');
    expect(v.bytes).toBe(20);
    expect(violationOf(parseServerMessage(new Uint8Array([0xc3, 0x28]))).code).toBe('not_json'); // invalid UTF-8
  });

  it('rejects JSON that is not an object', () => {
    for (const raw of ['[1,2]', '42', 'null', '"bot-ready"']) {
      expect(violationOf(parseServerMessage(raw)).code).toBe('not_object');
    }
  });

  it('rejects a missing or wrong label', () => {
    expect(violationOf(parseServerMessage('{"type":"bot-ready","data":{"version":"2.1.0"}}')).reason).toBe(
      'label: expected "rtvi-ai", got undefined',
    );
    expect(violationOf(parseServerMessage('{"label":"rtvi","type":"bot-ready"}')).code).toBe('wrong_label');
  });

  it('rejects a missing, empty or non-string type and a non-string id', () => {
    for (const raw of [wire({}), wire({ type: '' }), wire({ type: 7 }), wire({ type: 'bot-llm-started', id: 12 })]) {
      expect(violationOf(parseServerMessage(raw)).code).toBe('bad_envelope');
    }
  });

  it('rejects each typed field given a value of the wrong type, naming the field', () => {
    let checked = 0;
    for (const sample of Object.values(SERVER_SAMPLES)) {
      if (!('data' in sample) || typeof sample.data !== 'object' || sample.type === 'server-message') continue;
      for (const [key, value] of Object.entries(sample.data as Record<string, unknown>)) {
        if (FREE_FORM.has(key) || (sample.type === 'ui-job-group' && !['kind', 'job_id'].includes(key))) continue;
        const broken = { ...sample, data: { ...(sample.data as object), [key]: wrongTyped(value) } };
        const v = violationOf(parseServerMessage(wire(broken)));
        expect(v.code, `${sample.type}.${key}`).toBe('bad_data');
        expect(v.reason).toContain(`${sample.type}: data.${key}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(45);
  });

  it('rejects data of the wrong shape: missing required fields, nested entries, non-object data', () => {
    expect(violationOf(parseServerMessage(wire({ type: 'bot-llm-text', data: {} }))).reason).toBe(
      'bot-llm-text: data.text: missing',
    );
    expect(violationOf(parseServerMessage(wire({ type: 'bot-tts-text', data: 'Paris' }))).reason).toBe(
      'bot-tts-text: data: expected object, got string',
    );
    const badMetric = wire({ type: 'metrics', data: { ttfb: [{ processor: 'LLM', value: '0.4' }] } });
    expect(violationOf(parseServerMessage(badMetric)).reason).toBe(
      'metrics: data.ttfb[0].value: expected finite number, got string',
    );
    const badStatus = wire({ type: 'bot-output', data: { text: 'x', aggregated_by: 'word', spoken_status: 'done' } });
    expect(violationOf(parseServerMessage(badStatus)).reason).toContain('expected one of new|in-progress|completed');
  });

  it('keeps unknown message types as the unknown variant, with their id and data', () => {
    expect(parseServerMessage(wire({ type: 'bot-dance', id: 'x', data: { style: 'tango' } }))).toEqual({
      ok: true,
      message: { type: 'unknown', rtviType: 'bot-dance', id: 'x', data: { style: 'tango' } },
    });
    // A client-only type arriving from a bot is not a bot message either.
    expect(parseServerMessage(wire({ type: 'send-text', id: '1', data: { content: 'hi' } }))).toMatchObject({
      ok: true,
      message: { type: 'unknown', rtviType: 'send-text' },
    });
  });

  it('keeps extra fields a newer peer adds, and drops optional fields that are null', () => {
    const r = parseServerMessage(
      wire({
        type: 'llm-function-call-in-progress',
        data: { tool_call_id: 'c', function_name: null, arguments: null, extra: 1 },
      }),
    );
    expect(r).toEqual({
      ok: true,
      message: { type: 'llm-function-call-in-progress', data: { tool_call_id: 'c', extra: 1 } },
    });
  });

  it('ignores data sent on messages that have none', () => {
    expect(parseServerMessage(wire({ type: 'bot-llm-started', data: { surprise: true } }))).toEqual({
      ok: true,
      message: { type: 'bot-llm-started' },
    });
  });

  it('truncates the excerpt of a large offending message to about 200 characters', () => {
    const huge = wire({ type: 'bot-llm-text', data: { text: 5, padding: 'x'.repeat(10_000) } });
    const v = violationOf(parseServerMessage(huge));
    expect(v.excerpt.length).toBe(201);
    expect(v.excerpt.endsWith('…')).toBe(true);
    expect(v.bytes).toBe(huge.length);
  });

  it('never throws, whatever it is given', () => {
    const cyclic: Record<string, unknown> = { label: 'nope' };
    cyclic.self = cyclic;
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const odd: unknown[] = [
      undefined,
      null,
      0,
      NaN,
      Symbol('s'),
      10n,
      () => 1,
      cyclic,
      deep,
      new Uint8Array(3),
      '\u0000',
      '{"label":',
    ];
    for (const raw of odd) {
      const r = parseServerMessage(raw);
      expect(r.ok).toBe(false);
    }
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: i % 64 }, (_, j) => (i * 31 + j * 17) & 0xff);
      expect(() => parseServerMessage(bytes)).not.toThrow();
      expect(() => parseServerMessage(Buffer.from(bytes).toString('latin1'))).not.toThrow();
    }
  });
});

describe('parseClientMessage', () => {
  it('accepts every client message earshot sends, eval control messages included', () => {
    for (const sample of [...Object.values(CLIENT_SAMPLES), ...CLIENT_MESSAGE_SAMPLES]) {
      expect(parseClientMessage(wire(sample))).toEqual({ ok: true, message: sample });
    }
  });

  it('requires a request id, as Pipecat does', () => {
    expect(violationOf(parseClientMessage(wire({ type: 'send-text', data: { content: 'hi' } }))).reason).toBe(
      'send-text: id: missing',
    );
  });

  it('rejects each typed field given a value of the wrong type', () => {
    let checked = 0;
    for (const sample of Object.values(CLIENT_SAMPLES)) {
      if (!('data' in sample) || sample.type === 'client-message') continue;
      for (const [key, value] of Object.entries(sample.data)) {
        if (FREE_FORM.has(key)) continue;
        const broken = { ...sample, data: { ...sample.data, [key]: wrongTyped(value) } };
        expect(violationOf(parseClientMessage(wire(broken))).reason, `${sample.type}.${key}`).toContain(
          `${sample.type}: data.${key}`,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(14);
  });

  it('checks DTMF keys and that there is at least one', () => {
    expect(
      violationOf(parseClientMessage(wire({ type: 'dtmf', id: '1', data: { buttons: ['1', 'A'] } }))).reason,
    ).toContain('data.buttons[1]: expected one of 0|1|2|3|4|5|6|7|8|9|*|#, got "A"');
    expect(violationOf(parseClientMessage(wire({ type: 'dtmf', id: '1', data: { buttons: [] } }))).reason).toContain(
      'at least 1',
    );
  });

  it('checks the payloads of eval control messages', () => {
    const cm = (t: string, d?: unknown): string =>
      wire({ type: 'client-message', id: '9', data: d === undefined ? { t } : { t, d } });
    const reasons = [
      cm('eval-configure', { function_call_report_level: { '*': 'everything' } }),
      cm('eval-configure', { vad_user_speaking: 'true' }),
      cm('eval-configure'),
      cm('eval-context', { messages: 'be terse' }),
      cm('eval-context', { messages: [{ content: 'no role' }] }),
      cm('eval-image', { format: 'image/png' }),
    ].map((raw) => violationOf(parseClientMessage(raw)).reason);
    expect(reasons).toEqual([
      'client-message: eval-configure: data.d.function_call_report_level.*: expected one of disabled|none|name|full, got "everything"',
      'client-message: eval-configure: data.d.vad_user_speaking: expected boolean, got string',
      'client-message: data.d: missing (required by eval-configure)',
      'client-message: eval-context: data.d.messages: expected array, got string',
      'client-message: eval-context: data.d.messages[0].role: missing',
      'client-message: eval-image: data.d.image: missing',
    ]);
    expect(parseClientMessage(cm('eval-cancel')).ok).toBe(true); // Pipecat needs no payload to cancel
    expect(parseClientMessage(cm('my-app', 'anything at all')).ok).toBe(true);
  });
});
