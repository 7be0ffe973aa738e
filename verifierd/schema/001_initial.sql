-- uie-verifierd schema version 1 (docs/VERIFIER.md 2.2).  Applied by the
-- daemon in one transaction with its schema_version row.
CREATE TABLE machines (
	id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._-]{1,64}$'),
	ak_der bytea NOT NULL,
	reference text,
	interval_s integer NOT NULL CHECK (interval_s BETWEEN 1 AND 86400),
	enrolled_at timestamptz NOT NULL DEFAULT now(),
	-- verifier state: the fields of the `uie verify` state file
	valid boolean NOT NULL DEFAULT false,
	clock bigint NOT NULL DEFAULT 0,
	reset_count bigint NOT NULL DEFAULT 0,
	restart_count bigint NOT NULL DEFAULT 0,
	next_seq bigint NOT NULL DEFAULT 0,
	pcr bytea NOT NULL DEFAULT '\x0000000000000000000000000000000000000000000000000000000000000000',
	epoch bigint NOT NULL DEFAULT 0,
	mode smallint NOT NULL DEFAULT 0,
	policy_id bytea NOT NULL DEFAULT '\x0000000000000000000000000000000000000000000000000000000000000000',
	last_attested timestamptz,
	status text NOT NULL DEFAULT 'enrolled' CHECK (status IN ('enrolled', 'trusted', 'failed')),
	first_bad bigint
);

CREATE TABLE policies (
	machine_id text NOT NULL REFERENCES machines ON DELETE CASCADE,
	epoch bigint NOT NULL,
	package bytea NOT NULL,
	PRIMARY KEY (machine_id, epoch)
);

-- Unlogged: no WAL for a row that lives a minute; a server crash empties
-- the table, which only makes agents ask again.
CREATE UNLOGGED TABLE nonces (
	nonce bytea PRIMARY KEY,
	machine_id text NOT NULL REFERENCES machines ON DELETE CASCADE,
	expires_at timestamptz NOT NULL
);
CREATE INDEX nonces_machine ON nonces (machine_id);

CREATE TABLE verdicts (
	id bigserial PRIMARY KEY,
	machine_id text NOT NULL REFERENCES machines ON DELETE CASCADE,
	at timestamptz NOT NULL DEFAULT now(),
	verifier text NOT NULL,
	accepted boolean NOT NULL,
	result text NOT NULL,
	reason text NOT NULL,
	bad_record bigint,
	first_seq bigint NOT NULL,
	nrecords bigint NOT NULL,
	new_records bigint NOT NULL,
	next_seq bigint NOT NULL,
	vpcr16 bytea NOT NULL
);
CREATE INDEX verdicts_machine ON verdicts (machine_id, id);

ALTER TABLE machines ADD FOREIGN KEY (first_bad) REFERENCES verdicts (id);
