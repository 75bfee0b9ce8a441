// GitHub's half of the App manifest flow (SPEC V3; decision 0050): POST /app-manifests/{code}/conversions
// trades the one-hour code for the new App's id, private key and webhook secret. No credentials go
// with it (the code is the credential); an unknown or used code answers 404 (or 422), which the
// person is told as such. Plain Octokit, without the retry plugin: a code works once.
import { Octokit } from '@octokit/rest';
import { CODE_WORDS, ConversionError, type ConvertedApp, type ManifestConverter } from './setup.js';

export function createManifestConverter(o: { fetch?: typeof fetch; userAgent?: string } = {}): ManifestConverter {
  return {
    async convert(apiUrl, code) {
      const octokit = new Octokit({
        baseUrl: apiUrl,
        userAgent: o.userAgent ?? 'fixloop-setup',
        // A refusal is answered to the person; Octokit's own console lines would only repeat it.
        log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
        ...(o.fetch ? { request: { fetch: o.fetch } } : {}),
      });
      let data: Record<string, unknown>;
      try {
        ({ data } = (await octokit.request('POST /app-manifests/{code}/conversions', { code })) as {
          data: Record<string, unknown>;
        });
      } catch (err) {
        const status = (err as { status?: number }).status;
        if (status === 404 || status === 422) throw new ConversionError('unknown_code', CODE_WORDS, { cause: err });
        if (typeof status === 'number')
          throw new ConversionError(
            'refused',
            `GitHub refused to give the new App's credentials (HTTP ${status}). Start again from the setup page; if it keeps failing, create the App by hand (docs/setup-github.md).`,
            { cause: err },
          );
        throw new ConversionError(
          'unreachable',
          `fixloop could not reach GitHub at ${apiUrl} (${(err as Error).message}). GitHub's code stays good for an hour: try again (reload the page, or run the same command).`,
          { cause: err },
        );
      }
      return appOf(data);
    },
  };
}

/** The fields fixloop uses, checked: an answer without an id or key is GitHub's failure, not an App. */
function appOf(d: Record<string, unknown>): ConvertedApp {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const owner = d.owner as { login?: unknown; type?: unknown } | null | undefined;
  const id = typeof d.id === 'number' ? d.id : Number(d.id);
  const pem = str(d.pem);
  const htmlUrl = str(d.html_url);
  if (!Number.isSafeInteger(id) || id <= 0 || pem === null || htmlUrl === null)
    throw new ConversionError(
      'refused',
      'GitHub answered without the App id, private key or page; start again from the setup page.',
    );
  return {
    id,
    slug: str(d.slug) ?? '',
    name: str(d.name) ?? str(d.slug) ?? `App ${id}`,
    htmlUrl,
    owner: owner && typeof owner.login === 'string' ? { login: owner.login, type: String(owner.type ?? 'User') } : null,
    pem,
    webhookSecret: str(d.webhook_secret),
    clientId: str(d.client_id),
    clientSecret: str(d.client_secret),
  };
}
