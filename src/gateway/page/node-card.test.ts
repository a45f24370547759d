/**
 * The fleet page's node card and queue line, run as the browser runs node-card.js (a classic
 * script) in a context with a minimal document: a running node shows busy/slots, this gateway's
 * in-flight count, its group and idle stop; a stopped one shows none of them; the queue's line
 * names only what waits. The page in a real browser is test/e2e/fleet-page.e2e.test.ts.
 */
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';

import { describe, expect, it } from 'vitest';

/** Just enough of a DOM element for nodeCard: attributes, text and children. */
class FakeElement {
  readonly attributes = new Map<string, string>();
  readonly children: FakeElement[] = [];
  textContent = '';

  constructor(readonly tag: string) {}

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }

  append(...nodes: FakeElement[]): void {
    this.children.push(...nodes);
  }

  addEventListener(): void {}

  /** The text of the first descendant with `data-field="<field>"`. */
  field(field: string): string | undefined {
    for (const child of this.children) {
      if (child.attributes.get('data-field') === field) {
        return child.textContent;
      }
      const found = child.field(field);
      if (found !== undefined) {
        return found;
      }
    }
    return undefined;
  }
}

interface CardScript {
  nodeCard(
    node: Record<string, unknown>,
    stats?: unknown,
    statsError?: string,
    onControl?: () => void,
  ): FakeElement;
  queueText(fleet: Record<string, unknown>): string;
}

function loadScript(): CardScript {
  const source = readFileSync(new URL('node-card.js', import.meta.url), 'utf8');
  const context: Record<string, unknown> = {
    document: {
      createElement: (tag: string) => new FakeElement(tag),
      createElementNS: (_ns: string, tag: string) => new FakeElement(tag),
    },
  };
  // A classic script's top-level functions become the context's globals.
  runInNewContext(source, context);
  return context as unknown as CardScript;
}

describe('node-card.js', () => {
  const script = loadScript();

  it("shows a running node's busy/slots, our in-flight count, its group and idle stop", () => {
    const card = script.nodeCard({
      name: 'gpu-a',
      state: 'running',
      group: 'a100',
      slots: 2,
      busy: 1,
      inFlight: 1,
      idleStopAt: '2026-11-22T10:35:00.000Z',
    });
    expect(card.field('busy')).toBe('1/2');
    expect(card.field('in-flight')).toBe('1');
    expect(card.field('group')).toBe('a100');
    expect(card.field('idle-stop')).toBe(new Date('2026-11-22T10:35:00.000Z').toLocaleTimeString());
    expect(script.nodeCard({ name: 'b', state: 'running', slots: 4 }).field('busy')).toBe('?/4');
  });

  it('shows none of them where the reply has none, or the node is not running', () => {
    const stopped = script.nodeCard({ name: 'gpu-b', state: 'stopped', slots: 2, busy: 0 });
    for (const field of ['busy', 'in-flight', 'group', 'idle-stop']) {
      expect(stopped.field(field)).toBeUndefined();
    }
    expect(stopped.field('state')).toBe('stopped');
  });

  it('draws CPU and RAM for a running node only, never the readings a stopped one had', () => {
    const stats = { history: [{ t: 1, c: 100, m: 40 }], cpu: { utilization: 100 } };
    const meters = (state: string) =>
      script
        .nodeCard({ name: 'a', state }, stats)
        .children.filter((child) => child.attributes.get('class') === 'meter')
        .map((meter) => meter.children[0]?.textContent);
    expect(meters('running')).toEqual(['CPU', 'RAM']);
    expect(meters('stopped')).toEqual([]);
  });

  it('shows an upstream node as a plain card: a badge, its state and models, no button', () => {
    const node = { name: 'hosted', kind: 'upstream', state: 'running', models: ['big', 'small'] };
    const card = script.nodeCard(node, undefined, undefined, () => undefined);
    expect(card.field('kind')).toBe('upstream');
    expect(card.field('state')).toBe('running');
    expect(card.field('model')).toBe('big, small');
    expect(card.field('ready')).toBeUndefined();
    const buttons = card.children.filter((child) => child.attributes.get('class') === 'row');
    expect(buttons).toEqual([]);
    expect(script.nodeCard({ name: 'gpu', state: 'running' }).field('kind')).toBeUndefined();
  });

  it('names what waits in the queue, and nothing when none waits', () => {
    expect(script.queueText({ queued: { gemma: 2, qwen: 1 } })).toBe('Queued: gemma 2, qwen 1');
    expect(script.queueText({ queued: { gemma: 0 } })).toBe('');
    expect(script.queueText({ nodes: [] })).toBe('');
  });
});
