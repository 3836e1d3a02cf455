import { useState, type CSSProperties } from 'react';
import { imageUrl, ipxUrl, IMAGE_BREAKPOINTS, IMAGE_DENSITIES } from '@/lib/image-url';

/** Responsive image through the ipx proxy: widths from the breakpoints, densities 1 and
 *  2, webp, and a 10×10 q50 blurred placeholder until the real image has loaded. */
export interface ImageProps {
  src: string;
  alt: string;
  /** Rendered CSS width in px (the largest the layout shows). */
  width: number;
  height: number;
  /** How the proxy fits the photo to width × height: `cover` crops, `contain` letterboxes,
   *  `inside` keeps the photo whole without padding (drawn contained on the page). */
  fit?: 'cover' | 'contain' | 'inside';
  className?: string;
  sizes?: string;
  /** The srcset's widths, when the layout names them (the introduction card: kizuna-core's
   *  `CARD_PHOTO`, which the server's page names too); else from the breakpoints. */
  widths?: readonly number[];
  loading?: 'lazy' | 'eager';
  style?: CSSProperties;
}

export function Image({ src, alt, width, height, fit = 'cover', className, sizes, widths: named, loading = 'lazy', style }: ImageProps) {
  const [loaded, setLoaded] = useState(false);
  const objectFit = fit === 'cover' ? 'cover' : 'contain';
  const url = imageUrl(src);
  const passthrough = url !== null && /^(https?:|blob:|data:)/.test(url) && !url.startsWith(location.origin);
  if (url === null) return null;
  if (passthrough) {
    return <img className={className} src={url} alt={alt} width={width} height={height} loading={loading} style={{ objectFit, ...style }} />;
  }
  const widths = new Set<number>(named);
  if (!named) {
    for (const d of IMAGE_DENSITIES) widths.add(width * d);
    for (const bp of Object.values(IMAGE_BREAKPOINTS)) if (bp <= width * 2) widths.add(bp);
  }
  const ratio = height / width;
  const srcSet = [...widths]
    .sort((a, b) => a - b)
    .map((w) => `${ipxUrl(src, { w, h: Math.round(w * ratio), fit, format: 'webp' })} ${w}w`)
    .join(', ');
  // The proxy has no blur modifier: the 10×10 q50 image is blurred (3 px) by CSS.
  const placeholder = ipxUrl(src, { w: 10, h: 10, fit, format: 'webp', quality: 50 });
  return (
    <img
      className={className}
      src={ipxUrl(src, { w: width, h: height, fit, format: 'webp' })}
      srcSet={srcSet}
      sizes={sizes ?? `${width}px`}
      alt={alt}
      width={width}
      height={height}
      loading={loading}
      decoding="async"
      onLoad={() => setLoaded(true)}
      style={{
        objectFit,
        ...(loaded ? {} : { backgroundImage: `url("${placeholder}")`, backgroundSize: 'cover', filter: 'blur(3px)' }),
        ...style,
      }}
    />
  );
}
