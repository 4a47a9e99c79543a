import { closest } from './diagnostics.js';
import type { GaiaPersona } from './gaia-types.js';

/**
 * AMD GAIA's nine built-in personas, word for word from its scenario-authoring guide ("Personas"): how the caller
 * behaves, and when a scenario should use it. A GAIA file's `persona:` names one of them or is free text describing
 * the caller; both reach the model that writes objective-only turns through `resolvePersona`. (Issue 26's voice,
 * rate and opening line will extend `GaiaPersona`; this table is their seam.)
 */
export interface BuiltinPersona {
  /** GAIA's "Behavior" column: what the caller model is told to be. */
  behavior: string;
  /** GAIA's "When to Use" column. */
  when: string;
}

export const GAIA_PERSONAS = {
  casual_user: {
    behavior: 'Short messages, uses pronouns ("that file"), occasionally vague',
    when: 'Testing robustness with ambiguous input',
  },
  power_user: {
    behavior: 'Precise requests, specific file names, multi-step instructions',
    when: 'Testing efficiency and correct tool routing',
  },
  confused_user: {
    behavior: 'Wrong terminology, self-correcting mid-sentence',
    when: 'Testing error recovery and clarification',
  },
  adversarial_user: {
    behavior: 'Edge cases, topic switches, impossible requests',
    when: 'Testing hallucination resistance and boundary handling',
  },
  data_analyst: {
    behavior: 'Numbers, comparisons, aggregations, structured output expectations',
    when: 'Testing numerical accuracy and data synthesis',
  },
  home_user: {
    behavior: 'Everyday consumer, texting-style lowercase, confused by jargon',
    when: 'Testing plain-language handling and simplicity',
  },
  small_business_owner: {
    behavior: 'Time-pressed, ROI-focused, not deeply technical, mixes business and personal tasks',
    when: 'Testing practical, value-oriented interactions',
  },
  student: {
    behavior: 'Academic/homework context, casual language with bursts of field jargon, appreciates step-by-step',
    when: 'Testing explanatory depth and research help',
  },
  creative_professional: {
    behavior: 'Designer/writer/artist, project- and workflow-focused, values speed, may ask open-ended questions',
    when: 'Testing subjective/open-ended and impatient-with-verbosity cases',
  },
} as const satisfies Record<string, BuiltinPersona>;

export type GaiaPersonaName = keyof typeof GAIA_PERSONAS;
export const GAIA_PERSONA_NAMES = Object.keys(GAIA_PERSONAS) as GaiaPersonaName[];

/** earshot's choice where a GAIA file names no persona (GAIA's own tip: power_user for straightforward RAG tests). */
export const DEFAULT_GAIA_PERSONA: GaiaPersonaName = 'power_user';

export function isBuiltinPersona(text: string): text is GaiaPersonaName {
  return Object.hasOwn(GAIA_PERSONAS, text);
}

/**
 * A persona as written → what the caller model reads: a built-in name gets GAIA's behaviour text; any other text
 * is the description itself (GAIA accepts "any non-empty string").
 */
export function resolvePersona(text: string): GaiaPersona {
  const name = text.trim();
  if (isBuiltinPersona(name)) return { name, description: GAIA_PERSONAS[name].behavior, builtin: true };
  return { name, description: name, builtin: false };
}

/**
 * The built-in a custom persona was probably meant to be: only for identifier-like text (`power_usr`), since a
 * sentence describing a caller is a legitimate custom persona, never a typo.
 */
export function personaNearMiss(text: string): GaiaPersonaName | undefined {
  const name = text.trim();
  if (isBuiltinPersona(name) || !/^[A-Za-z0-9_-]+$/.test(name)) return undefined;
  const lower = name.toLowerCase().replace(/-/g, '_');
  if (isBuiltinPersona(lower)) return lower;
  return closest(lower, GAIA_PERSONA_NAMES) as GaiaPersonaName | undefined;
}
