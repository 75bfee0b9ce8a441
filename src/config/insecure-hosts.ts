// Provider URLs carry fixloop's tokens (GitHub's API, GitLab's, the workspace clone URLs), so they are
// https, or plain http only to this machine (127.0.0.0/8, ::1, localhost). A lab without TLS sets
// FIXLOOP_ALLOW_INSECURE_HOSTS=1 and is warned at every start. Refused at start-up otherwise, with one
// line naming the fix. SPEC E4, M5, Q1 (issue 31; decision 0047).

/** The lab opt-out: plain http to any host, with a warning at each start. */
export const ALLOW_INSECURE_HOSTS = 'FIXLOOP_ALLOW_INSECURE_HOSTS';

/** 127.0.0.0/8, ::1 or localhost, as URL.hostname writes them (IPv6 in brackets). */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4.slice(1).every((o) => Number(o) <= 255);
}

/** True when `raw` is a plain-http URL to a host other than this machine. */
export function isInsecureRemoteUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false; // not a URL (a path, a file:// checkout): nothing crosses a network
  }
  return url.protocol === 'http:' && !isLoopbackHostname(url.hostname);
}

/** One URL a credential is sent to, and the setting that names it. */
export interface CredentialUrl {
  setting: string;
  url: string;
}

export type InsecureHostsVerdict =
  { kind: 'ok' } | { kind: 'refuse'; setting: string; message: string } | { kind: 'allowed'; warning: string };

/** Whether every URL may carry a token; the first that may not is refused unless the lab opt-out is set. */
export function judgeCredentialUrls(urls: readonly CredentialUrl[], allowInsecure: boolean): InsecureHostsVerdict {
  const insecure = urls.filter((u) => isInsecureRemoteUrl(u.url));
  if (insecure.length === 0) return { kind: 'ok' };
  if (!allowInsecure) {
    const first = insecure[0]!;
    return {
      kind: 'refuse',
      setting: first.setting,
      message: `sends fixloop's token in clear text to ${new URL(first.url).origin}: use https (plain http is allowed only for 127.0.0.0/8, ::1 or localhost), or set ${ALLOW_INSECURE_HOSTS}=1 in a lab`,
    };
  }
  const where = insecure.map((u) => `${u.setting} (${new URL(u.url).origin})`).join(', ');
  return {
    kind: 'allowed',
    warning: `${ALLOW_INSECURE_HOSTS}=1: tokens are sent in clear text over plain http to ${where}; use this in a lab only`,
  };
}
