CREATE TABLE "share_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"include_tool_details" boolean DEFAULT false NOT NULL,
	"audience" text DEFAULT 'anyone' NOT NULL,
	"expires_at" timestamp with time zone,
	"snapshot_seq" integer NOT NULL,
	"snapshot_title" text NOT NULL,
	"snapshot_at" timestamp with time zone NOT NULL,
	"snapshot_moved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "share_links_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "forked_from" jsonb;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "share_links_user_idx" ON "share_links" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "share_links_conversation_idx" ON "share_links" USING btree ("conversation_id");