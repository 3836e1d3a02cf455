import { useEffect } from 'react';
import { useQuery } from '@/lib/query';
import { codesQuery, type CodeCatalogues } from '@/lib/shared-queries';

/** The reason codes a resubmitting member's form names, loaded through the app's data hook and
 *  handed to the form once settled (null when they could not be had: the form then opens without
 *  the reviewer's reasons marked). A chunk of its own, rendered only for a resubmission: the data
 *  hook (SWR) stays out of a new member's /register. */
export default function ResubmitCodes({ onSettled }: { onSettled: (codes: CodeCatalogues | null) => void }) {
  const [state] = useQuery(codesQuery);
  const settled = state.kind === 'loading' ? undefined : state.kind === 'ok' ? state.value : null;
  useEffect(() => {
    if (settled !== undefined) onSettled(settled);
  }, [settled, onSettled]);
  return null;
}
