/**
 * The reference bot's brain: a deterministic, scripted stand-in for an LLM.
 * It maps what the user said (typed text or PocketSphinx output) or pressed
 * (DTMF) to a reply streamed in word chunks, the function calls to report
 * before it, and slots to remember. Pure but for reading files: the brain
 * file, and the `--library` folder it searches for documents.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../core/errors.js';
import { compileBrain, type BrainSpec, type Responder } from './compile.js';
import { matchWhen, type Captures } from './matching.js';
import { chunkText, normalizeText, parseTemplate, renderTemplate, splitSentences, tidyText } from './text.js';
import { markReply, type ReplyMarker, type TurnMarkerKind } from './markers.js';
import { BrainError, type JsonValue } from './yaml-reader.js';
import { answerFromDocuments, type DocumentAnswer, type DocumentsState } from './document-answers.js';
import { DocumentIndex } from './documents.js';
import type { DocumentLibrary } from './library.js';
import { parseDocumentsContext } from '../../protocol/documents.js';

export { BrainError, type JsonValue } from './yaml-reader.js';
export type { ReplyMarker } from './markers.js';
export { normalizeText } from './text.js';

/** A function call the bot reports (`llm-function-call-in-progress`) and runs for `durationMs`. */
export interface PlannedCall {
  name: string;
  args: { [key: string]: JsonValue };
  durationMs: number;
  result: JsonValue;
  /** Unique per connection: `call_1`, `call_2`, ... */
  toolCallId: string;
}

export interface Reply {
  /** Word chunks as an LLM streams them; `chunks.join('') === text`. */
  chunks: string[];
  text: string;
  /** The text cut at sentence ends, for speaking it sentence by sentence. */
  sentences: string[];
  /** Calls to report and run before the reply is streamed. */
  calls: PlannedCall[];
  /** The long interruptible story: stream it slowly enough to be interrupted. */
  isStory: boolean;
  /**
   * What produced it: `greeting`, `story`, `rule:<name>`, `keypad:<key>`, `keypad:<key>:collected`, `keypad:invalid`,
   * `fallback`, `documents:<what>` (document-answers.ts).
   */
  source: string;
  /** With a `turn_completion:` brain: the marker the response carries (markers.ts); an incomplete turn says nothing. */
  marker?: ReplyMarker;
}

export type BrainInput = { kind: 'text'; text: string } | { kind: 'dtmf'; digits: string };

/** A message of an `eval-context` (OpenAI-style: `content` is text or a list of `{type, text}` parts). */
export interface ContextMessage {
  role: string;
  content: unknown;
}

export interface BrainMessage {
  role: string;
  content: string;
}

/**
 * Runs a planned call against the connection's scenario state (refbot/state/): its result, or undefined when the
 * call is no tool of the active domain (the brain's scripted result stands).
 */
export interface BrainTools {
  run(name: string, args: { [key: string]: JsonValue }): JsonValue | undefined;
}

/** Everything one connection's conversation has accumulated. */
export class BrainMemory {
  /** The connection's scenario state, when the bot keeps one (NeMo's control plane). */
  tools: BrainTools | null = null;
  /** Remembered slots (`name` → "Alex"), filled by rules' `remember:`. */
  readonly slots = new Map<string, string>();
  /** The conversation as plain messages, greeting and replies included. */
  history: BrainMessage[] = [];
  /** The keypad option waiting for digits (after "3": a callback number), or null. */
  keypadCollecting: string | null = null;
  /** What it answers from (document-answers.ts): `--documents`, the RTVI message, eval-context, `--library`. */
  readonly documents: DocumentsState;
  private callCount = 0;

  constructor(documents: { index?: DocumentIndex; library?: DocumentLibrary | null } = {}) {
    this.documents = { index: documents.index ?? new DocumentIndex(), library: documents.library ?? null };
  }

  nextToolCallId(): string {
    this.callCount += 1;
    return `call_${this.callCount}`;
  }
}

/** `DTMF: 123#` typed or seeded as text is keypad input, as a Pipecat bot's aggregator would have produced it. */
const DTMF_TEXT = /^\s*dtmf:\s*([0-9*#]+)\s*$/i;
const SEED_ROLES = new Set(['user', 'system', 'developer']);

export class Brain {
  constructor(readonly spec: BrainSpec) {}

  get file(): string {
    return this.spec.file;
  }

  greeting(memory?: BrainMemory): Reply {
    const reply = this.marked(makeReply(this.spec.greeting, [], false, 'greeting'));
    memory?.history.push({ role: 'assistant', content: reply.text });
    return reply;
  }

  respond(input: BrainInput, memory: BrainMemory): Reply {
    if (input.kind === 'dtmf') return this.record(memory, `DTMF: ${input.digits}`, this.keypad(input.digits, memory));
    const typedDigits = DTMF_TEXT.exec(input.text)?.[1];
    if (typedDigits !== undefined) return this.record(memory, `DTMF: ${typedDigits}`, this.keypad(typedDigits, memory));
    // Speaking instead of typing digits abandons a pending keypad entry.
    memory.keypadCollecting = null;
    return this.record(memory, input.text, this.answer(normalizeText(input.text), memory, input.text));
  }

  /**
   * Replaces the conversation with `messages` (an `eval-context`). Slots are
   * extracted with the same rules a live utterance goes through, sentence by
   * sentence, from every message but the assistant's: "The user has already
   * introduced themselves as Alex" makes "what is my name" answer Alex.
   */
  seedContext(messages: readonly ContextMessage[], memory: BrainMemory): void {
    memory.slots.clear();
    memory.keypadCollecting = null;
    memory.history = messages.map((m) => ({ role: m.role, content: messageText(m.content) }));
    // The documents a context carries replace the previous context's; those indexed otherwise stay.
    memory.documents.index.removeSource('context');
    for (const message of memory.history)
      if (message.role === 'system')
        for (const doc of parseDocumentsContext(message.content)) memory.documents.index.add(doc, 'context');
    for (const message of memory.history) {
      if (!SEED_ROLES.has(message.role)) continue;
      for (const sentence of splitSentences(message.content)) {
        const text = normalizeText(sentence);
        // Only rules that remember something can seed; the first of them that matches does.
        for (const rule of this.spec.rules) {
          if (rule.remember.length === 0) continue;
          const captures = this.ruleMatch(rule, text, memory);
          if (!captures) continue;
          this.remember(rule, captures, memory);
          break;
        }
      }
    }
  }

  private record(memory: BrainMemory, said: string, answer: Reply): Reply {
    const reply = this.marked(answer);
    memory.history.push({ role: 'user', content: said }, { role: 'assistant', content: reply.text });
    return reply;
  }

  /** The reply with its turn-completion marker, when the brain writes markers (a rule's own kind, else complete). */
  private marked(reply: Reply): Reply {
    const markers = this.spec.turnCompletion;
    if (!markers) return reply;
    const rule = reply.source.startsWith('rule:')
      ? this.spec.rules.find((r) => `rule:${r.name}` === reply.source)
      : undefined;
    const kind: TurnMarkerKind = rule?.marker ?? 'complete';
    return { ...reply, marker: markReply(markers, kind, reply.text) };
  }

  private answer(text: string, memory: BrainMemory, said: string): Reply {
    const story = this.spec.story;
    if (story && matchWhen(text, story.when, this.spec.vocab)) return makeReply(story.text, [], true, 'story');
    for (const rule of this.spec.rules) {
      const captures = this.ruleMatch(rule, text, memory);
      if (captures) return this.run(rule, captures, memory, `rule:${rule.name}`);
    }
    const fromDocuments = answerFromDocuments(said, memory.documents);
    if (fromDocuments) return documentReply(fromDocuments, memory);
    return makeReply(this.spec.fallback, [], false, 'fallback');
  }

  private ruleMatch(rule: BrainSpec['rules'][number], text: string, memory: BrainMemory): Captures | null {
    const captures = matchWhen(text, rule.when, this.spec.vocab);
    if (!captures) return null;
    return rule.needs.every((slot) => captures.has(slot) || memory.slots.has(slot)) ? captures : null;
  }

  private keypad(digits: string, memory: BrainMemory): Reply {
    const keypad = this.spec.keypad;
    if (!keypad) return makeReply(this.spec.fallback, [], false, 'fallback');
    // '#' ends an entry; it is not part of what was entered.
    const entry = digits.replace(/#/g, '');
    const pending = memory.keypadCollecting === null ? undefined : keypad.options.get(memory.keypadCollecting);
    memory.keypadCollecting = null;
    if (pending?.collect) {
      if (entry === '') {
        memory.keypadCollecting = pending.key;
        return this.run(pending, new Map(), memory, `keypad:${pending.key}`);
      }
      // The entry is remembered like any slot, so later rules can use it too.
      memory.slots.set(pending.collect.slot, entry);
      return this.run(pending.collect.then, new Map(), memory, `keypad:${pending.key}:collected`);
    }
    const option = keypad.options.get(entry);
    if (!option) return makeReply(keypad.invalid, [], false, 'keypad:invalid');
    if (option.collect) memory.keypadCollecting = option.key;
    return this.run(option, new Map(), memory, `keypad:${option.key}`);
  }

  private run(responder: Responder, captures: Captures, memory: BrainMemory, source: string): Reply {
    const lookup = (slot: string): string | undefined => captures.get(slot) ?? memory.slots.get(slot);
    // A call that is a tool of the scenario state runs now (before the reply is written, as an LLM reads a tool's
    // result before answering): its result replaces the scripted one, and a failure replaces the reply.
    const fromResults = new Map<string, string>();
    const failures: string[] = [];
    const calls: PlannedCall[] = [];
    for (const call of responder.calls) {
      const args = renderJson(call.args, lookup) as { [key: string]: JsonValue };
      const ran = memory.tools?.run(call.name, args);
      const result = ran !== undefined ? ran : renderJson(call.result, lookup);
      const error = ran !== undefined ? toolError(ran) : null;
      if (error !== null) failures.push(error);
      for (const [slot, path] of call.resultSlots) {
        const value = valueAtPath(result, path);
        if (value !== undefined) fromResults.set(slot, value);
      }
      calls.push({ name: call.name, args, durationMs: call.durationMs, result, toolCallId: memory.nextToolCallId() });
    }
    const failed = failures.length ? failures[0] : null;
    const text =
      failed !== null
        ? `Sorry, that did not work: ${failed}.`
        : renderTemplate(responder.reply, (slot) => fromResults.get(slot) ?? lookup(slot) ?? '(unknown)');
    this.remember(responder, captures, memory);
    return makeReply(text, calls, false, source);
  }

  private remember(responder: Responder, captures: Captures, memory: BrainMemory): void {
    const lookup = (slot: string): string | undefined => captures.get(slot) ?? memory.slots.get(slot);
    const values = responder.remember.map(
      ([slot, template]) => [slot, tidyText(renderTemplate(template, lookup))] as const,
    );
    for (const [slot, value] of values) memory.slots.set(slot, value);
  }
}

function makeReply(rawText: string, calls: PlannedCall[], isStory: boolean, source: string): Reply {
  const text = tidyText(rawText);
  return { chunks: chunkText(text), text, sentences: splitSentences(text), calls, isStory, source };
}

/** The calls a documents answer made take this long each (an index lookup, not a network round trip). */
const DOCUMENT_CALL_MS = 40;

function documentReply(answer: DocumentAnswer, memory: BrainMemory): Reply {
  const calls = answer.calls.map((c) => ({
    name: c.name,
    args: c.args,
    durationMs: DOCUMENT_CALL_MS,
    result: c.result,
    toolCallId: memory.nextToolCallId(),
  }));
  return makeReply(answer.text, calls, false, answer.source);
}

/** A tool result that says it failed (`{success: false, error}`): the error text. */
function toolError(result: JsonValue): string | null {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  if (result.success !== false) return null;
  return typeof result.error === 'string' ? result.error : 'the tool failed';
}

/** A scalar at a dotted path of a result, as text (objects and lists have no one text). */
function valueAtPath(value: JsonValue, path: string): string | undefined {
  let at: JsonValue | undefined = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = at[key];
  }
  return at === undefined || at === null || typeof at === 'object' ? undefined : String(at);
}

function renderJson(value: JsonValue, lookup: (slot: string) => string | undefined): JsonValue {
  if (typeof value === 'string') return renderTemplate(parseTemplate(value), lookup);
  if (Array.isArray(value)) return value.map((v) => renderJson(v, lookup));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderJson(v, lookup)]));
  }
  return value;
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      part !== null && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : '',
    )
    .filter((t) => t !== '')
    .join(' ');
}

export function parseBrain(yamlText: string, file = '<brain>'): Brain {
  return new Brain(compileBrain(yamlText, file));
}

/**
 * The default brain shipped with the package: fixtures/brain.yaml under the
 * package root, found by walking up from this module (src/refbot/brain or
 * dist/refbot/brain) to the folder holding package.json.
 */
export function defaultBrainPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new BrainError({
        file: 'brain.yaml',
        line: null,
        col: null,
        field: '',
        detail: 'cannot find the earshot package root',
      });
    dir = parent;
  }
  return join(dir, 'fixtures', 'brain.yaml');
}

export function loadBrain(path: string = defaultBrainPath()): Brain {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BrainError({
      file: path,
      line: null,
      col: null,
      field: '',
      detail: `cannot read the brain file: ${errorMessage(err)}`,
    });
  }
  return parseBrain(text, path);
}
