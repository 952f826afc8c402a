CREATE TABLE "mcp_sessions" (
	"user_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"server_id" text NOT NULL,
	"server_url" text NOT NULL,
	"session_id" text NOT NULL,
	"protocol_version" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_sessions_conversation_id_server_id_server_url_user_id_pk" PRIMARY KEY("conversation_id","server_id","server_url","user_id")
);
--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_sessions_user_server_idx" ON "mcp_sessions" USING btree ("user_id","server_id");--> statement-breakpoint
CREATE INDEX "mcp_sessions_last_used_idx" ON "mcp_sessions" USING btree ("last_used_at");