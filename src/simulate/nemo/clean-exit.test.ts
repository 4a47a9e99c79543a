import { describe, expect, it } from 'vitest';
import type { SimulationEntry } from '../../results/index.js';
import { NEMO_EXIT_FUNCTIONS } from '../../scenario/index.js';
import { cleanExit, stopReason } from './clean-exit.js';

const talk: SimulationEntry[] = [
  { kind: 'bot', at_ms: 100, text: 'Your total is 11.49.' },
  { kind: 'caller', at_ms: 900, text: 'Thanks, bye!', turn_index: 0 },
];

describe('CLEAN_EXIT (strict: only an exit tool called by the bot)', () => {
  it('holds when the bot called an exit tool', () => {
    for (const name of ['EndConversationTool', 'TransferToAgentTool', 'TransferToHumanAgentsTool']) {
      const t: SimulationEntry[] = [...talk, { kind: 'call', at_ms: 1500, name }];
      const s = cleanExit(NEMO_EXIT_FUNCTIONS, t, 'bot_exit', `the bot called ${name}`);
      expect(s).toMatchObject({ signal: 'clean_exit', value: true });
      expect(s.reason).toContain(name);
    }
  });

  it('is false for a normal close, a cap, a silence or the caller hanging up, naming how it ended', () => {
    for (const endedBy of ['bot', 'max_duration', 'silence', 'end_call', 'max_turns'] as const) {
      const s = cleanExit(NEMO_EXIT_FUNCTIONS, talk, endedBy, 'detail');
      expect(s.value).toBe(false);
      expect(s.reason).toContain(`ended by ${endedBy}`);
    }
  });

  it('does not count a cancelled exit call or a tool outside the list', () => {
    const cancelled: SimulationEntry[] = [
      ...talk,
      { kind: 'call', at_ms: 1, name: 'EndConversationTool', cancelled: true },
    ];
    expect(cleanExit(NEMO_EXIT_FUNCTIONS, cancelled, 'bot_exit', 'd').value).toBe(false);
    const other: SimulationEntry[] = [...talk, { kind: 'call', at_ms: 1, name: 'PlaceOrderTool' }];
    expect(cleanExit(NEMO_EXIT_FUNCTIONS, other, 'end_call', 'd').value).toBe(false);
  });

  it("writes NeMo's stop_reason", () => {
    expect(stopReason('bot_exit')).toBe('[EXIT]');
    expect(stopReason('max_duration')).toBe('[TIMEOUT]');
    expect(stopReason('silence')).toBe('silence');
  });
});
