ALTER TABLE "conversations" ADD COLUMN "thinking" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "thinking" jsonb;