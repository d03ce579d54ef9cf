-- Versions of what a list of executions shows, so that a process can keep
-- the list it read and, after commits of any process, read again only the
-- executions that changed. Every change to an execution or its commands
-- takes the next version and stamps it on the execution's row; a deleted
-- execution leaves its id in list_deletions with the version it took.
--
-- Heartbeats (owners), chain runs and the current execution leave the
-- versions alone: they decide only which work is running and which
-- execution is marked current, which a list reads afresh every time from a
-- few rows.
CREATE TABLE list_version (
    id        INTEGER PRIMARY KEY CHECK (id = 0),
    version   INTEGER NOT NULL,
    deletions INTEGER NOT NULL
);
INSERT INTO list_version (id, version, deletions) VALUES (0, 0, 0);

ALTER TABLE executions ADD COLUMN list_version INTEGER NOT NULL DEFAULT 0;
CREATE INDEX executions_list_version ON executions (list_version);

CREATE TRIGGER list_version_executions_insert AFTER INSERT ON executions
BEGIN
    UPDATE list_version SET version = version + 1;
    UPDATE executions SET list_version = (SELECT version FROM list_version) WHERE rowid = NEW.rowid;
END;

-- Any change but the stamp itself, which the WHEN clause leaves out.
CREATE TRIGGER list_version_executions_update AFTER UPDATE ON executions
WHEN NEW.list_version = OLD.list_version
BEGIN
    UPDATE list_version SET version = version + 1;
    UPDATE executions SET list_version = (SELECT version FROM list_version) WHERE rowid = NEW.rowid;
END;

-- The last 1,000 deletions: a list older than those is read whole again,
-- which the count of deletions in list_version tells.
CREATE TABLE list_deletions (
    version    INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL
);

CREATE TRIGGER list_version_executions_delete AFTER DELETE ON executions
BEGIN
    UPDATE list_version SET version = version + 1, deletions = deletions + 1;
    INSERT INTO list_deletions (version, session_id) SELECT version, OLD.session_id FROM list_version;
    DELETE FROM list_deletions
        WHERE version <= (SELECT version FROM list_deletions ORDER BY version DESC LIMIT 1 OFFSET 1000);
END;

-- The counters of executions follow the commands through the triggers of
-- 0001, whose updates the trigger above sees; these cover what the list
-- reads from the commands directly, whatever changes it.
CREATE TRIGGER list_version_commands_insert AFTER INSERT ON commands
BEGIN
    UPDATE list_version SET version = version + 1;
    UPDATE executions SET list_version = (SELECT version FROM list_version) WHERE session_id = NEW.session_id;
END;

CREATE TRIGGER list_version_commands_update AFTER UPDATE OF status, command, step, session_id ON commands
BEGIN
    UPDATE list_version SET version = version + 1;
    UPDATE executions SET list_version = (SELECT version FROM list_version)
        WHERE session_id IN (OLD.session_id, NEW.session_id);
END;

CREATE TRIGGER list_version_commands_delete AFTER DELETE ON commands
BEGIN
    UPDATE list_version SET version = version + 1;
    UPDATE executions SET list_version = (SELECT version FROM list_version) WHERE session_id = OLD.session_id;
END;
