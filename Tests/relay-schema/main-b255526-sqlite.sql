PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1-tables');
INSERT INTO grdb_migrations VALUES('v2-items-revision');
INSERT INTO grdb_migrations VALUES('v3-policy-grace');
INSERT INTO grdb_migrations VALUES('v4-admin-sessions');
INSERT INTO grdb_migrations VALUES('v5-enrolment-failures');
INSERT INTO grdb_migrations VALUES('v6-upload-defer-length');
INSERT INTO grdb_migrations VALUES('v7-user-disabled');
INSERT INTO grdb_migrations VALUES('v8-removed-tokens');
INSERT INTO grdb_migrations VALUES('v9-device-chains');
INSERT INTO grdb_migrations VALUES('v10-upload-reserved');
INSERT INTO grdb_migrations VALUES('v11-invite-creator');
INSERT INTO grdb_migrations VALUES('v12-transfer-upload');
INSERT INTO grdb_migrations VALUES('v13-upload-parts');
INSERT INTO grdb_migrations VALUES('v14-org-groups');
INSERT INTO grdb_migrations VALUES('v15-blob-indexes');
CREATE TABLE organisations(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created REAL NOT NULL, items_revision INTEGER NOT NULL DEFAULT 0, policy_grace INTEGER);
INSERT INTO organisations VALUES(1,'acme',1700000000.4999999999,3,86400);
CREATE TABLE users(
  id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organisations(id),
  email TEXT NOT NULL UNIQUE, role TEXT NOT NULL CHECK (role IN ('member', 'admin')),
  created REAL NOT NULL, disabled REAL);
INSERT INTO users VALUES(1,1,'ann@acme.test','admin',1700000001.0,NULL);
INSERT INTO users VALUES(2,1,'bob@acme.test','member',1700000002.0,1700000100.0);
CREATE TABLE enrolment_codes(
  code_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
  created REAL NOT NULL, expires REAL NOT NULL, used REAL, created_by TEXT);
INSERT INTO enrolment_codes VALUES('c0de',2,1700000003.0,1700086403.0,NULL,'dev-ann');
CREATE TABLE devices(
  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL, platform TEXT NOT NULL, recipient TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE, created REAL NOT NULL, last_seen REAL, invalidated REAL, signing_key TEXT);
INSERT INTO devices VALUES('dev-ann',1,'laptop','linux','age1annrecipient','t0ken-ann',1700000004.0,1700000200.0,NULL,'ed25519-ann');
INSERT INTO devices VALUES('dev-bob',2,'phone','ios','age1bobrecipient','t0ken-bob',1700000005.0,NULL,NULL,NULL);
CREATE TABLE device_groups(
  id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL, created REAL NOT NULL, UNIQUE(user_id, name));
INSERT INTO device_groups VALUES(1,1,'home',1700000006.0);
CREATE TABLE group_members(
  group_id INTEGER NOT NULL REFERENCES device_groups(id) ON DELETE CASCADE,
  device_id TEXT NOT NULL REFERENCES devices(id), PRIMARY KEY(group_id, device_id));
INSERT INTO group_members VALUES(1,'dev-ann');
CREATE TABLE blobs(
  id TEXT PRIMARY KEY, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
  refs INTEGER NOT NULL, created REAL NOT NULL);
INSERT INTO blobs VALUES('blob-1',12,'aa11',2,1700000008.0);
CREATE TABLE transfers(
  id TEXT PRIMARY KEY, sender_device TEXT NOT NULL, sender_user INTEGER NOT NULL,
  blob_id TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
  created REAL NOT NULL, expires REAL NOT NULL, upload_id TEXT);
INSERT INTO transfers VALUES('tr-1','dev-ann',1,'blob-1',12,'aa11',1700000009.0,1700604809.0,NULL);
CREATE TABLE outbox(
  transfer_id TEXT NOT NULL REFERENCES transfers(id), device_id TEXT NOT NULL,
  status TEXT NOT NULL, updated REAL NOT NULL, PRIMARY KEY(transfer_id, device_id));
INSERT INTO outbox VALUES('tr-1','dev-bob','pending',1700000010.0);
CREATE TABLE cloud(
  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), parent TEXT NOT NULL,
  name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('folder', 'file')),
  blob_id TEXT, size INTEGER, sha256 TEXT, created REAL NOT NULL, updated REAL NOT NULL,
  UNIQUE(user_id, parent, name));
INSERT INTO cloud VALUES('cl-1',1,'','notes.age','file','blob-1',12,'aa11',1700000011.0,1700000012.0);
CREATE TABLE items(
  org_id INTEGER NOT NULL REFERENCES organisations(id), id TEXT NOT NULL, app TEXT NOT NULL,
  body TEXT NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY(org_id, id), UNIQUE(org_id, app));
INSERT INTO items VALUES(1,'item-1','org.example.app','{"rules":[]}',3);
CREATE TABLE events(
  id INTEGER PRIMARY KEY AUTOINCREMENT, device_id TEXT NOT NULL, kind TEXT NOT NULL,
  data TEXT NOT NULL, created REAL NOT NULL);
INSERT INTO events VALUES(7,'dev-bob','transfer','{"id":"tr-1"}',1700000013.0);
CREATE TABLE audit(
  id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, org_id INTEGER,
  actor TEXT NOT NULL, action TEXT NOT NULL, subject TEXT NOT NULL, detail TEXT NOT NULL);
INSERT INTO audit VALUES(5,1700000014.0,1,'operator','user.add','bob@acme.test','');
CREATE TABLE login_codes(
  code_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
  created REAL NOT NULL, expires REAL NOT NULL, used REAL);
INSERT INTO login_codes VALUES('l0gin',1,1700000015.0,1700000915.0,NULL);
CREATE TABLE admin_sessions(
  session_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
  created REAL NOT NULL, expires REAL NOT NULL);
INSERT INTO admin_sessions VALUES('s3ssion',1,1700000016.0,1700086416.0);
CREATE TABLE enrolment_failures(address TEXT PRIMARY KEY, failures INTEGER NOT NULL, until REAL);
INSERT INTO enrolment_failures VALUES('192.0.2.7',3,NULL);
CREATE TABLE IF NOT EXISTS "uploads"(
  id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
  length INTEGER, "offset" INTEGER NOT NULL, metadata TEXT NOT NULL,
  created REAL NOT NULL, expires REAL NOT NULL, sha256 TEXT, reserved INTEGER, multipart TEXT, assembled INTEGER);
INSERT INTO uploads VALUES('up-1',1,'dev-ann',NULL,4096,'filename ZmlsZQ==',1700000007.0,1700086407.0,NULL,1024,'mp-1',NULL);
CREATE TABLE removed_tokens(token_hash TEXT PRIMARY KEY, removed REAL NOT NULL);
INSERT INTO removed_tokens VALUES('t0ken-gone',1700000017.0);
CREATE TABLE device_chains(
  user_id INTEGER NOT NULL REFERENCES users(id), sequence INTEGER NOT NULL,
  statement TEXT NOT NULL, hash TEXT NOT NULL, created REAL NOT NULL,
  PRIMARY KEY(user_id, sequence));
INSERT INTO device_chains VALUES(1,0,'c3RhdGVtZW50','h4sh',1700000018.0);
CREATE TABLE upload_parts(
  upload_id TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE, number INTEGER NOT NULL,
  etag TEXT NOT NULL, start_offset INTEGER NOT NULL, size INTEGER NOT NULL,
  PRIMARY KEY(upload_id, number));
INSERT INTO upload_parts VALUES('up-1',1,'"etag-1"',0,4096);
CREATE TABLE org_groups(
  id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organisations(id),
  name TEXT NOT NULL, created REAL NOT NULL, UNIQUE(org_id, name));
INSERT INTO org_groups VALUES(1,1,'staff',1700000019.0);
CREATE TABLE org_group_members(
  group_id INTEGER NOT NULL REFERENCES org_groups(id), user_id INTEGER NOT NULL REFERENCES users(id),
  added REAL NOT NULL, PRIMARY KEY(group_id, user_id));
INSERT INTO org_group_members VALUES(1,2,1700000020.0);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('events',7);
INSERT INTO sqlite_sequence VALUES('audit',5);
CREATE INDEX devices_user ON devices(user_id);
CREATE INDEX transfers_sender ON transfers(sender_device);
CREATE INDEX outbox_device ON outbox(device_id, status);
CREATE INDEX events_device ON events(device_id, id);
CREATE INDEX transfers_upload ON transfers(upload_id);
CREATE INDEX org_group_members_user ON org_group_members(user_id);
CREATE INDEX transfers_blob ON transfers(blob_id);
CREATE INDEX cloud_blob ON cloud(blob_id);
COMMIT;
