import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { useQuery } from '@/lib/query';
import { coreIfLoaded, loadCore, type Catalogues } from '@/lib/wasm';
import { reviewApi } from '@/features/review/api/review-api';
import { reviewQueries } from '@/features/review/api/queries';

/** Members approved before review recorded employers (their proof was not a work e-mail): a
 *  reviewer sets each one's employer from the catalogue; until then they have no colleagues.
 *  Shown only while there are some. */
export function EmployersMissing({ onOpen }: { onOpen: (profileId: number) => void }) {
  const t = useT();
  const [state, reload] = useQuery(reviewQueries.employersMissing);
  const [employers, setEmployers] = useState<Catalogues['employers']>(() => coreIfLoaded()?.catalogues().employers ?? []);
  const [picked, setPicked] = useState<Record<number, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!employers.length) void loadCore().then((core) => setEmployers(core.catalogues().employers)).catch((err: unknown) => logger.warn(`core: ${describeError(err)}`));
  }, [employers.length]);
  const members = state.kind === 'ok' ? state.value.members : [];
  if (!members.length) return null;

  const save = async (profileId: number) => {
    const employer = picked[profileId];
    if (!employer) return;
    setProblem(null);
    try {
      await reviewApi.setEmployer(profileId, employer);
      reload();
    } catch (err) {
      setProblem(err instanceof ApiError ? err.causeText : describeError(err));
    }
  };

  return (
    <div className="employers-missing" data-testid="employers-missing">
      <h2>{t('console.employersMissing')}</h2>
      <p className="muted">{t('console.employersMissingHint')}</p>
      {problem ? <p className="notice notice-error" role="alert">{problem}</p> : null}
      <ul className="queue-list">
        {members.map((m) => (
          <li key={m.profileId} className="inline-form" data-testid="employer-missing" data-profile-id={m.profileId}>
            <button type="button" className="btn btn-small" onClick={() => onOpen(m.profileId)}>{m.nickname ?? `#${m.profileId}`}</button>
            <select
              className="input"
              aria-label={t('console.employerPick')}
              value={picked[m.profileId] ?? ''}
              onChange={(e) => setPicked((prev) => ({ ...prev, [m.profileId]: e.target.value }))}
            >
              <option value="">{t('console.employerChoose')}</option>
              {employers.map((e) => (
                <option key={e.id} value={e.id}>{e.name}</option>
              ))}
            </select>
            <button type="button" className="btn btn-small" disabled={!picked[m.profileId]} onClick={() => void save(m.profileId)}>{t('console.employerSave')}</button>
          </li>
        ))}
      </ul>
    </div>
  );
}
