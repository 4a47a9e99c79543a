import { describe, expect, it } from 'vitest';
import { baseWord, isFiller, parseSphinxLine, parseSphinxOutput } from './sphinx-output.js';

// What `pocketsphinx_continuous -time yes` printed for two LibriVox clips separated by silence.
const OUTPUT = `he was not an illness those young man
<s> 0.000 0.060 0.999500
<sil> 0.070 0.200 0.694306
he 0.210 0.320 0.998701
was(2) 0.330 0.540 0.999800
not 0.550 0.970 0.998701
[SPEECH] 0.980 1.100 0.535598
an(2) 1.110 1.290 0.472940
illness 1.300 1.680 0.834168
those 1.690 2.040 0.055875
young 2.050 2.320 0.050806
man 2.330 2.790 0.905008
</s> 2.800 3.090 1.000000

<s> 3.300 3.500 1.000000
</s> 3.510 3.600 1.000000
he might even have been made the amiable himself
<s> 4.380 4.470 0.999300
he 4.710 4.870 0.997902
himself 6.770 7.510 0.908363
</s> 7.520 8.250 1.000000
`;

describe('parseSphinxOutput', () => {
  it('joins the hypotheses of every utterance and keeps real words with their times', () => {
    const r = parseSphinxOutput(OUTPUT);
    expect(r.text).toBe('he was not an illness those young man he might even have been made the amiable himself');
    expect(r.words.map((w) => w.word)).toEqual([
      'he',
      'was',
      'not',
      'an',
      'illness',
      'those',
      'young',
      'man',
      'he',
      'himself',
    ]);
    expect(r.words[1]).toEqual({ word: 'was', start_sec: 0.33, end_sec: 0.54, confidence: 0.9998 });
  });

  it('gives empty text for output with no speech', () => {
    expect(parseSphinxOutput('\n<s> 0.000 0.800 1.000100\n</s> 0.810 0.830 1.000000\n')).toEqual({
      text: '',
      words: [],
    });
    expect(parseSphinxOutput('')).toEqual({ text: '', words: [] });
  });
});

describe('line parsing', () => {
  it('tells segment lines from hypothesis lines', () => {
    expect(parseSphinxLine('man 2.330 2.790 0.905008')).toEqual({
      kind: 'segment',
      word: 'man',
      start_sec: 2.33,
      end_sec: 2.79,
      confidence: 0.905008,
    });
    expect(parseSphinxLine('he was not an')).toEqual({ kind: 'hypothesis', text: 'he was not an' });
    expect(parseSphinxLine('')).toEqual({ kind: 'hypothesis', text: '' });
  });

  it('recognizes fillers and strips pronunciation variants', () => {
    expect(['<s>', '</s>', '<sil>', '[NOISE]', '[SPEECH]', '++BREATH++'].every(isFiller)).toBe(true);
    expect(isFiller('hello')).toBe(false);
    expect(baseWord('was(2)')).toBe('was');
    expect(baseWord("i'm")).toBe("i'm");
  });
});
