import { UsageError } from '../../core/errors.js';
import type {
  Conversation,
  Exchange,
  FunctionCallRecord,
  ReplyItem,
  UserInput,
  VerdictValue,
} from '../../judge/index.js';
import {
  closest,
  diagnosticAt,
  describeValue,
  formatDiagnostic,
  loadYamlTree,
  ScenarioError,
  toPlain,
  type Diagnostic,
  type SourceLocation,
  type YMap,
  type YNode,
} from '../../scenario/index.js';

/**
 * A labelled set for `earshot judge check`: cases of (criterion, conversation,
 * the verdict a careful human gives), with a category to break agreement down
 * by and a short `why`. The file:
 *
 *   judge:                        # optional: the judge.eval block, as in a scenario
 *     eval: { service: ollama, model: gemma3:4b }
 *   cases:
 *     - id: interim-weather       # unique
 *       category: interim
 *       modality: audio           # optional: text (default) or audio (the bot's lines are STT output)
 *       criterion: "the bot gives the temperature in San Francisco"
 *       conversation:             # exchanges in order; the criterion applies to the last reply
 *         - bot: "Hello! How can I help?"                     # the bot spoke first
 *         - user: "What's the weather in San Francisco?"
 *           bot:                                             # a string, or a list of segments and calls
 *             - "Let me check that for you."
 *             - { call: get_current_weather, args: { location: San Francisco } }
 *         - dtmf: "1#"                                       # keys instead of words
 *           bot: "You chose billing."
 *       expected: continue        # yes | no | continue
 *       why: "an interim reply: the answer is still coming"
 *
 * Every problem is reported at its file:line:col, all at once.
 */

export const VERDICTS: readonly VerdictValue[] = ['yes', 'no', 'continue'];

export interface LabelledCase {
  id: string;
  category: string;
  criterion: string;
  conversation: Conversation;
  expected: VerdictValue;
  why: string;
  /** Where the case starts in the file. */
  loc: SourceLocation;
}

export interface LabelSet {
  file: string;
  /** The `judge.eval` block as written, when the file has one. */
  judge?: unknown;
  /** Where `judge.eval` was written (or `judge:`), for errors about it. */
  judgeLoc?: SourceLocation;
  /** Field path under `judge.eval` → where it was written, for located config errors. */
  judgeFields: Map<string, SourceLocation>;
  cases: LabelledCase[];
}

/** A labels file that cannot be used: every located problem, one per line; exit code 2. */
export class LabelsFileError extends UsageError {
  readonly file: string;
  readonly diagnostics: Diagnostic[];
  constructor(file: string, diagnostics: Diagnostic[]) {
    const shown = diagnostics.slice(0, 20).map((d) => formatDiagnostic(d, { cwd: process.cwd() }));
    if (diagnostics.length > 20) shown.push(`… and ${diagnostics.length - 20} more`);
    super(`invalid labels file:\n${shown.join('\n')}`);
    this.name = 'LabelsFileError';
    this.file = file;
    this.diagnostics = diagnostics;
  }
}

const TOP_KEYS = ['judge', 'cases', 'description'];
const CASE_KEYS = ['id', 'category', 'modality', 'criterion', 'conversation', 'expected', 'why'];
const EXCHANGE_KEYS = ['user', 'dtmf', 'bot'];
const CALL_KEYS = ['call', 'id', 'args', 'result', 'cancelled'];

export function loadLabels(path: string): LabelSet {
  let doc: YNode;
  try {
    doc = loadYamlTree(path);
  } catch (err) {
    if (err instanceof ScenarioError) throw new LabelsFileError(err.file, err.diagnostics);
    throw err;
  }
  const reader = new Reader();
  const set = reader.labelSet(doc);
  if (reader.diagnostics.length > 0) throw new LabelsFileError(doc.loc.file, reader.diagnostics);
  return { ...set, file: doc.loc.file };
}

class Reader {
  readonly diagnostics: Diagnostic[] = [];

  labelSet(doc: YNode): Omit<LabelSet, 'file'> {
    const judgeFields = new Map<string, SourceLocation>();
    const top = this.map(doc, '');
    if (!top) return { cases: [], judgeFields };
    this.keys(top, '', TOP_KEYS);
    const out: Omit<LabelSet, 'file'> = { cases: [], judgeFields };
    const judge = field(top, 'judge');
    if (judge) {
      const block = this.map(judge, 'judge');
      if (block) {
        this.keys(block, 'judge', ['eval'], "only judge.eval is read here: the modality is each case's");
        const evalNode = field(block, 'eval');
        if (evalNode) {
          out.judge = toPlain(evalNode);
          out.judgeLoc = evalNode.loc;
          collectLocations(evalNode, 'judge.eval', judgeFields);
        } else this.error(block.loc, 'judge', 'needs an eval: block (service, model, endpoint, extra)');
      }
    }
    const cases = field(top, 'cases');
    if (!cases) this.error(top.loc, 'cases', 'missing: the list of labelled cases');
    else if (cases.kind !== 'seq' || cases.items.length === 0)
      this.error(cases.loc, 'cases', 'must be a non-empty list of cases');
    else {
      const seen = new Map<string, SourceLocation>();
      cases.items.forEach((node, i) => {
        const c = this.labelledCase(node, `cases[${i}]`);
        if (!c) return;
        const first = seen.get(c.id);
        if (first)
          this.error(c.loc, `cases[${i}].id`, `duplicate id ${JSON.stringify(c.id)} (first at line ${first.line})`);
        else seen.set(c.id, c.loc);
        out.cases.push(c);
      });
    }
    return out;
  }

  private labelledCase(node: YNode, path: string): LabelledCase | null {
    const m = this.map(node, path);
    if (!m) return null;
    this.keys(m, path, CASE_KEYS);
    const id = this.text(m, path, 'id');
    const category = this.text(m, path, 'category');
    const criterion = this.text(m, path, 'criterion');
    const why = this.text(m, path, 'why');
    const modalityNode = field(m, 'modality');
    let modality: Conversation['modality'] = 'text';
    if (modalityNode) {
      const v = scalarText(modalityNode);
      if (v === 'text' || v === 'audio') modality = v;
      else
        this.error(
          modalityNode.loc,
          `${path}.modality`,
          `must be text or audio, got ${describeValue(toPlain(modalityNode))}`,
        );
    }
    const expectedNode = field(m, 'expected');
    let expected: VerdictValue | null = null;
    if (!expectedNode) this.error(m.loc, `${path}.expected`, 'missing: yes, no or continue');
    else {
      const v = scalarText(expectedNode);
      if (v !== null && (VERDICTS as readonly string[]).includes(v)) expected = v as VerdictValue;
      else
        this.error(
          expectedNode.loc,
          `${path}.expected`,
          `must be yes, no or continue, got ${describeValue(toPlain(expectedNode))}`,
        );
    }
    const exchanges = this.conversation(field(m, 'conversation'), m.loc, `${path}.conversation`);
    if (
      id === null ||
      category === null ||
      criterion === null ||
      why === null ||
      expected === null ||
      exchanges === null
    )
      return null;
    return { id, category, criterion, why, expected, conversation: { modality, exchanges }, loc: m.loc };
  }

  private conversation(node: YNode | undefined, parent: SourceLocation, path: string): Exchange[] | null {
    if (!node) return this.error(parent, path, 'missing: the exchanges, in order');
    if (node.kind !== 'seq' || node.items.length === 0)
      return this.error(node.loc, path, 'must be a non-empty list of exchanges (user:/dtmf: and bot:)');
    const exchanges: Exchange[] = [];
    let ok = true;
    node.items.forEach((item, i) => {
      const e = this.exchange(item, `${path}[${i}]`);
      if (e) exchanges.push(e);
      else ok = false;
    });
    return ok ? exchanges : null;
  }

  private exchange(node: YNode, path: string): Exchange | null {
    const m = this.map(node, path);
    if (!m) return null;
    this.keys(m, path, EXCHANGE_KEYS);
    const userNode = field(m, 'user');
    const dtmfNode = field(m, 'dtmf');
    let user: UserInput | undefined;
    if (userNode && dtmfNode)
      return this.error(dtmfNode.loc, `${path}.dtmf`, 'an exchange opens with user: or dtmf:, not both');
    if (userNode) {
      const text = scalarText(userNode);
      if (text === null || text.trim() === '')
        return this.error(userNode.loc, `${path}.user`, 'must be the text the user said');
      user = { kind: 'text', text };
    }
    if (dtmfNode) {
      const keys = scalarText(dtmfNode);
      if (keys === null || !/^[0-9*#]+$/.test(keys))
        return this.error(
          dtmfNode.loc,
          `${path}.dtmf`,
          `must be keypad keys (0-9 * #), got ${describeValue(toPlain(dtmfNode))}`,
        );
      user = { kind: 'dtmf', keys };
    }
    const botNode = field(m, 'bot');
    const reply: ReplyItem[] = [];
    if (botNode) {
      const items = botNode.kind === 'seq' ? botNode.items : [botNode];
      for (const [i, item] of items.entries()) {
        const r = this.replyItem(item, botNode.kind === 'seq' ? `${path}.bot[${i}]` : `${path}.bot`);
        if (!r) return null;
        reply.push(r);
      }
    }
    if (!user && reply.length === 0) return this.error(m.loc, path, 'an exchange needs user:, dtmf: or bot:');
    return user ? { user, reply } : { reply };
  }

  private replyItem(node: YNode, path: string): ReplyItem | null {
    if (node.kind === 'scalar') {
      const text = scalarText(node);
      if (text === null) return this.error(node.loc, path, 'must be what the bot said, or a { call: name } mapping');
      return { kind: 'segment', text };
    }
    const m = this.map(node, path);
    if (!m) return null;
    this.keys(m, path, CALL_KEYS);
    const name = this.text(m, path, 'call');
    if (name === null) return null;
    const call: FunctionCallRecord = { kind: 'function_call', name };
    const id = field(m, 'id');
    if (id) call.tool_call_id = scalarText(id) ?? '';
    const args = field(m, 'args');
    if (args) {
      if (args.kind !== 'map')
        return this.error(args.loc, `${path}.args`, 'must be a mapping of argument names to values');
      call.args = toPlain(args) as Record<string, unknown>;
    }
    const result = field(m, 'result');
    if (result) call.result = toPlain(result);
    const cancelled = field(m, 'cancelled');
    if (cancelled) {
      if (cancelled.kind !== 'scalar' || typeof cancelled.value !== 'boolean')
        return this.error(cancelled.loc, `${path}.cancelled`, 'must be true or false');
      call.cancelled = cancelled.value;
    }
    return call;
  }

  private text(m: YMap, path: string, key: string): string | null {
    const node = field(m, key);
    if (!node) return this.error(m.loc, `${path}.${key}`, 'missing');
    const text = scalarText(node);
    if (text === null || text.trim() === '')
      return this.error(node.loc, `${path}.${key}`, `must be non-empty text, got ${describeValue(toPlain(node))}`);
    return text;
  }

  private map(node: YNode, path: string): YMap | null {
    if (node.kind === 'map') return node;
    return this.error(node.loc, path, `must be a mapping, got ${describeValue(toPlain(node))}`);
  }

  private keys(m: YMap, path: string, known: readonly string[], hint?: string): void {
    for (const e of m.entries) {
      if (known.includes(e.key)) continue;
      const near = closest(e.key, known);
      const at = path ? `${path}.${e.key}` : e.key;
      this.error(
        e.keyLoc,
        at,
        `unknown key${near ? `; did you mean ${near}?` : hint ? `; ${hint}` : ` (known: ${known.join(', ')})`}`,
      );
    }
  }

  private error(loc: SourceLocation, path: string, message: string): null {
    this.diagnostics.push(diagnosticAt('error', loc, path, message));
    return null;
  }
}

function field(m: YMap, key: string): YNode | undefined {
  return m.entries.find((e) => e.key === key)?.value;
}

/** A scalar as text: strings as they are, numbers and booleans as written (`bot: 75` is "75"); null for null. */
function scalarText(node: YNode): string | null {
  if (node.kind !== 'scalar' || node.value === null) return null;
  return typeof node.value === 'string' ? node.value : node.source;
}

function collectLocations(node: YNode, path: string, into: Map<string, SourceLocation>): void {
  into.set(path, node.loc);
  if (node.kind === 'map') for (const e of node.entries) collectLocations(e.value, `${path}.${e.key}`, into);
}
