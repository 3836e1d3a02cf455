import type { GuardResult } from '@/app/guards/navigation-guard';
import type { RouteRuleBody } from '@/lib/api/types';
import { PROCEED } from '@/app/guards/navigation-guard';

/** The global guard: the server's route rules by path (GET {api}/route-rules?path=…). A rule with a
 *  redirect sends the user there; a target on another origin is a full page load. Only the
 *  answer's redirect decides. */
export type RouteRule = Pick<RouteRuleBody, 'redirect'>;

export function decideRouteRule(rule: RouteRule | null | undefined, currentOrigin: string): GuardResult {
  const target = rule?.redirect;
  if (!target) return PROCEED;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
    let external = true;
    try {
      external = new URL(target, currentOrigin).origin !== currentOrigin;
    } catch {
      /* keep external */
    }
    if (!external) {
      const url = new URL(target, currentOrigin);
      return { kind: 'redirect', to: url.pathname + url.search + url.hash };
    }
    return { kind: 'redirect', to: target, external: true };
  }
  return { kind: 'redirect', to: target.startsWith('/') ? target : `/${target}` };
}
