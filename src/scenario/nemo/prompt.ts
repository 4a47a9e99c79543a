import type { Persona, SideSpec } from './types.js';

/**
 * NeMo renders each side's four properties into a system prompt (`get_user_prompt()` / `get_agent_prompt()`); its
 * exact wording is not published, so this is earshot's, in a documented order (docs/guide/coming-from-nemo.md):
 * persona lines first, the task, the numbered instructions, the guidelines, the information, each info section as a
 * `### heading` block, the documents, the tool names. `behavior_config` / `voice_config` are labels, never rendered.
 * The headings are exported so a test stand-in can read a prompt back, as sim-llm reads the persona's.
 */
export const NEMO_PROMPT_LINES = {
  background: 'Background: ',
  personality: 'Personality: ',
  language: 'Language: ',
  accent: 'Accent: ',
  task: 'Task: ',
  taskBackground: 'Context: ',
  instructions: 'Instructions, in order:',
  guidelines: 'Guidelines (always apply):',
  information: 'Information:',
  documents: 'Documents:',
  tools: 'Tools: ',
} as const;

/**
 * The simulated caller's side. Its first line is the persona (`Charlie, human user`): earshot's caller prompt puts
 * the whole text after `Who you are: `, and the task goal also goes in as the caller's goal.
 */
export function renderUserPrompt(side: SideSpec): string {
  return renderSide(side, '');
}

/** The bot's side, as `update_system_prompt` sends it (`You are …` first). */
export function renderAgentPrompt(side: SideSpec): string {
  return renderSide(side, 'You are ');
}

function personaLine(p: Persona | undefined): string {
  if (!p) return '';
  const who = [p.name, p.role].filter((s) => typeof s === 'string' && s.trim() !== '').join(', ');
  return who ? `${who}.` : '';
}

function renderSide(side: SideSpec, opener: string): string {
  const L = NEMO_PROMPT_LINES;
  const blocks: string[][] = [];
  const p = side.persona;
  const first = personaLine(p);
  blocks.push(
    [
      first ? opener + first : '',
      labelled(L.background, p?.background),
      labelled(L.personality, p?.personality),
      labelled(L.language, p?.language),
      labelled(L.accent, p?.accent),
    ].filter(Boolean),
  );
  blocks.push([labelled(L.task, side.task?.goal), labelled(L.taskBackground, side.task?.background)].filter(Boolean));
  const a = side.actions ?? {};
  blocks.push(listed(L.instructions, a.instructions, (line, i) => `${i + 1}. ${line}`));
  blocks.push(listed(L.guidelines, a.guidelines, (line) => `- ${line}`));
  const r = side.resources ?? {};
  blocks.push(listed(L.information, r.information, (line) => `- ${line}`));
  for (const [heading, lines] of Object.entries(r.info_sections ?? {}))
    blocks.push([`### ${heading}`, ...(lines ?? []).map((line) => `- ${line}`)]);
  blocks.push(listed(L.documents, r.documents, (line) => `- ${line}`));
  const tools = Object.keys(r.tools ?? {});
  if (tools.length) blocks.push([`${L.tools}${tools.join(', ')}`]);
  return blocks
    .filter((b) => b.length > 0)
    .map((b) => b.join('\n'))
    .join('\n\n');
}

function labelled(label: string, value: string | undefined): string {
  return typeof value === 'string' && value.trim() !== '' ? label + value.trim() : '';
}

function listed(title: string, lines: readonly string[] | undefined, item: (line: string, i: number) => string) {
  const kept = (lines ?? []).filter((l) => typeof l === 'string' && l.trim() !== '').map((l) => l.trim());
  return kept.length ? [title, ...kept.map(item)] : [];
}
