INSERT INTO organisations(id, name, created, items_revision, policy_grace) VALUES (1, 'acme', 1700000000.5, 3, 86400);
INSERT INTO users(id, org_id, email, role, created, disabled) VALUES (1, 1, 'ann@acme.test', 'admin', 1700000001, NULL);
INSERT INTO users(id, org_id, email, role, created, disabled) VALUES (2, 1, 'bob@acme.test', 'member', 1700000002, 1700000100);
INSERT INTO enrolment_codes(code_hash, user_id, created, expires, used, created_by) VALUES ('c0de', 2, 1700000003, 1700086403, NULL, 'dev-ann');
INSERT INTO devices(id, user_id, name, platform, recipient, token_hash, created, last_seen, invalidated, signing_key)
  VALUES ('dev-ann', 1, 'laptop', 'linux', 'age1annrecipient', 't0ken-ann', 1700000004, 1700000200, NULL, 'ed25519-ann');
INSERT INTO devices(id, user_id, name, platform, recipient, token_hash, created, last_seen, invalidated, signing_key)
  VALUES ('dev-bob', 2, 'phone', 'ios', 'age1bobrecipient', 't0ken-bob', 1700000005, NULL, NULL, NULL);
INSERT INTO device_groups(id, user_id, name, created) VALUES (1, 1, 'home', 1700000006);
INSERT INTO group_members(group_id, device_id) VALUES (1, 'dev-ann');
INSERT INTO uploads(id, user_id, device_id, length, "offset", metadata, created, expires, sha256, reserved, multipart, assembled)
  VALUES ('up-1', 1, 'dev-ann', NULL, 4096, 'filename ZmlsZQ==', 1700000007, 1700086407, NULL, 1024, 'mp-1', NULL);
INSERT INTO upload_parts(upload_id, number, etag, start_offset, size) VALUES ('up-1', 1, '"etag-1"', 0, 4096);
INSERT INTO blobs(id, size, sha256, refs, created) VALUES ('blob-1', 12, 'aa11', 2, 1700000008);
INSERT INTO transfers(id, sender_device, sender_user, blob_id, size, sha256, created, expires, upload_id)
  VALUES ('tr-1', 'dev-ann', 1, 'blob-1', 12, 'aa11', 1700000009, 1700604809, NULL);
INSERT INTO outbox(transfer_id, device_id, status, updated) VALUES ('tr-1', 'dev-bob', 'pending', 1700000010);
INSERT INTO cloud(id, user_id, parent, name, kind, blob_id, size, sha256, created, updated)
  VALUES ('cl-1', 1, '', 'notes.age', 'file', 'blob-1', 12, 'aa11', 1700000011, 1700000012);
INSERT INTO items(org_id, id, app, body, version) VALUES (1, 'item-1', 'org.example.app', '{"rules":[]}', 3);
INSERT INTO events(id, device_id, kind, data, created) VALUES (7, 'dev-bob', 'transfer', '{"id":"tr-1"}', 1700000013);
INSERT INTO audit(id, at, org_id, actor, action, subject, detail) VALUES (5, 1700000014, 1, 'operator', 'user.add', 'bob@acme.test', '');
INSERT INTO enrolment_failures(address, failures, until) VALUES ('192.0.2.7', 3, NULL);
INSERT INTO login_codes(code_hash, user_id, created, expires, used) VALUES ('l0gin', 1, 1700000015, 1700000915, NULL);
INSERT INTO admin_sessions(session_hash, user_id, created, expires) VALUES ('s3ssion', 1, 1700000016, 1700086416);
INSERT INTO removed_tokens(token_hash, removed) VALUES ('t0ken-gone', 1700000017);
INSERT INTO device_chains(user_id, sequence, statement, hash, created) VALUES (1, 0, 'c3RhdGVtZW50', 'h4sh', 1700000018);
INSERT INTO org_groups(id, org_id, name, created) VALUES (1, 1, 'staff', 1700000019);
INSERT INTO org_group_members(group_id, user_id, added) VALUES (1, 2, 1700000020);
