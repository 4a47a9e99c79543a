import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectFile, type LoadOptions } from './load.js';
import { MANIFEST_SPEC, SCENARIO_FILE_SPEC, SCRIPT_SPEC, SIMULATION_SPEC } from './file-fields.js';
import { deref, type Spec } from './spec.js';
import { seededRandom } from '../core/random.js';

/**
 * A seeded mutation engine for the scenario loader: valid files mutated at the
 * byte, line and value level, plus generators for the hostile classes (YAML
 * bombs, deep nesting, huge strings and files, binary and non-UTF-8 bytes,
 * include cycles, symlinks and paths leaving the root, unknown tags). Case `i`
 * of seed `s` is always the same file, so a failure replays from two numbers.
 */

export type Outcome = 'loaded' | 'rejected' | 'crashed' | 'unlocated';

export interface FuzzCase {
  index: number;
  /** `mutation` or the hostile class. */
  kind: string;
  content: string | Buffer;
}

export interface CaseResult {
  outcome: Outcome;
  ms: number;
  kind: string;
  /** For crashed / unlocated: what went wrong. */
  detail?: string;
}

/** Mulberry32 (src/core/random.ts): small, fast, good enough to vary inputs reproducibly. */
export const rng = seededRandom;

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

function collectKeys(spec: Spec, out: Set<string>, seen = new Set<Spec>()): Set<string> {
  if (seen.has(spec)) return out;
  seen.add(spec);
  const s = deref(spec);
  if (s.kind === 'object') {
    for (const [k, f] of Object.entries(s.fields)) {
      out.add(k);
      collectKeys(f, out, seen);
    }
  } else if (s.kind === 'array') collectKeys(s.items, out, seen);
  else if (s.kind === 'oneOf') for (const o of s.options) collectKeys(o, out, seen);
  return out;
}
const KEYS = [
  ...collectKeys(
    SCENARIO_FILE_SPEC,
    collectKeys(SCRIPT_SPEC, collectKeys(SIMULATION_SPEC, collectKeys(MANIFEST_SPEC, new Set()))),
  ),
  'withn_ms',
  'evnt',
  '__proto__',
  '<<',
  '',
];

const TOKENS = [
  ': ',
  '- ',
  '[',
  ']',
  '{',
  '}',
  ', ',
  '&a ',
  '*a',
  '!include ',
  '!!str ',
  '!!python/object ',
  '!custom ',
  '# ',
  '"',
  "'",
  '| ',
  '> ',
  '\n',
  '\t',
  '  ',
  '~',
  'null',
  'yes',
  'off',
  '012',
  '0x1F',
  '1e5',
  '-1',
  '1_000',
  '99999999999999999999',
  '<<: *a',
  '? ',
  '%YAML 1.2\n',
  '---\n',
  '...\n',
  '\u0000',
  '\uFEFF',
  'é',
  '😀',
  '\\',
  '\r\n',
  '@',
  '`',
];

const VALUES = [
  '',
  '~',
  '[]',
  '{}',
  '0',
  '-5',
  '1.5',
  '012',
  '0x1F',
  'yes',
  'no',
  '"x"',
  '[1, 2]',
  '{a: 1}',
  'abc',
  'response',
  'tts_response',
  'bot_audio_started',
  'function_call',
  'audio',
  'text',
  '!include judge.yaml',
  '!include inc_a.yaml',
  '!include case.yaml',
  '!include /etc/passwd',
  '!include link_out.yaml',
  '!include missing.yaml',
  '*nope',
  '&x [*x]',
  'assets/cat.jpg',
  'link_out.jpg',
  '../../../../etc/passwd',
  'a.wav',
  '"123#"',
  '"12a"',
  '99999999999999999999999',
  '-0',
  '.inf',
  '.nan',
  '2024-01-01',
  `"${'z'.repeat(1000)}"`,
  '|\n    block\n    text',
  '>-\n    folded',
  '[[[[]]]]',
  '{event: response, absent: true, eval: x}',
];

/** Built-in seeds, so the fuzzer needs nothing outside the repository. */
export const BUILTIN_SEEDS = [
  `name: seed_text
judge:
  eval: {service: ollama, model: gemma4:12b, extra: {reasoning_effort: none}}
context:
  - role: developer
    content: "The user is Alex."
turns:
  - expect:
      - event: response
        eval: "greets the caller"
  - user: "What's the weather?"
    image: assets/cat.jpg
    expect:
      - event: llm_started
        within_ms: 2000
      - event: function_call
        calls: [get_weather, {name: get_time, args: {city: Paris}}]
      - event: response
        text_contains: "sunny"
      - event: response
        absent: true
        within_ms: 500
  - dtmf: 012
  - dtmf: "1#"
    send_after: {delay_ms: 500}
`,
  `name: seed_audio
user:
  modality: audio
  speech: {service: kokoro, voice: af_heart, sample_rate: 16000}
judge: !include judge_audio.yaml
stop_on_failure: false
turns:
  - user: "Tell me a long story."
    expect:
      - event: llm_started
  - user: "Stop. Capital of Japan?"
    audio: a.wav
    send_after: {event: bot_audio_started, delay_ms: 800}
    latency:
      voice_to_voice_ms: {max: 1200}
      interruption_ms: {max: 400}
    expect:
      - event: tts_response
      - event: response
        eval: "says Tokyo"
`,
  `name: seed_sim
persona: |
  Jamie, booking dinner for two tonight at 6 PM.
goal: "Book a table for two."
success: "the bot booked a table"
simulator: {service: openai, model: gpt-4o-mini}
metrics:
  - name: politeness
    criterion: "the reply is courteous"
    min_score: 1
  - measure: words
    max_value: 60
  - measure: function_calls
    calls: [{name: book, args: {party: 2}}]
max_turns: 10
runs: 3
`,
  `bots_dir: bots
scenarios_dir: .
concurrency: 2
repeat: 2
suite:
  - bot: a.py
    scenarios: [seed, other.yaml]
  - bot: b.py
    runner_body: body.json
    scenarios: [seed]
`,
];

/** A scratch project the cases run in: include targets, a cycle, links leaving it, assets. */
export class FuzzWorkspace {
  readonly dir: string;
  readonly outside: string;
  readonly casePath: string;
  constructor() {
    this.dir = realpathSync.native(mkdtempSync(join(tmpdir(), 'earshot-fuzz-')));
    this.outside = realpathSync.native(mkdtempSync(join(tmpdir(), 'earshot-fuzz-outside-')));
    this.casePath = join(this.dir, 'case.yaml');
    const w = (name: string, text: string): void => writeFileSync(join(this.dir, name), text);
    w('package.json', '{}\n');
    w('judge.yaml', 'modality: text\n');
    // The include names Pipecat's release scenarios use, so corpus seeds load before mutation.
    w('judge_audio.yaml', 'modality: audio\ntranscription: {service: sphinx}\n');
    w('judge_text.yaml', 'eval: {service: ollama, model: gemma4:12b}\n');
    w('user_audio.yaml', 'modality: audio\nspeech: {service: flite, voice: slt}\n');
    w('inc_a.yaml', 'modality: text\neval: !include inc_b.yaml\n');
    w('inc_b.yaml', 'service: ollama\nextra: !include inc_a.yaml\n');
    w('seed.yaml', 'name: seed\nturns: []\n');
    w('other.yaml', 'name: other\nturns: []\n');
    w('body.json', '{}\n');
    w('a.wav', 'RIFF');
    mkdirSync(join(this.dir, 'assets'));
    w('assets/cat.jpg', 'jpg');
    writeFileSync(join(this.outside, 'secret.yaml'), 'modality: text\n');
    writeFileSync(join(this.outside, 'cat.jpg'), 'jpg');
    symlinkSync(join(this.outside, 'secret.yaml'), join(this.dir, 'link_out.yaml'));
    symlinkSync(join(this.outside, 'cat.jpg'), join(this.dir, 'link_out.jpg'));
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.outside, { recursive: true, force: true });
  }
}

function mutate(text: string, r: Rand): string {
  let t = text;
  const ops = int(r, 1, 3);
  for (let k = 0; k < ops; k++) {
    const op = int(r, 0, 8);
    const at = int(r, 0, Math.max(0, t.length - 1));
    const lines = t.split('\n');
    const li = int(r, 0, lines.length - 1);
    switch (op) {
      case 0: // insert a YAML-significant token
        t = t.slice(0, at) + pick(r, TOKENS) + t.slice(at);
        break;
      case 1: // delete a span
        t = t.slice(0, at) + t.slice(at + int(r, 1, 40));
        break;
      case 2: // duplicate a span
        t = t.slice(0, at) + t.slice(at, at + int(r, 1, 200)) + t.slice(at);
        break;
      case 3: // delete or duplicate a line
        if (r() < 0.5) lines.splice(li, 1);
        else lines.splice(li, 0, lines[li]);
        t = lines.join('\n');
        break;
      case 4: // re-indent a line
        lines[li] = ' '.repeat(int(r, 0, 12)) + lines[li].trimStart();
        t = lines.join('\n');
        break;
      case 5: // replace a value
        lines[li] = lines[li].replace(/(:\s*|-\s+)(.*)$/, (_m, sep: string) => sep + pick(r, VALUES));
        t = lines.join('\n');
        break;
      case 6: // rename a key
        lines[li] = lines[li].replace(
          /^(\s*(?:- )?)([A-Za-z_<]+)(\s*:)/,
          (_m, pre: string, _k: string, post: string) => pre + pick(r, KEYS) + post,
        );
        t = lines.join('\n');
        break;
      case 7: // swap two lines
        {
          const lj = int(r, 0, lines.length - 1);
          [lines[li], lines[lj]] = [lines[lj], lines[li]];
          t = lines.join('\n');
        }
        break;
      default: // flip a character
        t = t.slice(0, at) + String.fromCharCode(int(r, 1, 0x2ff)) + t.slice(at + 1);
    }
  }
  return t;
}

const HOSTILE = [
  'bomb',
  'string-bomb',
  'alias-cycle',
  'deep-flow',
  'deep-block',
  'huge-string',
  'huge-file',
  'binary',
  'bad-utf8',
  'include-cycle',
  'self-include',
  'symlink-escape',
  'outside-path',
  'unknown-tag',
  'many-includes',
  'merge',
] as const;
export type HostileKind = (typeof HOSTILE)[number];
export const HOSTILE_KINDS: readonly HostileKind[] = HOSTILE;

function hostile(kind: HostileKind, r: Rand): string | Buffer {
  const wrap = (body: string): string => `name: h\nturns:\n  - user: hi\n${body}`;
  switch (kind) {
    case 'bomb': {
      const levels = int(r, 3, 12);
      const width = int(r, 2, 12);
      const lines = ['name: bomb', 'a0: &a0 "lol"'];
      for (let i = 1; i < levels; i++)
        lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
      return `${lines.join('\n')}\nturns: []\ncontext: [{role: user, content: *a${levels - 1}}]\n`;
    }
    case 'string-bomb': {
      const n = int(r, 1000, 300_000);
      return `name: s\nbig: &b "${'x'.repeat(n)}"\nturns: []\ncontext: [${Array.from({ length: int(r, 2, 200) }, () => '{c: *b}').join(', ')}]\n`;
    }
    case 'alias-cycle':
      return pick(r, [
        'name: c\nturns: &t [{user: hi}, *t]\n',
        'name: c\nx: &m {a: *m}\nturns: []\n',
        'name: c\nturns: [*t]\n',
      ]);
    case 'deep-flow': {
      const d = int(r, 50, 200_000);
      return `name: n\nturns: ${'['.repeat(d)}${']'.repeat(r() < 0.8 ? d : int(r, 0, d))}\n`;
    }
    case 'deep-block': {
      const d = int(r, 50, 1500);
      const lines = ['name: n', 'context:'];
      for (let i = 0; i < d; i++) lines.push(`${' '.repeat(i + 1)}${r() < 0.5 ? '- ' : 'k:'}`);
      return `${lines.join('\n')} x\n`;
    }
    case 'huge-string':
      return wrap(
        `    expect:\n      - event: response\n        text_contains: "${'y'.repeat(int(r, 10_000, 1_200_000))}"\n`,
      );
    case 'huge-file':
      return `name: h\nturns: []\n${'# padding padding padding\n'.repeat(int(r, 42_000, 60_000))}`;
    case 'binary': {
      const bytes = Buffer.alloc(int(r, 1, 4096));
      for (let i = 0; i < bytes.length; i++) bytes[i] = int(r, 0, 255);
      if (r() < 0.5) bytes[int(r, 0, bytes.length - 1)] = 0;
      return bytes;
    }
    case 'bad-utf8': {
      const text = Buffer.from(wrap('    expect:\n      - event: response\n'));
      text[int(r, 0, text.length - 1)] = int(r, 0x80, 0xff);
      return text;
    }
    case 'include-cycle':
      return `name: i\njudge: !include inc_a.yaml\nturns: []\n`;
    case 'self-include':
      return `name: i\ncontext: [!include case.yaml]\nturns: []\n`;
    case 'symlink-escape':
      return r() < 0.5 ? 'name: l\njudge: !include link_out.yaml\nturns: []\n' : wrap('    image: link_out.jpg\n');
    case 'outside-path':
      return pick(r, [
        'name: o\njudge: !include /etc/passwd\nturns: []\n',
        'name: o\njudge: !include ../../../../../../etc/hostname\nturns: []\n',
        wrap('    image: /etc/passwd\n'),
        wrap('    image: ../../../../../../../etc/passwd\n'),
      ]);
    case 'unknown-tag':
      return pick(r, [
        'name: t\nturns: !!python/object:os.system [ls]\n',
        'name: !custom t\nturns: []\n',
        'name: t\nturns: []\nx: !!binary aGk=\n',
      ]);
    case 'many-includes':
      return `name: m\nturns: []\ncontext: [${Array.from({ length: int(r, 257, 600) }, () => '!include judge.yaml').join(', ')}]\n`;
    case 'merge':
      return pick(r, [
        'name: m\nbase: &b {event: response}\nturns:\n  - expect:\n      - <<: *b\n        within_ms: 5\n',
        'name: m\nturns:\n  - expect:\n      - <<: [1, 2]\n',
        'name: m\nturns:\n  - <<: *missing\n',
      ]);
  }
}

/** A case of one hostile class, reproducible from seed and index. */
export function hostileCase(kind: HostileKind, seed: number, index: number): FuzzCase {
  const r = rng((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  return { index, kind, content: hostile(kind, r) };
}

/** Case `index` of `seed`: about one in four hostile, the rest mutations of a seed file. */
export function makeCase(seed: number, index: number, seeds: readonly string[]): FuzzCase {
  const r = rng((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  if (r() < 0.25) {
    const kind = HOSTILE[index % HOSTILE.length];
    return { index, kind, content: hostile(kind, r) };
  }
  return { index, kind: 'mutation', content: mutate(pick(r, seeds), r) };
}

/** Loads one case in the workspace and classifies what happened. */
export function runCase(ws: FuzzWorkspace, c: FuzzCase, options: LoadOptions = {}): CaseResult {
  writeFileSync(ws.casePath, c.content);
  const t0 = performance.now();
  try {
    const r = inspectFile(ws.casePath, options);
    const ms = performance.now() - t0;
    if (r.status === 'loaded') {
      JSON.stringify(r.scenario_file ?? r.loaded); // validate --json must be able to print it
      return { outcome: 'loaded', ms, kind: c.kind };
    }
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    const bad = errors.find((d) => !d.file || !(d.line >= 1) || !(d.col >= 1) || !d.message);
    if (errors.length === 0 || bad) {
      return { outcome: 'unlocated', ms, kind: c.kind, detail: JSON.stringify(bad ?? r.diagnostics).slice(0, 500) };
    }
    return { outcome: 'rejected', ms, kind: c.kind };
  } catch (err) {
    const e = err as Error;
    return {
      outcome: 'crashed',
      ms: performance.now() - t0,
      kind: c.kind,
      detail: `${e?.name}: ${e?.message}\n${e?.stack ?? ''}`.slice(0, 2000),
    };
  }
}

/** Seed texts: the built-in ones plus every readable *.yaml given. */
export function loadSeeds(files: readonly string[] = []): string[] {
  const out = [...BUILTIN_SEEDS];
  for (const f of files) {
    try {
      out.push(readFileSync(f, 'utf8'));
    } catch {
      // Unreadable seed: skip it.
    }
  }
  return out;
}
