CREATE TABLE "tool_catalogs" (
	"server_id" text NOT NULL,
	"scope" text NOT NULL,
	"server_url" text NOT NULL,
	"catalog" jsonb NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "tool_catalogs_server_id_scope_pk" PRIMARY KEY("server_id","scope")
);
