import { describe, expect, it } from 'vitest';

import { ApiError } from '../api';
import { refusalMessage, tooManyFilesMessage } from './use-draft-files';

describe('why a file was not attached', () => {
  it('names the file and the limit when the message is full', () => {
    expect(tooManyFilesMessage('part-11.txt', 10)).toBe(
      'part-11.txt was not attached: a message can carry at most 10 files. Remove one to attach another.',
    );
  });

  it('keeps the server’s sentence when it names the file already', () => {
    const err = new ApiError(413, 'payload_too_large', 'file "big.png": images are at most 5 MB (this one is 7.2 MB).', 'file');
    expect(refusalMessage('big.png', err)).toBe('file "big.png": images are at most 5 MB (this one is 7.2 MB).');
  });

  it('names the file itself when the server’s sentence does not', () => {
    expect(refusalMessage('a.pdf', new ApiError(0, 'network', 'Could not reach Switchboard.'))).toBe(
      'a.pdf was not attached: Could not reach Switchboard.',
    );
    expect(refusalMessage('a.pdf', new Error('boom'))).toBe('a.pdf was not attached: The upload failed. Try again.');
  });
});
