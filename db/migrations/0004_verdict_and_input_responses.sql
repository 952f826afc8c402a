ALTER TABLE "tool_calls" RENAME COLUMN "policy" TO "verdict";--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "result_chars" integer;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "result_truncated" boolean;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "input_responses" jsonb;--> statement-breakpoint
-- Elicitation answers used to live inside "decision"; they have a column of their own now.
UPDATE "tool_calls" SET "input_responses" = jsonb_build_object(
  'v', 1,
  'responses', "decision"->'inputResponses',
  'by', coalesce("decision"->>'answeredBy', "user_id"::text),
  'at', coalesce("decision"->>'answeredAt', to_char("created_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
) WHERE "decision" ? 'inputResponses';--> statement-breakpoint
UPDATE "tool_calls" SET "decision" = "decision" - 'inputResponses' - 'answeredBy' - 'answeredAt' WHERE "decision" ? 'inputResponses';--> statement-breakpoint
-- A decision that held only answers (no person's choice) is no decision.
UPDATE "tool_calls" SET "decision" = NULL WHERE "decision" IS NOT NULL AND NOT ("decision" ? 'kind');
