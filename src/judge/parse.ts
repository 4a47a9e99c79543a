import type { VerdictValue } from './types.js';

export type ParsedVerdict =
  | { ok: true; verdict: VerdictValue; reason: string; via: 'json' | 'embedded_json' | 'keyword' }
  | { ok: false; problem: string };

const MAX_REASON_CHARS = 300;
const NO_REASON = '(no reason given)';

/**
 * Reads a verdict from a model's answer, most trustworthy form first: the whole
 * answer as JSON; a JSON object inside code fences or prose; then a labelled or
 * leading keyword ("VERDICT: no", "Yes, it names Berlin."). A stray "no" in the
 * middle of prose is NOT taken as a verdict: a wrong verdict is worse than an
 * error the user can see.
 */
export function parseVerdict(answer: string): ParsedVerdict {
  // Reasoning models may prefix their answer with a think block; it is not the answer.
  const text = answer.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  if (text === '') return { ok: false, problem: 'the answer is empty' };

  const whole = tryJson(text);
  if (isRecord(whole) && verdictKey(whole) !== undefined) return fromObject(whole, 'json');

  for (const candidate of embeddedObjects(text)) {
    const value = tryJson(candidate);
    if (isRecord(value) && verdictKey(value) !== undefined) return fromObject(value, 'embedded_json');
  }

  return fromKeywords(text);
}

/**
 * The first JSON object in a model's answer: the whole answer, else one inside
 * code fences or prose (for answers richer than a verdict, such as a
 * simulation's scores); undefined when there is none.
 */
export function readJsonObject(answer: string): Record<string, unknown> | undefined {
  const text = answer.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const whole = tryJson(text);
  if (isRecord(whole)) return whole;
  for (const candidate of embeddedObjects(text)) {
    const value = tryJson(candidate);
    if (isRecord(value)) return value;
  }
  return undefined;
}

function fromObject(obj: Record<string, unknown>, via: 'json' | 'embedded_json'): ParsedVerdict {
  const raw = obj[verdictKey(obj) as string];
  const verdict = normalizeVerdict(raw);
  if (!verdict) return { ok: false, problem: `verdict ${JSON.stringify(raw)} is not "yes", "no" or "continue"` };
  const reason = typeof obj.reason === 'string' && obj.reason.trim() !== '' ? clip(obj.reason.trim()) : NO_REASON;
  return { ok: true, verdict, reason, via };
}

function verdictKey(obj: Record<string, unknown>): string | undefined {
  return Object.keys(obj).find((k) => k.toLowerCase() === 'verdict');
}

function normalizeVerdict(value: unknown): VerdictValue | undefined {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  if (typeof value !== 'string') return undefined;
  const word = value
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');
  return word === 'yes' || word === 'no' || word === 'continue' ? word : undefined;
}

const LABELLED =
  /\b(?:verdict|answer|decision|judge?ment)\b["'`]?\s*\**\s*(?:is|[:=-])?\s*\**\s*["'`]?\s*(yes|no|continue)\b/i;
const LEADING = /^[\s*_#>`"'-]*(yes|no|continue)\b[\s*_`"'.,:;!-]*/i;

function fromKeywords(text: string): ParsedVerdict {
  const labelled = LABELLED.exec(text);
  if (labelled) {
    const rest = text
      .slice(labelled.index + labelled[0].length)
      .replace(/^[\s*"'`.,:;!-]+/, '')
      .trim();
    return {
      ok: true,
      verdict: labelled[1].toLowerCase() as VerdictValue,
      reason: clip(rest) || NO_REASON,
      via: 'keyword',
    };
  }
  const leading = LEADING.exec(text);
  if (leading) {
    const rest = text.slice(leading[0].length).trim();
    return {
      ok: true,
      verdict: leading[1].toLowerCase() as VerdictValue,
      reason: clip(rest) || NO_REASON,
      via: 'keyword',
    };
  }
  return { ok: false, problem: 'no JSON verdict and no "yes", "no" or "continue" at the start or after "verdict:"' };
}

/** Balanced `{...}` spans in the text, in order, honouring JSON strings (a `}` inside quotes does not close). */
function* embeddedObjects(text: string): Generator<string> {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        yield text.slice(start, i + 1);
        break;
      }
    }
  }
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(s: string): string {
  return s.length <= MAX_REASON_CHARS ? s : `${s.slice(0, MAX_REASON_CHARS)}...`;
}
