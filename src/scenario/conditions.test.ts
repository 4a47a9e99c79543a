import { afterEach, describe, expect, it } from 'vitest';
import { applyConditionOverrides, parseConditionFlags } from './conditions.js';
import { loadScenarioFile } from './load.js';
import { errorsOf, inspect, TempProject } from './scenario.testutil.js';
import type { Scenario } from './types.js';

let project: TempProject;
afterEach(() => project?.cleanup());

const file = (body: string): string => `name: conds
user:
  modality: audio
  speech: { service: flite }
${body}`;

describe('conditions: in scenario files', () => {
  it('reads file-level conditions, a scenario replacing them whole, a turn per condition', () => {
    project = new TempProject();
    project.write('noise.wav', Buffer.alloc(0));
    const path = project.write(
      'conds.yaml',
      file(`conditions:
  noise: { type: white, snr_db: 10 }
  telephony: { codec: mulaw }
  loss: { rate: 0.05, burst_ms: 40, conceal: zero }
  seed: 7
dtmf_mode: inband
scenarios:
  - name: a
    turns:
      - user: hello
        conditions: { noise: { type: noise.wav, snr_db: 5 }, gain: { gain_db: 6 } }
        dtmf_tones: { tone_ms: 80 }
      - dtmf: "123#"
        dtmf_mode: rtvi
  - name: b
    conditions: { speaking_rate: { factor: 1.2 } }
    turns: [{ user: hi }]
`),
    );
    const loaded = loadScenarioFile(path);
    expect(loaded.warnings).toEqual([]);
    const [a, b] = loaded.scenarios as Scenario[];
    expect(a.conditions).toEqual({
      noise: { type: 'white', snr_db: 10 },
      telephony: { codec: 'mulaw' },
      loss: { rate: 0.05, burst_ms: 40, conceal: 'zero' },
      seed: 7,
    });
    expect(a.dtmf_mode).toBe('inband');
    expect(a.turns[0].conditions).toEqual({
      noise: { type: 'wav', snr_db: 5, path: project.path('noise.wav') },
      gain: { gain_db: 6, clip_dbfs: 0 },
    });
    expect(a.turns[0].dtmf_tones).toEqual({ tone_ms: 80, gap_ms: 60, level_dbfs: -10 });
    expect(a.turns[1].dtmf_mode).toBe('rtvi');
    expect(b.conditions).toEqual({ speaking_rate: { factor: 1.2 } });
  });

  it('locates bad values', () => {
    project = new TempProject();
    const r = inspect(
      project,
      file(`turns:
  - user: hi
    conditions:
      noise: { type: brown, snr_db: 10 }
      loss: { rate: 1.5 }
      gain: { gain_db: 3, clip_dbfs: 2 }
      speaking_rate: { factor: 0 }
  - dtmf: "1"
    dtmf_mode: tones
`),
    );
    const errors = errorsOf(r).map((d) => `${d.line}: ${d.path}`);
    expect(errors).toEqual(
      expect.arrayContaining([
        '8: turns[0].conditions.noise.type',
        '9: turns[0].conditions.loss.rate',
        '10: turns[0].conditions.gain.clip_dbfs',
        '11: turns[0].conditions.speaking_rate.factor',
        '13: turns[1].dtmf_mode',
      ]),
    );
    expect(errorsOf(r).find((d) => d.path.endsWith('noise.type'))?.message).toMatch(
      /brown.*white, pink, babble or a \.wav path/,
    );
  });

  it('refuses conditions and in-band DTMF on a typed conversation', () => {
    project = new TempProject();
    const r = inspect(
      project,
      `name: t\nconditions: { noise: { type: white, snr_db: 10 } }\ndtmf_mode: inband\nturns: [{ user: hi }]\n`,
    );
    expect(errorsOf(r).map((d) => d.path)).toEqual(['conditions', 'dtmf_mode']);
    expect(errorsOf(r)[0].message).toMatch(/user\.modality: audio/);
  });
});

describe('--condition flags', () => {
  it('parses key.path=value and merges field by field over the scenario', () => {
    const flags = parseConditionFlags(['noise.snr_db=5', 'telephony.codec=mulaw', 'loss.rate=0.1']);
    expect(flags).toEqual({ noise: { snr_db: 5 }, telephony: { codec: 'mulaw' }, loss: { rate: 0.1 } });
    const merged = applyConditionOverrides({ noise: { type: 'pink', snr_db: 20 }, seed: 3 }, flags, 9);
    expect(merged).toEqual({
      noise: { type: 'pink', snr_db: 5 },
      telephony: { codec: 'mulaw' },
      loss: { rate: 0.1, burst_ms: 20, conceal: 'zero' },
      seed: 9,
    });
    expect(
      applyConditionOverrides(undefined, parseConditionFlags(['noise.type=room.wav']), undefined, (p) => `/abs/${p}`),
    ).toEqual({
      noise: { type: 'wav', snr_db: 20, path: '/abs/room.wav' },
    });
    expect(applyConditionOverrides({ seed: 1 }, undefined, undefined)).toEqual({ seed: 1 });
  });

  it('names the bad flag', () => {
    expect(() => parseConditionFlags(['noise.snr=5'])).toThrow(/--condition noise.snr=5: expected key.path=value/);
    expect(() => parseConditionFlags(['loss.rate=2'])).toThrow(/loss.rate must be a number >= 0 and <= 1/);
    expect(() => parseConditionFlags(['loss.conceal=fade'])).toThrow(/zero, repeat/);
    expect(() => parseConditionFlags(['noise.type=brown'])).toThrow(/white, pink, babble/);
  });
});
