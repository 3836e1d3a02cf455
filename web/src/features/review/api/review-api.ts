import { consoleRules } from 'virtual:core-rules';
import { api } from '@/lib/api-client';
import type { Schemas } from '@/lib/api/types';

/** The reviewer API (docs/design.md "Review"). Every call is checked on the server:
 *  a member gets 403 E004. Every shape is the server's, generated from its OpenAPI document: a
 *  field renamed on the server fails the web's type check. (A field the server types `Option`
 *  arrives as null; test it with `== null` / `??`.) */
export type ReviewState = Schemas['ReviewState'];
export type DecisionAction = Schemas['DecisionAction'];
export type ClaimInfo = Schemas['ClaimInfo'];
export type QueueItem = Schemas['QueueItem'];
export type HistoryEntry = Schemas['HistoryEntry'];
/** The submitted profile as the reviewer reads it (the register payload). */
export type ProfilePayload = Schemas['UserProfileCreate'];
export type ReviewView = Schemas['ReviewView'];
export type CodeEntry = Schemas['CodeEntryBody'];
export type CodeCatalogues = Schemas['CodeCataloguesBody'];
/** One message of the reported pair's conversation (`from` is `reporter` or `reported`). */
export type ConversationLine = Schemas['ConversationLine'];
/** An open report (GET /review/reports), with the last 50 messages of the pair's match, oldest first. */
export type ReportItem = Schemas['ReportItem'];
export type DecisionBody = Schemas['DecisionBody'];
/** A conversation the screening flagged (GET /review/conversations): not a report. */
export type FlaggedConversation = Schemas['FlaggedConversation'];
/** A suspended member's appeal waiting for a second look (GET /review/appeals). */
export type AppealItem = Schemas['AppealItem'];
export type AppealDecisionBody = Schemas['AppealDecisionBody'];
/** A decision on an approved member's revision: APPROVE or REJECT, naming its number. */
export type RevisionDecisionBody = Schemas['RevisionDecisionBody'];

const quiet = { showToast: false } as const;

export const reviewApi = {
  queue: () => api.get('/review/queue', quiet),
  view: (id: number) => api.get('/review/profiles/{profileId}', { ...quiet, path: { profileId: id } }),
  claim: (id: number) => api.post('/review/profiles/{profileId}/claim', { ...quiet, path: { profileId: id } }),
  release: (id: number) => api.delete('/review/profiles/{profileId}/claim', { ...quiet, path: { profileId: id } }),
  decide: (id: number, body: DecisionBody) =>
    api.post('/review/profiles/{profileId}/decision', { ...quiet, path: { profileId: id }, body }),
  decideRevision: (id: number, body: RevisionDecisionBody) =>
    api.post('/review/profiles/{profileId}/revision/decision', { ...quiet, path: { profileId: id }, body }),
  reports: () => api.get('/review/reports', quiet),
  dismiss: (reportId: number) => api.post('/review/reports/{reportId}/dismiss', { ...quiet, path: { reportId } }),
  flagged: () => api.get('/review/conversations', quiet),
  dismissFlagged: (matchId: number) => api.post('/review/conversations/{matchId}/dismiss', { ...quiet, path: { matchId } }),
  appeals: () => api.get('/review/appeals', quiet),
  decideAppeal: (appealId: number, body: AppealDecisionBody) =>
    api.post('/review/appeals/{appealId}/decision', { ...quiet, path: { appealId }, body }),
  /** Approved members without an employer on record, for a reviewer to set. */
  employersMissing: () => api.get('/review/employers/missing', quiet),
  setEmployer: (id: number, employer: string) =>
    api.put('/review/profiles/{profileId}/employer', { ...quiet, path: { profileId: id }, body: { employer } }),
};

/** The decisions a reviewer may take: those kizuna-core's transitions allow from the status
 *  (`ReviewStatus::reviewer_actions`), or on a revision waiting (`revision::REVISION_ACTIONS`).
 *  The server checks again. */
export function actionsFor(status: ReviewState, revision: number | null = null): DecisionAction[] {
  return revision != null ? consoleRules.revisionActions : consoleRules.actions[status];
}

/** Whether approving asks the reviewer which employer to put on record (kizuna-core's
 *  `employer_on_approval`): for a method whose proof only a person reads, and, on a revision,
 *  only when it changes the verification (`revision::verification_changed`). */
export function picksEmployer(view: Pick<ReviewView, 'revision' | 'changedFields' | 'verification'>): boolean {
  const method = view.verification.method;
  const newProof = view.revision == null || view.changedFields.some((f) => consoleRules.verificationFields.includes(f));
  return method != null && consoleRules.employerPickedFor.includes(method) && newProof;
}
