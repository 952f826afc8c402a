ALTER TABLE "client_asks" DROP CONSTRAINT "client_asks_conversation_id_conversations_id_fk";
