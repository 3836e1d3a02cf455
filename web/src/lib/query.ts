import useSWR, { mutate, unload } from 'swr';
import { useCallback } from 'react';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { onSessionEnd } from '@/lib/auth';

/** The app's one way to load data for a screen: SWR (stale-while-revalidate) under a key, so what
 *  was loaded stays on screen when the member comes back while a fresh copy is asked for behind
 *  it, two screens asking for the same key share one request, and a screen's data can be asked
 *  for before its code has rendered (`prefetch`). The cache is memory only: nothing of it reaches
 *  storage or cookies, and it is emptied when the session ends (sign-out, another LINE user).
 *
 *    const [state, reload, set] = useQuery(matchmakingQueries.matches);
 *    if (state.kind === 'ok') ... state.value ...
 *
 *  A feature declares its queries beside its API (`features/<f>/api/queries.ts`): each pairs a key
 *  with the loader of that key (bulletproof-react's `queryOptions`), so a key is never loaded two
 *  ways and a screen never writes a loader of its own.
 *
 *  SWR stays out of /register's first render: only the lazily loaded screens import this module. */

/** What a screen draws: its data (also while a newer copy loads), or why there is none. 403 and
 *  404 are states of the screen, not toasts; `failed` offers a retry. */
export type QueryState<T> =
  | { kind: 'loading' }
  | { kind: 'ok'; value: T }
  | { kind: 'forbidden' }
  | { kind: 'gone' }
  | { kind: 'failed'; error: unknown };

/** Query keys: a string per resource, with the id when there is one (`member:12`). Every key is
 *  here, so that a screen that changes what another shows (a break taken on /profile empties
 *  /today) names the other's key without importing its feature. */
export type QueryKey = string;
export const queryKeys = {
  myInfo: 'my-info',
  introductions: 'introductions',
  matches: 'matches',
  /** Notices that someone the member was matched with was removed (not dismissed yet). */
  removalNotices: 'removal-notices',
  /** "Did you meet?" questions the member is due (private to them). */
  weMet: 'we-met',
  /** The member's matches that closed because nobody wrote (listed for 14 days). */
  expiredMatches: 'expired-matches',
  likes: 'likes',
  member: (memberId: number) => `member:${memberId}`,
  pause: 'pause',
  colleagues: 'colleagues',
  notifications: 'notifications',
  reviewQueue: 'review-queue',
  reviewReports: 'review-reports',
  reviewFlagged: 'review-flagged',
  reviewAppeals: 'review-appeals',
  reviewEmployersMissing: 'review-employers-missing',
  reviewProfile: (profileId: number) => `review-profile:${profileId}`,
  codes: 'codes',
  /** A page of a match's messages: the newest, or those before a message id. */
  chatPage: (matchId: number, before?: number) => `chat:${matchId}:${before ?? 'newest'}`,
  /** One request for a copy of one's data (its start time), asked until it is ready. */
  dataExport: (requestedAt: number) => `data-export:${requestedAt}`,
} as const;

/** A key and the loader of what is kept under it. */
export interface Query<T> {
  key: QueryKey;
  load: () => Promise<T>;
}

/** Pairs `key` with its loader: the one place a feature says how a key is loaded. */
export function queryOptions<T>(key: QueryKey, load: () => Promise<T>): Query<T> {
  return { key, load };
}

const OPTIONS = {
  // The API client already waits out a 503; a 403 or 404 asked again stays what it is.
  shouldRetryOnError: false,
  // Coming back to LINE's in-app browser asks again, at most every 5 s.
  focusThrottleInterval: 5000,
  // Screens that ask at once (the Matches tab's badge and its page) share one request; a screen
  // opened later asks again, even right after another one's answer: with SWR's 2 s a member who
  // came back from a profile and tapped Matches within 2 s saw the list without the match just made.
  dedupingInterval: 500,
} as const;

function stateOf<T>(data: T | undefined, error: unknown, key: QueryKey | null): QueryState<T> {
  if (error instanceof ApiError && error.status === 403) return { kind: 'forbidden' };
  if (error instanceof ApiError && error.status === 404) return { kind: 'gone' };
  if (data !== undefined) return { kind: 'ok', value: data };
  if (key === null) return { kind: 'gone' };
  if (error !== undefined) return { kind: 'failed', error };
  return { kind: 'loading' };
}

/** `query` null: nothing to load (the screen names no id to ask about), which shows as `gone`. */
export function useQuery<T>(
  query: Query<T> | null,
  opts: {
    /** Shown until the first answer (what the app already holds, such as the start-up's my-info). */
    initial?: T | null;
    /** Asks again every so many milliseconds while the screen shows it (0: never), or as the
     *  latest answer says (a copy being prepared is asked for until it is decided). */
    refreshInterval?: number | ((latest: T | undefined) => number);
  } = {},
): [state: QueryState<T>, reload: () => void, set: (value: T) => void] {
  const key = query?.key ?? null;
  const load = query?.load;
  const { data, error, mutate: bound } = useSWR<T>(key, () => firstLoad<T>(key) ?? load!(), {
    ...OPTIONS,
    fallbackData: opts.initial ?? undefined,
    refreshInterval: opts.refreshInterval ?? 0,
    onError: (err: unknown) => logger.warn(`load ${key} failed: ${describeError(err)}`),
  });
  const reload = useCallback(() => void bound(), [bound]);
  const set = useCallback((value: T) => void bound(value, { revalidate: false }), [bound]);
  return [stateOf(data, error, key), reload, set];
}

/** How long an answer asked ahead waits for its screen once it has arrived. SWR's own `preload`
 *  keeps an unused answer for good: a match list asked for at start-up would be what the Matches
 *  tab showed minutes later, without the match made meanwhile. A screen that comes later asks. */
const AHEAD_KEPT_MS = 10_000;

const ahead = new Map<QueryKey, { answer: Promise<unknown>; arrived: number | null }>();
/** Keys a screen has loaded: an answer asked ahead serves only a key's first load. Asked ahead
 *  after the screen already loaded (the start-up's code came late), it is older than what the
 *  screen holds and would undo a change (a break just ended showed the paused list again). */
const loaded = new Set<QueryKey>();

function firstLoad<T>(key: QueryKey | null): Promise<T> | undefined {
  if (key === null) return undefined;
  const asked = ahead.get(key);
  ahead.delete(key);
  if (loaded.has(key)) return undefined;
  loaded.add(key);
  if (!asked || (asked.arrived !== null && Date.now() - asked.arrived > AHEAD_KEPT_MS)) return undefined;
  return asked.answer as Promise<T>;
}

/** Starts loading `key` now (its screen is on its way); the screen's first `useQuery` load picks
 *  it up if it comes within AHEAD_KEPT_MS of the answer, and asks again otherwise. */
export function prefetch<T>({ key, load }: Query<T>): void {
  if (ahead.has(key) || loaded.has(key)) return;
  const entry: { answer: Promise<unknown>; arrived: number | null } = { answer: load(), arrived: null };
  ahead.set(key, entry);
  entry.answer.then(
    () => (entry.arrived = Date.now()),
    () => (entry.arrived = Date.now()),
  );
}

/** Changes what is kept under `key` (when it is there) without asking the server: what this
 *  screen just did, shown on another at once (a message sent is the match list's last message). */
export function update<T>(key: QueryKey, change: (value: T) => T): void {
  let kept = false;
  void mutate<T>(
    key,
    (value) => {
      kept = value !== undefined;
      return value === undefined ? value : change(value);
    },
    { revalidate: false },
  ).then(() => {
    // Nothing was kept yet: SWR drops the answer of a request that began before this change, so
    // the key is asked for again rather than left loading for good.
    if (!kept) void mutate(key);
  });
}

/** The next `useQuery` of `key` (and any on screen now) asks the server again. */
export function invalidate(key: QueryKey): void {
  ahead.delete(key);
  void mutate(key);
}

/** The answer of a `fetchQuery` that arrived after the session it was asked for had ended. */
export class SessionEndedError extends Error {
  constructor() {
    super('the session ended while this was loading');
  }
}

/** Counts session ends, so that an answer asked for in one session is never handed to the next. */
let sessions = 0;
const fetching = new Map<QueryKey, Promise<unknown>>();

/** Loads `query` once for a screen that keeps the answer in a state of its own rather than under
 *  the key (the chat merges its pages with the live events and its own sends): the key's loader is
 *  still the feature's one, two asks of a key in flight share one request, and an answer that
 *  arrives after the session ended rejects with `SessionEndedError` instead of reaching the screen. */
export function fetchQuery<T>({ key, load }: Query<T>): Promise<T> {
  const running = fetching.get(key);
  if (running) return running as Promise<T>;
  const session = sessions;
  const answer = load()
    .then((value) => {
      if (session !== sessions) throw new SessionEndedError();
      return value;
    })
    .finally(() => {
      if (fetching.get(key) === answer) fetching.delete(key);
    });
  fetching.set(key, answer);
  return answer;
}

/** Forget every loaded answer and every request in flight (the session ended: nothing of one
 *  member may show to the next, not even an answer that arrives later). */
export function clearQueries(): void {
  sessions += 1;
  fetching.clear();
  ahead.clear();
  loaded.clear();
  unload({ revalidate: false });
}

onSessionEnd(clearQueries);
