import { describe, expect, it } from 'vitest';
import * as built from 'virtual:core-rules';
import { COOKIE_MAX_AGE_S } from '@/lib/cookies';

// The rules the web applies without loading the core come from it at build time: these check that
// what the build wrote is what the loaded core says, and that the web's uses follow it.
describe('the core’s rules the web reads before the core loads (virtual:core-rules)', () => {
  it('are the rules package’s', async () => {
    const rules = (await import('@/wasm-rules-pkg/kizuna_wasm_rules')).webRules();
    expect(built.sessionTtlSecs).toBe(rules.sessionTtlSecs);
    expect(built.sessionClearingCodes).toEqual(rules.sessionClearingCodes);
    expect(built.fixedFields).toEqual(rules.fixedFields);
    expect(built.consoleRules).toEqual(rules.console);
    expect(built.taipeiUtcOffsetSecs).toBe(rules.taipeiUtcOffsetSecs);
    expect(built.lineShare).toEqual(rules.lineShare);
  });

  it('the matchmaking day is Taipei’s, UTC+8 all year', () => {
    expect(built.taipeiUtcOffsetSecs).toBe(8 * 60 * 60);
  });

  it('a session and its cookies last seven days', () => {
    expect(COOKIE_MAX_AGE_S).toBe(7 * 24 * 60 * 60);
  });

  it('only an invalid or expired session ends it', () => {
    expect(built.sessionClearingCodes).toEqual(['E001A', 'E001B']);
  });

  it('an approved member cannot change their name, birthday or gender', () => {
    expect([...built.fixedFields].sort()).toEqual(['account', 'birthday', 'gender', 'name', 'password']);
  });
});
