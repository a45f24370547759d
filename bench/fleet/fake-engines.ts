/**
 * Fake OpenAI engines for the fleet-scale benchmark, in a process of their own: every simulated
 * fleet's nodes point at these, so when two gateways are compared the replies come from the same
 * place and a difference is the gateways', not the busier fake fleet's (its status replies would
 * otherwise share an event loop with the engines). Prints `engines <port>,<port>,…` and exits on
 * SIGTERM/SIGINT or when its parent closes its stdin.
 *
 * Usage: node --import tsx bench/fleet/fake-engines.ts [count]
 */
import { createServer, type Server } from 'node:http';

import { listenLocal, stopWithParent } from '../support.ts';

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-fake',
  object: 'chat.completion',
  created: 0,
  model: 'fake',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const count = Number(process.argv[2] ?? 4);
if (!Number.isInteger(count) || count < 1) {
  throw new Error(`usage: fake-engines.ts [count] (count was ${process.argv[2] ?? 'missing'})`);
}

const engines: Server[] = [];
const ports: number[] = [];
for (let index = 0; index < count; index += 1) {
  const engine = createServer({ keepAliveTimeout: 5_000 }, (request, response) => {
    request.resume();
    request.once('end', () => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(COMPLETION),
      });
      response.end(COMPLETION);
    });
  });
  ports.push(await listenLocal(engine));
  engines.push(engine);
}

stopWithParent(() => {
  for (const engine of engines) {
    engine.closeAllConnections();
    engine.close();
  }
});

process.stdout.write(`engines ${ports.join(',')}\n`);
