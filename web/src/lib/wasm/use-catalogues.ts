import { useEffect, useState } from 'react';
import { coreIfLoaded, loadCore, type Catalogues } from '@/lib/wasm';

/** The core's catalogues (city, tag and choice labels), loaded after the screen is shown: a
 *  screen draws codes' labels once they are here and nothing in their place before. */
export function useCatalogues(): Catalogues | null {
  const [cat, setCat] = useState<Catalogues | null>(() => coreIfLoaded()?.catalogues() ?? null);
  useEffect(() => {
    if (!cat) void loadCore().then((core) => setCat(core.catalogues())).catch(() => {});
  }, [cat]);
  return cat;
}
