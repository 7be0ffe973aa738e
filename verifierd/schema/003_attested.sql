-- uie-verifierd schema version 3 (docs/VERIFIER.md 2.2, 3.8): enrolment by
-- attestation.  A fleet says what a machine's SEV-SNP report must show:
-- the roots its chain ends in (NULL: AMD's built-in pinned roots; a
-- simulated root only given explicitly), the minimum TCB and firmware ABI,
-- the VMPL, and the launch measurements it accepts.
CREATE TABLE fleets (
	name text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
	ark_pem text,
	ask_pem text,
	simulated boolean NOT NULL DEFAULT false,
	min_tcb bytea CHECK (length(min_tcb) = 8), -- a TCB_VERSION as the report holds it
	min_abi_major smallint NOT NULL DEFAULT 0 CHECK (min_abi_major BETWEEN 0 AND 255),
	min_abi_minor smallint NOT NULL DEFAULT 0 CHECK (min_abi_minor BETWEEN 0 AND 255),
	vmpl smallint NOT NULL CHECK (vmpl BETWEEN 0 AND 3),
	any_measurement boolean NOT NULL DEFAULT false,
	measurements bytea NOT NULL DEFAULT '\x' CHECK (length(measurements) % 48 = 0), -- 48 bytes each
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((ark_pem IS NULL) = (ask_pem IS NULL)),
	CHECK (NOT simulated OR ark_pem IS NOT NULL)
);

-- A machine enrolled by attestation names its fleet and what its report
-- showed; a machine enrolled with a hand-given AK has NULLs there.
ALTER TABLE machines ADD COLUMN fleet text REFERENCES fleets ON DELETE SET NULL,
	ADD COLUMN attested_measurement bytea,
	ADD COLUMN attested_simulated boolean;

-- Enrolments under way, one row per enrolment nonce: issued (secret_hash
-- NULL), then pending its credential's answer.  Unlogged like nonces: a
-- server crash empties it, and the machine starts over.
CREATE UNLOGGED TABLE enrolments (
	nonce bytea PRIMARY KEY,
	machine_id text NOT NULL CHECK (machine_id ~ '^[A-Za-z0-9._-]{1,64}$'),
	expires_at timestamptz NOT NULL,
	secret_hash bytea,
	fleet text REFERENCES fleets ON DELETE CASCADE,
	ak_der bytea,
	reference text,
	interval_s integer CHECK (interval_s BETWEEN 1 AND 86400),
	measurement bytea,
	simulated boolean
);
CREATE INDEX enrolments_machine ON enrolments (machine_id);

CREATE UNLOGGED TABLE enrolment_policies (
	nonce bytea NOT NULL REFERENCES enrolments ON DELETE CASCADE,
	epoch bigint NOT NULL,
	package bytea NOT NULL,
	PRIMARY KEY (nonce, epoch)
);
