// The one way the pages call folio: same-origin fetches with the session cookie, JSON in and
// out, and the API's error envelope (docs/api.md, "Conventions") turned into an ApiError.

/** ApiError is a failed API call: HTTP status, the envelope's code, message and field details. */
export class ApiError extends Error {
  constructor(status, code, message, details = [], retryAfter = 0) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }

  /** describe is a one-line explanation with the field details, for a status message. */
  describe() {
    const fields = (this.details || []).map((d) => (d.field ? `${d.field}: ${d.message}` : d.message));
    return fields.length ? `${this.message} (${fields.join('; ')})` : this.message;
  }
}

let onUnauthorized = null;

/**
 * setUnauthorizedHandler installs fn, called when a call answers 401 AUTHENTICATION_REQUIRED
 * (the session ended while the page was open). fn returns a promise that resolves true once the
 * person has signed in again (the call is then retried once, so a form being saved keeps its
 * content), or false to let the 401 through. Sign-in calls themselves are never retried.
 */
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

/**
 * api calls method path with an optional JSON body (or FormData) and returns the parsed JSON
 * (null for 204). Failures throw ApiError; network failures throw ApiError with status 0.
 * opts.background marks a call the person did not ask for (a live preview): its 401 is thrown
 * as is instead of opening the sign-in handler over what they are typing.
 */
export async function api(method, path, body, extraHeaders = {}, opts = {}) {
  try {
    return await call(method, path, body, extraHeaders);
  } catch (e) {
    if (onUnauthorized && !opts.background && e instanceof ApiError && e.status === 401 && e.code === 'AUTHENTICATION_REQUIRED' && !path.startsWith('/api/auth/')) {
      if (await onUnauthorized(e)) return call(method, path, body, extraHeaders);
    }
    throw e;
  }
}

async function call(method, path, body, extraHeaders) {
  const headers = { Accept: 'application/json', ...extraHeaders };
  const init = { method, headers, credentials: 'same-origin' };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.');
  }
  if (res.status === 204) return null;
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const err = data && data.error;
    if (err && typeof err === 'object') {
      throw new ApiError(res.status, err.code || '', err.message || res.statusText, err.details || [], err.retryAfter || 0);
    }
    throw new ApiError(res.status, '', typeof err === 'string' ? err : `Request failed (${res.status})`);
  }
  return data;
}

/** query builds "?a=1&b=2" from an object, skipping empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
