DROP INDEX "runs_one_active_idx";--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "sign_in" jsonb;--> statement-breakpoint
CREATE INDEX "tool_calls_awaiting_sign_in_idx" ON "tool_calls" USING btree ("user_id","server_id") WHERE status = 'awaiting_sign_in';--> statement-breakpoint
CREATE UNIQUE INDEX "runs_one_active_idx" ON "runs" USING btree ("conversation_id") WHERE status in ('running', 'awaiting_approval', 'awaiting_input', 'awaiting_sign_in');