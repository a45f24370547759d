/**
 * SigV4 signing of control-plane calls with AWS's own libraries (docs/design.md "Stack"): service
 * `lambda`, `x-amz-content-sha256` over the body (the empty-string hash with none), credentials
 * from the standard chain (environment, shared config and credentials files, SSO, web identity,
 * container and instance roles). The libraries load on the first remote call only, so `svc
 * --version` and a gateway with no remote node never pay for them.
 */

export interface SignInput {
  readonly method: string;
  readonly url: URL;
  readonly body?: string;
}

/** The headers a signed request carries (host, x-amz-date, x-amz-content-sha256, authorization, …). */
export type Signer = (input: SignInput) => Promise<Record<string, string>>;

type CredentialProvider = () => Promise<{
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}>;

let chain: Promise<CredentialProvider> | undefined;

/** The credential chain, built once per process (it caches what it found, refreshing near expiry). */
function credentialChain(): Promise<CredentialProvider> {
  chain ??= import('@aws-sdk/credential-provider-node').then(({ defaultProvider }) =>
    defaultProvider(),
  );
  return chain;
}

/** Thrown when no credential source in the chain has credentials: says where they could come from. */
export class MissingCredentialsError extends Error {
  constructor() {
    super(
      'no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, name a profile with AWS_PROFILE, run aws sso login for an SSO profile, or run on a machine with an instance role',
    );
    this.name = 'MissingCredentialsError';
  }
}

export function awsSigner(region: string, provider?: CredentialProvider): Signer {
  const loaded = Promise.all([
    import('@smithy/signature-v4'),
    import('@aws-crypto/sha256-js'),
    provider === undefined ? credentialChain() : Promise.resolve(provider),
  ]).then(([{ SignatureV4 }, { Sha256 }, credentials]) => {
    return new SignatureV4({
      service: 'lambda',
      region,
      sha256: Sha256,
      credentials: async () => {
        try {
          return await credentials();
        } catch {
          // The chain's own message lists every provider it tried; ours says what to do.
          throw new MissingCredentialsError();
        }
      },
    });
  });
  // A failed load is retried by the next call rather than remembered.
  loaded.catch(() => undefined);
  return async ({ method, url, body }) => {
    const signer = await loaded;
    const query: Record<string, string> = {};
    url.searchParams.forEach((value, key) => {
      query[key] = value;
    });
    const signed = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query,
      headers: {
        host: url.host,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    return signed.headers;
  };
}
