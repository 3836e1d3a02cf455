/** The first card's photo the server put in a returning member's /today frame (index.html's
 *  `#first-photo`, docs/design.md "Files and images"): read before the app replaces that markup,
 *  so that the app's own frame and the list's loading shapes keep showing it (the bytes are
 *  loaded already) until the list is drawn, rather than a grey shape in between. */
export interface FramePhoto {
  src: string;
  srcSet: string;
  sizes: string;
}

function read(): FramePhoto | null {
  if (typeof document === 'undefined') return null;
  const img = document.querySelector<HTMLImageElement>('img#first-photo');
  const src = img?.getAttribute('src');
  if (!img || !src) return null;
  return { src, srcSet: img.getAttribute('srcset') ?? '', sizes: img.getAttribute('sizes') ?? '' };
}

let photo: FramePhoto | null = read();

export function framePhoto(): FramePhoto | null {
  return photo;
}

/** Once the list is drawn: a later visit of /today shows grey shapes while it loads (the first
 *  card may have changed since). */
export function forgetFramePhoto(): void {
  photo = null;
}

/** Test helper: read the document again. */
export function rereadFramePhoto(): void {
  photo = read();
}
