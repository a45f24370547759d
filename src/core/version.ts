/**
 * The build-time version string (spec §9 rule 2). `scripts/build.mjs` replaces `__SVC_VERSION__`
 * with the value of `SVC_VERSION` at build time; an unset variable, or source run without the
 * build (unit tests), gives `dev`.
 */
declare const __SVC_VERSION__: string | undefined;

export const VERSION: string =
  typeof __SVC_VERSION__ === 'string' && __SVC_VERSION__ !== '' ? __SVC_VERSION__ : 'dev';
