import { api, type ApiAnswer } from '@/lib/api-client';
import { queryKeys, queryOptions } from '@/lib/query';

/** The queries that more than one feature, or the app's shell, reads: declared once here, since a
 *  feature imports no other. A feature's own queries are in its `api/queries.ts`. */

/** The server's code catalogues (GET /catalogue/codes): the reasons of a rejection, a suspension
 *  and a report, each with its translation key (the review console, the report dialog, a
 *  resubmitting member's form). */
export type CodeCatalogues = ApiAnswer<'get', '/catalogue/codes'>;

export const codesQuery = queryOptions(queryKeys.codes, (): Promise<CodeCatalogues> => api.get('/catalogue/codes', { public: true, showToast: false }));

/** The member's live matches (the Matches screen, the chat's header, the Matches tab's badge). */
export const matchesQuery = queryOptions(queryKeys.matches, () => api.get('/matches', { showToast: false }));

/** The likes sent and received (the Likes screen, the Likes tab's badge). */
export const likesQuery = queryOptions(queryKeys.likes, () => api.get('/likes', { showToast: false }));
