import { describe, expect, it } from 'vitest';
import { imageUrl, ipxModifiers, ipxUrl } from '@/lib/image-url';
import { initials, clampAvatarSize } from '@/components/avatar';

describe('image urls', () => {
  it('passes absolute and blob URLs through', () => {
    expect(imageUrl('https://x/y.png')).toBe('https://x/y.png');
    expect(imageUrl('blob:abc')).toBe('blob:abc');
    expect(imageUrl('abc123')).toBe('/api/file/fetch/abc123');
    expect(imageUrl('')).toBeNull();
  });
  it('builds ipx paths', () => {
    expect(ipxModifiers({})).toBe('_');
    expect(ipxUrl('f1', { w: 300, h: 200, fit: 'cover', format: 'webp' })).toBe('/_ipx/s_300x200,fit_cover,f_webp/api/file/fetch/f1');
    expect(ipxUrl('f1', { w: 10, h: 10, format: 'webp', quality: 50 })).toBe('/_ipx/s_10x10,f_webp,q_50/api/file/fetch/f1');
  });
});

describe('avatar', () => {
  it('falls back to the first letters of the first two words', () => {
    expect(initials('mei lin chen')).toBe('ML');
    expect(initials('  Kenji ')).toBe('K');
    expect(initials('王 小明')).toBe('王小');
  });
  it('keeps the size between 16 and 48 px', () => {
    expect(clampAvatarSize(8)).toBe(16);
    expect(clampAvatarSize(64)).toBe(48);
    expect(clampAvatarSize(32)).toBe(32);
  });
});
