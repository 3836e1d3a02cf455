import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { ApiError } from '@/lib/api-client';
import { clearSession } from '@/lib/auth';
import { fetchQuery, prefetch, SessionEndedError, update, useQuery, type QueryState } from '@/lib/query';
import { englishScreens, renderScreen } from '@/test/render';

function Show({ id, load }: { id: string | null; load: () => Promise<string> }) {
  const [state] = useQuery(id === null ? null : { key: id, load });
  return <p data-testid="state">{label(state)}</p>;
}
function ShowWithReload({ id, load }: { id: string; load: () => Promise<string> }) {
  const [state, reload] = useQuery({ key: id, load });
  return (
    <>
      <p data-testid="state">{label(state)}</p>
      <button type="button" onClick={reload}>
        reload
      </button>
    </>
  );
}
function label(state: QueryState<string>) {
  return state.kind === 'ok' ? `ok:${state.value}` : state.kind;
}
const shown = () => screen.getByTestId('state').textContent;

describe('useQuery', () => {
  afterEach(() => vi.useRealTimers());

  it('what was loaded shows at once when the screen comes back, while a fresh copy is asked for', async () => {
    await englishScreens();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let answer = 'first';
    let release!: () => void;
    const load = vi.fn(() => (answer === 'first' ? Promise.resolve(answer) : new Promise<string>((r) => (release = () => r(answer)))));
    const { rerender } = renderScreen(<Show id="matches" load={load} />);
    expect(shown()).toBe('loading');
    await waitFor(() => expect(shown()).toBe('ok:first'));
    rerender(<Show id={null} load={load} />);
    answer = 'second';
    // Past the half second in which a second ask is taken for the same one.
    vi.advanceTimersByTime(2500);
    rerender(<Show id="matches" load={load} />);
    expect(shown()).toBe('ok:first');
    await waitFor(() => expect(load).toHaveBeenCalledTimes(2));
    release();
    await waitFor(() => expect(shown()).toBe('ok:second'));
  });

  it('403 and 404 are states of the screen, other failures offer a retry, no id is gone', async () => {
    const cases: [unknown, string][] = [
      [new ApiError('E004', 'forbidden', 403), 'forbidden'],
      [new ApiError('E003', 'not found', 404), 'gone'],
      [new ApiError('NETWORK', 'offline', 0), 'failed'],
    ];
    for (const [error, state] of cases) {
      const { unmount } = renderScreen(<Show id="member:1" load={() => Promise.reject(error)} />);
      await waitFor(() => expect(shown()).toBe(state));
      unmount();
    }
    renderScreen(<Show id={null} load={() => Promise.resolve('never')} />);
    expect(shown()).toBe('gone');
  });

  it('two screens asking for the same key share one request', async () => {
    const load = vi.fn(async () => 'once');
    renderScreen(
      <>
        <Show id="notifications" load={load} />
        <Show id="notifications" load={load} />
      </>,
    );
    await waitFor(() => expect(screen.getAllByTestId('state').map((e) => e.textContent)).toEqual(['ok:once', 'ok:once']));
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a change made while the first answer is on its way does not lose that answer', async () => {
    // The app's own cache, which `update` changes (a chat marks its match read as it opens).
    const answers = ['Kai', 'Kai (asked again)'];
    let release!: () => void;
    const load = vi.fn(() => {
      const answer = answers.shift()!;
      return load.mock.calls.length === 1 ? new Promise<string>((r) => (release = () => r(answer))) : Promise.resolve(answer);
    });
    render(<Show id="matches:update" load={load} />);
    expect(shown()).toBe('loading');
    update<string>('matches:update', (value) => `${value} read`);
    release();
    // SWR drops an answer that started before a change to its key: it is asked for again.
    await waitFor(() => expect(shown()).toBe('ok:Kai (asked again)'));
  });

  it('an answer asked ahead is what the screen opened soon after shows, and one left unused is asked again later', async () => {
    // The app's own cache, where the start-up's answers go.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const soon = vi.fn(async () => 'asked ahead');
    prefetch({ key: 'introductions:ahead', load: soon });
    const { unmount } = render(<Show id="introductions:ahead" load={async () => 'asked by the screen'} />);
    await waitFor(() => expect(shown()).toBe('ok:asked ahead'));
    expect(soon).toHaveBeenCalledTimes(1);
    unmount();

    // Asked at start-up, the match list waits while the member stays on /today; a match is made
    // meanwhile: the Matches tab opened a minute later asks, and shows it.
    prefetch({ key: 'matches:ahead', load: async () => 'no matches' });
    await Promise.resolve();
    vi.advanceTimersByTime(60_000);
    render(<Show id="matches:ahead" load={async () => 'Kai'} />);
    await waitFor(() => expect(shown()).toBe('ok:Kai'));
  });

  it('an answer asked ahead after the screen loaded by itself never replaces what the screen got since', async () => {
    let answer = 'paused';
    const { unmount } = render(<ShowWithReload id="introductions:late" load={async () => answer} />);
    await waitFor(() => expect(shown()).toBe('ok:paused'));
    // The start-up's code arrives late and asks ahead; then the member resumes and the screen reloads.
    prefetch({ key: 'introductions:late', load: async () => 'paused' });
    answer = 'Mei';
    screen.getByRole('button', { name: 'reload' }).click();
    await waitFor(() => expect(shown()).toBe('ok:Mei'));
    unmount();
  });

  it('the end of the session empties the cache: the next member sees nothing of the last one', async () => {
    // The app's own cache (no test provider), as the screens use it.
    const { rerender } = render(<Show id="my-info:end" load={async () => 'Mei'} />);
    await waitFor(() => expect(shown()).toBe('ok:Mei'));
    rerender(<Show id={null} load={async () => 'x'} />);
    clearSession();
    let release!: () => void;
    rerender(<Show id="my-info:end" load={() => new Promise<string>((r) => (release = () => r('Kai')))} />);
    expect(shown()).toBe('loading');
    release();
    await waitFor(() => expect(shown()).toBe('ok:Kai'));
  });

  it('fetchQuery shares a request in flight, asks again once it is answered, and drops an answer that outlives the session', async () => {
    let asked = 0;
    let release!: (v: string) => void;
    const page = { key: 'chat:7:newest', load: () => { asked += 1; return new Promise<string>((r) => (release = r)); } };
    const first = fetchQuery(page);
    const second = fetchQuery(page);
    expect(asked).toBe(1);
    release('page one');
    expect(await first).toBe('page one');
    expect(await second).toBe('page one');
    const third = fetchQuery(page);
    expect(asked).toBe(2);
    release('page two');
    expect(await third).toBe('page two');
    // Asked in one session, answered in the next: the answer never reaches the screen.
    const late = fetchQuery(page);
    clearSession();
    release('the last member’s page');
    await expect(late).rejects.toBeInstanceOf(SessionEndedError);
    const next = fetchQuery(page);
    expect(asked).toBe(4);
    release('the next member’s page');
    expect(await next).toBe('the next member’s page');
  });
});
