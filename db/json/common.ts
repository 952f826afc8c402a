import { z } from 'zod';

/** Pieces the shapes share: a timestamp as stored (ISO text), and an object whose keys are a server's. */
export const iso = z.string().min(1);
export const jsonObject = z.record(z.string(), z.unknown());
