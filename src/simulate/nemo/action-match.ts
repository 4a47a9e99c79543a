import type { SimulationEntry } from '../../results/index.js';
import type { NemoSignalValue } from '../../results/nemo.js';
import { SuccessSignal, type NemoNormalization } from '../../scenario/nemo/types.js';

/**
 * ACTION_MATCH, after NeMo's `check_if_task_success`: the reference answer against the actions the bot recorded.
 * Both sides go through `normalize_scenario_payload` (a one-item list of dicts is the dict), a dict is a one-item
 * list, and a one-item reference is held against the **last** predicted action only. Every reference item must be
 * matched by a distinct predicted item, in any order; a predicted dict may carry keys the reference does not name,
 * and the prediction may hold extra items unless `disallow_extra_items` (then the lengths are equal: a bijection).
 * Nested lists and dicts follow the same rules; scalars compare as text after the scenario's normalization flags.
 */

export type ActionNormalization = Pick<
  NemoNormalization,
  'ignore_capitalization' | 'ignore_punctuation' | 'clean_text' | 'disallow_extra_items'
>;

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** NeMo's `normalize_scenario_payload`: a one-item list holding a dict is that dict. */
export function normalizeScenarioPayload(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 && isPlain(value[0]) ? value[0] : value;
}

/** A scalar as Python's `str()` writes it, then the flags. */
function normalizeScalar(value: unknown, flags: ActionNormalization): string {
  let text =
    value === null || value === undefined
      ? 'None'
      : typeof value === 'boolean'
        ? value
          ? 'True'
          : 'False'
        : String(value);
  if (flags.ignore_capitalization) text = text.toLowerCase();
  if (flags.ignore_punctuation) text = text.replace(/\p{P}/gu, '');
  if (flags.clean_text) text = text.trim().replace(/\s+/g, ' ');
  return text;
}

export function valuesMatch(ref: unknown, pred: unknown, flags: ActionNormalization): boolean {
  if (Array.isArray(ref)) return Array.isArray(pred) && listsMatch(ref, pred, flags);
  if (isPlain(ref))
    return isPlain(pred) && Object.keys(ref).every((k) => k in pred && valuesMatch(ref[k], pred[k], flags));
  if (Array.isArray(pred) || isPlain(pred)) return false;
  return normalizeScalar(ref, flags) === normalizeScalar(pred, flags);
}

function listsMatch(ref: readonly unknown[], pred: readonly unknown[], flags: ActionNormalization): boolean {
  if (flags.disallow_extra_items ? ref.length !== pred.length : ref.length > pred.length) return false;
  return unmatchedReference(ref, pred, flags) === -1;
}

/**
 * A maximum matching of reference items to distinct predicted items (augmenting paths: order-free, and a greedy
 * first fit cannot steal the one item a later reference needs). The first reference index left unmatched, or -1.
 */
function unmatchedReference(ref: readonly unknown[], pred: readonly unknown[], flags: ActionNormalization): number {
  const fits = ref.map((r) => pred.flatMap((p, j) => (valuesMatch(r, p, flags) ? [j] : [])));
  const owner: number[] = pred.map(() => -1);
  const assign = (i: number, seen: Set<number>): boolean => {
    for (const j of fits[i]) {
      if (seen.has(j)) continue;
      seen.add(j);
      if (owner[j] === -1 || assign(owner[j], seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < ref.length; i++) if (!assign(i, new Set())) return i;
  return -1;
}

/** Top-level items, after NeMo's normalization, with the last-dict rule applied. */
function topLevel(reference: unknown, predicted: readonly unknown[]): { ref: unknown[]; pred: unknown[] } {
  const asList = (v: unknown): unknown[] => {
    const n = normalizeScenarioPayload(v);
    return Array.isArray(n) ? [...n] : [n];
  };
  const ref = asList(reference);
  let pred = asList(predicted);
  if (ref.length === 1 && pred.length > 1) pred = [pred[pred.length - 1]];
  return { ref, pred };
}

const show = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/** Why a reference item found no partner: the closest candidate (most keys equal) and the keys it differs on. */
function closest(ref: unknown, pred: readonly unknown[], flags: ActionNormalization): string {
  if (pred.length === 0) return 'nothing to match it against';
  if (!isPlain(ref)) return `the candidates were ${show(pred)}`;
  const differsOn = (p: unknown): string[] =>
    Object.keys(ref).filter((k) => !isPlain(p) || !(k in p) || !valuesMatch(ref[k], p[k], flags));
  let b = { at: 0, differs: differsOn(pred[0]) };
  for (let at = 1; at < pred.length; at++) {
    const differs = differsOn(pred[at]);
    if (differs.length < b.differs.length) b = { at, differs };
  }
  const cand = pred[b.at];
  if (!isPlain(cand)) return `the closest candidate ${show(cand)} is not an object`;
  const parts = b.differs.map((k) => {
    if (!(k in cand)) return `${k}: missing`;
    const r = ref[k];
    const c = cand[k];
    if (Array.isArray(r) && Array.isArray(c)) {
      const at = unmatchedReference(r, c, flags);
      return at === -1
        ? `${k}: ${c.length} item(s) against ${r.length} (disallow_extra_items)`
        : `${k}: no item matches ${show(r[at])} (the bot's: ${show(c)})`;
    }
    return `${k}: ${show(c)} vs ${show(r)}`;
  });
  return `the closest candidate (#${b.at + 1}${typeof cand.name === 'string' ? ` ${cand.name}` : ''}) differs on ${
    parts.join('; ') || 'item count'
  }`;
}

/** The predicted actions: the summary's, or (`action_source: 'calls'`) the bot's uncancelled calls. */
export function predictedActions(
  source: 'summary' | 'calls',
  summaryActions: readonly Plain[] | undefined,
  transcript: readonly SimulationEntry[],
): Plain[] | undefined {
  if (source === 'summary') return summaryActions ? [...summaryActions] : undefined;
  return transcript.flatMap((e) =>
    e.kind === 'call' && !e.cancelled ? [{ name: e.name ?? null, arguments: e.args ?? {} }] : [],
  );
}

/** `predicted` undefined: the bot gave none (`whyNone` says why): false, never N/A. */
export function actionMatch(
  reference: unknown,
  predicted: readonly Plain[] | undefined,
  flags: ActionNormalization,
  whyNone = 'no summary',
): NemoSignalValue {
  const signal = SuccessSignal.ACTION_MATCH;
  if (predicted === undefined) return { signal, value: false, reason: `the bot returned no actions (${whyNone})` };
  const { ref, pred } = topLevel(reference, predicted);
  const missed = unmatchedReference(ref, pred, flags);
  const extra = flags.disallow_extra_items && ref.length !== pred.length;
  if (missed === -1 && !extra) {
    const which = pred.length === predicted.length ? "the bot's actions" : "the bot's last action";
    return { signal, value: true, reason: `all ${ref.length} reference item(s) matched ${which}` };
  }
  if (predicted.length === 0) return { signal, value: false, reason: 'the bot recorded no actions' };
  if (missed === -1)
    return {
      signal,
      value: false,
      reason: `disallow_extra_items: ${pred.length} predicted item(s) against ${ref.length} in the reference`,
    };
  const item = ref[missed];
  return {
    signal,
    value: false,
    reason: `reference item #${missed + 1} ${show(item)} unmatched: ${closest(item, pred, flags)}`,
  };
}
