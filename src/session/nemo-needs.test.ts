import { describe, expect, it } from 'vitest';
import type { NemoSpec } from '../scenario/index.js';
import { nemoStateNeed } from './nemo-needs.js';

/** A scenario carrying every kind of bot state, whose whitelist reads none of it. */
const qa: NemoSpec = {
  name: 'restaurant__qa',
  domain: 'restaurant',
  user: { persona: { role: 'human user' }, task: { goal: 'Ask the opening hours.' } },
  agent: { persona: { role: 'restaurant assistant' }, task: { goal: 'Answer.' } },
  success_signals: ['judge_passed'],
  expected_scenario_db: { orders: [] },
  shared_state_init: { user: {}, agent: {} },
  normalization: {
    ignore_capitalization: false,
    ignore_punctuation: false,
    clean_text: false,
    disallow_extra_items: false,
  },
  action_source: 'summary',
  max_duration_s: 300,
  custom_verdict: false,
};

describe('nemoStateNeed', () => {
  it('goes by the whitelist, not by the data the scenario carries', () => {
    expect(nemoStateNeed(qa)).toBeNull();
    expect(nemoStateNeed({ ...qa, success_signals: ['db_state_match'] })?.why).toContain('DB_STATE_MATCH');
    expect(nemoStateNeed({ ...qa, success_signals: ['db_state_assertion'] })?.why).toContain('DB_STATE_ASSERTION');
  });

  it("needs the bot's recorded actions only when ACTION_MATCH reads the summary", () => {
    expect(nemoStateNeed({ ...qa, success_signals: ['is_action_match'] })?.why).toContain('ACTION_MATCH');
    expect(nemoStateNeed({ ...qa, success_signals: ['is_action_match'], action_source: 'calls' })).toBeNull();
  });

  it('needs the bot for what is seeded bot-side: agent-side init actions and the agent shared state', () => {
    const action = { func_name: 'set_menu_price', arguments: { item: 'Pepperoni Pizza', price: '10.99' } };
    expect(nemoStateNeed({ ...qa, initialization_actions: [{ side: 'agent', ...action }] })?.path).toBe(
      'initialization_actions',
    );
    expect(nemoStateNeed({ ...qa, initialization_actions: [{ side: 'user', ...action }] })).toBeNull();
    const seeded = { ...qa, shared_state_init: { user: {}, agent: { db_path: 'restaurant/db.json' } } };
    expect(nemoStateNeed(seeded)?.path).toBe('setup_shared_state');
  });
});
