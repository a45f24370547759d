// Writes docs/openapi.json from the control API's routes and schemas, and
// docs/gateway-openapi.json from the gateway's route table and route docs (`npm run openapi`).
import { writeFile } from 'node:fs/promises';

import { controlApiDocument } from '../src/core/control-api/openapi.ts';
import { gatewayApiDocument } from '../src/gateway/openapi/gateway-openapi.ts';

const json = (document: Record<string, unknown>): string =>
  `${JSON.stringify(document, null, 2)}\n`;

await writeFile('docs/openapi.json', json(controlApiDocument()));
await writeFile('docs/gateway-openapi.json', json(gatewayApiDocument()));
