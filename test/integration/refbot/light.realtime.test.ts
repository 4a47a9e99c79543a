import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audibleBounds, concatPcm, DEFAULT_GATE, silence, sineWave } from '../../../src/audio/index.js';
import { ThreadPacer } from '../../../src/pacing/index.js';
import { ClientMessages, connect } from '../../../src/protocol/index.js';
import { Microphone } from '../../../src/session/media/mic.js';
import { startRefbotProcess } from '../../support/refbot-process.js';

/**
 * `earshot refbot --light` as a real subprocess: a real-time caller on the
 * pacer thread speaks a tone; the bot ends the turn by the energy gate and
 * answers with its canned reply, and its truth log says exactly when.
 */
const RATE = 16000;
const dir = mkdtempSync(join(tmpdir(), 'earshot-light-'));
const pacer = new ThreadPacer();
afterAll(() => {
  pacer.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Line {
  event: string;
  [k: string]: unknown;
}

describe('refbot --light', () => {
  it('answers each turn with the canned reply, its first audible sample the offset after the voiced end, as its truth says', async () => {
    const truthFile = join(dir, 'truth.jsonl');
    const bot = await startRefbotProcess(['--light', '--light-reply-offset-ms', '700', '--truth-log', truthFile, '-q']);
    try {
      const conn = await connect(`${bot.url}/?capture_bot_audio=true`, {
        codec: 'pipecat-eval',
        openSocket: pacer.openSocket,
      });
      conn.send(new ClientMessages().clientReady({ library: 'earshot-test', library_version: '0' }));
      const ready = await conn.receive();
      expect(ready?.kind === 'rtvi' && ready.message.type).toBe('bot-ready');
      const abort = new AbortController();
      const mic = new Microphone({
        pacer,
        sampleRate: RATE,
        t0Ms: 0,
        recorder: null,
        label: 'light',
        signal: abort.signal,
      });
      mic.start(conn);
      const spoken = await mic.say(concatPcm([sineWave(300, 500, RATE, -20), silence(100, RATE)]), 'q', abort.signal);
      const timing = await spoken.finished;
      const botAudio: Int16Array[] = [];
      const types: string[] = [];
      for (;;) {
        const item = await conn.receive();
        if (!item) break;
        if (item.kind === 'audio') botAudio.push(item.pcm);
        if (item.kind === 'rtvi') types.push(item.message.type);
        if (item.kind === 'rtvi' && item.message.type === 'bot-stopped-speaking') break;
      }
      await mic.stop();
      await conn.close();
      expect(types).toEqual([
        'user-started-speaking',
        'user-stopped-speaking',
        'bot-started-speaking',
        'bot-stopped-speaking',
      ]);
      const reply = concatPcm(botAudio);
      expect(audibleBounds(reply, RATE, DEFAULT_GATE)).not.toBeNull();

      const lines: Line[] = readFileSync(truthFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      const stopped = lines.find((l) => l.event === 'user_speech_stopped')!;
      const started = lines.find((l) => l.event === 'bot_audio_started')!;
      const done = lines.find((l) => l.event === 'bot_audio_stopped')!;
      // The bot heard the tone end where earshot's own gate puts it: 500 ms of tone, 8000 samples.
      expect(stopped.in_voiced_end_sample as number).toBeGreaterThan(0);
      const toneFirstSample = (stopped.in_voiced_end_sample as number) - 8000;
      expect(toneFirstSample % 320).toBe(0);
      // Its reply: the audible start 700 ms after that, plus however late its frame left (a loaded machine).
      expect(started.voice_to_voice_ms as number).toBeGreaterThanOrEqual(700);
      expect(started.voice_to_voice_ms as number).toBeLessThan(700 + 100);
      expect(started.audible_ms as number).toBeCloseTo(
        (stopped.voiced_end_ms as number) + (started.voice_to_voice_ms as number),
        2,
      );
      expect(started.on_wire).toBe(true);
      expect(done.reason).toBe('completed');
      expect(done.out_end_sample).toBe(reply.length);
      expect(timing.state).toBe('completed');
    } finally {
      await bot.stop();
    }
  });

  it('refuses a reply offset it could not keep, saying the least it can', async () => {
    await expect(startRefbotProcess(['--light', '--light-reply-offset-ms', '100'])).rejects.toThrow(
      /use at least \d+ ms/,
    );
  });
});
