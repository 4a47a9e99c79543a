import {
  isJudgeError,
  type ChatCallContext,
  type ChatMessage,
  type JudgeBackend,
  type JudgeError,
} from '../judge/index.js';
import type { SimulationEntry } from '../results/index.js';

/**
 * The conversation as the simulation's judge reads it: one transcript in one
 * user message (a small local model otherwise takes the bot's lines for its
 * own), every quoted line a JSON string so the bot's words cannot forge a
 * line, the bot's replies numbered (metrics are scored per reply), and each
 * function call in place before the reply it preceded, by name and arguments.
 * The judge is not shown a call's result. The prefixes are exported because
 * the test stand-in server reads the prompt back with them.
 */
export const TRANSCRIPT_LINES = {
  heading: 'Conversation:',
  caller: 'caller: ',
  /** `bot reply N: "..."` */
  bot: 'bot reply ',
  call: 'bot called function: ',
  hangUp: 'caller hung up',
} as const;

const MODALITY_NOTE = {
  text: "The bot's replies are its text output.",
  audio:
    "The bot's replies are automatic speech-to-text transcriptions of what it said aloud: expect homophones, " +
    'misspellings and missing punctuation, and judge what it meant ("for" can be "four", a number counts the ' +
    'same in words or digits).',
} as const;

/** The bot's replies in order (what metrics score one by one). */
export function botReplies(transcript: readonly SimulationEntry[]): string[] {
  return transcript.flatMap((e) => (e.kind === 'bot' ? [e.text] : []));
}

export function renderTranscript(transcript: readonly SimulationEntry[], modality: 'text' | 'audio'): string {
  const lines: string[] = [MODALITY_NOTE[modality], '', TRANSCRIPT_LINES.heading];
  let reply = 0;
  for (const entry of transcript) {
    switch (entry.kind) {
      case 'caller':
        lines.push(TRANSCRIPT_LINES.caller + JSON.stringify(entry.text));
        break;
      case 'bot':
        lines.push(`${TRANSCRIPT_LINES.bot}${++reply}: ${JSON.stringify(entry.text)}`);
        break;
      case 'call': {
        const name = entry.name === undefined ? '(name not reported)' : JSON.stringify(entry.name);
        const args =
          entry.args !== undefined && Object.keys(entry.args).length
            ? ` with arguments ${JSON.stringify(entry.args)}`
            : '';
        lines.push(`${TRANSCRIPT_LINES.call}${name}${args}${entry.cancelled ? ' (cancelled: it did not happen)' : ''}`);
        break;
      }
      case 'end_call':
        lines.push(TRANSCRIPT_LINES.hangUp);
        break;
    }
  }
  if (reply === 0 && !transcript.some((e) => e.kind === 'caller')) lines.push('(nothing was said)');
  return lines.join('\n');
}

/** How the simulation's judge is asked: its backend and the call context (retry policy, redactor, trace). */
export interface RunJudge {
  backend: JudgeBackend;
  ctx: ChatCallContext;
}

/** One question to the judge, answered as text; a judge that cannot answer is a `JudgeError` value. */
export async function ask(judge: RunJudge, system: string, user: string): Promise<string | JudgeError> {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const answer = await judge.backend.complete(messages, judge.ctx);
  return isJudgeError(answer) ? answer : answer.content;
}

/** A verdict word from a model's JSON: yes or no; anything else is no answer. */
export function verdictOf(value: unknown): 'yes' | 'no' | 'none' {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  const word =
    typeof value === 'string'
      ? value
          .trim()
          .toLowerCase()
          .replace(/[.!]+$/, '')
      : '';
  return word === 'yes' || word === 'no' ? word : 'none';
}

export function reasonOf(value: unknown, fallback = '(no reason given)'): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 300) : fallback;
}
