import { afterEach, describe, expect, it } from 'vitest';
import { PERSONA_LINES, personaInstruction } from '../../simulate/persona.js';
import { compileNemo } from './compile.js';
import { PIZZA_REFERENCE, PizzaPepperoni } from './nemo.testutil.js';
import { renderAgentPrompt, renderUserPrompt } from './prompt.js';
import { clearEvalScenarios } from './registry.js';
import type { SignalValues } from './scenario.js';
import { SuccessSignal } from './types.js';

const WHERE = { file: '/tmp/restaurant.ts', line: 12, col: 1 };
afterEach(() => clearEvalScenarios());

describe('compileNemo', () => {
  it('fills a Simulation as a Pipecat simulation with no blocks, with the nemo block', () => {
    const sim = compileNemo(new PizzaPepperoni(), WHERE);
    expect(sim).toMatchObject({
      kind: 'simulation',
      name: 'restaurant__pizza_pepperoni',
      file: '/tmp/restaurant.ts',
      goal: 'Order a pepperoni pizza with extra cheese.',
      success: "Take the customer's order accurately and place it.",
      max_duration_s: 120,
      max_turns: 50,
      runs: 1,
      user: { modality: 'text' },
      judge: { modality: 'text' },
      requires_code: false,
    });
    expect(sim.conditions).toBeUndefined();
    expect(sim.nemo).toMatchObject({
      name: 'restaurant__pizza_pepperoni',
      domain: 'restaurant',
      success_signals: ['is_action_match', 'clean_exit'],
      reference_answer: PIZZA_REFERENCE,
      shared_state_init: { user: {}, agent: { db_path: 'restaurant/db.json' } },
      normalization: {
        ignore_capitalization: true,
        ignore_punctuation: false,
        clean_text: false,
        disallow_extra_items: false,
      },
      action_source: 'summary',
      max_duration_s: 120,
      custom_verdict: false,
    });
    expect(sim.nemo?.compute).toBeUndefined();
    expect(JSON.parse(JSON.stringify(sim.nemo))).toEqual(sim.nemo);
  });

  it('an overridden computeIsSuccessful travels as compute; the default is a strict AND with N/A', () => {
    class AnyOf extends PizzaPepperoni {
      override computeIsSuccessful(signals: SignalValues): boolean | 'N/A' {
        return signals.is_action_match === true || signals.clean_exit === true;
      }
    }
    const sim = compileNemo(new AnyOf(), WHERE);
    expect(sim.nemo?.custom_verdict).toBe(true);
    expect(sim.nemo?.compute?.({ is_action_match: false, clean_exit: true })).toBe(true);
    const base = new PizzaPepperoni();
    expect(base.computeIsSuccessful({ is_action_match: true, clean_exit: false })).toBe(false);
    expect(base.computeIsSuccessful({ is_action_match: true, clean_exit: null, db_state_match: false })).toBe(true);
    expect(base.computeIsSuccessful({ db_state_match: true })).toBe('N/A');
  });

  it('refuses shared state that is not JSON, and any user-side state, at the definition', () => {
    class Dated extends PizzaPepperoni {
      override setupSharedState(state: Record<string, unknown>): void {
        state.when = new Date(0);
      }
    }
    expect(() => compileNemo(new Dated(), WHERE)).toThrow(
      /restaurant\.ts:12:1: .*setupSharedState\(state, 'user'\) left state\.when, a Date object/,
    );
    class UserState extends PizzaPepperoni {
      override setupSharedState(state: Record<string, unknown>, side: 'user' | 'agent'): void {
        if (side === 'user') state.db_path = 'user.json';
      }
    }
    expect(() => compileNemo(new UserState(), WHERE)).toThrow(/seeded db_path: .*not a bot/);
  });

  it('noise_config becomes the caller channel noise only in audio runs', () => {
    class Noisy extends PizzaPepperoni {
      override noiseConfig = { snr_db: 10, type: 'babble' };
    }
    const sim = compileNemo(new Noisy(), WHERE);
    expect(sim.conditions).toBeUndefined();
    expect(sim.nemo?.noise_config).toEqual({ snr_db: 10, type: 'babble' });
  });

  it('keeps the signal values as metric keys', () => {
    expect(SuccessSignal.NL_ASSERTION).toBe('nl_assertion');
  });
});

describe('NeMo prompts', () => {
  const s = new PizzaPepperoni();
  const user = { persona: s.userPersona, task: s.userTask, actions: s.userActions, resources: s.userResources };

  it('renders persona lines first, then the task, numbered instructions, guidelines', () => {
    expect(renderUserPrompt(user)).toBe(
      [
        'Charlie, human user.',
        'Background: You are a graphic designer. Your phone number is 314-527-8960.',
        'Personality: Communicative and positive, with clear needs and prompt decision-making.',
        '',
        'Task: Order a pepperoni pizza with extra cheese.',
        'Context: You are hungry after work and just walked into Pizza Palace.',
        '',
        'Instructions, in order:',
        '1. Ask the agent what pizza options are available.',
        '2. Order one pepperoni pizza.',
        '3. Ask if you can add extra cheese, and add it to the order.',
        '4. Confirm the order and ask for the total price.',
        '',
        'Guidelines (always apply):',
        '- Provide your name and phone number when asked.',
      ].join('\n'),
    );
  });

  it('the agent side adds information, ### sections and the tool names', () => {
    const text = renderAgentPrompt({
      persona: s.agentPersona,
      task: s.agentTask,
      actions: s.agentActions,
      resources: s.agentResources,
    });
    expect(text.split('\n')[0]).toBe('You are Pizza Palace, restaurant order-taking agent.');
    expect(text).toContain('Information:\n- You can use the `GetMenuTool` tool to retrieve the restaurant menu.');
    expect(text).toContain('### Hours\n- Open 11 to 23.');
    expect(text.endsWith('Tools: GetMenuTool, PlaceOrderTool, EndConversationTool')).toBe(true);
  });

  it("the caller's prompt still reads back its persona and goal lines (the rule-based stand-in reads them)", () => {
    const sim = compileNemo(s, WHERE);
    const system = personaInstruction(sim.persona, sim.goal).split('\n');
    expect(system.find((l) => l.startsWith(PERSONA_LINES.who))).toBe(`${PERSONA_LINES.who}Charlie, human user.`);
    expect(system.find((l) => l.startsWith(PERSONA_LINES.goal))).toBe(
      `${PERSONA_LINES.goal}Order a pepperoni pizza with extra cheese.`,
    );
    expect(system).toContain('1. Ask the agent what pizza options are available.');
  });
});
