/**
 * The schedule loop's contract (schedule-loop.ts): what it asks of its edges (the effects it
 * applies, its timers), the scheduler's actions by kind, and how a request or an operator's start
 * learns it was refused or that its caller left.
 */
import type {
  Action,
  ActivityReading,
  NodeView,
  RequestId,
} from '../../core/fleet/scheduling/types.ts';

export type DispatchAction = Extract<Action, { kind: 'dispatch' }>;
export type RejectAction = Extract<Action, { kind: 'reject' }>;
export type WakeAction = Extract<Action, { kind: 'wake' }>;
export type StopAction = Extract<Action, { kind: 'stop' }>;
export type ReadAction = Extract<Action, { kind: 'read' }>;
export type StartAction = Extract<Action, { kind: 'start' }>;
export type StartRefusedAction = Extract<Action, { kind: 'start-refused' }>;

/** A request the scheduler refused; the gateway turns it into its reply (rejection.ts). */
export class Refused extends Error {
  constructor(readonly action: RejectAction) {
    super(`refused: ${action.reason}`);
  }
}

/** An operator's start the scheduler refused (docs/design.md D33 `group_busy`). */
export class StartRefused extends Error {
  constructor(readonly action: StartRefusedAction) {
    super(`start refused: group ${action.group} is held by ${action.holder}`);
  }
}

/** The caller hung up while its request waited: nothing is to be answered. */
export class HungUp extends Error {
  constructor() {
    super('the caller hung up while its request waited');
  }
}

/** A request the scheduler placed at once, or one that waits for its answer. */
export type Admission =
  | { readonly id: RequestId; readonly placed: DispatchAction }
  | { readonly id: RequestId; readonly waiting: Promise<DispatchAction> };

/** What the loop does to the world; each returns when the act has ended. */
export interface ScheduleEffects {
  /** Starts the node for the model and waits until it serves it: the view that says so. */
  wake(action: WakeAction): Promise<NodeView>;
  /** Stops the node; false when it could not be stopped. */
  stop(action: StopAction): Promise<boolean>;
  /**
   * Reads the node's activity afresh (its metrics, which feed its record, spec §3); undefined
   * when it could not be read. Without it no read answers, so nothing is stopped for idleness.
   */
  read?(action: ReadAction): Promise<ActivityReading | undefined>;
  /** Asks the node for its status now (its answer reaches the loop as views). */
  refresh(node: string): void;
  /** Hears every action applied (logs and metrics). */
  applied?(action: Action): void;
}

export interface LoopTimers {
  /** Milliseconds since the epoch: views' `observedAt` and `lastActiveAt` are on this clock. */
  now(): number;
  /** Runs `run` after `ms`; the returned function cancels it. Never holds the process open. */
  after(ms: number, run: () => void): () => void;
}

/** How the loop settles a request's or a start's promise. */
export interface Settle<T> {
  readonly resolve: (action: T) => void;
  readonly reject: (error: Error) => void;
}
