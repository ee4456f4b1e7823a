/**
 * URLs as they may be logged or put into an error. A URL flag (--webhook-provider-url,
 * --etcd-urls, --pdns-server, --azure-endpoint, a kubeconfig server) may carry credentials in its
 * user info (`https://user:password@host`) or in a query parameter (`?token=`); neither may reach
 * a log line, an error message or a metric. Every place that shows such a URL goes through here.
 */

const MARK = 'REDACTED';

/** Query parameters whose values are treated as secrets. */
const SECRET_PARAM = /pass|secret|token|key|auth|credential|signature|sig$/i;

/** scheme://userinfo@ in a string that may not parse as a URL. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi;

/** URLs inside free text (error messages of libraries that echo the URL they were given), without closing punctuation. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`),.;:]/gi;

/**
 * The URL without its user info (replaced by `REDACTED`) and with the values of secret-looking
 * query parameters replaced; text that is not a URL keeps only what cannot be a credential.
 */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    return redactQuery(String(url).replace(USERINFO, `$1${MARK}@`));
  }
  let changed = false;
  if (u.username !== '' || u.password !== '') {
    u.username = MARK;
    u.password = '';
    changed = true;
  }
  for (const name of [...u.searchParams.keys()]) {
    if (!SECRET_PARAM.test(name)) continue;
    u.searchParams.set(name, MARK);
    changed = true;
  }
  // Unchanged text stays as given (parsing would add a trailing slash, for one).
  return changed || typeof url !== 'string' ? u.href : url;
}

/** Every URL in `text` redacted, the rest unchanged. */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (m) => redactUrl(m));
}

function redactQuery(text: string): string {
  return text.replace(/([?&])([^=&#\s]+)=([^&#\s]*)/g, (whole, sep: string, name: string) => (SECRET_PARAM.test(name) ? `${sep}${name}=${MARK}` : whole));
}
