import { afterEach, describe, expect, it } from 'vitest';
import { dbHash } from '../../../src/core/db-hash.js';
import type { CodecName, ServerInbound } from '../../../src/protocol/index.js';
import { startRefbot, type RefbotHandle } from '../../../src/refbot/server.js';
import { Client } from '../../refbot/support.js';

/**
 * NeMo's control plane on the reference bot, over a real socket on both codecs: update_system_prompt,
 * apply_initialization (db_path under --eval-data-root), the worked example's conversation running the restaurant
 * tools, get_scenario_summary with the request's id, the socket kept open after EndConversationTool; and a bot
 * without scenario state refusing each request.
 */
const bots: RefbotHandle[] = [];
afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.close()));
});

async function open(codec: CodecName, scenarioState = true): Promise<Client> {
  const bot = await startRefbot({
    wire: codec,
    brain: 'fixtures/nemo/restaurant/brain.yaml',
    evalDataRoot: 'fixtures/nemo',
    scenarioState,
    reportLevel: 'full',
  });
  bots.push(bot);
  const client = await Client.open(bot.url, { codec, flags: { skipTts: true } });
  await client.handshake();
  await client.waitForType('bot-llm-stopped', 5000);
  return client;
}

/** Sends a control request; resolves with the answer carrying its id. */
async function request(client: Client, t: string, d: unknown): Promise<ServerInbound> {
  const message = client.messages.custom(t, d);
  const from = client.seen.length;
  client.connection.send(message);
  const i = await client.waitFor(
    (m) => (m.type === 'server-response' || m.type === 'error-response') && m.id === message.id,
    5000,
    `answer to ${t}`,
    from,
  );
  return client.seen[i].message;
}

/** Types one caller line (no speech) and waits for the whole reply. */
async function say(client: Client, text: string): Promise<string> {
  const from = client.seen.length;
  client.connection.send(client.messages.sendText(text, { audioResponse: false }));
  const end = await client.waitForType('bot-llm-stopped', 5000, from);
  return client.replyText(from, end);
}

const MENU = { 'Pepperoni Pizza': '9.99', 'Margherita Pizza': '8.99', 'Cheese Pizza': '7.99', 'Extra Cheese': '1.50' };

describe.each(['pipecat-eval', 'protobuf'] as const)('the refbot control plane on %s', (codec) => {
  it('seeds, runs the worked example against its state, and summarizes with the request id', async () => {
    const client = await open(codec);
    const prompt = await request(client, 'update_system_prompt', {
      prompt: 'You are Pizza Palace.',
      tools: JSON.stringify({ GetMenuTool: {}, PlaceOrderTool: {}, EndConversationTool: {} }),
      add_suffix: true,
      tool_domain: 'restaurant',
    });
    expect(prompt).toMatchObject({ type: 'server-response', data: { t: 'update_system_prompt' } });
    const init = await request(client, 'apply_initialization', {
      domain: 'restaurant',
      shared_state_init: JSON.stringify({ db_path: 'restaurant/db.json' }),
      actions: [],
    });
    expect(init).toMatchObject({
      type: 'server-response',
      data: { t: 'apply_initialization', d: { success: true, errors: [] } },
    });
    const before = await request(client, 'get_scenario_summary', { include_db: false });
    expect(before).toMatchObject({ data: { d: { actions: [], db_hash: dbHash({ menu: MENU, orders: [] }) } } });

    expect(await say(client, 'What pizza options do you have?')).toMatch(/^We have Pepperoni Pizza for 9\.99/);
    await say(client, 'I would like one pepperoni pizza.');
    await say(client, 'Can I add extra cheese?');
    await say(client, 'My name is Charlie and my phone number is 314-527-8960.');
    expect(await say(client, 'Yes, that is correct. What is the total?')).toBe(
      'Your order is placed. Your total is 11.49.',
    );
    const from = client.seen.length;
    await say(client, 'Thank you, goodbye!');
    const calls = client.seen
      .slice(from)
      .filter((s) => s.message.type === 'llm-function-call-in-progress')
      .map((s) => (s.message.type === 'llm-function-call-in-progress' ? s.message.data.function_name : ''));
    expect(calls).toEqual(['EndConversationTool']);

    // The exit tool ended the conversation, not the socket: the harness pulls the summary after <exit>.
    expect(client.connection.isOpen).toBe(true);
    const summary = await request(client, 'get_scenario_summary', { include_db: true });
    const order = {
      items: [
        { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: 1 },
        { name: 'Extra Cheese', unit_price: '1.50', quantity: 1 },
      ],
      customer_name: 'Charlie',
      customer_phone: '314-527-8960',
      total_price: '11.49',
    };
    const db = { menu: MENU, orders: [order] };
    expect(summary).toEqual({
      type: 'server-response',
      id: expect.any(String),
      data: {
        t: 'get_scenario_summary',
        d: { actions: [{ name: 'PlaceOrderTool', ...order }], db_hash: dbHash(db), db },
      },
    });

    expect(await request(client, 'reset', {})).toMatchObject({ type: 'server-response', data: { t: 'reset' } });
    expect(await request(client, 'get_scenario_summary', {})).toMatchObject({
      data: { d: { actions: [], db_hash: null } },
    });
    await client.close();
  });

  it('refuses a db_path leaving the eval data root, and an unknown client-message type', async () => {
    const client = await open(codec);
    const init = await request(client, 'apply_initialization', {
      domain: 'restaurant',
      shared_state_init: JSON.stringify({ db_path: '../../package.json' }),
      actions: [],
    });
    expect(init).toMatchObject({ data: { d: { success: false, errors: [expect.stringMatching(/leaves the eval/)] } } });
    expect(await request(client, 'sync_state', {})).toEqual({
      type: 'error-response',
      id: expect.any(String),
      data: { error: 'Unsupported client-message type "sync_state"' },
    });
    await client.close();
  });

  it('--no-scenario-state: each control message gets an error-response with its id', async () => {
    const client = await open(codec, false);
    for (const t of ['update_system_prompt', 'apply_initialization', 'get_scenario_summary', 'reset']) {
      expect(await request(client, t, {})).toEqual({
        type: 'error-response',
        id: expect.any(String),
        data: { error: `${t}: this bot keeps no scenario state` },
      });
    }
    await client.close();
  });
});
