import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from './redact.js';

describe('secret redaction', () => {
  const env = {
    OPENAI_API_KEY: 'sk-live-abc123456',
    HF_TOKEN: 'hf_qu"ote\\back',
    SHORT_TOKEN: 'abc',
    HOME: '/root/secretive',
  };

  it('masks the values of *_API_KEY and *_TOKEN variables wherever they appear', () => {
    const r = new Redactor(env);
    expect(r.text('key=sk-live-abc123456 used')).toBe(`key=${REDACTED} used`);
    expect(r.text('/root/secretive')).toBe('/root/secretive'); // not a secret by name
    expect(r.text('abc')).toBe('abc'); // too short to be a secret: masking it would mangle text
  });

  it('masks bearer headers and api_key fields by shape', () => {
    const r = new Redactor({});
    expect(r.text('Authorization: Bearer abcdefghijkl')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(r.text('{"api_key": "zzzzzzzzz"}')).toBe(`{"api_key": "${REDACTED}"}`);
  });

  it('deep-redacts values, including secrets JSON would escape, without throwing', () => {
    const r = new Redactor(env);
    const out = r.value({ a: ['x hf_qu"ote\\back y'], nested: { token: 'whatever-it-is' }, keep: 42, gone: undefined });
    expect(out).toEqual({ a: [`x ${REDACTED} y`], nested: { token: REDACTED }, keep: 42 });
  });

  it('adds secrets known only at run time', () => {
    const r = new Redactor({});
    r.add('scenario-key-123');
    expect(r.text('scenario-key-123')).toBe(REDACTED);
  });
});
