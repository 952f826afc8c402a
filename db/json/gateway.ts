import { z } from 'zod';

// ── client_approvals.warnings: the decision table's warnings for the person ────────────────
export const storedApprovalWarnings = z.array(z.string());
