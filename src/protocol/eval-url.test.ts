import { describe, expect, it } from 'vitest';
import { InvalidUrlError } from './errors.js';
import { buildEvalUrl, parseBotUrl, parseEvalFlags } from './eval-url.js';

describe('eval connect URL', () => {
  it('writes the flags that are set, as Pipecat’s harness does, and nothing else', () => {
    expect(buildEvalUrl('ws://localhost:7860', { skipTts: true, triggerDisconnect: true })).toBe(
      'ws://localhost:7860/?skip_tts=true&trigger_disconnect=true',
    );
    expect(buildEvalUrl('ws://localhost:7860/ws', { userAudio: true, captureBotAudio: true, skipTts: false })).toBe(
      'ws://localhost:7860/ws?user_audio=true&capture_bot_audio=true',
    );
    expect(buildEvalUrl('ws://localhost:7860', {})).toBe('ws://localhost:7860/');
  });

  it('keeps the query the user gave and percent-encodes a recording path', () => {
    const url = buildEvalUrl('wss://bot.example/ws?token=abc', { record: '/tmp/runs/a b.wav', skipTts: true });
    expect(url).toBe('wss://bot.example/ws?token=abc&skip_tts=true&record=%2Ftmp%2Fruns%2Fa+b.wav');
    expect(parseEvalFlags(url)).toEqual({ skipTts: true, record: '/tmp/runs/a b.wav' });
  });

  it('reads flags as Pipecat’s transport does: 1/true/yes in any case, first value wins', () => {
    expect(parseEvalFlags('/?skip_tts=1&user_audio=YES&capture_bot_audio=%20True%20&trigger_disconnect=no')).toEqual({
      skipTts: true,
      userAudio: true,
      captureBotAudio: true,
    });
    expect(parseEvalFlags('/?skip_tts=false&skip_tts=true')).toEqual({});
    expect(parseEvalFlags('/?record=')).toEqual({});
    expect(parseEvalFlags('/')).toEqual({});
  });

  it('round-trips every flag', () => {
    const flags = {
      skipTts: true,
      userAudio: true,
      captureBotAudio: true,
      record: 'out/rec.wav',
      triggerDisconnect: true,
    };
    expect(parseEvalFlags(buildEvalUrl('ws://127.0.0.1:9000', flags))).toEqual(flags);
  });

  it('refuses URLs a WebSocket cannot connect to, saying why', () => {
    expect(() => parseBotUrl('localhost:7860')).toThrow(InvalidUrlError);
    expect(() => parseBotUrl('http://localhost:7860')).toThrow(
      'invalid bot URL "http://localhost:7860": scheme http: is not ws: or wss:',
    );
    expect(() => parseBotUrl('ws://localhost:7860/#x')).toThrow('#fragment');
    expect(() => buildEvalUrl('not a url', { skipTts: true })).toThrow('not a URL');
  });
});
