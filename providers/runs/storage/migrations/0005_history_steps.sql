-- A chain step's messages name the step of the execution and the attempt
-- they belong to (both NULL for other messages). An attempt's message of a
-- role is stored once: appending it again is a no-op. A built history takes
-- a step's messages from its latest attempt only, so that a retry, or the
-- resume after a crash that struck between storing a step's messages and
-- recording its completion, supersedes the earlier attempt's messages
-- without editing or deleting them.
ALTER TABLE messages ADD COLUMN step INTEGER CHECK (step IS NULL OR step >= 0);
ALTER TABLE messages ADD COLUMN attempt INTEGER CHECK (attempt IS NULL OR attempt >= 1);

CREATE UNIQUE INDEX messages_step ON messages (conversation_id, step, attempt, role) WHERE step IS NOT NULL;

DROP INDEX messages_meta;
CREATE INDEX messages_meta ON messages (conversation_id, id, tokens, lines, body_tokens, short_tokens, encoding,
    role, mode, command, run_id, created_at, step, attempt);
