/**
 * The `d` shapes of the bot's answers to NeMo's control messages (nemo-control.ts), checked where every server
 * message is parsed (parse.ts): a bot answering `get_scenario_summary` with something that is no summary breaks
 * the protocol (a `bad_data` violation, the session's `protocol_error`), never a crash of whoever reads it.
 * `update_system_prompt` and `reset` answers carry nothing earshot reads, so any `d` passes.
 */
import { isNemoControlType, type NemoControlType } from './nemo-control.js';
import { arrayOf, boolean, type Check, either, object, optional, record, string } from './validate.js';

const nullValue: Check = (v, p) => (v === null ? { value: v } : { error: `${p}: expected null, got ${typeof v}` });

const RESPONSE_DATA: { [T in NemoControlType]: Check | null } = {
  update_system_prompt: null,
  reset: null,
  apply_initialization: object({ success: boolean, errors: optional(arrayOf(string)) }),
  get_scenario_summary: object({
    actions: arrayOf(record),
    db_hash: either(string, nullValue, 'string or null'),
    db: optional(record),
  }),
};

/** Checks a `server-response`'s `d` when its `t` is a NeMo control type; other answers pass unchanged. */
export function checkNemoResponse(t: string, d: unknown, path = 'data.d'): { value: unknown } | { error: string } {
  if (!isNemoControlType(t)) return { value: d };
  const check = RESPONSE_DATA[t];
  if (!check) return { value: d };
  const checked = check(d, path);
  if (checked.error !== undefined) return { error: `${t}: ${checked.error}` };
  // A bot may leave `errors` out of a success; the harness reads a list.
  if (t === 'apply_initialization') return { value: { errors: [], ...(checked.value as object) } };
  return { value: checked.value };
}
