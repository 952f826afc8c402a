CREATE TABLE "tool_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"session_id" text NOT NULL,
	"scope" text NOT NULL,
	"auto_approve" boolean DEFAULT false NOT NULL,
	"constraint" jsonb,
	"covered" jsonb NOT NULL,
	"expires_in" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text
);
--> statement-breakpoint
CREATE TABLE "tool_switches" (
	"user_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"server_id" text NOT NULL,
	"tool" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tool_switches_conversation_id_server_id_tool_pk" PRIMARY KEY("conversation_id","server_id","tool")
);
--> statement-breakpoint
ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_session_id_auth_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."auth_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_switches" ADD CONSTRAINT "tool_switches_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_switches" ADD CONSTRAINT "tool_switches_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tool_grants_live_scope_idx" ON "tool_grants" USING btree ("user_id","conversation_id","session_id","scope") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "tool_grants_session_idx" ON "tool_grants" USING btree ("session_id") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "tool_switches_user_idx" ON "tool_switches" USING btree ("user_id");