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
  loadGaiaScenario,
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
export * from './gaia-types.js';
export * from './nemo/types.js';
export {
  EvalScenario,
  isEvalScenarioClass,
  strictAnd,
  type EvalScenarioClass,
  type NoiseConfig,
  type SignalValues,
} from './nemo/scenario.js';
export {
  clearEvalScenarios,
  domainOf,
  listEvalScenarios,
  matchesDomain,
  registerEvalScenario,
  type RegisteredScenario,
} from './nemo/registry.js';
export { dbStatePredicate, registerDbStatePredicate, valueAtPath, type DbStatePredicate } from './nemo/predicates.js';
export { compileNemo, simulationOf } from './nemo/compile.js';
export { ScenarioDefinitionError } from './nemo/errors.js';
export { NEMO_PROMPT_LINES, renderAgentPrompt, renderUserPrompt } from './nemo/prompt.js';
export { isGaiaShape } from './gaia-shape.js';
export { GAIA_DEFAULT_JUDGE, GAIA_DEFAULT_USER } from './gaia.js';
export { gaiaIdConflicts, type GaiaIdConflict } from './gaia-ids.js';
export {
  findCorpus,
  loadCorpus,
  type AdversarialDocument,
  type Corpus,
  type CorpusCache,
  type CorpusDocument,
} from './corpus.js';
export {
  DEFAULT_GAIA_PERSONA,
  GAIA_PERSONA_NAMES,
  GAIA_PERSONAS,
  isBuiltinPersona,
  personaNearMiss,
  resolvePersona,
  type BuiltinPersona,
  type GaiaPersonaName,
} from './personas.js';
export * from './check-types.js';
export { parseTextPattern, isPatternProblem, MAX_PATTERN_INPUT_CHARS, type PatternProblem } from './text-pattern.js';
export * from './condition-types.js';
export { applyConditionOverrides, parseConditionFlags, type ConditionOverrides } from './conditions.js';
export { splitAtPause } from './probes.js';
