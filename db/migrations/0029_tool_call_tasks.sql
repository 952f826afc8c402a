ALTER TABLE "tool_calls" ADD COLUMN "task_support" text;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "task" jsonb;