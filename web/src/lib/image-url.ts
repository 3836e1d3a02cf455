import { apiBase } from '@/lib/config';

/** Image URLs: /file/fetch/{fileId} behind the ipx proxy; absolute http(s) and blob
 *  URLs pass through. */
export const IMAGE_BREAKPOINTS = { xs: 320, sm: 640, md: 768, lg: 1024, xl: 1280, xxl: 1536, '2xl': 1536 } as const;
export const IMAGE_DENSITIES = [1, 2] as const;

export function imageUrl(source: string | null | undefined): string | null {
  if (!source) return null;
  if (/^(https?:|blob:|data:)/i.test(source)) return source;
  return `${apiBase()}/file/fetch/${encodeURIComponent(source)}`;
}

export interface IpxOptions {
  w?: number;
  h?: number;
  fit?: 'cover' | 'contain' | 'fill' | 'inside' | 'outside';
  format?: 'webp' | 'jpeg' | 'png' | 'auto';
  quality?: number;
  blur?: number;
  background?: string;
}

export function ipxModifiers(o: IpxOptions): string {
  const parts: string[] = [];
  if (o.w && o.h) parts.push(`s_${o.w}x${o.h}`);
  else if (o.w) parts.push(`w_${o.w}`);
  else if (o.h) parts.push(`h_${o.h}`);
  if (o.fit) parts.push(`fit_${o.fit}`);
  if (o.format) parts.push(`f_${o.format}`);
  if (o.quality) parts.push(`q_${o.quality}`);
  if (o.blur) parts.push(`blur_${o.blur}`);
  if (o.background) parts.push(`b_${o.background}`);
  return parts.length ? parts.join(',') : '_';
}

/** `/_ipx/{modifiers}/api/file/fetch/{fileId}` for a stored file; other URLs unchanged. */
export function ipxUrl(fileId: string, o: IpxOptions): string {
  if (/^(https?:|blob:|data:)/i.test(fileId)) return fileId;
  const source = `${apiBase().replace(/^\//, '')}/file/fetch/${encodeURIComponent(fileId)}`;
  return `/_ipx/${ipxModifiers(o)}/${source}`;
}
