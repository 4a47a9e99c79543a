import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { runScenarios } from '../../src/runner/index.js';
import { faultyBots, fixture, harnessTrouble, runAgainst, verdicts } from './faults.testutil.js';

/**
 * Faults in the bot's audio: a minute of audio sent at once (with and without
 * a per-turn capture cap), a bot that hangs up one second into its spoken
 * answer, and audio that claims an impossible sample rate. Real speech both
 * ways (Flite into the bot's microphone in real time, Silero VAD and
 * PocketSphinx on what comes back). The bot here has a one-word greeting
 * (fixtures/short-brain.yaml) so no test sits through the default one. The cap
 * has no command-line flag, so that one test runs `runScenarios` in-process (still
 * against the bot subprocess) with `audio.maxTurnAudioMs`.
 */
const bot = faultyBots(['--brain', fixture('short-brain')]);

const quiet = { write: (): boolean => true };

describe('a bot that misbehaves in audio', () => {
  it('audio-burst: a minute of audio at once is placed on the timeline as a minute of speech (bot_audio_stopped times out), memory stays bounded, the next scenario passes', async () => {
    const b = await bot('audio-burst');
    const run = await runAgainst(b.url, [fixture('audio_burst'), fixture('one_question')], ['--timeout', '5']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_audio_burst', 'failed', ['timeout']],
      // Text modality: the bursts still arrive (the fault ignores skip_tts) and are not kept.
      ['fault_one_question', 'passed', []],
    ]);
    const burst = run.results[0];
    expect(burst.failures[0]).toMatchObject({ turn_index: 0, expectation_index: 1, event: 'bot_audio_stopped' });
    expect(burst.turns[0].expectations[0].status).toBe('passed');
    const trace = readFileSync(join(run.out, burst.artifacts!.trace!), 'utf8');
    // All 60 s arrived within the turn and were recorded, though only ~3 s of session time passed.
    expect(trace).toMatch(/recording: \S+\.wav \(\d+ms; user \d+ms, bot 60000ms\)/);
    expect(burst.duration_ms).toBeLessThan(8000);
    expect(run.peakRssMb).toBeLessThan(320);
    expect(run.wallMs).toBeLessThan(25_000);
  }, 40_000);

  it('audio-burst under a per-turn capture cap: the audio beyond the cap is dropped, with a note on the turn', async () => {
    const b = await bot('audio-burst');
    const out = mkdtempSync(join(tmpdir(), 'earshot-faults-cap-'));
    const outcome = await runScenarios({
      paths: [fixture('audio_burst')],
      url: b.url,
      outDir: out,
      reporter: 'dot',
      stdout: quiet,
      stderr: quiet,
      audio: { maxTurnAudioMs: 20_000 },
    });
    const [result] = outcome.results;
    expect(result.failures.map((f) => f.kind)).toEqual(['timeout']);
    expect(result.turns[0].notes).toEqual([
      'bot audio capture capped at 20 s in this turn; later audio was not kept (not analysed, recorded or transcribed)',
    ]);
    const trace = readFileSync(join(out, result.artifacts!.trace!), 'utf8');
    expect(trace).toMatch(/bot 20000ms\)/);
  }, 40_000);

  it('disconnect-mid-audio (audio): the bot hangs up 1 s into its spoken answer; bot_disconnected (1011) in that turn, the recording kept, the next scenario passes', async () => {
    const b = await bot('disconnect-mid-audio');
    const run = await runAgainst(b.url, [fixture('audio_question'), fixture('greeting')], ['--timeout', '10']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_audio_question', 'failed', ['bot_disconnected']],
      ['fault_greeting', 'passed', []],
    ]);
    const cut = run.results[0];
    expect(cut.turns.map((t) => t.status)).toEqual(['passed', 'failed']);
    expect(cut.failures[0]).toMatchObject({ turn_index: 1, event: 'response' });
    expect(cut.failures[0].reason).toContain(
      'connection closed by the bot (code 1011: refbot fault: disconnect-mid-audio)',
    );
    // It heard the answer start before the line went dead.
    expect(cut.turns[1].expectations[0]).toMatchObject({ event: 'bot_audio_started', status: 'passed' });
    expect(existsSync(join(run.out, cut.artifacts!.recording!))).toBe(true);
    const trace = readFileSync(join(run.out, cut.artifacts!.trace!), 'utf8');
    // The greeting (~0.8 s: its lead-in trimmed) and one second of the answer.
    expect(trace).toMatch(/recording: \S+\.wav \(\d+ms; user \d+ms, bot 1[789]\d\dms\)/);
    expect(run.wallMs).toBeLessThan(25_000);
  }, 40_000);

  it('audio claiming a 7 Hz sample rate is a protocol_error quoting the claim, not a crash (it used to kill the process in the recorder)', async () => {
    // Not a refbot fault: a bot whose eval-bot-audio says sampleRate 7, then 2 Hz more of the same.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const rtvi = (type: string, data: unknown): string => JSON.stringify({ label: 'rtvi-ai', type, data });
    wss.on('connection', (ws) => {
      ws.once('message', () => {
        ws.send(rtvi('bot-ready', { version: '2.1.0' }));
        ws.send(rtvi('bot-started-speaking', {}));
        for (const rate of [7, 2])
          ws.send(rtvi('eval-bot-audio', { audio: Buffer.alloc(4000).toString('base64'), sampleRate: rate }));
      });
    });
    try {
      const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
      const run = await runAgainst(url, [fixture('audio_burst'), fixture('audio_question')], ['--timeout', '5']);
      expect(harnessTrouble(run)).toEqual([]);
      expect(verdicts(run.results)).toEqual([
        ['fault_audio_burst', 'failed', ['protocol_error']],
        ['fault_audio_question', 'failed', ['protocol_error']],
      ]);
      expect(run.results[0].failures[0].reason).toMatch(
        /^the bot broke the protocol while waiting for 'bot_audio_started': eval-bot-audio: sample rate 7: expected an integer from 1000 to 192000 Hz: \{"label":"rtvi-ai","type":"eval-bot-audio"/,
      );
      expect(run.wallMs).toBeLessThan(15_000);
    } finally {
      wss.close();
    }
  }, 40_000);
});
