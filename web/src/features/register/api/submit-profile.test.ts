import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import type { BuildResult, RegisterDraft } from '@/lib/wasm';
import { forgetUploads, MissingLocalFileError, submitFailureText, submitProfile, SubmitValidationError, type SubmitDeps } from '@/features/register/api/submit-profile';
import { ApiError as ClientApiError, NETWORK_ERROR } from '@/lib/api-client';

const USER = 'U0123456789abcdef0123456789abcdef';
const draft = {
  photoNameList: ['local-a', '', 'local-b', '', '', ''],
  verifyTempFileName: 'local-v',
} as unknown as RegisterDraft;

// The core is injected: these tests are about the order of calls, not about rules.
const okCore = {
  buildPayload: vi.fn((d: RegisterDraft): BuildResult => ({
    payload: { photoNameList: d.photoNameList.filter(Boolean), verifyTempFileName: d.verifyTempFileName },
    errors: {},
  })),
};

function makeDeps(overrides: Partial<SubmitDeps> = {}) {
  const calls: string[] = [];
  let n = 0;
  const deps: SubmitDeps = {
    hasSession: () => false,
    login: vi.fn(async () => void calls.push('login')),
    upload: vi.fn(async (_b, name) => {
      calls.push(`upload:${name}`);
      return `srv${++n}`;
    }),
    readLocalFile: vi.fn(async () => new Blob(['x'])),
    createProfile: vi.fn(async (p) => void calls.push(`create:${JSON.stringify(p)}`)),
    wait: vi.fn(async (ms) => void calls.push(`wait:${ms}`)),
    ...overrides,
  };
  return { deps, calls };
}

describe('submit profile', () => {
  beforeEach(() => forgetUploads());

  it('logs in, uploads each non-empty slot, waits 500 ms, then creates the profile', async () => {
    const { deps, calls } = makeDeps();
    await submitProfile(okCore, draft, USER, '2026-01-01', deps);
    expect(calls).toEqual([
      'login',
      'upload:local-a.jpg',
      'upload:local-b.jpg',
      'upload:local-v.jpg',
      'wait:500',
      'create:{"photoNameList":["srv1","srv2"],"verifyTempFileName":"srv3"}',
    ]);
  });

  it('a resubmission keeps the stored files (no upload) and reports its 409 instead of taking it as done', async () => {
    const stored = { photoNameList: ['f-photo-1', 'local-a', '', '', '', ''], verifyTempFileName: 'f-proof' } as unknown as RegisterDraft;
    const conflict = new ApiError('E005', 'the profile changed meanwhile; reload it', 409);
    const { deps, calls } = makeDeps({
      hasSession: () => true,
      resubmit: true,
      createProfile: vi.fn(async (p) => {
        calls.push(`put:${JSON.stringify(p)}`);
        throw conflict;
      }),
    });
    await expect(submitProfile(okCore, stored, USER, '2026-01-01', deps)).rejects.toBe(conflict);
    expect(calls).toEqual(['upload:local-a.jpg', 'wait:500', 'put:{"photoNameList":["f-photo-1","srv1"],"verifyTempFileName":"f-proof"}']);
  });

  it('skips the login with a session', async () => {
    const { deps, calls } = makeDeps({ hasSession: () => true });
    await submitProfile(okCore, draft, USER, '2026-01-01', deps);
    expect(calls[0]).toBe('upload:local-a.jpg');
  });

  it('does nothing when the core reports errors', async () => {
    const { deps, calls } = makeDeps();
    const badCore = { buildPayload: () => ({ errors: { nickname: ['required' as const] } }) };
    await expect(submitProfile(badCore, draft, USER, '2026-01-01', deps)).rejects.toBeInstanceOf(SubmitValidationError);
    expect(calls).toEqual([]);
  });

  it('a retry after a failed create re-uses the uploads', async () => {
    const failing = makeDeps({
      createProfile: vi.fn(async () => {
        throw new ApiError('NETWORK', 'offline', 0);
      }),
    });
    await expect(submitProfile(okCore, draft, USER, '2026-01-01', failing.deps)).rejects.toMatchObject({ code: 'NETWORK' });
    const retry = makeDeps({ hasSession: () => true });
    await submitProfile(okCore, draft, USER, '2026-01-01', retry.deps);
    expect(retry.calls).toEqual(['wait:500', 'create:{"photoNameList":["srv1","srv2"],"verifyTempFileName":"srv3"}']);
  });

  it('a retry after the server forgot an upload uploads the photos again', async () => {
    const failing = makeDeps({
      createProfile: vi.fn(async () => {
        throw new ApiError('E002', 'files', 422, { photoNameList: ['unknown_file'] });
      }),
    });
    await expect(submitProfile(okCore, draft, USER, '2026-01-01', failing.deps)).rejects.toMatchObject({ code: 'E002' });
    const retry = makeDeps({ hasSession: () => true });
    await submitProfile(okCore, draft, USER, '2026-01-01', retry.deps);
    expect(retry.calls.filter((call) => call.startsWith('upload:'))).toHaveLength(3);
  });

  it('treats E005 (profile exists) as done', async () => {
    const { deps } = makeDeps({
      createProfile: vi.fn(async () => {
        throw new ApiError('E005', 'exists', 409);
      }),
    });
    await expect(submitProfile(okCore, draft, USER, '2026-01-01', deps)).resolves.toBeUndefined();
  });
});

describe('the text of a failed submit', () => {
  const t = (key: string) => `<${key}>`;
  const message = (field: string, code: string) => `${field}:${code}`;
  it('names each field the server reported, with its rule message', () => {
    const err = new ClientApiError('E002', 'Invalid profile', 422, { nickname: ['too_long'], 'valueItem.AGE': ['invalid_range'] });
    expect(submitFailureText(err, t, message)).toBe('Invalid profile (<field.nickname>: nickname:too_long; <condition.AGE>: valueItem.AGE:invalid_range)');
  });
  it('a network failure, the local checks, and anything else', () => {
    expect(submitFailureText(new ClientApiError(NETWORK_ERROR, 'x', 0), t, message)).toBe('<error.network>');
    expect(submitFailureText(new ClientApiError('E503', 'Try later', 503), t, message)).toBe('Try later');
    expect(submitFailureText(new SubmitValidationError({}), t, message)).toBe('<register.fixErrors>');
    expect(submitFailureText(new MissingLocalFileError('local-1'), t, message)).toBe('<register.photoLost>');
    expect(submitFailureText(new Error('boom'), t, message)).toBe('<error.unexpected>');
  });
});
