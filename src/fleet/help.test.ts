/**
 * `svc fleet --help` is written by hand (one table for every verb, with the verbs each flag
 * belongs to), while parsing reads the per-verb table in options.ts: this keeps the two from
 * drifting apart.
 */
import { describe, expect, it } from 'vitest';

import type { OptionTable } from '../core/cli-args.ts';
import { help } from './command.ts';
import { FLEET_VERB_OPTIONS, FLEET_VERBS } from './options.ts';

describe('svc fleet --help', () => {
  it('has a usage line for every verb', () => {
    for (const verb of FLEET_VERBS) {
      expect(help).toContain(`svc fleet ${verb} `);
    }
  });

  it('names every flag any verb takes, with its short form', () => {
    for (const options of Object.values(FLEET_VERB_OPTIONS)) {
      for (const [name, spec] of Object.entries(options as OptionTable)) {
        expect(help).toContain(`--${name}`);
        if (spec.short !== undefined) {
          expect(help).toMatch(new RegExp(`-${spec.short}\\b`));
        }
      }
    }
  });
});
