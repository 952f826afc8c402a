ALTER TABLE "oauth_credentials" ADD COLUMN "refreshable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_credentials" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "oauth_credentials_expiring_idx" ON "oauth_credentials" USING btree ("expires_at") WHERE "oauth_credentials"."tokens" is not null;