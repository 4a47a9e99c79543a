import type { ScenarioResult } from '../results/index.js';
import type { Scenario } from '../scenario/index.js';
import { DEFAULT_BOT_INPUT_RATE, sampleRateWarning, type SessionOptions } from '../session/index.js';

/**
 * What a runner says before it starts and after a scenario, about running
 * real bots: warnings that a run may not measure what it means to, and the
 * hint a refused connection needs.
 */

export interface PreflightSettings {
  codec: NonNullable<SessionOptions['codec']>;
  botInputRate?: number;
  /** Every scenario meets the same bot process (`earshot run`). */
  oneBot: boolean;
}

/** One line each (`file:line:col: warning: …` where a field is to blame). */
export function runWarnings(scenarios: readonly Scenario[], settings: PreflightSettings): string[] {
  const rate = settings.botInputRate ?? DEFAULT_BOT_INPUT_RATE;
  const out = new Set<string>();
  for (const s of scenarios) {
    const w = sampleRateWarning(s, rate);
    if (w) out.add(w);
  }
  if (settings.oneBot && settings.codec === 'pipecat-eval') {
    const text = scenarios.findIndex((s) => s.judge.modality === 'text');
    const audio = text < 0 ? undefined : scenarios.slice(text + 1).find((s) => s.judge.modality === 'audio');
    if (audio) {
      out.add(
        `${audio.file}: warning: runs after the text scenario ${scenarios[text].file} against one Pipecat eval bot, which keeps skip_tts on after a text session ` +
          "(a Pipecat bug): it may stay silent here. Give each scenario a bot of its own (`earshot suite`), or run the audio scenarios in a run of their own",
      );
    }
  }
  return [...out];
}

/**
 * A connect refused after an earlier scenario connected: the bot most likely
 * ended when that client left. The failure says so and how to get around it.
 */
export function explainRefusedReconnect(result: ScenarioResult, earlierConnected: boolean, stopBot: boolean): void {
  if (!earlierConnected) return;
  const failure = result.failures.find((f) => f.kind === 'connect_failed');
  if (!failure) return;
  failure.reason += stopBot
    ? "; the bot accepted the previous scenario's connection, and --stop-bot asked it to shut down when that scenario ended. Without --stop-bot it stays up, or use `earshot suite` (a bot of its own for each scenario)"
    : "; the bot accepted the previous scenario's connection and refuses this one: it probably ended when that client disconnected (Pipecat's examples cancel the pipeline in on_client_disconnected, which its WebSocket transport fires on every disconnect). Use `earshot suite` (a bot of its own for each scenario), or keep the pipeline alive in the bot's disconnect handler";
}
