import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GAIA_PERSONA,
  GAIA_PERSONA_NAMES,
  GAIA_PERSONAS,
  isBuiltinPersona,
  personaNearMiss,
  resolvePersona,
} from './personas.js';

describe("GAIA's built-in personas", () => {
  it('are the nine of the guide, in its order, with its words', () => {
    expect(GAIA_PERSONA_NAMES).toEqual([
      'casual_user',
      'power_user',
      'confused_user',
      'adversarial_user',
      'data_analyst',
      'home_user',
      'small_business_owner',
      'student',
      'creative_professional',
    ]);
    expect(GAIA_PERSONAS.casual_user).toEqual({
      behavior: 'Short messages, uses pronouns ("that file"), occasionally vague',
      when: 'Testing robustness with ambiguous input',
    });
    expect(GAIA_PERSONAS.creative_professional.behavior).toBe(
      'Designer/writer/artist, project- and workflow-focused, values speed, may ask open-ended questions',
    );
    expect(GAIA_PERSONAS.student.when).toBe('Testing explanatory depth and research help');
    expect(DEFAULT_GAIA_PERSONA).toBe('power_user');
  });

  it('resolvePersona: a built-in gets its behaviour; any other text describes the caller itself', () => {
    expect(resolvePersona(' data_analyst ')).toEqual({
      name: 'data_analyst',
      description: 'Numbers, comparisons, aggregations, structured output expectations',
      builtin: true,
    });
    expect(resolvePersona('An impatient nurse on a night shift')).toEqual({
      name: 'An impatient nurse on a night shift',
      description: 'An impatient nurse on a night shift',
      builtin: false,
    });
    // Not a prototype key: `constructor` is free text like any other.
    expect(isBuiltinPersona('constructor')).toBe(false);
    expect(resolvePersona('constructor').builtin).toBe(false);
  });

  it('personaNearMiss: identifier-like text close to a built-in, never a sentence', () => {
    expect(personaNearMiss('power_usr')).toBe('power_user');
    expect(personaNearMiss('Power-User')).toBe('power_user');
    expect(personaNearMiss('studnet')).toBe('student');
    expect(personaNearMiss('power_user')).toBeUndefined();
    expect(personaNearMiss('a power user')).toBeUndefined();
    expect(personaNearMiss('pirate')).toBeUndefined();
  });
});
