import type { ChatMessage, ChatTool } from '../judge/index.js';

/**
 * The simulated caller's prompt, after Pipecat's persona (its newest
 * `persona.py`): the file's `persona:` and `goal:` go in word for word; the
 * bot's lines are the model's `user` messages and the caller's own lines its
 * `assistant` messages, so the model answers the bot the way a bot answers a
 * user; it hangs up by calling one tool, `end_call`, with whether it got what
 * it came for and why. That claim is the persona's view; the judge decides.
 *
 * The wording is earshot's. The line prefixes are exported because the test
 * stand-in server reads the prompt back with them.
 */

export const END_CALL = 'end_call';

export const END_CALL_TOOL: ChatTool = {
  name: END_CALL,
  description:
    'Hang up. Call this instead of saying anything more once your goal is met, or once it is clear the ' +
    'assistant cannot help you meet it.',
  parameters: {
    type: 'object',
    properties: {
      success: { type: 'boolean', description: 'Whether you got what you called for.' },
      reason: { type: 'string', description: 'In one sentence, why you are hanging up.' },
    },
    required: ['success', 'reason'],
  },
};

export const PERSONA_LINES = {
  who: 'Who you are: ',
  goal: 'What you want from this call: ',
} as const;

/** The system instruction the persona runs under. */
export function personaInstruction(persona: string, goal: string): string {
  return [
    'You are a person on a phone call with a voice assistant. Stay in character the whole time, and never say ' +
      'or hint that you are simulated, an AI or part of a test.',
    '',
    PERSONA_LINES.who + persona,
    '',
    PERSONA_LINES.goal + goal,
    '',
    "The assistant's words reach you as the user's messages. Answer with only what you say next: one short " +
      'spoken turn, in the first person, in plain sentences (no lists, no markdown, no stage directions).',
    'Like a real caller, give or ask for one thing at a time, and do not repeat what the assistant has already ' +
      'understood.',
    `When your goal is met, or it is clear the assistant cannot help, say nothing more: call the ${END_CALL} ` +
      'tool with whether you succeeded and why.',
  ].join('\n');
}

/** One line the caller's model has heard or said. */
export interface HeardLine {
  /** `bot`: what the assistant said (the model's `user`); `caller`: what the persona said (its `assistant`). */
  role: 'bot' | 'caller';
  text: string;
}

/** The chat the persona model answers: its instruction, then the conversation with the roles turned around. */
export function personaMessages(instruction: string, lines: readonly HeardLine[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: instruction }];
  for (const line of lines) {
    const text = line.text.trim();
    if (text) messages.push({ role: line.role === 'bot' ? 'user' : 'assistant', content: text });
  }
  return messages;
}
