import { describe, expect, it } from 'vitest';
import { NUMBER_WORDS, spokenAmount } from './spoken-numbers.js';

describe('spokenAmount', () => {
  it('reads the first amount a recognizer wrote in words', () => {
    expect(spokenAmount('can you check whether a seventy five thousand dollar expense needs c f approval')).toBe(75000);
    expect(spokenAmount('is fifty thousand dollars enough')).toBe(50000);
    expect(spokenAmount('two hundred twenty thousand or three')).toBe(220000);
    expect(spokenAmount('one million')).toBe(1e6);
    expect(spokenAmount('a twelve dollar lunch')).toBe(12);
  });

  it('finds none where no amount is said (a lone "one" is not one)', () => {
    expect(spokenAmount('which one is better value for money')).toBeNull();
    expect(spokenAmount('what is the approval threshold')).toBeNull();
    expect(spokenAmount('')).toBeNull();
  });
});

describe('NUMBER_WORDS', () => {
  it('holds the words that say a number or its unit, not subject words', () => {
    for (const w of ['seventy', 'five', 'thousand', 'hundred', 'point', 'dollars', 'percent'])
      expect(NUMBER_WORDS.has(w)).toBe(true);
    for (const w of ['expense', 'approval', 'first', 'quarter']) expect(NUMBER_WORDS.has(w)).toBe(false);
  });
});
