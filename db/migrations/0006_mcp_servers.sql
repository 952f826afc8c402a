CREATE TABLE "mcp_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"namespace" text NOT NULL,
	"url" text NOT NULL,
	"trust" text DEFAULT 'untrusted' NOT NULL,
	"headers_sealed" text,
	"oauth_client_id" text,
	"oauth_client_secret_sealed" text,
	"timeout_ms" integer DEFAULT 60000 NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"reviewed_tools" jsonb DEFAULT '{"v":1,"tools":{}}'::jsonb NOT NULL,
	"status" text DEFAULT 'unchecked' NOT NULL,
	"last_error" text,
	"protocol_version" text,
	"transport" text,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_user_namespace_idx" ON "mcp_servers" USING btree ("user_id","namespace");