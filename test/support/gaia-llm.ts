import { GAIA_CALLER_LINES, GAIA_TURN_LINES, type GaiaJudgeRule } from '../../src/simulate/gaia-prompts.js';
import type { LoggedRequest, Responder, ScriptedReply } from './llm-server.js';

/**
 * The stand-in LLM for GAIA scenarios, on the test server's real protocol (llm-server.ts), reading earshot's GAIA
 * prompts back by their contract lines (src/simulate/gaia-prompts.ts):
 * - the caller model says an objective's quoted text when it has one ("Ask 'How many employees…?'"), else a
 *   question built from it ("Ask about Q3 revenue" → "What is the third quarter revenue?");
 * - the judge scores correctness 10 when the reply holds the expected answer's key tokens (every number, in digits
 *   or in words as a transcription writes them, and most of its words), else 2; with `expected_answer: null`, 10
 *   when the reply says it does not know. Every other dimension 8 (tool_selection and efficiency null when the calls
 *   are not visible); success "yes" when correctness is 8 or more; no automatic zero; never "reasked".
 * `misjudge` makes it wrong on purpose, so a test can show that earshot's own checks do not take the judge's word.
 */

export interface GaiaCallerView {
  objective: string;
  persona: string;
}

export interface GaiaFactLine {
  ref: string;
  question: string;
  answer: string;
}

export interface GaiaTurnView {
  turn: number;
  objective: string;
  caller: string;
  reply: string;
  /** undefined: none given; null: the bot must say it does not know. */
  expected?: string | null;
  facts: GaiaFactLine[];
  behaviors: string[];
  criteria?: string;
  callsVisible: boolean;
  /** `name(args json)` as the prompt lists them. */
  calls: string[];
}

export interface GaiaMisjudge {
  /** Only these turns (default: all). */
  turns?: number[];
  correctness?: number;
  success?: 'yes' | 'no';
  autoZero?: GaiaJudgeRule;
  reasked?: boolean;
  /** Answers prose instead of the JSON object. */
  garbled?: boolean;
}

export interface GaiaLlmOptions {
  /** What the caller says for an objective, before the quoted text and the built question (undefined: those). */
  say?: (view: GaiaCallerView) => string | undefined;
  misjudge?: GaiaMisjudge;
}

const DIMENSIONS = [
  'correctness',
  'tool_selection',
  'context_retention',
  'completeness',
  'efficiency',
  'personality',
  'error_recovery',
] as const;

function lastUserText(request: LoggedRequest): string | undefined {
  const content = [...request.body.messages].reverse().find((m) => m.role === 'user')?.content;
  return typeof content === 'string' ? content : undefined;
}

function field(lines: string[], prefix: string): string | undefined {
  return lines.find((l) => l.startsWith(prefix))?.slice(prefix.length);
}

function readGaiaTurnPrompt(request: LoggedRequest): GaiaTurnView | undefined {
  const text = lastUserText(request);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  const L = GAIA_TURN_LINES;
  const turn = field(lines, L.turn);
  const reply = field(lines, L.bot);
  if (turn === undefined || reply === undefined) return undefined;
  const view: GaiaTurnView = {
    turn: Number(turn),
    objective: field(lines, L.objective) ?? '',
    caller: field(lines, L.caller) ?? '',
    reply,
    facts: [],
    behaviors: lines.filter((l) => l.startsWith(L.behavior)).map((l) => l.slice(L.behavior.length)),
    callsVisible: field(lines, L.visible) === 'yes',
    calls: [],
  };
  if (lines.includes(L.unknown)) view.expected = null;
  else {
    const expected = field(lines, L.expected);
    if (expected !== undefined) view.expected = expected;
  }
  for (const line of lines.filter((l) => l.startsWith(L.fact))) {
    const [ref, q, a] = line.slice(L.fact.length).split(' | ');
    view.facts.push({ ref: ref ?? '', question: (q ?? '').replace(/^Q: /, ''), answer: (a ?? '').replace(/^A: /, '') });
  }
  const criteria = field(lines, L.criteria);
  if (criteria !== undefined) view.criteria = criteria;
  const calls = field(lines, L.calls);
  if (calls !== undefined && calls !== 'none') view.calls = calls.split('; ');
  return view;
}

function readGaiaCallerPrompt(request: LoggedRequest): GaiaCallerView | undefined {
  const text = lastUserText(request);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  const objective = field(lines, GAIA_CALLER_LINES.objective);
  const persona = field(lines, GAIA_CALLER_LINES.persona);
  return objective !== undefined && persona !== undefined ? { objective, persona } : undefined;
}

const QUOTED = /(?:^|[\s:(])['"\u2018\u201c](.+?)['"\u2019\u201d](?=$|[\s.,;:!?)])/;
const QUARTERS: Record<string, string> = { q1: 'first', q2: 'second', q3: 'third', q4: 'fourth' };

/** What a caller says for an objective: its quoted words, else a question made of it. */
export function callerUtterance(objective: string): string {
  const quoted = QUOTED.exec(objective)?.[1];
  if (quoted) return quoted.charAt(0).toUpperCase() + quoted.slice(1);
  const subject = (s: string): string =>
    s
      .replace(/\s+(?:with no|without)\b.*$/i, '')
      .replace(/\b[Qq]([1-4])\b/g, (_m, n: string) => `${QUARTERS[`q${n}`]} quarter`)
      .replace(/^the\s+/i, '')
      .trim();
  const about = /^ask (?:about|for)\s+(.+)$/i.exec(objective);
  if (about) return `What is the ${subject(about[1])}?`;
  const toDo = /^ask (?:the )?(?:agent|bot|assistant) to\s+(.+)$/i.exec(objective);
  if (toDo) return `Can you ${subject(toDo[1]).replace(/\//g, ' or ')}?`;
  const whether = /^ask (?:if|whether)\s+(.+)$/i.exec(objective);
  if (whether) return `Can you check whether ${subject(whether[1])}?`;
  return `Can you help me with this: ${objective.replace(/[.?!]+$/, '')}?`;
}

// ---------------------------------------------------------------- what a reply holds

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const DIGITS = /(?<![a-z0-9])\d+(?:,\d{3})*(?:\.\d+)?/gi;

/**
 * Every number a text states, in digits ("$50,000" → 50000, "15-18%" → 15 and 18; "Q3" is a name, not a number)
 * or in words as a transcription writes them ("fourteen point two" → 14.2, "fifty thousand" → 50000). "million"
 * is left a word, as "$14.2 million" states 14.2.
 */
export function numbersIn(text: string): number[] {
  const lower = text.toLowerCase();
  const out = [...lower.matchAll(DIGITS)].map((m) => Number(m[0].replace(/,/g, '')));
  let words: string[] = [];
  const flush = (): void => {
    const value = wordsValue(words);
    if (value !== null) out.push(value);
    words = [];
  };
  for (const w of lower.split(/[^a-z]+/)) {
    if (w in UNITS || w in TENS || w === 'hundred' || w === 'thousand' || (w === 'point' && words.length > 0))
      words.push(w);
    else if (!(w === 'and' && words.length > 0)) flush();
  }
  flush();
  return out;
}

function wordsValue(words: string[]): number | null {
  if (words.length === 0) return null;
  const point = words.indexOf('point');
  const whole = point === -1 ? words : words.slice(0, point);
  let total = 0;
  let current = 0;
  for (const w of whole) {
    if (w === 'hundred') current = (current || 1) * 100;
    else if (w === 'thousand') {
      total += (current || 1) * 1000;
      current = 0;
    } else current += UNITS[w] ?? TENS[w] ?? 0;
  }
  const decimals =
    point === -1
      ? ''
      : words
          .slice(point + 1)
          .map((w) => String(UNITS[w] ?? ''))
          .join('');
  return Number(`${total + current}${decimals ? `.${decimals}` : ''}`);
}

const STOP = new Set(
  'a an the of to in on at for per and or with by from is are was were be it its this that up than as'.split(' '),
);

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/'s\b/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w) && !/\d/.test(w) && !(w in UNITS) && !(w in TENS))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** Whether a reply holds an answer: each of its numbers, and at least half of its other words. */
export function holdsAnswer(reply: string, expected: string): boolean {
  const said = numbersIn(reply);
  if (!numbersIn(expected).every((n) => said.some((s) => Math.abs(s - n) < 1e-9))) return false;
  const want = [...new Set(wordsOf(expected))];
  const have = new Set(wordsOf(reply));
  return want.length === 0 || want.filter((w) => have.has(w)).length * 2 >= want.length;
}

const DOES_NOT_KNOW = new RegExp(
  [
    "(?:do|does|did)(?: not|n'?t) (?:know|say|mention|contain|have|state)",
    'not (?:mentioned|stated|in the)',
    'no information',
    "(?:can(?:not|'?t)|could(?: not|n'?t)|unable to) find",
  ]
    .map((p) => `\\b${p}\\b`)
    .join('|'),
  'i',
);

export function saysItDoesNotKnow(reply: string): boolean {
  return DOES_NOT_KNOW.test(reply);
}

// ---------------------------------------------------------------- the responder

function correctness(view: GaiaTurnView): { score: number; reason: string } {
  if (view.expected === null)
    return saysItDoesNotKnow(view.reply)
      ? { score: 10, reason: 'says it does not know' }
      : { score: 2, reason: 'answers what the documents do not say' };
  const answers = view.expected !== undefined ? [view.expected] : view.facts.map((f) => f.answer);
  if (answers.length === 0)
    return view.reply.trim() ? { score: 8, reason: 'no answer to check' } : { score: 2, reason: 'empty reply' };
  const missing = answers.filter((a) => !holdsAnswer(view.reply, a));
  return missing.length === 0
    ? { score: 10, reason: `holds ${answers.join('; ')}` }
    : { score: 2, reason: `does not hold ${missing.join('; ')}` };
}

function judgeAnswer(view: GaiaTurnView, misjudge: GaiaMisjudge | undefined): ScriptedReply {
  const wrong = misjudge && (!misjudge.turns || misjudge.turns.includes(view.turn)) ? misjudge : undefined;
  if (wrong?.garbled) return 'The bot did well on this turn, I would say.';
  const right = correctness(view);
  const c = wrong?.correctness !== undefined ? { score: wrong.correctness, reason: 'misjudged on purpose' } : right;
  const scores = Object.fromEntries(
    DIMENSIONS.map((d) => {
      if ((d === 'tool_selection' || d === 'efficiency') && !view.callsVisible) return [d, null];
      return [d, d === 'correctness' ? c : { score: 8, reason: `stand-in ${d}` }];
    }),
  );
  const verdict = wrong?.success ?? (c.score >= 8 ? 'yes' : 'no');
  return JSON.stringify({
    scores,
    success: view.criteria === undefined ? null : { verdict, reason: c.reason },
    auto_zero: wrong?.autoZero ? { rule: wrong.autoZero, reason: 'misjudged on purpose' } : null,
    reasked: wrong?.reasked ?? false,
  });
}

/** One responder for a GAIA run: caller requests and judge requests; anything else gets HTTP 400. */
export function gaiaLlm(options: GaiaLlmOptions = {}): Responder {
  return (request) => {
    const turn = readGaiaTurnPrompt(request);
    if (turn) return judgeAnswer(turn, options.misjudge);
    const caller = readGaiaCallerPrompt(request);
    if (caller) return options.say?.(caller) ?? callerUtterance(caller.objective);
    return {
      status: 400,
      body: {
        error: { message: 'gaia-llm: neither a GAIA caller nor a GAIA judge prompt', type: 'invalid_request_error' },
      },
    };
  };
}
