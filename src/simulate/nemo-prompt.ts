/**
 * The two system prompts of a NeMo scenario (its user side for the simulated caller, its agent side for the bot's
 * `update_system_prompt`). The renderer lives in `scenario/nemo/prompt.ts` because compiling a scenario needs it and
 * `scenario/` may import only `core/`; this is its name on the simulate side, where the caller is built.
 */
export { NEMO_PROMPT_LINES, renderAgentPrompt, renderUserPrompt } from '../scenario/nemo/prompt.js';
