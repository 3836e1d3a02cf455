import { useEffect, useState } from 'react';
import { coreIfLoaded, loadCore, type Catalogues } from '@/lib/wasm';

/** City and tag labels come from the core's catalogues, loaded after the page is shown. */
export function useCatalogues(): Catalogues | null {
  const [cat, setCat] = useState<Catalogues | null>(() => coreIfLoaded()?.catalogues() ?? null);
  useEffect(() => {
    if (!cat) void loadCore().then((core) => setCat(core.catalogues())).catch(() => {});
  }, [cat]);
  return cat;
}
