import { describe, expect, it } from 'vitest';
import { findNumbers, numbersIn } from './numbers.js';

describe('numbersIn: written with digits', () => {
  it('integers, decimals, grouping, currency, percent', () => {
    expect(numbersIn('75')).toEqual([75]);
    expect(numbersIn('It is 75.5 degrees')).toEqual([75.5]);
    expect(numbersIn('Q3 revenue was $14.2 million, up 23% on 1,250 units')).toEqual([14.2e6, 23, 1250]);
    expect(numbersIn('about 3.5k calls, 2 bn dollars, -4 degrees')).toEqual([3500, 2e9, -4]);
    expect(numbersIn('1,2345 and 1, 2')).toEqual([1, 2345, 1, 2]);
    expect(numbersIn('the end is 3.')).toEqual([3]);
  });

  it('a digit inside a word is no number; a dash between digits is no minus', () => {
    expect(numbersIn('mp3 and a1b are not numbers; 555-0142 is a phone number')).toEqual([555, 142]);
    expect(numbersIn('COVID-19 cases')).toEqual([19]);
    expect(numbersIn('from 10-20 people')).toEqual([10, 20]);
    expect(numbersIn('it fell to −3 overnight')).toEqual([-3]);
  });

  it('ordinal suffixes and spelled scales after digits', () => {
    expect(findNumbers('the 21st of May, the 2nd, 3rd and 4th')).toMatchObject([
      { value: 21, ordinal: true, text: '21st' },
      { value: 2, ordinal: true },
      { value: 3, ordinal: true },
      { value: 4, ordinal: true },
    ]);
    expect(numbersIn('1.5 million people, 3 hundred cars, 10K steps')).toEqual([1.5e6, 300, 10_000]);
    expect(numbersIn('at 10am, 3mb free')).toEqual([10, 3]);
  });
});

describe('numbersIn: spelled out', () => {
  it('the forms the issue lists', () => {
    expect(numbersIn('seventy five')).toEqual([75]);
    expect(numbersIn('seventy-five')).toEqual([75]);
    expect(numbersIn('Seventy Five degrees')).toEqual([75]);
    expect(numbersIn('one hundred and five')).toEqual([105]);
    expect(numbersIn('two thousand twenty six')).toEqual([2026]);
    expect(numbersIn('seventy five point five')).toEqual([75.5]);
  });

  it('as a recognizer writes them', () => {
    expect(numbersIn('fourteen point two million dollars')).toEqual([14.2e6]);
    expect(numbersIn('twenty three percent growth')).toEqual([23]);
    expect(numbersIn('two hundred and five people, then one thousand two hundred')).toEqual([205, 1200]);
    expect(numbersIn('no numbers here')).toEqual([]);
    expect(numbersIn('it is seventy five degrees and sunny in san francisco')).toEqual([75]);
  });

  it('scales, a, dozen, halves, quarters, decimals', () => {
    expect(numbersIn('a hundred, a thousand, an hundred, a million')).toEqual([100, 1000, 100, 1e6]);
    expect(numbersIn('a dozen eggs, two dozen roses')).toEqual([12, 24]);
    expect(numbersIn('three and a half hours, one and a quarter')).toEqual([3.5, 1.25]);
    expect(numbersIn('point five, zero point two five, point oh five')).toEqual([0.5, 0.25, 0.05]);
    expect(numbersIn('nine hundred ninety nine thousand nine hundred ninety nine')).toEqual([999_999]);
    expect(numbersIn('three million four hundred thousand and twelve')).toEqual([3_400_012]);
    expect(numbersIn('one point five million')).toEqual([1.5e6]);
  });

  it('negatives', () => {
    expect(numbersIn('minus five degrees')).toEqual([-5]);
    expect(numbersIn('negative twenty two')).toEqual([-22]);
    expect(numbersIn('minus 5')).toEqual([-5]);
    expect(numbersIn('minus the fees')).toEqual([]);
  });

  it('years read in pairs', () => {
    expect(numbersIn('nineteen eighty four')).toEqual([1984]);
    expect(numbersIn('in twenty twenty six')).toEqual([2026]);
    expect(numbersIn('twenty oh five')).toEqual([2005]);
    expect(numbersIn('nineteen hundred')).toEqual([1900]);
    expect(numbersIn('nineteen ninety nine')).toEqual([1999]);
    expect(numbersIn('twenty ten')).toEqual([2010]);
    expect(numbersIn('two thousand and five')).toEqual([2005]);
  });

  it('ordinals, and a lone "second" left alone', () => {
    expect(findNumbers('the twenty-first floor')).toMatchObject([{ value: 21, ordinal: true, text: 'twenty-first' }]);
    expect(findNumbers('first, the one hundredth caller')).toMatchObject([
      { value: 1, ordinal: true },
      { value: 100, ordinal: true, text: 'one hundredth' },
    ]);
    expect(numbersIn('wait a second')).toEqual([]);
    expect(numbersIn('one second please')).toEqual([1]);
    expect(numbersIn('the thirty second president')).toEqual([32]);
    expect(numbersIn('the twentieth century')).toEqual([20]);
  });

  it('words that cannot continue a number start a new one; punctuation ends one', () => {
    expect(numbersIn('five five five one two')).toEqual([5, 5, 5, 1, 2]);
    expect(numbersIn('one, two, three')).toEqual([1, 2, 3]);
    expect(numbersIn('twenty. five')).toEqual([20, 5]);
    expect(numbersIn('one hundred and')).toEqual([100]);
    expect(numbersIn('hundred thousands of them')).toEqual([]);
    expect(numbersIn('zero five')).toEqual([0, 5]);
  });

  it('words that only look like table keys are no numbers', () => {
    expect(numbersIn('the constructor of toString and hasOwnProperty')).toEqual([]);
  });
});

describe('findNumbers: its guarantees', () => {
  it('text is the exact slice, mentions in order and never overlapping', () => {
    const text = 'Call 555-0142 at twenty-five past nine, or about 1,250.5 minutes; minus two and a half.';
    const found = findNumbers(text);
    expect(found.map((m) => m.value)).toEqual([555, 142, 25, 9, 1250.5, -2.5]);
    for (const m of found) expect(text.slice(m.start, m.end)).toBe(m.text);
    for (let i = 1; i < found.length; i++) expect(found[i].start).toBeGreaterThanOrEqual(found[i - 1].end);
  });

  it('never throws and stays linear on hostile input', () => {
    const started = performance.now();
    const found = findNumbers('seventy-five, '.repeat(20_000));
    // Each "one hundred and one" takes the next repetition's "one"; its "hundred" then starts nothing.
    const chained = findNumbers(' one hundred and'.repeat(5000));
    // 400 nines overflow to Infinity: left out, never reported as a value.
    const huge = findNumbers(`${'9'.repeat(400)} and 7`);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(found.map((m) => m.value)).toEqual(Array(20_000).fill(75));
    expect(chained.map((m) => m.value)).toEqual(Array(2500).fill(101));
    expect(huge.map((m) => m.value)).toEqual([7]);
    expect(found.every((m) => Number.isFinite(m.value))).toBe(true);
    for (const weird of ['', '-', '.', ',', "'", '\u0000', '\ud800', 'point', 'a', 'and a half'])
      expect(() => findNumbers(weird)).not.toThrow();
  });
});
