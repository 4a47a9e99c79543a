/**
 * Scenario files: Pipecat-compatible scripted scenarios, simulations and suite
 * manifests, loaded with located errors and normalized (snake_case, includes
 * resolved, defaults filled in, paths absolute).
 */
export {
  loadFile,
  loadFileSync,
  loadScenario,
  loadSimulation,
  loadRunnable,
  loadManifest,
  loadScenarioFile,
  inspectFile,
  loadRawDocument,
  loadYamlTree,
  locationOf,
  DEFAULT_WITHIN_MS,
  type LoadOptions,
  type Inspection,
  type FileKind,
} from './load.js';
export { validatePaths, type FileValidation, type ValidatePathsOptions } from './walk.js';
export { toPlain, type YNode, type YMap, type YSeq, type YScalar, type YEntry } from './ynode.js';
export {
  ScenarioError,
  diagnosticAt,
  closest,
  describeValue,
  formatDiagnostic,
  formatLocation,
  displayPath,
  strictDiagnostics,
  type Diagnostic,
  type Severity,
  type SourceLocation,
} from './diagnostics.js';
export { DEFAULT_LIMITS, SourceCache, type LoadLimits } from './source.js';
export { findScenarioRoot, isInside, type RootCache } from './root.js';
export { generateSchema, schemaText, writeSchemas, SCHEMA_FILES, type SchemaFileName } from './schema-gen.js';
export { scenarioRef } from './manifest.js';
export { unrunnableFactories } from './hooks.js';
export {
  formatLlmOverride,
  LLM_OVERRIDE_SERVICES,
  parseLlmOverride,
  type LlmOverrideFlag,
} from './llm-override.js';
export {
  expandManifest,
  type ExpandedEntry,
  type ExpandedScenario,
  type ExpandOptions,
  type ManifestExpansion,
} from './manifest-expand.js';
export {
  DEFAULT_OLLAMA_MODEL,
  DEFAULT_OLLAMA_EXTRA,
  DEFAULT_SPAWN,
  DEFAULT_PADDING_SECS,
  DEFAULT_TRANSCRIPTION_SERVICE,
  DEFAULT_EXPLAIN_BELOW,
  SIMULATION_MEASURES,
} from './fields.js';
export { matchesTags, type TagFilter } from './simulation-extensions.js';
export {
  DEFAULT_EXIT_FUNCTIONS,
  DEFAULT_SCORECARD_PASS,
  DEFAULT_SCORECARD_WEIGHTS,
} from './file-fields.js';
export * from './events.js';
export * from './types.js';
export * from './check-types.js';
export { parseTextPattern, isPatternProblem, MAX_PATTERN_INPUT_CHARS, type PatternProblem } from './text-pattern.js';
export * from './condition-types.js';
export { applyConditionOverrides, parseConditionFlags, type ConditionOverrides } from './conditions.js';
export { splitAtPause } from './probes.js';
