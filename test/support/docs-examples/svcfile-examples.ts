/**
 * The examples of docs/svcfile.md: each ```Svcfile block, with the ```ini title=NAME blocks after
 * it (its preset files), and the ```console block that follows: `svc serve --dry-run` and the
 * command it must print.
 */
export interface SvcfileExample {
  svcfile: string;
  files: Record<string, string>;
  command: string;
  expected: string;
}

export function svcfileExamples(markdown: string): SvcfileExample[] {
  const blocks = [...markdown.matchAll(/```([^\n]*)\n([\s\S]*?)```/g)].map((match) => ({
    info: (match[1] ?? '').trim(),
    body: match[2] ?? '',
  }));
  const found: SvcfileExample[] = [];
  let current: SvcfileExample | undefined;
  for (const block of blocks) {
    if (block.info === 'Svcfile') {
      current = { svcfile: block.body, files: {}, command: '', expected: '' };
    } else if (current !== undefined && block.info.startsWith('ini title=')) {
      current.files[block.info.slice('ini title='.length)] = block.body;
    } else if (current !== undefined && block.info === 'console') {
      const [prompt = '', ...output] = block.body.trimEnd().split('\n');
      current.command = prompt.replace(/^\$ /, '');
      current.expected = output.join('\n');
      found.push(current);
      current = undefined;
    }
  }
  return found;
}
