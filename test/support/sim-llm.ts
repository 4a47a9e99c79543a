import { PERSONA_LINES } from '../../src/simulate/persona.js';
import { CLAIM_LINE, CLAIM_SYSTEM_PROMPT } from '../../src/simulate/signals.js';
import { RUN_JUDGE_SYSTEM_PROMPT, RUN_PROMPT_LINES } from '../../src/simulate/judge-run.js';
import { SCORECARD_LINES, SCORECARD_SYSTEM_PROMPT } from '../../src/simulate/scorecard.js';
import { TRANSCRIPT_LINES } from '../../src/simulate/transcript.js';
import type { LoggedRequest, Responder, ScriptedReply } from './llm-server.js';

/**
 * The stand-in LLM for simulations, on the test server's real protocol: it
 * plays the caller (answers the bot by rules, calls `end_call` when a rule
 * says the goal is met) and the judge (the run's goal and per-reply metrics,
 * the scorecard, the claims), each read back from earshot's prompts with the
 * exported line prefixes. Rules are plain functions of what was said, so a
 * run is as deterministic as the bot.
 */

/** What the caller's model was asked: who it plays and the conversation so far, from its side. */
export interface PersonaView {
  persona: string;
  goal: string;
  /** The conversation: `bot` lines (the model's user messages) and `caller` lines (its own). */
  lines: Array<{ role: 'bot' | 'caller'; text: string }>;
  /** The bot's latest line, lowercased (what most rules look at). */
  lastBot: string;
  /** How many times the caller has spoken. */
  callerTurns: number;
  tools: string[];
}

export interface PersonaRule {
  when: (view: PersonaView) => boolean;
  /** What the caller says (none: it only hangs up). */
  say?: string | ((view: PersonaView) => string);
  /** Hang up with this claim. */
  endCall?: { success: boolean; reason: string };
}

export function readPersonaPrompt(request: LoggedRequest): PersonaView | undefined {
  const messages = request.body.messages;
  const system =
    messages[0]?.role === 'system' && typeof messages[0].content === 'string' ? messages[0].content : undefined;
  if (!system?.includes(PERSONA_LINES.who)) return undefined;
  const field = (prefix: string): string =>
    system
      .split('\n')
      .find((l) => l.startsWith(prefix))
      ?.slice(prefix.length) ?? '';
  const lines = messages
    .slice(1)
    .map((m) => ({ role: m.role === 'user' ? ('bot' as const) : ('caller' as const), text: String(m.content) }));
  const tools = Array.isArray(request.body.tools)
    ? (request.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)
    : [];
  const lastBot =
    [...lines]
      .reverse()
      .find((l) => l.role === 'bot')
      ?.text.toLowerCase() ?? '';
  return {
    persona: field(PERSONA_LINES.who),
    goal: field(PERSONA_LINES.goal),
    lines,
    lastBot,
    callerTurns: lines.filter((l) => l.role === 'caller').length,
    tools,
  };
}

/** What a simulation judge request holds, read back from the transcript. */
export interface RunView {
  kind: 'run' | 'scorecard' | 'claim';
  callerLines: string[];
  replies: string[];
  /** `name(args-json)` of each function call line, in order. */
  calls: string[];
  success?: string;
  metrics: Array<{ name: string; criterion: string }>;
  claim?: string;
  /** Scorecard: the expected answer line, null for "none". */
  expected?: string | null;
}

export function readRunPrompt(request: LoggedRequest): RunView | undefined {
  const system = request.body.messages.find((m) => m.role === 'system')?.content;
  const user = [...request.body.messages].reverse().find((m) => m.role === 'user')?.content;
  if (typeof system !== 'string' || typeof user !== 'string') return undefined;
  const kind =
    system === RUN_JUDGE_SYSTEM_PROMPT
      ? 'run'
      : system === SCORECARD_SYSTEM_PROMPT
        ? 'scorecard'
        : system === CLAIM_SYSTEM_PROMPT
          ? 'claim'
          : undefined;
  if (!kind) return undefined;
  const view: RunView = { kind, callerLines: [], replies: [], calls: [], metrics: [] };
  for (const line of user.split('\n')) {
    if (line.startsWith(TRANSCRIPT_LINES.caller))
      view.callerLines.push(String(JSON.parse(line.slice(TRANSCRIPT_LINES.caller.length))));
    else if (line.startsWith(TRANSCRIPT_LINES.bot))
      view.replies.push(String(JSON.parse(line.slice(line.indexOf(': ') + 2))));
    else if (line.startsWith(TRANSCRIPT_LINES.call)) {
      const m = /^"([^"]*)"(?: with arguments (.*?))?( \(cancelled.*)?$/.exec(line.slice(TRANSCRIPT_LINES.call.length));
      if (m && !m[3]) view.calls.push(`${m[1]}(${m[2] ?? ''})`);
    } else if (line.startsWith(RUN_PROMPT_LINES.goal))
      view.success = String(JSON.parse(line.slice(RUN_PROMPT_LINES.goal.length)));
    else if (line.startsWith(RUN_PROMPT_LINES.metric)) {
      const m = /^Metric ("(?:[^"\\]|\\.)*"): (.*)$/.exec(line);
      if (m) view.metrics.push({ name: String(JSON.parse(m[1])), criterion: String(JSON.parse(m[2])) });
    } else if (line.startsWith(CLAIM_LINE)) view.claim = String(JSON.parse(line.slice(CLAIM_LINE.length)));
    else if (line === SCORECARD_LINES.unknown) view.expected = null;
    else if (line.startsWith(SCORECARD_LINES.expected))
      view.expected = String(JSON.parse(line.slice(SCORECARD_LINES.expected.length)));
  }
  return view;
}

export interface JudgeRules {
  /** The goal verdict; default: no. */
  goal?: (view: RunView) => 'yes' | 'no' | 'garbled';
  /** One metric on one reply; default: yes. */
  metric?: (name: string, reply: string, view: RunView) => 'yes' | 'no' | 'skip';
  /** Scorecard scores 0..10 per dimension; default 8 each. */
  scorecard?: (view: RunView) => Record<string, number>;
  /** One claim; default: no. */
  claim?: (claim: string, view: RunView) => 'yes' | 'no';
}

export interface SimLlmOptions {
  persona: PersonaRule[];
  /** When no persona rule matches: default, a polite filler line. */
  otherwise?: Omit<PersonaRule, 'when'>;
  judge?: JudgeRules;
}

/** One responder for a simulation: persona requests by rules, judge requests by rules; anything else is a 400. */
export function simLlm(options: SimLlmOptions): Responder {
  return (request) => {
    const persona = readPersonaPrompt(request);
    if (persona) {
      if (!persona.tools.includes('end_call')) return bad('a persona request without the end_call tool');
      const rule = options.persona.find((r) => r.when(persona)) ??
        options.otherwise ?? { say: 'Sorry, could you say that again?' };
      return personaReply(rule, persona);
    }
    const view = readRunPrompt(request);
    if (!view) return bad('neither a persona nor a simulation judge prompt');
    return judgeReply(options.judge ?? {}, view);
  };
}

function personaReply(rule: Omit<PersonaRule, 'when'>, view: PersonaView): ScriptedReply {
  const say = typeof rule.say === 'function' ? rule.say(view) : (rule.say ?? '');
  if (!rule.endCall) return say;
  return { content: say, toolCalls: [{ name: 'end_call', arguments: rule.endCall }] };
}

function judgeReply(rules: JudgeRules, view: RunView): ScriptedReply {
  if (view.kind === 'run') {
    const goal = rules.goal?.(view) ?? 'no';
    if (goal === 'garbled') return 'I think the bot did fine overall.';
    const metrics: Record<string, unknown[]> = {};
    for (const { name } of view.metrics) {
      metrics[name] = view.replies.flatMap((reply, i) => {
        const v = rules.metric?.(name, reply, view) ?? 'yes';
        return v === 'skip' ? [] : [{ reply: i + 1, verdict: v, reason: `scripted ${v} for reply ${i + 1}` }];
      });
    }
    return JSON.stringify({ goal: { verdict: goal, reason: `scripted goal ${goal}` }, metrics });
  }
  if (view.kind === 'scorecard') {
    const given = rules.scorecard?.(view) ?? {};
    const dims = [
      'correctness',
      'tool_selection',
      'context_retention',
      'completeness',
      'efficiency',
      'personality',
      'error_recovery',
    ];
    return JSON.stringify({
      scores: Object.fromEntries(dims.map((d) => [d, { score: given[d] ?? 8, reason: `scripted ${d}` }])),
    });
  }
  const verdict = rules.claim?.(view.claim ?? '', view) ?? 'no';
  return JSON.stringify({ verdict, reason: `scripted claim ${verdict}` });
}

function bad(message: string): ScriptedReply {
  return { status: 400, body: { error: { message: `sim-llm: ${message}`, type: 'invalid_request_error' } } };
}

/**
 * The stand-in for the `capitals/caller` simulations of test/e2e/lists and
 * test/suite/fixtures/lists: the traveller asks for Japan's capital, hangs up
 * once the bot says Tokyo; the judge's goal holds when a reply said Tokyo.
 */
export function capitalCallerLlm(): Responder {
  return simLlm({
    persona: [
      {
        when: (v) => v.lastBot.includes('tokyo'),
        say: 'Thank you, goodbye!',
        endCall: { success: true, reason: 'Tokyo is the capital.' },
      },
      { when: () => true, say: 'What is the capital of Japan?' },
    ],
    judge: { goal: (v) => (v.replies.some((r) => /tokyo/i.test(r)) ? 'yes' : 'no') },
  });
}
