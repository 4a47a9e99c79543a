import { CONDITIONS_SPEC } from './condition-fields.js';
import { DEFAULT_SCORECARD_PASS, SCORECARD_SPEC } from './file-fields.js';
import { JUDGE_SPEC, LLM_SPEC, USER_SPEC } from './service-fields.js';
import { deref, ref, str, text, type ObjectSpec, type Spec } from './spec.js';
import { SCENARIO_SEVERITIES } from './types.js';

/**
 * AMD GAIA's scenario format and corpus manifest as field tables (from its scenario-authoring guide, "Scenario YAML
 * Format" and "Manifest Format"), plus the earshot blocks a GAIA file may carry. The type checks run here (spec.ts);
 * the rules that tie fields together (turn numbers, corpus references, paths) are gaia.ts's and gaia-turns.ts's.
 */

/** GAIA: "Unique identifier (snake_case, alphanumeric + underscores)". */
export const GAIA_ID_PATTERN = '^[A-Za-z0-9_]+$';
export const CORPUS_FORMATS = ['markdown', 'html', 'csv', 'text', 'python', 'image'] as const;
export const FACT_DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

const answerText = (description: string): Spec => ({
  kind: 'oneOf',
  description,
  options: [str('The answer as text.'), { kind: 'number', description: 'A number, read as its text.' }],
});

export const GROUND_TRUTH_SPEC = ref('gaia_ground_truth', {
  kind: 'object',
  description: 'Structured ground truth for precise scoring; at least one key.',
  fields: {
    doc_id: text('Source document id from the corpus manifest (documents or adversarial_documents).'),
    fact_id: str('A fact id of that document in the manifest.', { nonEmpty: true, fromInteger: true }),
    fact_ids: {
      kind: 'array',
      nonEmpty: true,
      items: str('A fact id.', { nonEmpty: true, fromInteger: true }),
      description: 'Several fact ids of that document (merged with fact_id).',
    },
    expected_answer: answerText(
      'The answer the bot must give (strict automatic-zero rules apply). null: the bot must say it does not know.',
    ),
    expected_behavior: text('A behavioural expectation for the judge.'),
    note: text('A clarification for the judge.'),
  },
});

export const GAIA_TURN_SPEC = ref('gaia_turn', {
  kind: 'object',
  description: 'One turn: what the caller wants, and how the reply is judged.',
  required: ['turn', 'objective'],
  fields: {
    turn: { kind: 'integer', min: 1, description: 'Sequential integer starting from 1.' },
    objective: text('What the user wants to achieve (the caller model writes the message from it and the persona).'),
    user_message: text('The exact message to say; omitted: generated from objective + persona.'),
    ground_truth: GROUND_TRUTH_SPEC,
    success_criteria: text('Plain-English pass condition, judged yes or no.'),
    within_ms: {
      kind: 'integer',
      min: 1,
      unit: 'ms',
      description: 'earshot extension: how long the reply may take, from the send (default 60000, --timeout).',
    },
  },
  rules: [{ anyOf: [{ required: ['ground_truth'] }, { required: ['success_criteria'] }] }],
});

export const DOCUMENT_REF_SPEC = ref('gaia_document', {
  kind: 'object',
  description: 'A document to index before the conversation starts.',
  required: ['corpus_doc', 'path'],
  fields: {
    corpus_doc: text("The document's id in the corpus manifest."),
    path: text('The file, relative to the scenario root (GAIA: the repo root).'),
  },
});

const WEIGHTS_SPEC = (deref(SCORECARD_SPEC) as ObjectSpec).fields.weights;

export const GAIA_SPEC: ObjectSpec = {
  kind: 'object',
  description:
    "An AMD GAIA scenario (GAIA's eval/scenarios format), run as a spoken scripted scenario scored per turn on " +
    "GAIA's seven dimensions. Recognised by its top-level id: (and setup: or turns with objective:).",
  required: ['id', 'category', 'setup', 'turns'],
  fields: {
    id: str('Unique identifier (snake_case, alphanumeric + underscores); the result name.', {
      nonEmpty: true,
      pattern: GAIA_ID_PATTERN,
    }),
    name: text('Human-readable display name.'),
    category: text('Free-text label for grouping and --category filtering.'),
    severity: str('How much a failure matters, for --severity filtering.', { enum: SCENARIO_SEVERITIES }),
    description: text('What this scenario tests.'),
    persona: text(
      'The caller: one of the nine built-in personas (power_user, casual_user, ...) or any text describing them ' +
        '(earshot default: power_user).',
    ),
    setup: {
      kind: 'object',
      description: 'What happens before the conversation.',
      required: ['index_documents'],
      fields: {
        index_documents: {
          kind: 'array',
          items: DOCUMENT_REF_SPEC,
          description: 'Documents the bot indexes before the first turn (can be empty []).',
        },
      },
    },
    turns: { kind: 'array', nonEmpty: true, items: GAIA_TURN_SPEC, description: 'The conversation, in order.' },
    expected_outcome: text('Summary of what a passing run looks like.'),
    user: USER_SPEC,
    judge: JUDGE_SPEC,
    simulator: LLM_SPEC,
    conditions: CONDITIONS_SPEC,
    pass_threshold: {
      kind: 'number',
      min: 0,
      max: 10,
      default: DEFAULT_SCORECARD_PASS,
      description: 'earshot extension: weighted total (0-10) a turn needs to pass.',
    },
    weights: WEIGHTS_SPEC,
  },
};

const FACT_SPEC = ref('corpus_fact', {
  kind: 'object',
  description: 'A ground-truth fact of a document.',
  required: ['id', 'question', 'answer'],
  fields: {
    id: text('Fact id, unique within its document.'),
    question: text('The question the fact answers.'),
    answer: answerText('The answer.'),
    difficulty: str('easy: stated directly; medium: needs inference; hard: needs synthesis or calculation.', {
      enum: FACT_DIFFICULTIES,
    }),
  },
});

export const CORPUS_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'An AMD GAIA corpus manifest (eval/corpus/manifest.json): documents and their ground-truth facts.',
  required: ['documents'],
  fields: {
    generated_at: text('When the manifest was generated.'),
    total_documents: { kind: 'integer', min: 0, description: 'How many documents the manifest lists.' },
    total_facts: { kind: 'integer', min: 0, description: 'How many facts the documents hold.' },
    notes: str('Description of corpus changes.'),
    documents: {
      kind: 'array',
      description: 'The documents (files under documents/).',
      items: ref('corpus_document', {
        kind: 'object',
        description: 'A corpus document.',
        required: ['id', 'filename'],
        fields: {
          id: text('Document id, unique in the manifest.'),
          filename: text('File name under documents/.'),
          format: text(`The file format: ${CORPUS_FORMATS.join(', ')}.`),
          domain: text('Subject area.'),
          facts: { kind: 'array', items: FACT_SPEC, description: 'Ground-truth facts.' },
        },
      }),
    },
    adversarial_documents: {
      kind: 'array',
      description: 'Adversarial files (under adversarial/) and what the agent should do with them.',
      items: ref('corpus_adversarial', {
        kind: 'object',
        description: 'An adversarial document.',
        required: ['id', 'filename', 'expected_behavior'],
        fields: {
          id: text('Document id, unique in the manifest.'),
          filename: text('File name under adversarial/.'),
          expected_behavior: text('What the agent should do with it.'),
        },
      }),
    },
  },
};
