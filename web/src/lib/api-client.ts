import { sessionClearingCodes } from 'virtual:core-rules';
import { apiBase } from '@/lib/config';
import { clearToken, getToken, setToken } from '@/lib/auth';
import { t } from '@/lib/i18n';
import { toast, TOAST_ERROR_DURATION_MS } from '@/lib/toast';
import { logger } from '@/lib/logger';
import type { Schemas } from '@/lib/api/types';
import type { paths } from '@/lib/api/schema';
import type {
  IsOperationRequestBodyOptional,
  OperationRequestBodyContent,
  PathsWithMethod,
  RequiredKeysOf,
  SuccessResponse,
} from 'openapi-typescript-helpers';

/** The own-API client (docs/design.md "API conventions"). */
/** The server's error answer (its OpenAPI `ErrorBody`). */
export type ApiErrorBody = Schemas['ErrorBody'];

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly causeText: string,
    readonly status: number,
    readonly fields?: Record<string, string[]>,
  ) {
    super(`${code}: ${causeText}`);
    this.name = 'ApiError';
  }
}

/** Code used when the server could not be reached at all. */
export const NETWORK_ERROR = 'NETWORK';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  formData?: FormData;
  /** Public call: no bearer token, and an auth error does not clear the stored token. */
  public?: boolean;
  /** Send the LINE ID token as X-Line-Id-Token (public identity calls, docs/design.md). */
  lineIdToken?: boolean;
  /** false: no error toast (the caller shows the error itself). Default true. */
  showToast?: boolean;
  signal?: AbortSignal;
}

let idTokenProvider: () => string | null = () => null;
export function setIdTokenProvider(fn: () => string | null): void {
  idTokenProvider = fn;
}

/** Gets a fresh LINE ID token (they expire after an hour); true when there is a new one. */
let idTokenRefresher: () => Promise<boolean> = async () => false;
export function setIdTokenRefresher(fn: () => Promise<boolean>): void {
  idTokenRefresher = fn;
}

/** Whether the error means the stored session is dead (kizuna-core's `ErrorCode::clears_session`). */
function clearsSession(error: ApiError): boolean {
  return (sessionClearingCodes as readonly string[]).includes(error.code);
}

/** A session error toasts once per code while that toast is on screen. */
const authToastShownAt = new Map<string, number>();

function authErrorToast(code: string, text: string) {
  const now = Date.now();
  const at = authToastShownAt.get(code);
  if (at !== undefined && now - at < TOAST_ERROR_DURATION_MS) return;
  authToastShownAt.set(code, now);
  toast.error(text);
}

export function resetApiClientForTest(): void {
  authToastShownAt.clear();
  sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  idTokenProvider = () => null;
  idTokenRefresher = async () => false;
}

async function readError(res: Response): Promise<ApiError> {
  let body: Partial<ApiErrorBody> = {};
  try {
    body = (await res.json()) as Partial<ApiErrorBody>;
  } catch {
    /* not JSON */
  }
  const code = typeof body.code === 'string' ? body.code : `HTTP${res.status}`;
  const cause = typeof body.cause === 'string' && body.cause ? body.cause : res.statusText || code;
  return new ApiError(code, cause, res.status, body.fields);
}

async function request<T = unknown>(path: string, opts: RequestOptions = {}): Promise<T> {
  if (!opts.lineIdToken) return send<T>(path, opts);
  try {
    return await send<T>(path, { ...opts, showToast: false });
  } catch (err) {
    // A stale LINE ID token (E004 on an identity call): refresh it once and try again.
    if (err instanceof ApiError && err.code === 'E004' && (await idTokenRefresher().catch(() => false))) {
      return send<T>(path, opts);
    }
    if (err instanceof ApiError && opts.showToast !== false) reportError(err);
    throw err;
  }
}

function reportError(error: ApiError) {
  if (clearsSession(error)) authErrorToast(error.code, error.causeText);
  else toast.error(error.causeText);
}

/** 503 means the server could not reach its database and did nothing: the client waits and asks
 *  again, quietly, this many times before it reports the error. */
export const UNAVAILABLE_RETRIES = 3;
/** Wait when the 503 names no Retry-After, and the cap on one that does (a user is waiting). */
export const UNAVAILABLE_DEFAULT_WAIT_MS = 1000;
export const UNAVAILABLE_MAX_WAIT_MS = 5000;

let sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
/** Test hook: record the waits instead of sleeping through them. */
export function setSleepForTest(fn: typeof sleep): void {
  sleep = fn;
}

/** Retry-After in seconds or as an HTTP date, capped; the default when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return UNAVAILABLE_DEFAULT_WAIT_MS;
  const trimmed = header.trim();
  let ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) ms = UNAVAILABLE_DEFAULT_WAIT_MS;
  return Math.min(UNAVAILABLE_MAX_WAIT_MS, Math.max(0, ms));
}

async function send<T>(path: string, opts: RequestOptions): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (!opts.public) {
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
  }
  if (opts.lineIdToken) {
    const idToken = idTokenProvider();
    if (idToken) headers['X-Line-Id-Token'] = idToken;
  }
  let body: BodyInit | undefined;
  if (opts.formData) body = opts.formData;
  else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const showToast = opts.showToast !== false;

  let res: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      res = await fetch(`${apiBase()}${path}`, {
        method: opts.method ?? 'GET',
        headers,
        body,
        signal: opts.signal,
        credentials: 'same-origin',
      });
    } catch (err) {
      const error = new ApiError(NETWORK_ERROR, t('error.network'), 0);
      logger.warn(`api ${opts.method ?? 'GET'} ${path}: network error ${String(err)}`);
      if (showToast) reportError(error);
      throw error;
    }
    if (res.status !== 503 || attempt >= UNAVAILABLE_RETRIES) break;
    const wait = retryAfterMs(res.headers.get('Retry-After'));
    logger.info(`api ${opts.method ?? 'GET'} ${path}: 503, retry ${attempt + 1} in ${wait} ms`);
    await res.text().catch(() => '');
    await sleep(wait, opts.signal);
  }

  // A renewed session token replaces the stored one.
  const renewed = res.headers.get('Authorization');
  if (renewed) {
    const token = renewed.replace(/^Bearer\s+/i, '').trim();
    if (token) setToken(token);
  }

  if (!res.ok) {
    const error = await readError(res);
    if (clearsSession(error) && !opts.public) clearToken();
    if (showToast) reportError(error);
    throw error;
  }

  // Read even an empty (204) body: an unread one is reported by the browser as an aborted request.
  const text = await res.text();
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}

/** The API by path, typed from the OpenAPI document (`schema.d.ts`, openapi-typescript's `paths`):
 *  the path is one the document has for that method, `path` and `query` are its parameters, `body`
 *  its request body, and the promise resolves to its success answer (`undefined` for a 204). A path
 *  or field renamed on the server fails `tsc` at the call site.
 *
 *    api.get('/members/{memberId}', { path: { memberId: 7 } })          // Promise<MemberProfile>
 *    api.get('/matches/{matchId}/messages', { path: { matchId }, query: { limit: 30 } })
 *    api.put('/user/pause', { body: { paused: false }, showToast: false })
 *
 *  The runtime is this module's `request` (bearer token, ID token, 503 retries, renewed tokens,
 *  toasts); openapi-fetch would add 2.9 KB (brotli) to the first screen's chunk for what the types
 *  alone give here. */
type Method = 'get' | 'post' | 'put' | 'delete';
export type ApiPath<M extends Method> = PathsWithMethod<paths, M>;
type Operation<M extends Method, P extends ApiPath<M>> = paths[P][M];
/** `path` and `query` as the document declares them (`path?: never` where there is none). The
 *  server reads path ids as text (a malformed one is its E002), so a number is taken there too. */
type Loosen<T> = { [K in keyof T]: T[K] extends string ? T[K] | number : T[K] };
type ParamsInit<O> = O extends { parameters: infer Ps }
  ? Omit<Ps, 'header' | 'cookie' | 'path'> & (Ps extends { path: infer Pp } ? { path: Loosen<Pp> } : { path?: never })
  : object;
type BodyInit_<O> = O extends { requestBody?: unknown }
  ? IsOperationRequestBodyOptional<O> extends true
    ? { body?: OperationRequestBodyContent<O> }
    : { body: OperationRequestBodyContent<O> }
  : { body?: never };
export type ApiInit<M extends Method, P extends ApiPath<M>> = ParamsInit<Operation<M, P>> &
  BodyInit_<Operation<M, P>> &
  Omit<RequestOptions, 'method' | 'body' | 'formData'>;
/** The init may be left out when nothing in it is required. */
type InitArgs<M extends Method, P extends ApiPath<M>> =
  RequiredKeysOf<ApiInit<M, P>> extends never ? [init?: ApiInit<M, P>] : [init: ApiInit<M, P>];
/** The success answer's JSON (undefined for a 204 without a body). */
type Responses<O> = O extends { responses: infer R extends Record<string | number, unknown> } ? R : never;
export type ApiAnswer<M extends Method, P extends ApiPath<M>> = SuccessResponse<Responses<Operation<M, P>>>;

/** `/members/{memberId}` with `{memberId: 7}` → `/members/7`; the query's unset values are left out. */
export function fillPath(template: string, path?: Record<string, unknown>, query?: Record<string, unknown>): string {
  const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(path?.[name])));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value != null) search.append(key, String(value));
  const text = search.toString();
  return text ? `${filled}?${text}` : filled;
}

function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', template: string, init: Record<string, unknown> = {}) {
  const { path, query, ...opts } = init as { path?: Record<string, unknown>; query?: Record<string, unknown> } & RequestOptions;
  return request(fillPath(template, path, query), { ...opts, method });
}

export const api = {
  get: <P extends ApiPath<'get'>>(path: P, ...init: InitArgs<'get', P>) =>
    call('GET', path, init[0]) as Promise<ApiAnswer<'get', P>>,
  post: <P extends ApiPath<'post'>>(path: P, ...init: InitArgs<'post', P>) =>
    call('POST', path, init[0]) as Promise<ApiAnswer<'post', P>>,
  put: <P extends ApiPath<'put'>>(path: P, ...init: InitArgs<'put', P>) =>
    call('PUT', path, init[0]) as Promise<ApiAnswer<'put', P>>,
  delete: <P extends ApiPath<'delete'>>(path: P, ...init: InitArgs<'delete', P>) =>
    call('DELETE', path, init[0]) as Promise<ApiAnswer<'delete', P>>,
  /** A multipart upload (the document's only one is POST /file/tempUpload). */
  upload: <P extends ApiPath<'post'>>(path: P, formData: FormData, opts?: Omit<RequestOptions, 'method' | 'body' | 'formData'>) =>
    request(path, { ...opts, method: 'POST', formData }) as Promise<ApiAnswer<'post', P>>,
};
