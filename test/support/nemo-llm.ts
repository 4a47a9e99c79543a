import { NEMO_PROMPT_LINES } from '../../src/scenario/index.js';
import { JUDGE_PASSED_SYSTEM_PROMPT } from '../../src/simulate/nemo/judge-passed.js';
import { PERSONA_LINES } from '../../src/simulate/persona.js';
import { CLAIM_LINE, CLAIM_SYSTEM_PROMPT } from '../../src/simulate/signals.js';
import type { LoggedRequest, Responder, ScriptedReply } from './llm-server.js';

/**
 * The stand-in LLM for NeMo scenarios (test/e2e/nemo), on the test server's real protocol. As the caller it reads
 * the user side back out of the prompt earshot renders (src/scenario/nemo/prompt.ts: persona, task, numbered
 * instructions, guidelines) and says the instructions in order, in words the reference bot's restaurant brain
 * understands (fixtures/nemo/restaurant/brain.yaml), gives its name and phone number when asked, and hangs up after
 * the bot's goodbye, or on hearing the total when a guideline says so. As the judge it answers NL_ASSERTION claims and
 * JUDGE_PASSED's 0..1 score by rules, or garbles them. Anything else is a 400, so a test cannot pass by accident.
 */

/** What the caller's model was asked, read back from the rendered user prompt. */
export interface NemoCallerView {
  system: string;
  name: string;
  phone: string;
  instructions: string[];
  guidelines: string[];
  lines: Array<{ role: 'bot' | 'caller'; text: string }>;
  /** The bot's latest line, lowercased. */
  lastBot: string;
  callerLines: string[];
}

export function readNemoCallerPrompt(request: LoggedRequest): NemoCallerView | undefined {
  const messages = request.body.messages;
  const system =
    messages[0]?.role === 'system' && typeof messages[0].content === 'string' ? messages[0].content : undefined;
  if (!system?.includes(PERSONA_LINES.who)) return undefined;
  const rows = system.split('\n').map((l) => l.trim());
  const block = (heading: string): string[] => {
    const at = rows.indexOf(heading);
    if (at === -1) return [];
    const end = rows.indexOf('', at);
    return rows.slice(at + 1, end === -1 ? undefined : end);
  };
  const instructions = block(NEMO_PROMPT_LINES.instructions).map((l) => l.replace(/^\d+\.\s+/, ''));
  const guidelines = block(NEMO_PROMPT_LINES.guidelines).map((l) => l.replace(/^- /, ''));
  // The persona's first line is `Name, role.` (scenario/nemo/prompt.ts).
  const who = rows.find((l) => l.startsWith(PERSONA_LINES.who))?.slice(PERSONA_LINES.who.length) ?? '';
  const lines = messages
    .slice(1)
    .map((m) => ({ role: m.role === 'user' ? ('bot' as const) : ('caller' as const), text: String(m.content) }));
  const lastBot =
    [...lines]
      .reverse()
      .find((l) => l.role === 'bot')
      ?.text.toLowerCase() ?? '';
  return {
    system,
    name: who.includes(',') ? who.slice(0, who.indexOf(',')) : '',
    phone: /\b\d{3}-\d{3}-\d{4}\b/.exec(system)?.[0] ?? '',
    instructions,
    guidelines,
    lines,
    lastBot,
    callerLines: lines.filter((l) => l.role === 'caller').map((l) => l.text),
  };
}

/** How the caller says one of the user's instructions, in the brain's words (the instruction itself otherwise). */
export function spokenInstruction(instruction: string): string {
  const order = /^order (one|a|an) (.+?)\.?$/i.exec(instruction);
  if (/pizza options|menu/i.test(instruction)) return 'What pizza options do you have?';
  if (order) return `I would like one ${order[2]}, please.`;
  if (/extra cheese/i.test(instruction)) return 'Can I add extra cheese to that?';
  if (/confirm the order/i.test(instruction)) return 'Yes, that is my order. What is the total price?';
  return instruction;
}

/** The caller's next line (or hang-up) by the rules in the header. */
export function nemoCallerReply(view: NemoCallerView): ScriptedReply {
  const hangUp = (say: string, reason: string): ScriptedReply => ({
    content: say,
    toolCalls: [{ name: 'end_call', arguments: { success: true, reason } }],
  });
  if (/goodbye|bye\b/.test(view.lastBot)) return hangUp('', 'The bot said goodbye.');
  const hangsUpOnTotal = view.guidelines.some((g) => /hang up .*total/i.test(g));
  if (hangsUpOnTotal && /total/.test(view.lastBot)) return hangUp('', 'I heard the total.');
  if (/your name|phone number/.test(view.lastBot))
    return `My name is ${view.name} and my phone number is ${view.phone}.`;
  const spoken = view.instructions.map(spokenInstruction);
  const next = spoken.find((s) => !view.callerLines.includes(s));
  if (next) return next;
  return 'That is all, thank you. Goodbye!';
}

/** What a NeMo judge request holds. */
export interface NemoJudgeView {
  kind: 'claim' | 'judge_passed';
  system: string;
  user: string;
  claim?: string;
}

export interface NemoLlmOptions {
  /** JUDGE_PASSED's score, or `garbled` for an answer with no usable score; default 1. */
  score?: (view: NemoJudgeView) => number | 'garbled';
  /** One NL claim; default yes. */
  claim?: (claim: string, view: NemoJudgeView) => 'yes' | 'no';
}

export function nemoLlm(options: NemoLlmOptions = {}): Responder {
  return (request) => {
    const caller = readNemoCallerPrompt(request);
    if (caller) {
      const tools = Array.isArray(request.body.tools)
        ? (request.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)
        : [];
      if (!tools.includes('end_call')) return bad('a caller request without the end_call tool');
      return nemoCallerReply(caller);
    }
    const system = request.body.messages.find((m) => m.role === 'system')?.content;
    const user = [...request.body.messages].reverse().find((m) => m.role === 'user')?.content;
    if (typeof system !== 'string' || typeof user !== 'string') return bad('no system or user message');
    if (system === CLAIM_SYSTEM_PROMPT) {
      const line = user.split('\n').find((l) => l.startsWith(CLAIM_LINE));
      const claim = line ? String(JSON.parse(line.slice(CLAIM_LINE.length))) : '';
      const verdict = options.claim?.(claim, { kind: 'claim', system, user, claim }) ?? 'yes';
      return JSON.stringify({ verdict, reason: `scripted claim ${verdict}` });
    }
    if (system === JUDGE_PASSED_SYSTEM_PROMPT) {
      const score = options.score?.({ kind: 'judge_passed', system, user }) ?? 1;
      if (score === 'garbled') return 'The assistant seemed helpful and friendly throughout the call.';
      return JSON.stringify({ score, reason: `scripted score ${score}` });
    }
    return bad('neither a NeMo caller nor a NeMo judge prompt');
  };
}

function bad(message: string): ScriptedReply {
  return { status: 400, body: { error: { message: `nemo-llm: ${message}`, type: 'invalid_request_error' } } };
}
