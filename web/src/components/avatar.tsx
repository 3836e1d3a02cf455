import '@/components/avatar.css';
import { useState } from 'react';

/** Avatar 16–48 px; without an image, the first letters of the first two words of alt. */
export function initials(alt: string): string {
  return alt
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => Array.from(w)[0]!.toUpperCase())
    .join('');
}

export function clampAvatarSize(size: number): number {
  return Math.min(48, Math.max(16, Math.round(size)));
}

export function Avatar({ src, alt, size = 40 }: { src?: string | null; alt: string; size?: number }) {
  // Remembered per source: a new src (a chosen avatar replacing the default) is tried afresh.
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const px = clampAvatarSize(size);
  const style = { width: px, height: px, fontSize: Math.max(8, Math.round(px * 0.4)) };
  if (src && failedSrc !== src) {
    return <img className="avatar" src={src} alt={alt} width={px} height={px} style={style} onError={() => setFailedSrc(src)} />;
  }
  return (
    <span className="avatar avatar-fallback" role="img" aria-label={alt} style={style}>
      {initials(alt)}
    </span>
  );
}
