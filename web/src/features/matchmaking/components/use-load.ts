import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';

export type LoadState<T> = { kind: 'loading' } | { kind: 'ok'; value: T } | { kind: 'forbidden' } | { kind: 'gone' } | { kind: 'failed' };

/** Loads once on mount (and on `reload`); 403 and 404 are states of the page, not toasts. */
export function useLoad<T>(load: () => Promise<T>, key: string): [LoadState<T>, () => void, (value: T) => void] {
  const [state, setState] = useState<LoadState<T>>({ kind: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let alive = true;
    load().then(
      (value) => alive && setState({ kind: 'ok', value }),
      (err: unknown) => {
        if (!alive) return;
        logger.warn(`matchmaking load failed: ${describeError(err)}`);
        if (err instanceof ApiError && err.status === 403) setState({ kind: 'forbidden' });
        else if (err instanceof ApiError && err.status === 404) setState({ kind: 'gone' });
        else setState({ kind: 'failed' });
      },
    );
    return () => {
      alive = false;
    };
    // `load` is a fresh closure each render; `key` and `round` say when to load again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const set = useCallback((value: T) => setState({ kind: 'ok', value }), []);
  return [state, reload, set];
}
