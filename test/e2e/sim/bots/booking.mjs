// The reference bot with the table-booking brain, for test/e2e/sim/suite.yaml.
import { fileURLToPath } from 'node:url';
import { runRefbot } from '../../../suite/bots/launch.mjs';

await runRefbot(['--brain', fileURLToPath(new URL('../brain-booking.yaml', import.meta.url))]);
