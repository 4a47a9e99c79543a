/**
 * Channel-conditions benchmark: the reference bot's PocketSphinx hearing the caller (Flite slt) through
 * noise at each SNR and through a µ-law phone line — the pass rate of turns whose bot transcription
 * (user_transcription) is within user_wer ≤ 0.5 of what was said, and the corpus word error rate —
 * all in real time, end to end (earshot bench --sweep-condition against an in-process refbot).
 *   npm run bench:conditions [-- --sentences 10 --repeat 1 --levels 30,20,10,5]
 * Smallest smoke: npm run bench:conditions -- --sentences 1 --levels 10
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpusWordErrorRate } from '../src/metrics/wer.js';
import { startRefbot } from '../src/refbot/index.js';
import type { ScenarioResult } from '../src/results/index.js';
import { parseConditionFlags } from '../src/scenario/index.js';
import { parseConditionSweep, runBench } from '../src/tools/bench/index.js';

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: '10' },
    repeat: { type: 'string', default: '1' },
    levels: { type: 'string', default: '30,20,10,5' },
  },
});
const all = readFileSync(new URL('../fixtures/sentences.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'));
const sentences = all.slice(0, Number(args.sentences));
const repeat = Number(args.repeat);
const dir = mkdtempSync(join(tmpdir(), 'earshot-bench-conditions-'));
const path = join(dir, 'hearing.yaml');
writeFileSync(join(dir, 'package.json'), '{}\n');
writeFileSync(
  path,
  'name: hearing\nuser: { modality: audio, speech: { service: flite, voice: slt } }\nstop_on_failure: false\nscenarios:\n  - name: sentences\n    turns:\n' +
    sentences
      .map(
        (s) =>
          `      - user: ${JSON.stringify(s)}\n        expect: [{ event: user_transcription, within_ms: 20000 }]\n        wer: { user_wer: { max: 0.5 } }\n`,
      )
      .join(''),
);
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} cpus ${cpus().length}; ${sentences.length} sentence(s) × ${repeat} per condition`,
);
const bot = await startRefbot({ port: 0 });

interface Row {
  condition: string;
  results: ScenarioResult[];
}
const rows: Row[] = [];
const bench = async (
  label: string,
  extra: Parameters<typeof runBench>[0] extends infer O ? Partial<O> : never,
): Promise<void> => {
  const outcome = await runBench({
    path,
    url: bot.url,
    repeat,
    audio: { record: false, ...(extra.audio ?? {}) },
    ...(extra.conditionSweep ? { conditionSweep: extra.conditionSweep } : {}),
    stderr: process.stderr,
  });
  if (extra.conditionSweep) {
    const sweep = extra.conditionSweep;
    for (const level of sweep.values) {
      // Concurrency 1: results come in run order, the levels interleaved (planConditionRuns).
      const results = outcome.results.filter((_r, i) => i % sweep.values.length === sweep.values.indexOf(level));
      rows.push({ condition: `${label} ${level} dB`, results });
    }
  } else rows.push({ condition: label, results: outcome.results });
};
try {
  await bench('clean', {});
  await bench('white noise, SNR', { conditionSweep: parseConditionSweep(`snr=${args.levels}`) });
  await bench('telephony (µ-law 8 kHz, 300-3400 Hz)', {
    audio: { conditions: parseConditionFlags(['telephony.codec=mulaw']) },
  });
  await bench('telephony + white noise 10 dB', {
    audio: { conditions: parseConditionFlags(['telephony.codec=mulaw', 'noise.snr_db=10']) },
  });
} finally {
  await bot.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log('\ncondition                                   turns  passed  pass_rate   WER');
for (const { condition, results } of rows) {
  const turns = results.flatMap((r) => r.turns);
  const passed = turns.filter((t) => t.status === 'passed').length;
  const heard = results.flatMap((r) =>
    r.turns.map((t, i) => ({ reference: sentences[i], hypothesis: (t.expectations[0]?.text ?? '').toString() })),
  );
  const wer = corpusWordErrorRate(heard).wer;
  console.log(
    `${condition.padEnd(42)} ${String(turns.length).padStart(5)}  ${String(passed).padStart(6)}  ${((passed / Math.max(1, turns.length)) * 100).toFixed(1).padStart(8)}%  ${(wer * 100).toFixed(1).padStart(5)}%`,
  );
}
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
