import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario, type Scenario } from '../../scenario/index.js';

/** Scenarios written to a throw-away project folder and loaded as the CLI would load them. */
export class ScenarioFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'earshot-media-'));
  constructor() {
    writeFileSync(join(this.dir, 'package.json'), '{}\n');
  }
  path(name: string): string {
    return join(this.dir, name);
  }
  write(name: string, content: string | Buffer): string {
    const p = this.path(name);
    writeFileSync(p, content);
    return p;
  }
  load(yaml: string, name = 'scenario.yaml'): Promise<Scenario> {
    return loadScenario(this.write(name, yaml));
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
