import { UsageError } from '../core/errors.js';

/** A manifest's `spawn:` template that cannot be turned into a command line. */
export class SpawnTemplateError extends UsageError {
  readonly template: string;
  readonly problem: string;
  constructor(template: string, problem: string) {
    super(`spawn template ${JSON.stringify(template)}: ${problem}`);
    this.name = 'SpawnTemplateError';
    this.template = template;
    this.problem = problem;
  }
}
