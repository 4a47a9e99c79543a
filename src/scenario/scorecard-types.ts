/**
 * GAIA's seven scorecard dimensions, in the order reports list them. Apart from types.ts so that gaia-types.ts, which
 * types.ts imports for `Scenario.gaia`, can name them without an import cycle.
 */
export const SCORECARD_DIMENSIONS = [
  'correctness',
  'tool_selection',
  'context_retention',
  'completeness',
  'efficiency',
  'personality',
  'error_recovery',
] as const;
export type ScorecardDimension = (typeof SCORECARD_DIMENSIONS)[number];
