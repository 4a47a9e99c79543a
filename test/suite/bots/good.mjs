// The reference bot as it is.
import { runRefbot } from './launch.mjs';

await runRefbot([]);
