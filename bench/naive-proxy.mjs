// The floor for a Node proxy: a few lines of node:http + undici that forward every request to
// one upstream and stream the reply back. The gateway is measured against this
// (docs/benchmarks.md).
import { createServer } from 'node:http';

import { Agent } from 'undici';

const upstream = process.argv[2];
const agent = new Agent({ keepAliveTimeout: 4_000 });
const origin = new URL(upstream).origin;

const server = createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) {
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const streaming = body.includes('"stream":true');
  try {
    const reply = await agent.request({
      origin,
      path: request.url,
      method: request.method,
      headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
      body,
      reset: streaming,
    });
    response.writeHead(reply.statusCode, reply.headers);
    for await (const chunk of reply.body) {
      response.write(chunk);
    }
    response.end();
  } catch (error) {
    response.writeHead(502).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`naive proxy on ${server.address().port}\n`),
);
