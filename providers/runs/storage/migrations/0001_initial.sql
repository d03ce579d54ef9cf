-- Initial schema: executions (ExecutionContext sessions), their commands and
-- attempts, cached context and memory, shared data, chain runs, process
-- heartbeats, settings, and the conversation history.
--
-- Times are INTEGER milliseconds since the Unix epoch, UTC.
-- JSON documents (inputs, outputs, shared values, plans) are TEXT.
-- Loaded content is BLOB so that any bytes round-trip unchanged.

CREATE TABLE executions (
    session_id   TEXT PRIMARY KEY,
    project_name TEXT NOT NULL,
    project_type TEXT NOT NULL DEFAULT '',
    started_at   INTEGER NOT NULL,
    -- The commands of the chain running in this execution (JSON array),
    -- the chain's input, and the step at which the chain's first command runs.
    plan         TEXT CHECK (plan IS NULL OR json_valid(plan)),
    plan_input   TEXT NOT NULL DEFAULT '',
    plan_base    INTEGER NOT NULL DEFAULT 0,
    -- Counts over the latest attempts of the steps, kept by the triggers
    -- below so that listing many executions reads this table alone.
    steps             INTEGER NOT NULL DEFAULT 0,
    steps_done        INTEGER NOT NULL DEFAULT 0, -- success or partial
    steps_failed      INTEGER NOT NULL DEFAULT 0,
    steps_interrupted INTEGER NOT NULL DEFAULT 0,
    plan_done         INTEGER NOT NULL DEFAULT 0, -- steps of the plan done (a plan
                                                  -- starts after the existing steps)
    last_command      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX executions_started ON executions (started_at DESC, session_id);
CREATE INDEX executions_project ON executions (project_name, started_at DESC);

-- One row per step of an execution, holding its latest attempt.
-- Earlier attempts move to command_attempts when a retry starts.
CREATE TABLE commands (
    id           INTEGER PRIMARY KEY,
    session_id   TEXT NOT NULL REFERENCES executions (session_id) ON DELETE CASCADE,
    step         INTEGER NOT NULL CHECK (step >= 0),
    command      TEXT NOT NULL CHECK (command <> ''),
    attempts     INTEGER NOT NULL DEFAULT 1 CHECK (attempts >= 1),
    status       TEXT NOT NULL CHECK (status IN ('running', 'success', 'partial', 'failed', 'interrupted')),
    inputs       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(inputs)),
    outputs      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(outputs)),
    started_at   INTEGER NOT NULL,
    completed_at INTEGER,
    owner_id     TEXT NOT NULL,
    UNIQUE (session_id, step)
);
CREATE INDEX commands_running ON commands (owner_id) WHERE status = 'running';

CREATE INDEX commands_by_name ON commands (session_id, command, step);

-- The counters of executions follow every new step and status change; steps
-- and commands are never edited otherwise, and go only with their execution.
CREATE TRIGGER commands_summary_insert AFTER INSERT ON commands
BEGIN
    UPDATE executions SET
        steps = steps + 1,
        last_command = NEW.command,
        steps_done = steps_done + (NEW.status IN ('success', 'partial')),
        steps_failed = steps_failed + (NEW.status = 'failed'),
        steps_interrupted = steps_interrupted + (NEW.status = 'interrupted'),
        plan_done = plan_done + (NEW.status IN ('success', 'partial') AND NEW.step >= plan_base
            AND NEW.step < plan_base + coalesce(json_array_length(plan), 0))
    WHERE session_id = NEW.session_id;
END;

CREATE TRIGGER commands_summary_update AFTER UPDATE OF status ON commands
WHEN OLD.status <> NEW.status
BEGIN
    UPDATE executions SET
        steps_done = steps_done + (NEW.status IN ('success', 'partial')) - (OLD.status IN ('success', 'partial')),
        steps_failed = steps_failed + (NEW.status = 'failed') - (OLD.status = 'failed'),
        steps_interrupted = steps_interrupted + (NEW.status = 'interrupted') - (OLD.status = 'interrupted'),
        plan_done = plan_done + ((NEW.status IN ('success', 'partial')) - (OLD.status IN ('success', 'partial')))
            * (NEW.step >= plan_base AND NEW.step < plan_base + coalesce(json_array_length(plan), 0))
    WHERE session_id = NEW.session_id;
END;

-- Earlier attempts of a step, immutable once written.
CREATE TABLE command_attempts (
    command_id   INTEGER NOT NULL REFERENCES commands (id) ON DELETE CASCADE,
    attempt      INTEGER NOT NULL CHECK (attempt >= 1),
    status       TEXT NOT NULL CHECK (status IN ('success', 'partial', 'failed', 'interrupted')),
    inputs       TEXT NOT NULL DEFAULT '{}',
    outputs      TEXT NOT NULL DEFAULT '{}',
    started_at   INTEGER NOT NULL,
    completed_at INTEGER,
    owner_id     TEXT NOT NULL,
    PRIMARY KEY (command_id, attempt)
);

-- contextLoaded (domain:topic), memoryUpdated (layer:key) and skillsInvoked
-- of one attempt, in the order they were recorded (rowid).
CREATE TABLE command_items (
    command_id INTEGER NOT NULL REFERENCES commands (id) ON DELETE CASCADE,
    attempt    INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('context', 'memory', 'skill')),
    item       TEXT NOT NULL,
    UNIQUE (command_id, attempt, kind, item)
);

CREATE TABLE context_loads (
    session_id TEXT NOT NULL REFERENCES executions (session_id) ON DELETE CASCADE,
    domain     TEXT NOT NULL CHECK (domain <> ''),
    topic      TEXT NOT NULL CHECK (topic <> ''),
    content    BLOB NOT NULL,
    loaded_at  INTEGER NOT NULL,
    UNIQUE (session_id, domain, topic)
);

CREATE TABLE memory_loads (
    session_id TEXT NOT NULL REFERENCES executions (session_id) ON DELETE CASCADE,
    layer      TEXT NOT NULL CHECK (layer <> ''),
    key        TEXT NOT NULL CHECK (key <> ''),
    content    BLOB NOT NULL,
    loaded_at  INTEGER NOT NULL,
    UNIQUE (session_id, layer, key)
);

CREATE TABLE shared_data (
    session_id TEXT NOT NULL REFERENCES executions (session_id) ON DELETE CASCADE,
    key        TEXT NOT NULL CHECK (key <> ''),
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at INTEGER NOT NULL,
    UNIQUE (session_id, key)
);

-- One row per chain run or resume of an execution.
CREATE TABLE runs (
    run_id      TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES executions (session_id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('run', 'resume')),
    status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished', 'interrupted')),
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    owner_id    TEXT NOT NULL
);
CREATE INDEX runs_session ON runs (session_id, started_at);
CREATE INDEX runs_running ON runs (owner_id) WHERE status = 'running';

-- Server processes working on this database. A row whose heartbeat is older
-- than its stale_ms belongs to a process that is gone.
CREATE TABLE owners (
    owner_id     TEXT PRIMARY KEY,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL DEFAULT '',
    started_at   INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    stale_ms     INTEGER NOT NULL CHECK (stale_ms > 0)
);

-- Small shared values such as the current execution.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- A conversation; the one of an execution shares its session id and goes
-- with it.
CREATE TABLE conversations (
    conversation_id TEXT PRIMARY KEY,
    session_id      TEXT UNIQUE REFERENCES executions (session_id) ON DELETE CASCADE,
    created_at      INTEGER NOT NULL
);

-- Conversation history, append-only.
CREATE TABLE messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations (conversation_id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role <> ''),
    content         TEXT NOT NULL,
    mode            TEXT NOT NULL DEFAULT '',
    run_id          TEXT,
    command         TEXT,
    created_at      INTEGER NOT NULL,
    tokens          INTEGER NOT NULL DEFAULT 0 CHECK (tokens >= 0)
);
CREATE INDEX messages_conversation ON messages (conversation_id, id);
CREATE INDEX messages_run ON messages (run_id) WHERE run_id IS NOT NULL;

CREATE TRIGGER messages_append_only BEFORE UPDATE ON messages
BEGIN
    SELECT RAISE(ABORT, 'messages are append-only');
END;
