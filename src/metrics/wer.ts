/**
 * Word error rate: how far a transcript is from what was meant, in words.
 *
 * Both texts are normalized the same way (lowercase; punctuation stripped;
 * hyphens split words; apostrophes inside words and decimal points inside
 * numbers kept; numbers stay as written, so "4" and "four" differ), then
 * aligned word by word. The alignment uses NIST sclite's weights
 * (substitution 4, insertion 3, deletion 3), so the counts of substitutions,
 * deletions and insertions agree with the field's reference scorer, not just
 * their sum. WER = (S + D + I) / reference words.
 */

export type AlignOp = 'match' | 'sub' | 'del' | 'ins';

export interface AlignedWord {
  op: AlignOp;
  /** Absent for an insertion. */
  ref?: string;
  /** Absent for a deletion. */
  hyp?: string;
}

export interface WerResult {
  /** (S + D + I) / N; 0 when both are empty; 1 per inserted word when the reference is empty. */
  wer: number;
  hits: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  reference_words: number;
  hypothesis_words: number;
  alignment: AlignedWord[];
}

const SUB_COST = 4;
const INS_COST = 3;
const DEL_COST = 3;

/** The words WER is computed on. */
export function normalizeWords(text: string): string[] {
  const lowered = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'");
  const tokens: string[] = [];
  for (const raw of lowered.split(/[\s\-\u2010-\u2015/]+/)) {
    // Keep letters, digits, apostrophes and dots; then drop dots not between digits and outer apostrophes.
    const kept = raw
      .replace(/[^\p{L}\p{N}'.]/gu, '')
      .replace(/(?<!\p{N})\.|\.(?!\p{N})/gu, '')
      .replace(/^'+|'+$/g, '');
    if (kept) tokens.push(kept);
  }
  return tokens;
}

export function align(reference: readonly string[], hypothesis: readonly string[]): AlignedWord[] {
  const n = reference.length;
  const m = hypothesis.length;
  const width = m + 1;
  const cost = new Float64Array((n + 1) * width);
  for (let i = 1; i <= n; i++) cost[i * width] = i * DEL_COST;
  for (let j = 1; j <= m; j++) cost[j] = j * INS_COST;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const diag = cost[(i - 1) * width + j - 1] + (reference[i - 1] === hypothesis[j - 1] ? 0 : SUB_COST);
      const del = cost[(i - 1) * width + j] + DEL_COST;
      const ins = cost[i * width + j - 1] + INS_COST;
      cost[i * width + j] = Math.min(diag, del, ins);
    }
  }
  // Walk back from the end; on ties prefer the diagonal, then deletion, then insertion.
  const out: AlignedWord[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const here = cost[i * width + j];
    if (i > 0 && j > 0) {
      const same = reference[i - 1] === hypothesis[j - 1];
      if (here === cost[(i - 1) * width + j - 1] + (same ? 0 : SUB_COST)) {
        out.push({ op: same ? 'match' : 'sub', ref: reference[i - 1], hyp: hypothesis[j - 1] });
        i--;
        j--;
        continue;
      }
    }
    if (i > 0 && here === cost[(i - 1) * width + j] + DEL_COST) {
      out.push({ op: 'del', ref: reference[i - 1] });
      i--;
      continue;
    }
    out.push({ op: 'ins', hyp: hypothesis[j - 1] });
    j--;
  }
  return out.reverse();
}

export function wordErrorRate(reference: string, hypothesis: string): WerResult {
  return scoreAlignment(align(normalizeWords(reference), normalizeWords(hypothesis)));
}

/** Pooled over utterances: total errors over total reference words (not a mean of per-utterance rates). */
export function corpusWordErrorRate(pairs: ReadonlyArray<{ reference: string; hypothesis: string }>): WerResult {
  return scoreAlignment(pairs.flatMap((p) => align(normalizeWords(p.reference), normalizeWords(p.hypothesis))));
}

function scoreAlignment(alignment: AlignedWord[]): WerResult {
  let hits = 0;
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  for (const a of alignment) {
    if (a.op === 'match') hits++;
    else if (a.op === 'sub') substitutions++;
    else if (a.op === 'del') deletions++;
    else insertions++;
  }
  const referenceWords = hits + substitutions + deletions;
  const errors = substitutions + deletions + insertions;
  return {
    wer: referenceWords === 0 ? insertions : errors / referenceWords,
    hits,
    substitutions,
    deletions,
    insertions,
    reference_words: referenceWords,
    hypothesis_words: hits + substitutions + insertions,
    alignment,
  };
}
