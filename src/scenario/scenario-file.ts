import { childPath, closest, describeValue, diagnosticAt, type Diagnostic } from './diagnostics.js';
import { otherKindKeys, SCENARIO_FILE_SPEC } from './file-fields.js';
import { NEMO_FORM_KEYS } from './nemo/fields.js';
import { entry, type YEntry, type YMap, type YNode } from './ynode.js';

/**
 * A scenario file as Pipecat 1.11 reads it (`scenario.py`'s `EvalScenarioFile`):
 * a `name:` and a `scenarios:` list; every other top-level key is a default for
 * each scenario, which a scenario's own key replaces whole (nothing is
 * merged). A scenario is named `<file name>/<scenario name>` and is scripted
 * (`turns:`) or a simulation (`persona:`) once its defaults are applied. A file
 * without `scenarios:` is, deprecated, one scenario under the file's `name:`.
 *
 * This module only splits the file into one mapping per scenario, with each
 * value's source location kept; the per-kind normalizers check each mapping.
 */

export type RunnableKind = 'script' | 'simulation';

/** One scenario's mapping, ready for its kind's field table. */
export interface ScenarioPart {
  /** `<file name>/<scenario name>`, or the file's name for the deprecated shape. */
  id: string;
  index: number;
  /** Undefined when the mapping is neither kind (or both): `diagnostics` says why. */
  kind?: RunnableKind;
  /** A simulation in NVIDIA NeMo's form (`user_persona:` / `user_task:`), checked against its own table. */
  nemo?: boolean;
  map: YMap;
  /** Problems found while splitting that belong to this scenario. */
  diagnostics: Diagnostic[];
}

export interface SplitFile {
  format: 'list' | 'top-level';
  /** Nodes the per-scenario checks will visit: shared defaults count once per scenario. */
  nodes: number;
  /** The file's `name:`, when it is a non-empty string. */
  name?: string;
  parts: ScenarioPart[];
  /** Problems of the file as a whole (its name, its `scenarios:` list, the deprecated shape). */
  diagnostics: Diagnostic[];
}

/** Whether a top-level mapping holds scenarios (else: a manifest, a fragment some file includes, or a mistake). */
export function isScenarioFileShape(doc: YMap): boolean {
  return ['scenarios', 'turns', 'persona', ...NEMO_FORM_KEYS].some((k) => entry(doc, k) !== undefined);
}

/** Why a mapping holds no scenario, with the likely misspelling of the key it lacks. */
export function missingScenarioMessage(map: YMap, listed: boolean): string {
  const message = listed
    ? "a scenario needs 'turns:' (scripted) or 'persona:' (a simulation), of its own or from the file's top level"
    : "a scenario file needs 'scenarios:' (a list of scenarios; 'turns:' or 'persona:' at the top level is the " +
      'deprecated one-scenario shape)';
  const wanted = listed ? ['turns', 'persona'] : ['scenarios', 'turns', 'persona'];
  const typo = map.entries
    .filter((e) => !Object.hasOwn(SCENARIO_FILE_SPEC.fields, e.key))
    .map((e) => [e.key, closest(e.key, wanted)] as const)
    .find(([, guess]) => guess !== undefined);
  return typo ? `${message}; did you mean '${typo[1]}:' for '${typo[0]}:'?` : message;
}

const KIND_KEYS: Record<RunnableKind, string> = { script: 'turns', simulation: 'persona' };

/**
 * Splits a scenario file's top-level mapping into its scenarios. `stem` names them when the file's `name:` is unusable.
 */
export function splitScenarioFile(doc: YMap, stem: string): SplitFile {
  const list = entry(doc, 'scenarios');
  if (list) return splitList(doc, list, stem);
  const diagnostics: Diagnostic[] = [];
  const name = fileName(doc);
  const part = toPart(doc, name ?? stem, 0, [], false);
  if (part.kind) {
    const key = (entry(doc, KIND_KEYS[part.kind]) ??
      NEMO_FORM_KEYS.map((k) => entry(doc, k)).find((e) => e !== undefined)) as YEntry;
    diagnostics.push({
      ...diagnosticAt(
        'warning',
        key.keyLoc,
        key.key,
        `a scenario's own keys at the top level ('${key.key}:') are deprecated since Pipecat 1.11.0 ` +
          `(it loads as the one scenario '${name ?? stem}'); ` +
          `put it under a 'scenarios:' list: scenarios: [{name: ..., ${key.key}: ...}]`,
      ),
      code: 'deprecated',
    });
  }
  return { format: 'top-level', nodes: size(doc), ...(name !== undefined ? { name } : {}), parts: [part], diagnostics };
}

function fileName(doc: YMap): string | undefined {
  const value = entry(doc, 'name')?.value;
  return value ? scalarText(value) : undefined;
}

function splitList(doc: YMap, list: YEntry, stem: string): SplitFile {
  const diagnostics: Diagnostic[] = [];
  const name = fileName(doc);
  const nameEntry = entry(doc, 'name');
  if (!nameEntry) {
    diagnostics.push(
      diagnosticAt(
        'error',
        doc.loc,
        '',
        "missing required key 'name' (the file's name: each scenario is named <file name>/<scenario name>)",
        'a non-empty string',
      ),
    );
  } else if (name === undefined) {
    diagnostics.push(
      diagnosticAt(
        'error',
        nameEntry.value.loc,
        'name',
        `expected a non-empty string (the file's name), got ${describe(nameEntry.value)}`,
        'a non-empty string',
      ),
    );
  }
  const items = list.value.kind === 'seq' ? list.value.items : undefined;
  if (!items || items.length === 0) {
    const got = items ? 'an empty list' : describe(list.value);
    diagnostics.push(
      diagnosticAt(
        'error',
        list.value.loc,
        'scenarios',
        `expected a non-empty list of scenarios, got ${got}`,
        'a non-empty list',
      ),
    );
    return { format: 'list', nodes: size(doc), ...(name !== undefined ? { name } : {}), parts: [], diagnostics };
  }
  const defaults = doc.entries.filter((e) => e.key !== 'scenarios' && e.key !== 'name');
  const shared = defaults.reduce((n, e) => n + size(e.value), 0);
  const nodes = items.reduce((n, item) => n + shared + size(item), 0);
  const parts: ScenarioPart[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const p = `scenarios[${index}]`;
    const own: Diagnostic[] = [];
    if (item.kind !== 'map') {
      own.push(
        diagnosticAt(
          'error',
          item.loc,
          p,
          `a scenario is a mapping (name:, then turns: or persona:), got ${describe(item)}`,
          'a mapping',
        ),
      );
      parts.push({
        id: `${name ?? stem}/#${index}`,
        index,
        map: { kind: 'map', entries: [], loc: item.loc },
        diagnostics: own,
      });
      return;
    }
    const nested = entry(item, 'scenarios');
    if (nested)
      own.push(
        diagnosticAt(
          'error',
          nested.keyLoc,
          childPath(p, 'scenarios'),
          "a scenario cannot hold a 'scenarios:' list of its own",
        ),
      );
    const entryName = entry(item, 'name');
    const label = entryName ? scalarText(entryName.value) : undefined;
    if (!entryName)
      own.push(
        diagnosticAt(
          'error',
          item.loc,
          p,
          "a scenario needs a 'name:' (it is named <file name>/<name>)",
          'a non-empty string',
        ),
      );
    else if (label === undefined) {
      own.push(
        diagnosticAt(
          'error',
          entryName.value.loc,
          childPath(p, 'name'),
          `expected a non-empty string (the scenario's name), got ${describe(entryName.value)}`,
          'a non-empty string',
        ),
      );
    }
    const id = `${name ?? stem}/${label ?? `#${index}`}`;
    const previous = seen.get(id);
    if (label !== undefined && entryName) {
      if (previous !== undefined) {
        own.push(
          diagnosticAt(
            'error',
            entryName.value.loc,
            childPath(p, 'name'),
            `duplicate scenario name '${id}': scenario #${previous} has it too`,
          ),
        );
      } else seen.set(id, index);
    }
    const overridden = new Set(item.entries.map((e) => e.key));
    const merged: YEntry[] = defaults.filter((e) => !overridden.has(e.key));
    // The scenario's name is its id; a missing or bad one was reported above, so the checks below see a good one.
    const at = entryName?.value.loc ?? item.loc;
    merged.push({
      key: 'name',
      keyLoc: entryName?.keyLoc ?? item.loc,
      value: { kind: 'scalar', type: 'str', value: id, source: id, singleLine: true, quoted: false, loc: at },
    });
    merged.push(...item.entries.filter((e) => e.key !== 'scenarios' && e.key !== 'name'));
    parts.push(toPart({ kind: 'map', entries: merged, loc: item.loc }, id, index, own, true, overridden));
  });
  return { format: 'list', nodes, ...(name !== undefined ? { name } : {}), parts, diagnostics };
}

/** Nodes in a value, itself included. */
function size(node: YNode): number {
  if (node.kind === 'scalar') return 1;
  if (node.kind === 'seq') return node.items.reduce((n, i) => n + size(i), 1);
  return node.entries.reduce((n, e) => n + size(e.value), 1);
}

/**
 * Decides the kind (Pipecat: `persona:` → simulation, `turns:` → scripted, by
 * key presence after the defaults) and drops the defaults meant for the other
 * kind, so a shared `max_turns:` does not warn on a scripted sibling; a
 * scenario's own key of the other kind is warned about and dropped.
 */
function toPart(
  map: YMap,
  id: string,
  index: number,
  diagnostics: Diagnostic[],
  listed: boolean,
  own?: Set<string>,
): ScenarioPart {
  const turns = entry(map, 'turns');
  const persona = entry(map, 'persona');
  const where = listed ? `scenarios[${index}]` : '';
  const nemoKey = NEMO_FORM_KEYS.map((k) => entry(map, k)).find((e) => e !== undefined);
  if (persona?.value.kind === 'map') {
    diagnostics.push(
      diagnosticAt(
        'error',
        persona.keyLoc,
        childPath(where, 'persona'),
        "'persona:' is a text (Pipecat's caller); a mapping here is NeMo's persona: did you mean 'user_persona:' " +
          "(with 'user_task:' and 'success_signals: [...]', NeMo's form)?",
      ),
    );
    return { id, index, map, diagnostics };
  }
  if (nemoKey && (turns || persona)) {
    const other = (turns ?? persona) as YEntry;
    diagnostics.push(
      diagnosticAt(
        'error',
        other.keyLoc,
        childPath(where, other.key),
        `'${nemoKey.key}:' makes this a simulation in NeMo's form, which takes no '${other.key}:' ` +
          '(file-level defaults count): the caller is user_persona:/user_task:',
      ),
    );
    return { id, index, map, diagnostics };
  }
  if (nemoKey) return withoutForeign(map, id, index, diagnostics, listed, own, 'nemo');
  if (turns && persona) {
    // Blame the scenario's own key when only one is its own; else the later one.
    const ownTurns = own?.has('turns') === true;
    const ownPersona = own?.has('persona') === true;
    const later =
      ownTurns !== ownPersona
        ? ownTurns
          ? turns
          : persona
        : turns.keyLoc.line > persona.keyLoc.line
          ? turns
          : persona;
    diagnostics.push(
      diagnosticAt(
        'error',
        later.keyLoc,
        childPath(where, later.key),
        "a scenario is scripted ('turns:') or a simulation ('persona:'), not both (file-level defaults count)",
      ),
    );
    return { id, index, map, diagnostics };
  }
  if (!turns && !persona) {
    diagnostics.push(diagnosticAt('error', map.loc, where, missingScenarioMessage(map, listed)));
    return { id, index, map, diagnostics };
  }
  return withoutForeign(map, id, index, diagnostics, listed, own, turns ? 'script' : 'simulation');
}

/** Drops the defaults meant for another kind; a scenario's own key of another kind is warned about and dropped. */
function withoutForeign(
  map: YMap,
  id: string,
  index: number,
  diagnostics: Diagnostic[],
  listed: boolean,
  own: Set<string> | undefined,
  form: RunnableKind | 'nemo',
): ScenarioPart {
  const where = listed ? `scenarios[${index}]` : '';
  const kind: RunnableKind = form === 'script' ? 'script' : 'simulation';
  const foreign = otherKindKeys(form);
  const entries = map.entries.filter((e) => {
    if (!foreign.has(e.key)) return true;
    if (!listed || own?.has(e.key)) {
      const what =
        kind === 'script'
          ? "simulations; this scenario is scripted ('turns:')"
          : "scripted scenarios; this one is a simulation ('persona:')";
      diagnostics.push(
        diagnosticAt('warning', e.keyLoc, childPath(where, e.key), `ignored: '${e.key}:' applies to ${what}`),
      );
    }
    return false;
  });
  return { id, index, kind, ...(form === 'nemo' ? { nemo: true } : {}), map: { ...map, entries }, diagnostics };
}

function scalarText(node: YNode): string | undefined {
  return node.kind === 'scalar' && node.type === 'str' && String(node.value).trim() !== ''
    ? String(node.value)
    : undefined;
}

function describe(node: YNode): string {
  return describeValue(node.kind === 'scalar' ? node.value : node.kind === 'seq' ? [] : {});
}
