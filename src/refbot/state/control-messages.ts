/**
 * NeMo's control plane on the reference bot's wire: a `client-message` whose `t` is one of NEMO_CONTROL_TYPES is
 * answered with a `server-response {t, d}` carrying the request's id, on both codecs (NeMo's bots take these on
 * the production protobuf transport, not only an eval one). `--no-scenario-state`: a bot without a control plane,
 * which refuses each with an `error-response` (the harness must then score without the bot's state).
 */
import type { NemoControlType, ServerMessage } from '../../protocol/index.js';
import type { ScenarioState } from './shared-state.js';

export function onNemoControl(
  id: string,
  t: NemoControlType,
  d: unknown,
  state: ScenarioState | null,
  send: (message: ServerMessage) => void,
): void {
  if (!state) {
    send({ type: 'error-response', id, data: { error: `${t}: this bot keeps no scenario state` } });
    return;
  }
  const answer = (data: unknown): void => send({ type: 'server-response', id, data: { t, d: data } });
  switch (t) {
    case 'update_system_prompt':
      return answer(state.updateSystemPrompt(d));
    case 'apply_initialization':
      return answer(state.applyInitialization(d));
    case 'get_scenario_summary':
      return answer(state.summary(d));
    case 'reset':
      return answer(state.reset());
  }
}
