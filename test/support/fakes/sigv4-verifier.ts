/**
 * SigV4 verification for the control-plane simulator (test/support/fakes/control-plane.ts), with AWS's
 * own signer: the request is signed again with the known fake credentials and the two
 * `authorization` headers compared, so a request svc signed wrongly (or not at all) is refused the
 * way a Lambda Function URL refuses it.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** Fake static credentials for a test's child environment: never a real account. */
export const FAKE_AWS = {
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  AWS_REGION: 'us-east-1',
} as const;

/**
 * The environment a child signing with FAKE_AWS runs in: the shared config and credentials files
 * point nowhere, so the developer's own ~/.aws can neither help nor leak into a test.
 */
export function fakeAwsEnv(dir: string): Record<string, string> {
  return {
    ...FAKE_AWS,
    AWS_CONFIG_FILE: `${dir}/no-aws-config`,
    AWS_SHARED_CREDENTIALS_FILE: `${dir}/no-aws-credentials`,
  };
}

const verifier = new SignatureV4({
  service: 'lambda',
  region: FAKE_AWS.AWS_REGION,
  sha256: Sha256,
  credentials: {
    accessKeyId: FAKE_AWS.AWS_ACCESS_KEY_ID,
    secretAccessKey: FAKE_AWS.AWS_SECRET_ACCESS_KEY,
  },
});

/** Whether `request` (with its body already read) carries a valid SigV4 signature for FAKE_AWS. */
export async function verifySignature(
  request: IncomingMessage,
  url: URL,
  body: string,
): Promise<boolean> {
  const authorization = request.headers.authorization ?? '';
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';');
  const date = request.headers['x-amz-date'];
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (signedHeaders === undefined || typeof date !== 'string' || typeof payloadHash !== 'string') {
    return false;
  }
  // The signer trusts a payload hash header, so check it against the body itself.
  if (createHash('sha256').update(body).digest('hex') !== payloadHash) {
    return false;
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string') {
      headers[name] = value;
    }
  }
  const query: Record<string, string> = {};
  url.searchParams.forEach((value, key) => {
    query[key] = value;
  });
  const signingDate = new Date(
    date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  const expected = await verifier.sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers,
      ...(body === '' ? {} : { body }),
    },
    { signingDate },
  );
  return expected.headers['authorization'] === authorization;
}
