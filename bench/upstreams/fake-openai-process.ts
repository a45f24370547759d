/**
 * The fake OpenAI server (test/support/fakes/fake-openai.ts) in a process of its own, for the
 * upstreams bench: in the bench's own process its replies would share the event loop with the
 * client timing them, which a daemon node's engine (its own process) does not. Prints its URL;
 * `stream` as the first argument answers with two SSE chunks, else with a JSON completion.
 */
import { fakeOpenai } from '../../test/support/fakes/fake-openai.ts';

const fake = await fakeOpenai();
if (process.argv[2] === 'stream') {
  fake.answer = { kind: 'stream', chunks: ['{"n":1}', '{"n":2}'] };
}
// Its record of requests is a test's; here it would only grow.
setInterval(() => fake.seen.splice(0), 1_000).unref();
process.stdout.write(`fake openai listening on ${fake.url}\n`);
// Closed, nothing is left to keep the process alive: it ends.
process.on('SIGTERM', () => {
  void fake.close();
});
