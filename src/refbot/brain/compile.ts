/**
 * Compiles a brain file (format documented at the top of fixtures/brain.yaml)
 * into matchers and templates, so every mistake surfaces at load time as a
 * located BrainError rather than as a wrong reply in the middle of a test.
 */
import { phrasePattern, type Condition, type Term, type TermAlternative, type VocabEntry } from './matching.js';
import { normalizeText, parseTemplate, TemplateSyntaxError, tidyText, type Template } from './text.js';
import { DEFAULT_MARKERS, isMarkerKind, MARKER_KINDS, type MarkerSet, type TurnMarkerKind } from './markers.js';
import { YamlReader, type JsonValue, type Located } from './yaml-reader.js';

export interface CallSpec {
  readonly name: string;
  /** Strings inside may hold `{{slot}}` placeholders (validated). */
  readonly args: { [key: string]: JsonValue };
  readonly durationMs: number;
  readonly result: JsonValue;
  /**
   * `result_slots:` slot → dotted path into the call's result. When the bot runs the call against its scenario
   * state (refbot/state/), the reply may say what the call returned (`{{total}}` from `total_price`).
   */
  readonly resultSlots: ReadonlyArray<readonly [slot: string, path: string]>;
}

export interface Responder {
  readonly reply: Template;
  readonly calls: readonly CallSpec[];
  readonly remember: ReadonlyArray<readonly [slot: string, value: Template]>;
}

export interface RuleSpec extends Responder {
  readonly name: string;
  readonly when: readonly Condition[];
  readonly needs: readonly string[];
  /**
   * With `turn_completion:`, the turn-completion marker of the reply: `short`/`long` hold the turn (the bot says
   * nothing).
   */
  readonly marker: TurnMarkerKind;
}

export interface KeypadOption extends Responder {
  readonly key: string;
  /** Digits entered after this option go into `slot`, then `then` answers. */
  readonly collect: { readonly slot: string; readonly then: Responder } | null;
}

export interface KeypadSpec {
  readonly options: ReadonlyMap<string, KeypadOption>;
  readonly invalid: string;
}

export interface BrainSpec {
  readonly file: string;
  readonly vocab: ReadonlyMap<string, readonly VocabEntry[]>;
  readonly greeting: string;
  readonly fallback: string;
  readonly story: { readonly when: readonly Condition[]; readonly text: string } | null;
  readonly rules: readonly RuleSpec[];
  readonly keypad: KeypadSpec | null;
  /** `turn_completion:`: every reply carries a turn-completion marker (markers.ts); null: no markers. */
  readonly turnCompletion: MarkerSet | null;
}

const NAME = /^[a-z_][a-z0-9_]*$/;
const RESPONDER_FIELDS = ['reply', 'calls', 'remember'] as const;

export function compileBrain(text: string, file: string): BrainSpec {
  return new Compiler(new YamlReader(file, text)).compile();
}

class Compiler {
  private vocab = new Map<string, VocabEntry[]>();

  constructor(private readonly y: YamlReader) {}

  compile(): BrainSpec {
    const top = this.y.map(
      this.y.root,
      ['vocab', 'greeting', 'fallback', 'story', 'rules', 'keypad', 'turn_completion'],
      ['greeting', 'fallback'],
    );
    const turnCompletion = this.turnCompletion(top.get('turn_completion'));
    const vocab = top.get('vocab');
    if (vocab) this.compileVocab(vocab);
    const greeting = this.fixedText(top.get('greeting')!);
    const fallback = this.fixedText(top.get('fallback')!);
    const storyAt = top.get('story');
    let story: BrainSpec['story'] = null;
    if (storyAt) {
      const s = this.y.map(storyAt, ['when', 'reply'], ['when', 'reply']);
      story = { when: this.when(s.get('when')!), text: this.fixedText(s.get('reply')!) };
    }
    const rulesAt = top.get('rules');
    const rules =
      rulesAt && !this.y.isEmpty(rulesAt) ? this.y.seq(rulesAt).map((r) => this.rule(r, turnCompletion !== null)) : [];
    const names = new Set<string>();
    for (const [i, rule] of rules.entries()) {
      if (names.has(rule.name))
        this.y.fail(this.y.seq(rulesAt!)[i], `two rules are named "${rule.name}"`, `rules[${i}].name`);
      names.add(rule.name);
    }
    const keypadAt = top.get('keypad');
    return {
      file: this.y.file,
      vocab: this.vocab,
      greeting,
      fallback,
      story,
      rules,
      keypad: keypadAt ? this.keypad(keypadAt) : null,
      turnCompletion,
    };
  }

  /**
   * `turn_completion: { complete: "●", short: "◐", long: "○" }` (each optional), or `true` for those defaults.
   */
  private turnCompletion(v: Located | undefined): MarkerSet | null {
    if (!v || this.y.isEmpty(v)) return null;
    if (this.y.json(v) === true) return DEFAULT_MARKERS;
    const fields = this.y.map(v, MARKER_KINDS);
    const set: Record<TurnMarkerKind, string> = { ...DEFAULT_MARKERS };
    for (const [kind, at] of fields) set[kind as TurnMarkerKind] = this.y.str(at);
    if (new Set(Object.values(set)).size !== MARKER_KINDS.length) this.y.fail(v, 'the three markers must differ');
    return set;
  }

  /** Text said as it is: no slots are known where it is used. */
  private fixedText(v: Located): string {
    const template = this.template(v, []);
    return tidyText(template.source);
  }

  private template(v: Located, known: readonly string[]): Template {
    const text = this.y.str(v);
    let template: Template;
    try {
      template = parseTemplate(text);
    } catch (err) {
      if (err instanceof TemplateSyntaxError) this.y.fail(v, err.message);
      throw err;
    }
    for (const slot of template.slots) {
      if (!known.includes(slot)) {
        const hint = known.length ? `known here: ${known.join(', ')}` : 'no slots are known here';
        this.y.fail(v, `{{${slot}}} is not captured by "when" nor listed in "needs" (${hint})`);
      }
    }
    return template;
  }

  private slotName(v: Located): string {
    const name = this.y.str(v);
    if (!NAME.test(name)) this.y.fail(v, `"${name}" is not a slot name (lowercase letters, digits, _)`);
    return name;
  }

  private compileVocab(v: Located): void {
    const defs = this.y.map(v, null);
    for (const [name, def] of defs) {
      if (!NAME.test(name)) this.y.fail(def, `"${name}" is not a vocabulary name (lowercase letters, digits, _)`);
    }
    const resolving = new Set<string>();
    const resolve = (name: string, from: Located): VocabEntry[] => {
      const done = this.vocab.get(name);
      if (done) return done;
      const def = defs.get(name);
      if (!def) this.y.fail(from, `unknown vocabulary "${name}" (defined: ${[...defs.keys()].join(', ') || 'none'})`);
      if (resolving.has(name)) this.y.fail(from, `vocabulary "${name}" includes itself`);
      resolving.add(name);
      const entries: VocabEntry[] = [];
      if (this.y.isSeq(def)) {
        // A list names other vocabularies: their union ("place" = cities and countries).
        for (const item of this.y.seq(def)) entries.push(...resolve(this.y.str(item).replace(/^\$/, ''), item));
      } else {
        for (const [canonical, phrasesAt] of this.y.map(def, null)) {
          const phrases = this.y.isEmpty(phrasesAt)
            ? [canonical]
            : this.y.seqOrOne(phrasesAt).map((p) => this.y.str(p));
          for (const phrase of phrases) {
            const normalized = normalizeText(phrase, true);
            if (!normalized) this.y.fail(phrasesAt, `"${phrase}" has no words once normalized`);
            entries.push({ canonical, pattern: phrasePattern(normalized) });
          }
        }
        if (entries.length === 0) this.y.fail(def, 'a vocabulary needs at least one entry');
      }
      resolving.delete(name);
      this.vocab.set(name, entries);
      return entries;
    };
    for (const [name, def] of defs) resolve(name, def);
  }

  private term(v: Located): Term {
    const source = this.y.str(v);
    const alternatives: TermAlternative[] = source.split('|').map((raw) => {
      const alt = raw.trim();
      if (alt.startsWith('$')) {
        const name = alt.slice(1);
        if (!this.vocab.has(name)) {
          this.y.fail(
            v,
            `unknown vocabulary "$${name}" ` +
              `(defined: ${[...this.vocab.keys()].map((k) => `$${k}`).join(', ') || 'none'})`,
          );
        }
        return { kind: 'vocab', name };
      }
      const normalized = normalizeText(alt, true);
      if (!normalized) this.y.fail(v, `"${source}" has an empty alternative`);
      if (/\*[a-z0-9]|(^| )\*/.test(normalized))
        this.y.fail(v, `"${alt}": a * goes at the end of a word ("restaurant*")`);
      return { kind: 'phrase', pattern: phrasePattern(normalized) };
    });
    return { source, alternatives };
  }

  private condition(v: Located): Condition {
    // A bare string is one `all:` term: a lone `$vocab` captures its slot as it does there.
    if (this.y.isScalar(v)) {
      const term = this.term(v);
      return { all: [term], any: [], none: [], regex: null, captures: vocabCaptures([term]) };
    }
    const c = this.y.map(v, ['all', 'any', 'none', 'regex']);
    if (c.size === 0) this.y.fail(v, 'a condition needs at least one of all, any, none, regex');
    const terms = (key: string): Term[] => {
      const at = c.get(key);
      return at ? this.y.seqOrOne(at).map((t) => this.term(t)) : [];
    };
    const all = terms('all');
    const captures = vocabCaptures(all);
    let regex: RegExp | null = null;
    const regexAt = c.get('regex');
    if (regexAt) {
      const source = this.y.str(regexAt);
      try {
        regex = new RegExp(source);
      } catch (err) {
        this.y.fail(regexAt, `invalid regular expression: ${(err as Error).message}`);
      }
      // Matching an empty alternative lists every named group of the pattern.
      const groups = Object.keys(new RegExp(`${source}|`).exec('')?.groups ?? {});
      for (const g of groups) {
        if (!NAME.test(g)) this.y.fail(regexAt, `group name "${g}" is not a slot name (lowercase letters, digits, _)`);
      }
      captures.push(...groups);
    }
    return { all, any: terms('any'), none: terms('none'), regex, captures };
  }

  private when(v: Located): Condition[] {
    const conds = this.y.seqOrOne(v).map((c) => this.condition(c));
    if (conds.length === 0) this.y.fail(v, 'expected at least one condition');
    return conds;
  }

  private rule(v: Located, marked: boolean): RuleSpec {
    const r = this.y.map(v, ['name', 'when', 'needs', 'marker', ...RESPONDER_FIELDS], ['when']);
    const markerAt = r.get('marker');
    let marker: TurnMarkerKind = 'complete';
    if (markerAt) {
      const kind = this.y.str(markerAt);
      if (!marked) this.y.fail(markerAt, 'a rule marker needs a top-level turn_completion: block');
      if (!isMarkerKind(kind))
        this.y.fail(markerAt, `"${kind}" is not a marker kind (expected one of: ${MARKER_KINDS.join(', ')})`);
      marker = kind;
    }
    // An incomplete turn is held open: the bot says nothing, so it needs no reply.
    if (!r.has('reply') && marker === 'complete') this.y.fail(v, 'missing required field "reply"');
    const nameAt = r.get('name');
    const name = nameAt ? this.y.str(nameAt) : v.field;
    const when = this.when(r.get('when')!);
    const needsAt = r.get('needs');
    const needs = needsAt ? this.y.seqOrOne(needsAt).map((n) => this.slotName(n)) : [];
    // A slot is usable when every alternative of `when` captures it, or `needs` guarantees it.
    const captured = when.map((c) => c.captures).reduce((acc, caps) => acc.filter((s) => caps.includes(s)));
    return { name, when, needs, marker, ...this.responder(r, [...new Set([...captured, ...needs])]) };
  }

  private responder(fields: Map<string, Located>, known: readonly string[]): Responder {
    const callsAt = fields.get('calls');
    const calls = callsAt ? this.y.seqOrOne(callsAt).map((c) => this.call(c, known)) : [];
    // The reply may use what the calls return; args and remember may not (they are rendered before the calls run).
    const fromResults = calls.flatMap((c) => c.resultSlots.map(([slot]) => slot));
    const replyAt = fields.get('reply');
    const reply = replyAt ? this.template(replyAt, [...known, ...fromResults]) : parseTemplate('');
    const rememberAt = fields.get('remember');
    const remember: Array<readonly [string, Template]> = [];
    if (rememberAt) {
      for (const [slot, value] of this.y.map(rememberAt, null)) {
        if (!NAME.test(slot)) this.y.fail(value, `"${slot}" is not a slot name (lowercase letters, digits, _)`);
        remember.push([slot, this.template(value, known)]);
      }
    }
    return { reply, calls, remember };
  }

  private call(v: Located, known: readonly string[]): CallSpec {
    const c = this.y.map(v, ['name', 'args', 'duration_ms', 'result', 'result_slots'], ['name']);
    const argsAt = c.get('args');
    const args = argsAt && !this.y.isEmpty(argsAt) ? this.y.json(argsAt) : {};
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      this.y.fail(argsAt!, 'expected a mapping of argument names to values');
    const resultAt = c.get('result');
    const result = resultAt ? this.y.json(resultAt) : null;
    for (const [at, value] of [
      [argsAt, args],
      [resultAt, result],
    ] as const) {
      if (at) this.checkJsonTemplates(at, value, known);
    }
    const durationAt = c.get('duration_ms');
    const slotsAt = c.get('result_slots');
    const resultSlots: Array<readonly [string, string]> = [];
    if (slotsAt) {
      for (const [slot, pathAt] of this.y.map(slotsAt, null)) {
        if (!NAME.test(slot)) this.y.fail(pathAt, `"${slot}" is not a slot name (lowercase letters, digits, _)`);
        resultSlots.push([slot, this.y.str(pathAt)]);
      }
    }
    return {
      name: this.y.str(c.get('name')!),
      args,
      durationMs: durationAt ? this.y.int(durationAt, 0) : 0,
      result,
      resultSlots,
    };
  }

  private checkJsonTemplates(at: Located, value: JsonValue, known: readonly string[]): void {
    if (typeof value === 'string') {
      try {
        const missing = parseTemplate(value).slots.find((s) => !known.includes(s));
        if (missing) this.y.fail(at, `{{${missing}}} is not captured by "when" nor listed in "needs"`);
      } catch (err) {
        if (err instanceof TemplateSyntaxError) this.y.fail(at, err.message);
        throw err;
      }
    } else if (Array.isArray(value)) {
      for (const item of value) this.checkJsonTemplates(at, item, known);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) this.checkJsonTemplates(at, item, known);
    }
  }

  private keypad(v: Located): KeypadSpec {
    const k = this.y.map(v, ['options', 'invalid'], ['options', 'invalid']);
    const options = new Map<string, KeypadOption>();
    for (const [key, optionAt] of this.y.map(k.get('options')!, null)) {
      if (!/^[0-9*]+$/.test(key))
        this.y.fail(optionAt, `keypad key "${key}" must be digits or * (the # key ends an entry)`);
      options.set(key, this.keypadOption(key, optionAt));
    }
    return { options, invalid: this.fixedText(k.get('invalid')!) };
  }

  private keypadOption(key: string, v: Located): KeypadOption {
    if (this.y.isScalar(v)) return { key, reply: this.template(v, []), calls: [], remember: [], collect: null };
    const o = this.y.map(v, [...RESPONDER_FIELDS, 'collect'], ['reply']);
    const collectAt = o.get('collect');
    let collect: KeypadOption['collect'] = null;
    if (collectAt) {
      const c = this.y.map(collectAt, ['slot', ...RESPONDER_FIELDS], ['slot', 'reply']);
      const slot = this.slotName(c.get('slot')!);
      collect = { slot, then: this.responder(c, [slot]) };
    }
    return { key, ...this.responder(o, []), collect };
  }
}

/**
 * The slots `all:` terms capture: each that is exactly one `$vocab` (an alternative of several says nothing certain).
 */
function vocabCaptures(all: readonly Term[]): string[] {
  return all.flatMap((t) =>
    t.alternatives.length === 1 && t.alternatives[0].kind === 'vocab' ? [t.alternatives[0].name] : [],
  );
}
