CREATE TABLE "client_asks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"prompt_hash" text NOT NULL,
	"follow_up" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"answered_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "started_by" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "client_id" uuid;--> statement-breakpoint
ALTER TABLE "client_asks" ADD CONSTRAINT "client_asks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "client_asks_unanswered_idx" ON "client_asks" USING btree ("client_id","prompt_hash","created_at") WHERE answered_at is null;