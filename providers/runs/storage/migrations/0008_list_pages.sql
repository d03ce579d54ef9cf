-- Lists of executions are read a page at a time through the index on
-- (started_at DESC, session_id), so no process keeps a whole list between
-- calls: the versions of 0006 that let it read again only what changed
-- are no longer read, and their triggers no longer slow every write.
DROP TRIGGER list_version_executions_insert;
DROP TRIGGER list_version_executions_update;
DROP TRIGGER list_version_executions_delete;
DROP TRIGGER list_version_commands_insert;
DROP TRIGGER list_version_commands_update;
DROP TRIGGER list_version_commands_delete;
DROP TABLE list_deletions;
DROP TABLE list_version;
DROP INDEX executions_list_version;
ALTER TABLE executions DROP COLUMN list_version;
