import type Anthropic from '@anthropic-ai/sdk';

import { fileRefIds, fileRefOf } from '@/db/file-refs';

import type { StoredMessage } from '../history';
import { presetBlockTokens } from '../token-estimate';

/** A file as the model gets it, and what it costs the model (an estimate the token gauge uses). */
export interface ModelFile {
  block: Anthropic.ContentBlockParam;
  tokens: number;
}

/**
 * Where the engine reads the person's files (lib/files/model-blocks.ts in the app): the blocks
 * for these ids of this user, each read once. An id it cannot find is left out.
 */
export interface FileSource {
  modelBlocks(userId: string, ids: readonly string[]): Promise<Map<string, ModelFile>>;
}

/**
 * The files a drive's history refers to, resolved to what the model gets. A stored message holds
 * only a reference to each file (db/file-refs.ts); the bytes are read here, once per drive for
 * every step of it — the blocks are kept, and the next step sends the same objects (their token
 * estimate is kept by identity too). A history without files reads nothing.
 */
export class DriveFiles {
  private readonly resolved = new Map<string, ModelFile>();

  async resolve(source: FileSource | undefined, userId: string, messages: readonly StoredMessage[]): Promise<void> {
    const wanted = new Set<string>();
    for (const m of messages) for (const id of fileRefIds(m.content)) if (!this.resolved.has(id)) wanted.add(id);
    if (wanted.size === 0 || !source) return;
    for (const [id, file] of await source.modelBlocks(userId, [...wanted])) {
      presetBlockTokens(file.block, file.tokens);
      this.resolved.set(id, file);
    }
  }

  /** The messages with each file reference replaced by the file's block (unchanged objects when they hold none). */
  apply(messages: StoredMessage[]): StoredMessage[] {
    return messages.map((m) => {
      if (!m.content.some((b) => fileRefOf(b) !== null)) return m;
      return {
        ...m,
        content: m.content.map((b) => {
          const id = fileRefOf(b);
          if (id === null) return b;
          return this.resolved.get(id)?.block ?? { type: 'text' as const, text: `[An attached file (${id}) is no longer available.]` };
        }),
      };
    });
  }
}
