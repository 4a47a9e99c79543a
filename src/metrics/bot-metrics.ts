import type { BotTokenUsage, RtviMetricsInput, ServiceMetrics } from './timeline-types.js';

/**
 * Folding the bot's RTVI `metrics` messages into per-service records. The bot
 * under test wrote these, so every field is checked: an entry without a
 * `processor` or with a non-finite value is skipped, never trusted.
 */

export interface BotMetricsAccumulator {
  services: Record<string, ServiceMetrics>;
  tokens: BotTokenUsage | null;
  /** Entries skipped because the per-turn service cap was reached. */
  dropped: number;
}

type FirstField = 'ttfb_ms' | 'ttfa_ms' | 'ttfat_ms';
type SumField = 'processing_ms' | 'characters' | 'stt_audio_ms';

/** kind → where its entry's number lives, what it becomes, and the unit factor to ms. */
const FIRST_KINDS: Record<string, { field: FirstField; read: (e: Record<string, unknown>) => unknown }> = {
  ttfb: { field: 'ttfb_ms', read: (e) => e.value },
  ttfa: { field: 'ttfa_ms', read: (e) => e.ttfa },
  ttfat: { field: 'ttfat_ms', read: (e) => e.ttfat },
};
const SUM_KINDS: Record<string, { field: SumField; read: (e: Record<string, unknown>) => unknown; factor: number }> = {
  processing: { field: 'processing_ms', read: (e) => e.value, factor: 1000 },
  characters: { field: 'characters', read: (e) => e.value, factor: 1 },
  stt_usage: { field: 'stt_audio_ms', read: (e) => asRecord(e.value)?.audio_seconds, factor: 1000 },
};

export function newBotMetricsAccumulator(): BotMetricsAccumulator {
  return { services: Object.create(null) as Record<string, ServiceMetrics>, tokens: null, dropped: 0 };
}

/** Merges one `metrics` message into `acc`; at most `maxServices` distinct services are kept. */
export function accumulateBotMetrics(acc: BotMetricsAccumulator, data: RtviMetricsInput, maxServices: number): void {
  for (const [kind, list] of Object.entries(data)) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const entry = asRecord(raw);
      if (!entry) continue;
      if (kind === 'tokens') addTokens(acc, entry);
      else addServiceEntry(acc, kind, entry, maxServices);
    }
  }
}

function addServiceEntry(
  acc: BotMetricsAccumulator,
  kind: string,
  entry: Record<string, unknown>,
  maxServices: number,
): void {
  const first = FIRST_KINDS[kind];
  const sum = SUM_KINDS[kind];
  if (!first && !sum) return;
  const processor = entry.processor;
  if (typeof processor !== 'string' || processor === '') return;
  const value = finite((first ?? sum).read(entry));
  if (value === null) return;
  let service = acc.services[processor];
  if (!service) {
    if (Object.keys(acc.services).length >= maxServices) {
      acc.dropped++;
      return;
    }
    service = { reports: 0 };
    acc.services[processor] = service;
  }
  service.reports++;
  if (service.model === undefined && typeof entry.model === 'string') service.model = entry.model;
  if (first) {
    if (service[first.field] === undefined) service[first.field] = round3(value * 1000);
  } else if (sum) {
    service[sum.field] = round3((service[sum.field] ?? 0) + value * sum.factor);
  }
}

function addTokens(acc: BotMetricsAccumulator, entry: Record<string, unknown>): void {
  const prompt = finite(entry.prompt_tokens);
  const completion = finite(entry.completion_tokens);
  const total = finite(entry.total_tokens);
  if (prompt === null || completion === null || total === null) return;
  const t = acc.tokens ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, reports: 0 };
  t.prompt_tokens += prompt;
  t.completion_tokens += completion;
  t.total_tokens += total;
  const reasoning = finite(entry.reasoning_tokens);
  if (reasoning !== null) t.reasoning_tokens = (t.reasoning_tokens ?? 0) + reasoning;
  const cached = finite(entry.cache_read_input_tokens);
  if (cached !== null) t.cache_read_input_tokens = (t.cache_read_input_tokens ?? 0) + cached;
  t.reports++;
  acc.tokens = t;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Rounds to a microsecond: clock readings are fractional and float sums leave noise in the last digits. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
