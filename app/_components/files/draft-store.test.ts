import { describe, expect, it } from 'vitest';

import { draftKey, readDraft, writeDraft } from './draft-store';
import { fileDetails, type FileView } from './file-view';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
}

const png: FileView = {
  id: 'f1',
  name: 'image.png',
  mediaType: 'image/png',
  size: 12_345,
  kind: 'image',
  width: 640,
  height: 480,
  createdAt: '2026-12-05T12:00:00.000Z',
};

describe('the kept draft', () => {
  it('is per conversation, with a key of its own for the new chat', () => {
    expect(draftKey('abc')).toBe('switchboard.draft.abc');
    expect(draftKey(undefined)).toBe('switchboard.draft.new');
  });

  it('reads back the text and the files it was saved with', () => {
    const storage = memoryStorage();
    writeDraft(storage, 'k', { text: 'hello', files: [png] });
    expect(readDraft(storage, 'k')).toEqual({ text: 'hello', files: [png] });
  });

  it('is forgotten when it is emptied', () => {
    const storage = memoryStorage();
    writeDraft(storage, 'k', { text: 'hello', files: [] });
    writeDraft(storage, 'k', { text: '', files: [] });
    expect(storage.items.has('k')).toBe(false);
  });

  it('drops what does not match its shape rather than trusting it', () => {
    const storage = memoryStorage();
    for (const raw of ['not json', '{"text": 3, "files": []}', JSON.stringify({ text: 'x', files: [{ ...png, kind: 'svg' }] })]) {
      storage.setItem('k', raw);
      expect(readDraft(storage, 'k')).toBeNull();
      expect(storage.items.has('k')).toBe(false);
    }
  });

  it('survives storage that refuses to work', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('full');
      },
      removeItem: () => {},
    };
    expect(readDraft(broken, 'k')).toBeNull();
    expect(() => writeDraft(broken, 'k', { text: 'x', files: [] })).not.toThrow();
  });
});

describe('a file in words', () => {
  it('says an image’s size in pixels, a PDF’s pages and a text file’s extension', () => {
    expect(fileDetails(png)).toMatch(/^PNG · 640×480 · /);
    expect(fileDetails({ ...png, kind: 'pdf', mediaType: 'application/pdf', name: 'r.pdf', pages: 3 })).toMatch(/^PDF · 3 pages · /);
    expect(fileDetails({ ...png, kind: 'pdf', mediaType: 'application/pdf', name: 'r.pdf', pages: 1 })).toMatch(/^PDF · 1 page · /);
    expect(fileDetails({ ...png, kind: 'text', mediaType: 'text/plain; charset=utf-8', name: 'notes.md' })).toMatch(/^MD · /);
  });
});
