/**
 * A relative MODEL path resolves against the Svcfile's directory, as a relative PRESET does
 * (spec §1.4), so `svc serve sub/` from the parent runs the model beside `sub/Svcfile` instead of
 * one relative to wherever the command was typed. Pure.
 */
import { dirname, isAbsolute, resolve } from 'node:path';

import { isModelPath } from '../engines/engine-table.ts';
import type { Origin } from './load.ts';
import type { RawProject } from './parse.ts';

/** Engines that get MODEL as a launch argument (oMLX's MODEL only names what agents ask for). */
const LAUNCHES_MODEL = new Set(['llamacpp', 'vllm', 'mtplx']);

export function modelLocation(model: string, provider: string, origin: Origin): string {
  // A fetched Svcfile has no directory on this machine; an absolute or home path stands.
  if (origin.kind !== 'file' || !LAUNCHES_MODEL.has(provider)) {
    return model;
  }
  if (isAbsolute(model) || model.startsWith('~') || /^[a-z]:[\\/]/i.test(model)) {
    return model;
  }
  // `./x` and `../x` are paths for every engine; llama.cpp also reads `models/x.gguf` as one
  // (docs/design.md D2), while for vLLM and MTPLX `org/model` is a hub repo.
  const explicit = /^\.\.?(?:[\\/]|$)/.test(model);
  const relative = explicit || (provider === 'llamacpp' && isModelPath(model));
  return relative ? resolve(dirname(origin.path), model) : model;
}

/** The project with its MODEL located (see above); unchanged when there is nothing to resolve. */
export function withModelLocated(project: RawProject, origin: Origin): RawProject {
  if (project.model === undefined) {
    return project;
  }
  const value = modelLocation(project.model.value, project.provider.value, origin);
  return value === project.model.value
    ? project
    : { ...project, model: { ...project.model, value } };
}
