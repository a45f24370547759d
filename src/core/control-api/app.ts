/**
 * The control API (spec §4.1), built without listening (fastify's build/listen split): the
 * daemon and `serve --api` each pass their own handlers and listen with core/http/listen.ts.
 * Every non-2xx reply is `{"error": "..."}` (docs/design.md D16); every request is logged (spec
 * §1.6); every endpoint is behind the bearer token when one is configured (spec §5).
 */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';

import { bearerChecker } from '../auth/bearer.ts';
import type { LogsResponse, Message, Stats, StatusResponse } from '../contract/schemas.ts';
import { SvcError } from '../errors.ts';
import { logRequest } from '../http/access-log.ts';
import { afterBody } from '../http/drain-body.ts';
import { HttpError } from '../http/http-error.ts';
import { jsonErrorPosition } from '../http/json-error.ts';
import type { Logger } from '../logger.ts';
import { exposition, wantsOpenMetrics } from '../metrics/exposition.ts';
import { logQueryOf, type LogRead } from '../runner/engine-log.ts';
import type { LifetimeCounts } from '../state/record.ts';
import { ROUTES } from './routes.ts';
import { validateBody } from './validate-body.ts';

export interface ControlHandlers {
  status(): StatusResponse;
  metrics(): Promise<Stats> | Stats;
  /** What the supervisor counted since this process started (for `GET /metrics`). */
  lifetime(): LifetimeCounts;
  /** `body` is undefined for a body-less start. */
  start(body: unknown): Promise<StatusResponse>;
  stop(): Promise<StatusResponse>;
  logs(read: LogRead): Promise<LogsResponse>;
  deployConfig(body: unknown): Promise<Message>;
}

export interface ControlApiOptions {
  readonly token?: string;
  readonly logger: Logger;
  readonly handlers: ControlHandlers;
}

/** SvcError codes that are replies, by status (spec §7). */
const STATUS_BY_CODE: Partial<Record<SvcError['code'], number>> = {
  ERR_ENGINE_RUNNING: 409,
  ERR_ENGINE_START_FAILED: 400,
  ERR_ENGINE_UNAVAILABLE: 400,
  ERR_NOTHING_TO_SERVE: 400,
  ERR_DEPLOY_CONFIG: 400,
  ERR_ENGINE_STUCK: 500,
};

/**
 * spec §1.6: a refused start or push is a warn with its reason, whether the schema or the handler
 * refused it. An engine that failed to start from a valid config is an error, logged by the
 * supervisor where it failed; the request line alone says the request was refused.
 */
const REFUSAL_RECORDS: Readonly<Record<string, string>> = {
  '/v1/start': 'start refused',
  '/v1/deploy-config': 'deploy config refused',
};

function logRefusal(
  logger: Logger,
  url: string | undefined,
  status: number,
  error: unknown,
  reason: string,
): void {
  const record = REFUSAL_RECORDS[url ?? ''];
  const failedStart = error instanceof SvcError && error.code === 'ERR_ENGINE_START_FAILED';
  // A 401 says nothing about the request: its line is the record (spec §5 rule 4).
  if (record !== undefined && status >= 400 && status < 500 && status !== 401 && !failedStart) {
    logger.warn(record, { reason });
  }
}

const BODY_LIMIT = 1024 * 1024;
/** A refused body up to this size is read to its end first, so its 413 reaches the caller. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

export function buildControlApi({ token, logger, handlers }: ControlApiOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, return503OnClosing: false });
  const authorized = bearerChecker(token);

  // An empty body is a body-less request (POST /v1/start with nothing); malformed JSON is a 400.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const source = typeof text === 'string' ? text : text.toString('utf8');
    if (source.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(source) as unknown);
    } catch (error) {
      // Node's message quotes the text around the error, which may be a key: say only where.
      done(new HttpError(400, `malformed JSON body${jsonErrorPosition(error)}`), undefined);
    }
  });

  app.addHook('onRequest', (request, _reply, done) => {
    done(
      authorized(request.headers.authorization)
        ? undefined
        : new HttpError(401, 'missing or invalid bearer token'),
    );
  });

  app.addHook('onResponse', async (request, reply) => {
    const length = Number(reply.getHeader('content-length') ?? 0);
    logRequest(logger, {
      method: request.method,
      path: request.url,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      bytes: Number.isFinite(length) ? length : 0,
      remote: request.socket.remoteAddress ?? '',
    });
  });

  app.setErrorHandler((error: FastifyError | HttpError | SvcError, request, reply) => {
    let status = 500;
    let message = 'internal error; see the daemon log';
    if (error instanceof HttpError) {
      status = error.status;
      message = error.message;
    } else if (error instanceof SvcError) {
      status = STATUS_BY_CODE[error.code] ?? 500;
      message =
        status === 500 && STATUS_BY_CODE[error.code] === undefined ? message : error.message;
    } else if (
      typeof error.statusCode === 'number' &&
      error.statusCode >= 400 &&
      error.statusCode < 500
    ) {
      status = error.statusCode;
      message =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? `request body larger than ${BODY_LIMIT} bytes`
          : status === 415
            ? 'unsupported content type: send the body as application/json'
            : error.message;
    }
    if (status === 500) {
      logger.error('request failed inside svc', { reason: error.message });
    }
    logRefusal(logger, request.routeOptions.url, status, error, message);
    const send = (): void => {
      void reply.code(status).type('application/json').send({ error: message });
    };
    if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      afterBody(request.raw, DRAIN_LIMIT, (drained) => {
        if (drained) {
          // Fastify marks every refused body `connection: close`; read to its end, it need not.
          void reply.removeHeader('connection');
        }
        send();
      });
      return;
    }
    send();
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = ROUTES.filter((route) => route.path === path).map((route) => route.method);
    if (allowed.length > 0) {
      void reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({
          error: `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`,
        });
      return;
    }
    const served = ROUTES.map((route) => `${route.method} ${route.path}`).join(', ');
    void reply
      .code(404)
      .send({ error: `no endpoint ${request.method} ${path}; the control API serves ${served}` });
  });

  for (const route of ROUTES) {
    app.route({
      method: route.method,
      url: route.path,
      ...(route.text === undefined ? { schema: { response: { 200: route.reply } } } : {}),
      handler: async (request, reply) => {
        switch (route.name) {
          case 'prometheus': {
            // The same Stats /v1/metrics answers with (spec §3: one record), in Prometheus form.
            const page = await exposition(
              {
                stats: await handlers.metrics(),
                lifetime: handlers.lifetime(),
                version: handlers.status().version,
              },
              wantsOpenMetrics(request.headers.accept),
            );
            return reply.type(page.contentType).send(page.body);
          }
          case 'status':
            return handlers.status();
          case 'metrics':
            return handlers.metrics();
          case 'stop':
            return handlers.stop();
          case 'start':
            return handlers.start(
              request.body === undefined || route.body === undefined
                ? undefined
                : validateBody(route.body.schema, request.body),
            );
          case 'deployConfig':
            if (request.body === undefined || route.body === undefined) {
              throw new HttpError(400, 'a deploy config body is required');
            }
            return handlers.deployConfig(validateBody(route.body.schema, request.body));
          case 'logs': {
            const asked = logQueryOf(request.query as Record<string, unknown>);
            if ('refusal' in asked) {
              throw new HttpError(400, asked.refusal);
            }
            return handlers.logs(asked.read);
          }
        }
      },
    });
  }
  return app;
}
