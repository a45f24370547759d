// Writes docs/openapi.json from the control API's routes and schemas (`npm run openapi`).
import { writeFile } from 'node:fs/promises';

import { controlApiDocument } from '../src/core/control-api/openapi.ts';

await writeFile('docs/openapi.json', `${JSON.stringify(controlApiDocument(), null, 2)}\n`);
