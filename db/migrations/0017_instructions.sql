ALTER TABLE "conversations" ADD COLUMN "instructions" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "instructions" text;