ALTER TABLE "access_tokens" ADD COLUMN "profile" jsonb DEFAULT '{"v":1,"tools":[]}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "access_tokens" ADD COLUMN "tainted" jsonb;