import { describe, expect, it } from 'vitest';
import { dataUrlBlob } from '@/lib/data-url';

/** jsdom's Blob has no arrayBuffer(): read it as a browser of old would. */
function bytes(blob: Blob): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve([...new Uint8Array(reader.result as ArrayBuffer)]);
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(blob);
  });
}

describe('dataUrlBlob', () => {
  it('decodes base64 and plain data: URLs with their type, without fetch', async () => {
    const jpeg = dataUrlBlob('data:image/jpeg;base64,/9j/2Q==');
    expect(jpeg.type).toBe('image/jpeg');
    expect(await bytes(jpeg)).toEqual([0xff, 0xd8, 0xff, 0xd9]);
    const text = dataUrlBlob('data:text/plain;charset=utf-8,a%20b');
    expect(text.type).toBe('text/plain');
    expect(await bytes(text)).toEqual([0x61, 0x20, 0x62]);
    expect(() => dataUrlBlob('https://example.com/x.jpg')).toThrow();
  });
});
