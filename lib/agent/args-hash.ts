import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** SHA-256 of the input in RFC 8785 canonical JSON: what a person's decision is bound to. */
export function argsHash(input: unknown): string {
  return createHash('sha256')
    .update(canonicalize(input ?? {}) ?? 'null')
    .digest('hex');
}
