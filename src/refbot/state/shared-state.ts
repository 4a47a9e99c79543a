/**
 * One connection's scenario state, as NeMo's bots keep it (`shared_state` and the recorded `actions`), and the
 * four control handlers NeMo's harness calls over RTVI (protocol/nemo-control.ts): `update_system_prompt` (the
 * scenario-start gate: clears the state, keeps the tool domain), `apply_initialization` (merges the seed, loads a
 * `db_path` under the eval data root, replays init functions), `get_scenario_summary` (actions, the DB's hash, the
 * DB itself on request) and `reset`. Planned calls that are tools of the active domain run here (BrainTools).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { dbHash } from '../../core/db-hash.js';
import { errorMessage } from '../../core/errors.js';
import type { InitializationResult, ScenarioSummary } from '../../protocol/index.js';
import type { BrainTools, JsonValue } from '../brain/brain.js';
import { type DomainState, InitFunctionError, type RefbotDomain } from './domain.js';
import { domainOf } from './tools.js';

export interface ScenarioStateOptions {
  /** Where `db_path` values are resolved (`--eval-data-root`, `EVAL_DATA_ROOT`); a path may not leave it. */
  dataRoot: string;
  log?: (line: string) => void;
}

export class ScenarioState implements BrainTools {
  /** NeMo's `shared_state`: the seed merged in, the loaded database under `db`. */
  state: DomainState = {};
  actions: Record<string, unknown>[] = [];
  /** `update_system_prompt`'s `tool_domain`, kept across the state it clears. */
  toolDomain: string | null = null;
  /** `apply_initialization`'s `domain`. */
  private domain: string | null = null;

  constructor(private readonly options: ScenarioStateOptions) {}

  /** The domain whose tools run: the initialized one, else the prompt's `tool_domain`. */
  get activeDomain(): RefbotDomain | undefined {
    return domainOf(this.domain ?? this.toolDomain);
  }

  /** `update_system_prompt`: a new scenario starts; what the previous one left is gone. */
  updateSystemPrompt(d: unknown): { success: true } {
    const data = asRecord(d);
    this.clear();
    if (typeof data.tool_domain === 'string' && data.tool_domain !== '') this.toolDomain = data.tool_domain;
    const prompt = typeof data.prompt === 'string' ? data.prompt : '';
    this.log(
      `update_system_prompt: prompt of ${prompt.length} chars, tools ${toolNames(data.tools)}, ` +
        `tool_domain ${this.toolDomain ?? '(none)'}`,
    );
    return { success: true };
  }

  applyInitialization(d: unknown): InitializationResult {
    const data = asRecord(d);
    const errors: string[] = [];
    if (typeof data.domain === 'string' && data.domain !== '') this.domain = data.domain;
    const seed = parseSeed(data.shared_state_init);
    if (typeof seed === 'string') errors.push(seed);
    else Object.assign(this.state, seed);
    if (typeof this.state.db_path === 'string') {
      const path = this.state.db_path;
      delete this.state.db_path;
      // An inline `db` wins: the path was only a way to avoid sending a large one.
      if (this.state.db === undefined) {
        const loaded = this.loadDb(path);
        if (typeof loaded === 'string') errors.push(loaded);
        else this.state.db = loaded;
      }
    }
    const actions = Array.isArray(data.actions) ? data.actions : [];
    const domain = this.activeDomain;
    for (const [i, raw] of actions.entries()) {
      const action = asRecord(raw);
      const func = typeof action.func_name === 'string' ? action.func_name : '';
      const fn = domain && Object.hasOwn(domain.initFunctions, func) ? domain.initFunctions[func] : undefined;
      if (!fn) {
        errors.push(`actions[${i}]: unknown initialization function "${func}" for domain "${this.domainName}"`);
        continue;
      }
      try {
        fn(this.state, asRecord(action.arguments));
      } catch (err) {
        if (!(err instanceof InitFunctionError)) throw err;
        errors.push(`actions[${i}]: ${err.message}`);
      }
    }
    this.log(
      `apply_initialization: domain ${this.domainName}, state keys [${Object.keys(this.state).join(', ')}], ` +
        `${actions.length} action(s)${errors.length ? `; errors: ${errors.join('; ')}` : ''}`,
    );
    return { success: errors.length === 0, errors };
  }

  summary(d: unknown): ScenarioSummary {
    const db = this.state.db;
    const hasDb = db !== undefined && db !== null;
    const out: ScenarioSummary = { actions: this.actions, db_hash: hasDb ? dbHash(db) : null };
    if (asRecord(d).include_db === true && hasDb && typeof db === 'object' && !Array.isArray(db))
      out.db = db as Record<string, unknown>;
    return out;
  }

  reset(): { success: true } {
    this.clear();
    this.toolDomain = null;
    this.log('reset: scenario state cleared');
    return { success: true };
  }

  /** BrainTools: a call named after a tool of the active domain runs against the state. */
  run(name: string, args: { [key: string]: JsonValue }): JsonValue | undefined {
    const domain = this.activeDomain;
    if (!domain || !Object.hasOwn(domain.tools, name)) return undefined;
    const outcome = domain.tools[name](this.state, args);
    if (outcome.action) this.actions.push(outcome.action);
    this.log(`tool ${name}: ${JSON.stringify(outcome.result)}${outcome.action ? ' (action recorded)' : ''}`);
    return outcome.result;
  }

  private get domainName(): string {
    return this.domain ?? this.toolDomain ?? '(none)';
  }

  private clear(): void {
    this.state = {};
    this.actions = [];
    this.domain = null;
  }

  /** The database at `path` under the data root, or why not (a path leaving the root is refused). */
  private loadDb(path: string): unknown {
    const root = resolve(this.options.dataRoot);
    if (isAbsolute(path)) return `db_path "${path}": must be relative to the eval data root`;
    const full = resolve(root, path);
    let real: string;
    let realRoot: string;
    try {
      realRoot = realpathSync(root);
      real = realpathSync(full);
    } catch (err) {
      return `db_path "${path}": cannot read it under the eval data root ${root}: ${errorMessage(err)}`;
    }
    // Checked on the real paths: `..` segments and symbolic links out of the root are both refused.
    const rel = relative(realRoot, real);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
      return `db_path "${path}": leaves the eval data root ${root}`;
    try {
      return JSON.parse(readFileSync(real, 'utf8')) as unknown;
    } catch (err) {
      return `db_path "${path}": cannot load it: ${errorMessage(err)}`;
    }
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

function parseSeed(seed: unknown): Record<string, unknown> | string {
  if (seed === undefined || seed === null || seed === '') return {};
  let value: unknown = seed;
  if (typeof seed === 'string') {
    try {
      value = JSON.parse(seed) as unknown;
    } catch (err) {
      return `shared_state_init: not JSON: ${errorMessage(err)}`;
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'shared_state_init: expected a JSON object';
  return value as Record<string, unknown>;
}

function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The tool names of `update_system_prompt`'s `tools` (a JSON object as text), for the log. */
function toolNames(tools: unknown): string {
  try {
    const parsed: unknown = typeof tools === 'string' ? JSON.parse(tools) : tools;
    const names = Object.keys(asRecord(parsed));
    return names.length ? `[${names.join(', ')}]` : '(none)';
  } catch {
    return '(unreadable)';
  }
}
