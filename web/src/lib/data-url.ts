/** The Blob a `data:` URL holds, decoded here rather than through `fetch`: the
 *  Content-Security-Policy's `connect-src` names servers only, and `data:` is no server. */
export function dataUrlBlob(dataUrl: string): Blob {
  const comma = dataUrl.indexOf(',');
  if (!dataUrl.startsWith('data:') || comma < 0) throw new Error('not a data: URL');
  const meta = dataUrl.slice(5, comma);
  const body = dataUrl.slice(comma + 1);
  const base64 = meta.endsWith(';base64');
  const type = (base64 ? meta.slice(0, -7) : meta).split(';')[0] || 'text/plain';
  if (!base64) return new Blob([decodeURIComponent(body)], { type });
  const text = atob(body);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Blob([bytes], { type });
}
