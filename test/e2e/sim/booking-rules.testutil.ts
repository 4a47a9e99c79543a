import type { PersonaRule, PersonaView, RunView } from '../../support/sim-llm.js';

/**
 * The stand-in LLM's rules for the booking simulations (test/e2e/sim), shared
 * by the text and audio tests: who each caller is and what they say to what
 * the bot said, and how the judge decides. In audio the bot's lines are
 * PocketSphinx transcripts ("six p m"), so the rules read numbers as digits or words.
 */

/**
 * The callers, by who the persona says they are. The bot's lines are matched
 * loosely (`reserv`, `how many`, `time`): in audio they are PocketSphinx
 * transcripts of the bot's speech, which may drop or bend a word.
 */
export function callerRules(): PersonaRule[] {
  const is = (name: string) => (v: PersonaView) => v.persona.startsWith(name);
  return [
    { when: (v) => is('Morgan')(v), say: 'Do you have parking?' },
    {
      when: (v) => /reserv/.test(v.lastBot),
      say: 'Thank you, goodbye!',
      endCall: { success: true, reason: 'The table is booked.' },
    },
    {
      when: (v) => /not available|is taken/.test(v.lastBot),
      say: 'That is a pity. Thank you anyway, goodbye.',
      endCall: { success: false, reason: 'My time was not available.' },
    },
    // A bot that did not catch it hears the same request again, put another way each time, as from a real caller
    // (the bot's recognizer may mishear one wording of it every time: the same words make the same audio).
    {
      when: (v) => /not catch|say it again/.test(v.lastBot) && lastRequest(v) !== undefined,
      say: (v) => rephrase(lastRequest(v)!, timesNotCaught(v)),
    },
    { when: (v) => /how many|people/.test(v.lastBot), say: 'For two people.' },
    { when: (v) => is('Casey')(v) && /time/.test(v.lastBot), say: 'At seven PM, please.' },
    { when: (v) => /time/.test(v.lastBot), say: "At six o'clock." },
  ];
}

/** Other wordings of each request, in the order a caller tries them. */
const REPHRASINGS: Record<string, string[]> = {
  'For two people.': ['Two people, please.', 'A table for two.', 'Two.'],
  "At six o'clock.": ['Six PM, please.', 'At six PM.', 'Six.'],
  'At seven PM, please.': ['Seven PM.', "At seven o'clock.", 'Seven.'],
};

function rephrase(request: string, attempt: number): string {
  const ways = [request, ...(REPHRASINGS[request] ?? [])];
  return ways[attempt % ways.length];
}

/** The request a caller line makes, in its first wording (a line that is no known request stays as it is). */
export function requestOf(line: string): string {
  return Object.keys(REPHRASINGS).find((r) => r === line || REPHRASINGS[r].includes(line)) ?? line;
}

/** The caller's latest request: its latest line that is one of the known requests (not a reworded repeat). */
function lastRequest(v: PersonaView): string | undefined {
  const said = [...v.lines]
    .reverse()
    .filter((l) => l.role === 'caller')
    .map((l) => l.text);
  return said.map(requestOf).find((r) => r in REPHRASINGS) ?? said[0];
}

/** How many bot lines in a row, up to now, said they did not catch the caller. */
function timesNotCaught(v: PersonaView): number {
  let n = 0;
  for (const l of [...v.lines].reverse()) {
    if (l.role !== 'bot') continue;
    if (!/not catch|say it again/.test(l.text.toLowerCase())) break;
    n++;
  }
  return n;
}

/** A reply mentions the time as digits or words (a transcript writes "six p m"). */
const TIMES: Record<string, RegExp> = { '6 PM': /\b(6|six)\b/, '7 PM': /\b(7|seven)\b/ };
export const judgeRules = {
  goal: (v: RunView): 'yes' | 'no' => {
    const time = Object.keys(TIMES).find((t) => v.success?.includes(t));
    return time && v.replies.some((r) => /reserv/i.test(r) && TIMES[time].test(r.toLowerCase())) ? 'yes' : 'no';
  },
  metric: (): 'yes' => 'yes',
  claim: (claim: string, v: RunView): 'yes' | 'no' => {
    if (claim.includes('confirmed the booking')) return v.replies.some((r) => /reserv/i.test(r)) ? 'yes' : 'no';
    if (claim.includes('7 PM'))
      return v.replies.some((r) => /reserv/i.test(r) && TIMES['7 PM'].test(r.toLowerCase())) ? 'yes' : 'no';
    return 'no';
  },
};

/** Backoff jitter from a fixed seed (Park-Miller). */
export function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}
