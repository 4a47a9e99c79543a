import { describe, expect, it } from 'vitest';
import { BrainError, BrainMemory, loadBrain, parseBrain } from './brain.js';
import { DEFAULT_MARKERS } from './markers.js';

/** Turn-completion markers: what a Pipecat bot with filter_incomplete_user_turns has its LLM write first in each response. */
const brain = loadBrain();
const say = (text: string, memory = new BrainMemory()) => brain.respond({ kind: 'text', text }, memory);

describe('brain turn-completion markers', () => {
  it('the default brain marks a complete turn ● with the answer after it, held back from what it says', () => {
    const reply = say("I'd go to Japan.");
    expect(reply.text).toBe('Japan is a wonderful choice. The food there is great.');
    expect(reply.chunks.join('')).not.toContain('●');
    expect(reply.marker).toEqual({
      text: '●',
      kind: 'complete',
      raw: '● Japan is a wonderful choice. The food there is great.',
      markers: ['●', '◐', '○'],
    });
    expect(brain.greeting().marker?.kind).toBe('complete');
  });

  it('a trailing-off turn is short and a request for time long: the marker alone, nothing said', () => {
    const short = say('Let me think about it, hmmm');
    expect(short).toMatchObject({ text: '', chunks: [], sentences: [], source: 'rule:trailing-off' });
    expect(short.marker).toEqual({ text: '◐', kind: 'short', raw: '◐', markers: ['●', '◐', '○'] });
    expect(say('Hold on, give me a moment.').marker).toMatchObject({ kind: 'long', raw: '○', text: '○' });
  });

  it('turn_completion: true takes the default markers; a mapping names its own; no block, no markers', () => {
    const base = 'greeting: Hi.\nfallback: Sorry.\n';
    expect(parseBrain(`${base}turn_completion: true\n`).spec.turnCompletion).toEqual(DEFAULT_MARKERS);
    expect(
      parseBrain(`${base}turn_completion: { complete: "✓", short: "…", long: "⏳" }\n`).spec.turnCompletion,
    ).toEqual({ complete: '✓', short: '…', long: '⏳' });
    const plain = parseBrain(base);
    expect(plain.spec.turnCompletion).toBeNull();
    expect(plain.greeting().marker).toBeUndefined();
  });

  it('a rule marker without turn_completion, an unknown kind, or a complete rule with no reply is a located brain error', () => {
    const base = 'greeting: Hi.\nfallback: Sorry.\n';
    const bad = (yaml: string): string => {
      try {
        parseBrain(yaml, 'b.yaml');
      } catch (err) {
        if (err instanceof BrainError) return err.message;
        throw err;
      }
      return 'no error';
    };
    expect(bad(`${base}rules:\n  - when: hmm\n    marker: short\n`)).toMatch(
      /b\.yaml:5:\d+.*rules\[0\]\.marker: a rule marker needs a top-level turn_completion: block/,
    );
    expect(bad(`${base}turn_completion: true\nrules:\n  - when: hmm\n    marker: maybe\n`)).toMatch(
      /"maybe" is not a marker kind \(expected one of: complete, short, long\)/,
    );
    expect(bad(`${base}turn_completion: true\nrules:\n  - when: hmm\n`)).toMatch(/missing required field "reply"/);
    expect(bad(`${base}turn_completion: { complete: "x", short: "x" }\n`)).toMatch(/the three markers must differ/);
  });
});
