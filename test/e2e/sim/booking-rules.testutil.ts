import type { PersonaRule, PersonaView, RunView } from '../../support/sim-llm.js';

/**
 * The stand-in LLM's rules for the booking simulations (test/e2e/sim), shared
 * by the text and audio tests: who each caller is and what they say to what
 * the bot said, and how the judge decides. In audio the bot's lines are
 * PocketSphinx transcripts ("six p m"), so the rules read numbers as digits or words.
 */

/** The callers, by who the persona says they are. */
export function callerRules(): PersonaRule[] {
  const is = (name: string) => (v: PersonaView) => v.persona.startsWith(name);
  return [
    { when: (v) => is('Morgan')(v), say: 'Do you have parking?' },
    { when: (v) => /reserved/.test(v.lastBot), say: 'Thank you, goodbye!', endCall: { success: true, reason: 'The table is booked.' } },
    { when: (v) => /not available/.test(v.lastBot), say: 'That is a pity. Thank you anyway, goodbye.', endCall: { success: false, reason: 'My time was not available.' } },
    // A bot that did not catch it gets the same words again, as from a real caller (its recognizer may mishear).
    { when: (v) => /not catch|say it again/.test(v.lastBot) && lastCallerLine(v) !== undefined, say: (v) => lastCallerLine(v)! },
    { when: (v) => /how many people/.test(v.lastBot), say: 'For two people.' },
    { when: (v) => is('Casey')(v) && /what time/.test(v.lastBot), say: 'At seven PM, please.' },
    { when: (v) => /what time/.test(v.lastBot), say: "At six o'clock." },
  ];
}

function lastCallerLine(v: PersonaView): string | undefined {
  return [...v.lines].reverse().find((l) => l.role === 'caller')?.text;
}

/** A reply mentions the time as digits or words (a transcript writes "six p m"). */
const TIMES: Record<string, RegExp> = { '6 PM': /\b(6|six)\b/, '7 PM': /\b(7|seven)\b/ };
export const judgeRules = {
  goal: (v: RunView): 'yes' | 'no' => {
    const time = Object.keys(TIMES).find((t) => v.success?.includes(t));
    return time && v.replies.some((r) => /reserved/i.test(r) && TIMES[time].test(r.toLowerCase())) ? 'yes' : 'no';
  },
  metric: (): 'yes' => 'yes',
  claim: (claim: string, v: RunView): 'yes' | 'no' => {
    if (claim.includes('confirmed the booking')) return v.replies.some((r) => /reserved/i.test(r)) ? 'yes' : 'no';
    if (claim.includes('7 PM')) return v.replies.some((r) => /reserved/i.test(r) && TIMES['7 PM'].test(r.toLowerCase())) ? 'yes' : 'no';
    return 'no';
  },
};


/** Backoff jitter from a fixed seed (Park-Miller). */
export function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 48271) % 2147483647) / 2147483647;
}
