import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { align, corpusWordErrorRate, normalizeWords, wordErrorRate } from './wer.js';

describe('normalizeWords', () => {
  it('lowercases and strips punctuation, keeping apostrophes inside words', () => {
    expect(normalizeWords('Hello, World! "Don\'t" stop—now.')).toEqual(['hello', 'world', "don't", 'stop', 'now']);
  });

  it('splits hyphenated words and keeps numbers as written', () => {
    expect(normalizeWords('A cold-hearted man paid $3.50 for 2 tickets, 1,000 times.')).toEqual([
      'a',
      'cold',
      'hearted',
      'man',
      'paid',
      '3.50',
      'for',
      '2',
      'tickets',
      '1000',
      'times',
    ]);
    expect(normalizeWords('four')).not.toEqual(normalizeWords('4'));
  });

  it('treats curly apostrophes as straight ones and drops quotes around words', () => {
    expect(normalizeWords('I’m ‘fine’')).toEqual(["i'm", 'fine']);
  });

  it('gives no words for empty or punctuation-only text', () => {
    expect(normalizeWords('')).toEqual([]);
    expect(normalizeWords(' ... !? ')).toEqual([]);
  });
});

describe('wordErrorRate', () => {
  it('is 0 for the same words however they are punctuated', () => {
    const r = wordErrorRate('What is the capital of France?', 'what is the capital of france');
    expect(r).toMatchObject({ wer: 0, hits: 6, substitutions: 0, deletions: 0, insertions: 0, reference_words: 6 });
  });

  it('counts substitutions, deletions and insertions against the reference length', () => {
    const r = wordErrorRate('the cat sat on the mat', 'the cat sat on mat today');
    expect(r).toMatchObject({
      hits: 5,
      substitutions: 0,
      deletions: 1,
      insertions: 1,
      reference_words: 6,
      hypothesis_words: 6,
    });
    expect(r.wer).toBeCloseTo(2 / 6, 10);
    expect(r.alignment).toEqual([
      { op: 'match', ref: 'the', hyp: 'the' },
      { op: 'match', ref: 'cat', hyp: 'cat' },
      { op: 'match', ref: 'sat', hyp: 'sat' },
      { op: 'match', ref: 'on', hyp: 'on' },
      { op: 'del', ref: 'the' },
      { op: 'match', ref: 'mat', hyp: 'mat' },
      { op: 'ins', hyp: 'today' },
    ]);
  });

  it('can exceed 1 when the hypothesis adds many words', () => {
    expect(wordErrorRate('yes', 'yes yes yes').wer).toBe(2);
  });

  it('handles empty sides: 0 for both empty, all deletions, and insertions per word against nothing', () => {
    expect(wordErrorRate('', '').wer).toBe(0);
    expect(wordErrorRate('one two', '')).toMatchObject({ wer: 1, deletions: 2 });
    expect(wordErrorRate('', 'uh huh')).toMatchObject({ wer: 2, insertions: 2 });
  });

  it('prefers a deletion plus an insertion over two substitutions, as sclite does', () => {
    expect(align(['a', 'b'], ['b', 'c']).map((a) => a.op)).toEqual(['del', 'match', 'ins']);
  });
});

describe('corpusWordErrorRate', () => {
  it('pools errors over all reference words rather than averaging per-utterance rates', () => {
    const r = corpusWordErrorRate([
      { reference: 'a', hypothesis: 'b' },
      {
        reference: 'one two three four five six seven eight nine',
        hypothesis: 'one two three four five six seven eight nine',
      },
    ]);
    expect(r.wer).toBeCloseTo(1 / 10, 10);
    expect(r.reference_words).toBe(10);
  });
});

/**
 * NIST sctk's sclite is the field's reference scorer (Debian `sctk`). The same
 * normalized word strings go to both; every utterance must get the same
 * correct/substitution/deletion/insertion counts.
 */
const SCLITE = ['/usr/bin/sctk', '/usr/lib/sctk/bin/sclite'].find((p) => existsSync(p));

function sclite(pairs: Array<[string, string]>): Array<{ C: number; S: number; D: number; I: number }> {
  if (!SCLITE) throw new Error('sclite is missing: sudo apt-get install sctk');
  const dir = mkdtempSync(join(tmpdir(), 'earshot-sclite-'));
  try {
    const line = (words: string[], i: number): string => `${words.join(' ')} (spk_u${String(i).padStart(3, '0')})`;
    writeFileSync(join(dir, 'ref.trn'), `${pairs.map(([r], i) => line(normalizeWords(r), i)).join('\n')}\n`);
    writeFileSync(join(dir, 'hyp.trn'), `${pairs.map(([, h], i) => line(normalizeWords(h), i)).join('\n')}\n`);
    const args = [
      '-r',
      join(dir, 'ref.trn'),
      'trn',
      '-h',
      join(dir, 'hyp.trn'),
      'trn',
      '-i',
      'spu_id',
      '-o',
      'sgml',
      'stdout',
    ];
    const r = spawnSync(SCLITE, SCLITE.endsWith('sctk') ? ['sclite', ...args] : args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`sclite failed: ${r.stderr}`);
    const paths = [...r.stdout.matchAll(/<PATH id="\(spk_u(\d+)\)"[^>]*>\n([^<]*)<\/PATH>/g)];
    const out = pairs.map(() => ({ C: 0, S: 0, D: 0, I: 0 }));
    for (const [, id, body] of paths) {
      for (const item of body.trim().split(':')) {
        const op = item.charAt(0) as 'C' | 'S' | 'D' | 'I';
        if (op in out[Number(id)]) out[Number(id)][op]++;
      }
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Deterministic pseudo-random utterance pairs over a small vocabulary, so that alignments have ties. */
function randomPairs(count: number): Array<[string, string]> {
  const vocab = ['a', 'the', 'cat', 'sat', 'on', 'mat', 'dog', 'ran', 'to', 'it'];
  let state = 12345;
  const next = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const sentence = (len: number): string[] => Array.from({ length: len }, () => vocab[next(vocab.length)]);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < count; i++) {
    const ref = sentence(1 + next(9));
    const hyp = ref.filter(() => next(5) !== 0).map((w) => (next(4) === 0 ? vocab[next(vocab.length)] : w));
    if (next(3) === 0) hyp.splice(next(hyp.length + 1), 0, ...sentence(1 + next(2)));
    pairs.push([ref.join(' '), hyp.join(' ')]);
  }
  return pairs;
}

describe('agreement with NIST sclite', () => {
  const fixed: Array<[string, string]> = [
    ['a b', 'b c'],
    ['the cat sat on the mat', 'the cat sat on mat today'],
    ['x a b c d e', 'a b c d e y'],
    ['hello world', 'hello there world'],
    ['one two three four', 'won too three for'],
    ['he was not an ill disposed young man', 'he was not an illness those young man'],
    [
      'and mister john dashwood had then leisure to consider',
      'but mr john guess would have been at leisure to consider',
    ],
    ['what is the capital of france', ''],
    ['I would like to book a table for two people tonight.', 'i would like to but the table for two people tonight'],
  ];

  it('matches sclite on hand-picked pairs', () => {
    const ours = fixed.map(([r, h]) => wordErrorRate(r, h));
    expect(ours.map((w) => ({ C: w.hits, S: w.substitutions, D: w.deletions, I: w.insertions }))).toEqual(
      sclite(fixed),
    );
  });

  it('matches sclite on 60 generated pairs full of ties', () => {
    const pairs = randomPairs(60);
    const ours = pairs.map(([r, h]) => wordErrorRate(r, h));
    expect(ours.map((w) => ({ C: w.hits, S: w.substitutions, D: w.deletions, I: w.insertions }))).toEqual(
      sclite(pairs),
    );
  });
});
