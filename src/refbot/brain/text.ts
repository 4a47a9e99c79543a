/**
 * Text handling shared by the brain file compiler and the brain at run time:
 * normalization (so typed text and PocketSphinx output look alike), templates
 * (`{{slot}}`, `{{slot|title}}`) and the LLM-like chunking of replies.
 */

/** Contractions whose `'s` means "is" rather than a possessive. */
const IS_CONTRACTIONS = /\b(what|where|who|how|when|why|it|that|there|here|he|she)'s\b/g;

/**
 * Lowercase, accents and punctuation removed, contractions expanded, single
 * spaces. PocketSphinx already writes lowercase without punctuation but keeps
 * apostrophes ("what's", "i'm"), and typed text has all of it; both land on
 * the same words ("what is", "i am"). With `keepWildcards` a trailing `*` on a
 * word survives (patterns use it as "any ending").
 */
export function normalizeText(text: string, keepWildcards = false): string {
  let t = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'");
  t = t
    .replace(IS_CONTRACTIONS, '$1 is')
    .replace(/\blet's\b/g, 'let us')
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/n't\b/g, ' not')
    .replace(/'re\b/g, ' are')
    .replace(/'m\b/g, ' am')
    .replace(/'ll\b/g, ' will')
    .replace(/'ve\b/g, ' have')
    .replace(/'d\b/g, ' would')
    // What is left of `'s` is a possessive: "Germany's capital" -> "germany capital".
    .replace(/'s\b/g, '')
    .replace(/'/g, '');
  t = t.replace(keepWildcards ? /[^a-z0-9*]+/g : /[^a-z0-9]+/g, ' ');
  return t.trim();
}

/** Collapses runs of whitespace (YAML folded blocks, line breaks) into single spaces. */
export function tidyText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Splits a reply the way an LLM streams it: one chunk per word, each carrying
 * the whitespace before it, so the chunks joined with "" give the text back
 * exactly (Pipecat's harness joins `bot-llm-text` chunks with "").
 */
export function chunkText(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** Splits at sentence ends, for speaking a reply (or a long story) sentence by sentence. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export const TEMPLATE_FILTERS = ['title', 'upper', 'lower'] as const;
export type TemplateFilter = (typeof TEMPLATE_FILTERS)[number];

interface TemplatePart {
  literal: string;
  slot?: string;
  filter?: TemplateFilter;
}

/** A parsed `{{slot}}` template; `slots` lists the variables it needs. */
export interface Template {
  readonly source: string;
  readonly slots: readonly string[];
  readonly parts: readonly TemplatePart[];
}

export class TemplateSyntaxError extends Error {}

const SLOT_NAME = /^[a-z_][a-z0-9_]*$/;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Parses `text`; throws TemplateSyntaxError (the compiler locates it) on a malformed placeholder. */
export function parseTemplate(text: string): Template {
  const parts: TemplatePart[] = [];
  const slots: string[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const literal = text.slice(last, m.index);
    if (literal.includes('{{') || literal.includes('}}'))
      throw new TemplateSyntaxError(`unbalanced "{{" or "}}" in "${text}"`);
    const [rawSlot, rawFilter, ...extra] = m[1].split('|').map((s) => s.trim());
    if (!SLOT_NAME.test(rawSlot))
      throw new TemplateSyntaxError(`"{{${m[1]}}}" is not a slot name (lowercase letters, digits, _)`);
    if (extra.length > 0) throw new TemplateSyntaxError(`"{{${m[1]}}}" has more than one filter`);
    let filter: TemplateFilter | undefined;
    if (rawFilter !== undefined) {
      if (!(TEMPLATE_FILTERS as readonly string[]).includes(rawFilter)) {
        throw new TemplateSyntaxError(
          `unknown filter "${rawFilter}" (expected one of: ${TEMPLATE_FILTERS.join(', ')})`,
        );
      }
      filter = rawFilter as TemplateFilter;
    }
    parts.push({ literal, slot: rawSlot, filter });
    if (!slots.includes(rawSlot)) slots.push(rawSlot);
    last = m.index + m[0].length;
  }
  const tail = text.slice(last);
  if (tail.includes('{{') || tail.includes('}}')) throw new TemplateSyntaxError(`unbalanced "{{" or "}}" in "${text}"`);
  parts.push({ literal: tail });
  return { source: text, slots, parts };
}

function titleCase(s: string): string {
  return s.replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

/** Fills a template. The compiler guarantees every slot is known, so a missing one is a bug. */
export function renderTemplate(template: Template, lookup: (slot: string) => string | undefined): string {
  let out = '';
  for (const part of template.parts) {
    out += part.literal;
    if (part.slot === undefined) continue;
    const value = lookup(part.slot);
    if (value === undefined) throw new Error(`brain template "${template.source}" has no value for {{${part.slot}}}`);
    out +=
      part.filter === 'title'
        ? titleCase(value)
        : part.filter === 'upper'
          ? value.toUpperCase()
          : part.filter === 'lower'
            ? value.toLowerCase()
            : value;
  }
  return out;
}
