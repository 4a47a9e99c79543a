import { UsageError } from '../../core/errors.js';

export class ThresholdError extends UsageError {
  readonly input: string;
  constructor(input: string, problem: string) {
    super(
      `--threshold ${JSON.stringify(input)}: ${problem} (expected e.g. 10%,50ms; a shift must exceed every part given)`,
    );
    this.name = 'ThresholdError';
    this.input = input;
  }
}

/**
 * `--threshold`: a relative part (`10%`, of the baseline median) and/or an
 * absolute part (`50ms`), comma-separated. A part left out is 0, so
 * `--threshold 20%` judges by the relative shift alone.
 */
export function parseThreshold(input: string): { threshold_pct: number; threshold_ms: number } {
  const out: { threshold_pct?: number; threshold_ms?: number } = {};
  const parts = input
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new ThresholdError(input, 'empty');
  for (const part of parts) {
    const m = /^(\d+(?:\.\d+)?)\s*(%|ms)$/.exec(part);
    if (!m) throw new ThresholdError(input, `cannot read ${JSON.stringify(part)}`);
    const value = Number(m[1]);
    const key = m[2] === '%' ? 'threshold_pct' : 'threshold_ms';
    if (out[key] !== undefined) throw new ThresholdError(input, `${m[2]} given twice`);
    out[key] = value;
  }
  return { threshold_pct: out.threshold_pct ?? 0, threshold_ms: out.threshold_ms ?? 0 };
}
