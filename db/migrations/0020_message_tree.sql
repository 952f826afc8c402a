ALTER TABLE "conversations" ADD COLUMN "active_leaf_id" uuid;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "parent_id" uuid;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_parent_id_messages_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_conversation_parent_idx" ON "messages" USING btree ("conversation_id","parent_id");--> statement-breakpoint
-- Hand-written backfill (keep at the end when renumbering): every conversation from before the message tree is
-- one straight path. Each message follows the one before it by seq, and the active leaf is the last message.
UPDATE "messages" m SET "parent_id" = p."prev"
FROM (SELECT "id", lag("id") OVER (PARTITION BY "conversation_id" ORDER BY "seq") AS "prev" FROM "messages") p
WHERE m."id" = p."id" AND p."prev" IS NOT NULL;--> statement-breakpoint
UPDATE "conversations" c SET "active_leaf_id" = l."id"
FROM (SELECT DISTINCT ON ("conversation_id") "conversation_id", "id" FROM "messages" ORDER BY "conversation_id", "seq" DESC) l
WHERE c."id" = l."conversation_id";
