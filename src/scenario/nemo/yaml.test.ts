import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorsOf, inspect, loadedOf, TempProject } from '../scenario.testutil.js';
import type { Simulation } from '../types.js';
import { compileNemo } from './compile.js';
import { PizzaPepperoni } from './nemo.testutil.js';

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

/** The anchor's restaurant domain base as file-level defaults, and PizzaPepperoni as an entry. */
const PIZZA_YAML = `
name: restaurant
domain: restaurant
max_duration: 120
ignore_capitalization: true
success_signals: [ACTION_MATCH, CLEAN_EXIT]
shared_state_init:
  agent: {db_path: restaurant/db.json}
agent_persona: {role: restaurant order-taking agent, name: Pizza Palace}
agent_task: {goal: "Take the customer's order accurately and place it."}
scenarios:
  - name: restaurant__pizza_pepperoni
    description: Order a pepperoni pizza with extra cheese at Pizza Palace
    reference_answer:
      items:
        - {name: Pepperoni Pizza, unit_price: "9.99", quantity: "1"}
        - {name: Extra Cheese, unit_price: "1.50", quantity: "1"}
      customer_name: Charlie
      customer_phone: 314-527-8960
      total_price: "11.49"
    user_persona:
      role: human user
      name: Charlie
      background: You are a graphic designer. Your phone number is 314-527-8960.
      personality: Communicative and positive, with clear needs and prompt decision-making.
    user_task:
      goal: Order a pepperoni pizza with extra cheese.
      background: You are hungry after work and just walked into Pizza Palace.
    user_actions:
      instructions:
        - Ask the agent what pizza options are available.
        - Order one pepperoni pizza.
        - Ask if you can add extra cheese, and add it to the order.
        - Confirm the order and ask for the total price.
      guidelines: [Provide your name and phone number when asked.]
    agent_actions:
      instructions:
        - Greet the user and ask what they would like to order.
        - Place the order with the \`PlaceOrderTool\` tool and confirm it succeeded.
        - Say goodbye and call the \`EndConversationTool\` tool.
      guidelines: [Do not make up any items that are not on the menu.]
    agent_resources:
      tools:
        GetMenuTool: {menu: {Pepperoni Pizza: "9.99", Margherita Pizza: "8.99", Extra Cheese: "1.50"}}
        PlaceOrderTool: {auto_validate: "False"}
        EndConversationTool: {}
      information: [You can use the \`GetMenuTool\` tool to retrieve the restaurant menu.]
      info_sections:
        Hours: [Open 11 to 23.]
`;

describe("NeMo's YAML form", () => {
  it('loads to the same nemo block and caller as the TypeScript class', () => {
    const sim = loadedOf(inspect(project, PIZZA_YAML)) as Simulation;
    const ts = compileNemo(new PizzaPepperoni(), { file: project.path('x.ts'), line: 1, col: 1 });
    expect(sim.kind).toBe('simulation');
    expect(sim.name).toBe('restaurant/restaurant__pizza_pepperoni');
    expect(sim.nemo).toEqual(ts.nemo);
    expect(sim.persona).toBe(ts.persona);
    expect([sim.goal, sim.success, sim.max_duration_s]).toEqual([ts.goal, ts.success, ts.max_duration_s]);
  });

  it("'persona:' given a mapping: did you mean user_persona:", () => {
    const r = inspect(project, 'name: f\nscenarios:\n  - name: a\n    persona: {role: caller}\n');
    expect(errorsOf(r).map((d) => d.message)).toEqual([expect.stringMatching(/did you mean 'user_persona:'/)]);
    expect(errorsOf(r)[0]).toMatchObject({ line: 4, path: 'scenarios[0].persona' });
  });

  it('a whitelisted signal with no data is an error at its key, as in the class form', () => {
    const r = inspect(
      project,
      'name: f\nscenarios:\n  - name: a\n    user_persona: {role: caller}\n    user_task: {goal: g}\n' +
        '    success_signals: [DB_STATE_MATCH, CLEAN_EXIT]\n',
    );
    expect(errorsOf(r)).toEqual([
      expect.objectContaining({
        path: expect.stringMatching(/(^|\.)success_signals$/),
        message: expect.stringMatching(/DB_STATE_MATCH is whitelisted but there is no expected_scenario_db/),
      }),
    ]);
  });

  it("refuses a member that is not NeMo's, user-side state and the map form in NeMo's form", () => {
    const base = 'name: f\nscenarios:\n  - name: a\n    user_persona: {role: caller}\n    user_task: {goal: g}\n';
    const bad = inspect(project, `${base}    success_signals: [CLEAN_EXIT, DB_MATCH]\n`);
    expect(errorsOf(bad)[0].message).toMatch(/DB_MATCH/);
    const user = inspect(project, `${base}    success_signals: [CLEAN_EXIT]\n    expected_user_db: {a: 1}\n`);
    expect(errorsOf(user)[0].path).toMatch(/(^|\.)expected_user_db$/);
    expect(errorsOf(user)[0].message).toMatch(/not a bot/);
    const map = inspect(project, `${base}    success_signals: {clean_exit: true}\n`);
    expect(errorsOf(map)[0].message).toMatch(/list of SuccessSignal members/);
  });
});

describe("earshot's map form keeps its meaning", () => {
  const LEGACY = 'name: f\nscenarios:\n  - name: a\n    persona: p\n    goal: g\n    success: s\n';

  it('an unknown signal in the map form is an error naming the NeMo list form (it passed with no signal)', () => {
    const r = inspect(project, `${LEGACY}    success_signals:\n      clean_exit: true\n      db_state_match: true\n`);
    expect(r.status).toBe('invalid');
    expect(errorsOf(r)).toEqual([
      expect.objectContaining({
        path: expect.stringMatching(/(^|\.)success_signals\.db_state_match$/),
        line: 9,
        message: expect.stringMatching(
          /unknown signal 'db_state_match:'.*success_signals: \[DB_STATE_MATCH, CLEAN_EXIT\]/,
        ),
      }),
    ]);
  });

  it("the list form in a persona: simulation points at NeMo's form", () => {
    const r = inspect(project, `${LEGACY}    success_signals: [CLEAN_EXIT]\n`);
    expect(errorsOf(r)[0].message).toMatch(/NeMo's whitelist, read in NeMo's form only/);
  });

  it('the map form still loads', () => {
    const sim = loadedOf(inspect(project, `${LEGACY}    success_signals: {clean_exit: true}\n`)) as Simulation;
    expect(sim.success_signals?.clean_exit?.functions).toContain('end_call');
    expect(sim.nemo).toBeUndefined();
  });
});
