/**
 * "Did you mean" for a model name typed wrong over HTTP (docs/design.md D20's rule for strict
 * inputs, on the 404 `model_not_found` of D19): the closest name the gateway serves, first in the
 * message, as `svc code --model` and the fleet file's keys already suggest. Pure: the name asked
 * for and the served names in, the sentence (or nothing) out.
 */
import { closestName } from '../../core/closest-name.ts';
import type { ModelEntry } from './models-list.ts';

/** `did you mean "chat"? ` when a served name is near `model`; else the empty string. */
export function didYouMean(model: string, served: readonly string[]): string {
  const near = closestName(model, served);
  return near === undefined || near === model ? '' : `did you mean "${near}"? `;
}

/** The names a request may use now: each listed model's id. */
export function served(entries: readonly ModelEntry[]): string[] {
  return entries.map((entry) => entry.id);
}
