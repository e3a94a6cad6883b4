--
-- PostgreSQL database dump
--

\restrict Q9Nr86EnUhBQfmsplLxeRfvAdgiuylg56i5MJvujDxeRq0sd2YZXQE8B7MzaqfI

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: admin_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_sessions (
    session_hash text NOT NULL,
    user_id bigint NOT NULL,
    created double precision NOT NULL,
    expires double precision NOT NULL
);


--
-- Name: audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit (
    id bigint NOT NULL,
    at double precision NOT NULL,
    org_id bigint,
    actor text NOT NULL,
    action text NOT NULL,
    subject text NOT NULL,
    detail text NOT NULL
);


--
-- Name: audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_id_seq OWNED BY public.audit.id;


--
-- Name: blobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blobs (
    id text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    refs bigint NOT NULL,
    created double precision NOT NULL
);


--
-- Name: cloud; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.cloud (
    id text NOT NULL,
    user_id bigint NOT NULL,
    parent text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    blob_id text,
    size bigint,
    sha256 text,
    created double precision NOT NULL,
    updated double precision NOT NULL,
    CONSTRAINT cloud_kind_check CHECK ((kind = ANY (ARRAY['folder'::text, 'file'::text])))
);


--
-- Name: device_chains; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_chains (
    user_id bigint NOT NULL,
    sequence bigint NOT NULL,
    statement text NOT NULL,
    hash text NOT NULL,
    created double precision NOT NULL
);


--
-- Name: device_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_groups (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    name text NOT NULL,
    created double precision NOT NULL
);


--
-- Name: device_groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.device_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: device_groups_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.device_groups_id_seq OWNED BY public.device_groups.id;


--
-- Name: devices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.devices (
    id text NOT NULL,
    user_id bigint NOT NULL,
    name text NOT NULL,
    platform text NOT NULL,
    recipient text NOT NULL,
    token_hash text NOT NULL,
    created double precision NOT NULL,
    last_seen double precision,
    invalidated double precision,
    signing_key text
);


--
-- Name: enrolment_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enrolment_codes (
    code_hash text NOT NULL,
    user_id bigint NOT NULL,
    created double precision NOT NULL,
    expires double precision NOT NULL,
    used double precision,
    created_by text
);


--
-- Name: enrolment_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enrolment_failures (
    address text NOT NULL,
    failures bigint NOT NULL,
    until double precision
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id bigint NOT NULL,
    device_id text NOT NULL,
    kind text NOT NULL,
    data text NOT NULL,
    created double precision NOT NULL
);


--
-- Name: events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_id_seq OWNED BY public.events.id;


--
-- Name: group_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_members (
    group_id bigint NOT NULL,
    device_id text NOT NULL
);


--
-- Name: items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.items (
    org_id bigint NOT NULL,
    id text NOT NULL,
    app text NOT NULL,
    body text NOT NULL,
    version bigint NOT NULL
);


--
-- Name: login_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_codes (
    code_hash text NOT NULL,
    user_id bigint NOT NULL,
    created double precision NOT NULL,
    expires double precision NOT NULL,
    used double precision
);


--
-- Name: org_group_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_group_members (
    group_id bigint NOT NULL,
    user_id bigint NOT NULL,
    added double precision NOT NULL
);


--
-- Name: org_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_groups (
    id bigint NOT NULL,
    org_id bigint NOT NULL,
    name text NOT NULL,
    created double precision NOT NULL
);


--
-- Name: org_groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.org_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: org_groups_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.org_groups_id_seq OWNED BY public.org_groups.id;


--
-- Name: organisations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.organisations (
    id bigint NOT NULL,
    name text NOT NULL,
    created double precision NOT NULL,
    items_revision bigint DEFAULT 0 NOT NULL,
    policy_grace bigint
);


--
-- Name: organisations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.organisations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: organisations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.organisations_id_seq OWNED BY public.organisations.id;


--
-- Name: outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox (
    transfer_id text NOT NULL,
    device_id text NOT NULL,
    status text NOT NULL,
    updated double precision NOT NULL
);


--
-- Name: relay_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.relay_migrations (
    name text NOT NULL,
    applied double precision NOT NULL
);


--
-- Name: removed_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.removed_tokens (
    token_hash text NOT NULL,
    removed double precision NOT NULL
);


--
-- Name: transfers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transfers (
    id text NOT NULL,
    sender_device text NOT NULL,
    sender_user bigint NOT NULL,
    blob_id text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    created double precision NOT NULL,
    expires double precision NOT NULL,
    upload_id text
);


--
-- Name: upload_parts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_parts (
    upload_id text NOT NULL,
    number bigint NOT NULL,
    etag text NOT NULL,
    start_offset bigint NOT NULL,
    size bigint NOT NULL
);


--
-- Name: uploads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.uploads (
    id text NOT NULL,
    user_id bigint NOT NULL,
    device_id text NOT NULL,
    length bigint,
    "offset" bigint NOT NULL,
    metadata text NOT NULL,
    created double precision NOT NULL,
    expires double precision NOT NULL,
    sha256 text,
    reserved bigint,
    multipart text,
    assembled bigint
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id bigint NOT NULL,
    org_id bigint NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    created double precision NOT NULL,
    disabled double precision,
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['member'::text, 'admin'::text])))
);


--
-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;


--
-- Name: audit id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit ALTER COLUMN id SET DEFAULT nextval('public.audit_id_seq'::regclass);


--
-- Name: device_groups id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_groups ALTER COLUMN id SET DEFAULT nextval('public.device_groups_id_seq'::regclass);


--
-- Name: events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN id SET DEFAULT nextval('public.events_id_seq'::regclass);


--
-- Name: org_groups id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_groups ALTER COLUMN id SET DEFAULT nextval('public.org_groups_id_seq'::regclass);


--
-- Name: organisations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organisations ALTER COLUMN id SET DEFAULT nextval('public.organisations_id_seq'::regclass);


--
-- Name: users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users ALTER COLUMN id SET DEFAULT nextval('public.users_id_seq'::regclass);


--
-- Data for Name: admin_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_sessions (session_hash, user_id, created, expires) FROM stdin;
s3ssion	1	1700000016	1700086416
\.


--
-- Data for Name: audit; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.audit (id, at, org_id, actor, action, subject, detail) FROM stdin;
5	1700000014	1	operator	user.add	bob@acme.test	
\.


--
-- Data for Name: blobs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.blobs (id, size, sha256, refs, created) FROM stdin;
blob-1	12	aa11	2	1700000008
\.


--
-- Data for Name: cloud; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.cloud (id, user_id, parent, name, kind, blob_id, size, sha256, created, updated) FROM stdin;
cl-1	1		notes.age	file	blob-1	12	aa11	1700000011	1700000012
\.


--
-- Data for Name: device_chains; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.device_chains (user_id, sequence, statement, hash, created) FROM stdin;
1	0	c3RhdGVtZW50	h4sh	1700000018
\.


--
-- Data for Name: device_groups; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.device_groups (id, user_id, name, created) FROM stdin;
1	1	home	1700000006
\.


--
-- Data for Name: devices; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.devices (id, user_id, name, platform, recipient, token_hash, created, last_seen, invalidated, signing_key) FROM stdin;
dev-ann	1	laptop	linux	age1annrecipient	t0ken-ann	1700000004	1700000200	\N	ed25519-ann
dev-bob	2	phone	ios	age1bobrecipient	t0ken-bob	1700000005	\N	\N	\N
\.


--
-- Data for Name: enrolment_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.enrolment_codes (code_hash, user_id, created, expires, used, created_by) FROM stdin;
c0de	2	1700000003	1700086403	\N	dev-ann
\.


--
-- Data for Name: enrolment_failures; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.enrolment_failures (address, failures, until) FROM stdin;
192.0.2.7	3	\N
\.


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.events (id, device_id, kind, data, created) FROM stdin;
7	dev-bob	transfer	{"id":"tr-1"}	1700000013
\.


--
-- Data for Name: group_members; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.group_members (group_id, device_id) FROM stdin;
1	dev-ann
\.


--
-- Data for Name: items; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.items (org_id, id, app, body, version) FROM stdin;
1	item-1	org.example.app	{"rules":[]}	3
\.


--
-- Data for Name: login_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.login_codes (code_hash, user_id, created, expires, used) FROM stdin;
l0gin	1	1700000015	1700000915	\N
\.


--
-- Data for Name: org_group_members; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.org_group_members (group_id, user_id, added) FROM stdin;
1	2	1700000020
\.


--
-- Data for Name: org_groups; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.org_groups (id, org_id, name, created) FROM stdin;
1	1	staff	1700000019
\.


--
-- Data for Name: organisations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.organisations (id, name, created, items_revision, policy_grace) FROM stdin;
1	acme	1700000000.5	3	86400
\.


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.outbox (transfer_id, device_id, status, updated) FROM stdin;
tr-1	dev-bob	pending	1700000010
\.


--
-- Data for Name: relay_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.relay_migrations (name, applied) FROM stdin;
v1-tables	1795941195.1800337
v2-items-revision	1795941195.1901689
v3-policy-grace	1795941195.2263527
v4-admin-sessions	1795941195.398751
v5-enrolment-failures	1795941195.557761
v6-upload-defer-length	1795941195.6611352
v7-user-disabled	1795941195.737749
v8-removed-tokens	1795941195.7873838
v9-device-chains	1795941195.851234
v10-upload-reserved	1795941195.926374
v11-invite-creator	1795941195.9816298
v12-transfer-upload	1795941196.047741
v13-upload-parts	1795941196.1172519
v14-org-groups	1795941196.2122574
v15-blob-indexes	1795941196.2797265
\.


--
-- Data for Name: removed_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.removed_tokens (token_hash, removed) FROM stdin;
t0ken-gone	1700000017
\.


--
-- Data for Name: transfers; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.transfers (id, sender_device, sender_user, blob_id, size, sha256, created, expires, upload_id) FROM stdin;
tr-1	dev-ann	1	blob-1	12	aa11	1700000009	1700604809	\N
\.


--
-- Data for Name: upload_parts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.upload_parts (upload_id, number, etag, start_offset, size) FROM stdin;
up-1	1	"etag-1"	0	4096
\.


--
-- Data for Name: uploads; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.uploads (id, user_id, device_id, length, "offset", metadata, created, expires, sha256, reserved, multipart, assembled) FROM stdin;
up-1	1	dev-ann	\N	4096	filename ZmlsZQ==	1700000007	1700086407	\N	1024	mp-1	\N
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (id, org_id, email, role, created, disabled) FROM stdin;
1	1	ann@acme.test	admin	1700000001	\N
2	1	bob@acme.test	member	1700000002	1700000100
\.


--
-- Name: audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_id_seq', 1, false);


--
-- Name: device_groups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.device_groups_id_seq', 1, false);


--
-- Name: events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_id_seq', 1, false);


--
-- Name: org_groups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.org_groups_id_seq', 1, false);


--
-- Name: organisations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.organisations_id_seq', 1, false);


--
-- Name: users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.users_id_seq', 1, false);


--
-- Name: admin_sessions admin_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_sessions
    ADD CONSTRAINT admin_sessions_pkey PRIMARY KEY (session_hash);


--
-- Name: audit audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (id);


--
-- Name: blobs blobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blobs
    ADD CONSTRAINT blobs_pkey PRIMARY KEY (id);


--
-- Name: cloud cloud_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cloud
    ADD CONSTRAINT cloud_pkey PRIMARY KEY (id);


--
-- Name: cloud cloud_user_id_parent_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cloud
    ADD CONSTRAINT cloud_user_id_parent_name_key UNIQUE (user_id, parent, name);


--
-- Name: device_chains device_chains_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_chains
    ADD CONSTRAINT device_chains_pkey PRIMARY KEY (user_id, sequence);


--
-- Name: device_groups device_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_groups
    ADD CONSTRAINT device_groups_pkey PRIMARY KEY (id);


--
-- Name: device_groups device_groups_user_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_groups
    ADD CONSTRAINT device_groups_user_id_name_key UNIQUE (user_id, name);


--
-- Name: devices devices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_pkey PRIMARY KEY (id);


--
-- Name: devices devices_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_token_hash_key UNIQUE (token_hash);


--
-- Name: enrolment_codes enrolment_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrolment_codes
    ADD CONSTRAINT enrolment_codes_pkey PRIMARY KEY (code_hash);


--
-- Name: enrolment_failures enrolment_failures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrolment_failures
    ADD CONSTRAINT enrolment_failures_pkey PRIMARY KEY (address);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: group_members group_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_members
    ADD CONSTRAINT group_members_pkey PRIMARY KEY (group_id, device_id);


--
-- Name: items items_org_id_app_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_org_id_app_key UNIQUE (org_id, app);


--
-- Name: items items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_pkey PRIMARY KEY (org_id, id);


--
-- Name: login_codes login_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.login_codes
    ADD CONSTRAINT login_codes_pkey PRIMARY KEY (code_hash);


--
-- Name: org_group_members org_group_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_group_members
    ADD CONSTRAINT org_group_members_pkey PRIMARY KEY (group_id, user_id);


--
-- Name: org_groups org_groups_org_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_groups
    ADD CONSTRAINT org_groups_org_id_name_key UNIQUE (org_id, name);


--
-- Name: org_groups org_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_groups
    ADD CONSTRAINT org_groups_pkey PRIMARY KEY (id);


--
-- Name: organisations organisations_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organisations
    ADD CONSTRAINT organisations_name_key UNIQUE (name);


--
-- Name: organisations organisations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organisations
    ADD CONSTRAINT organisations_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (transfer_id, device_id);


--
-- Name: relay_migrations relay_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.relay_migrations
    ADD CONSTRAINT relay_migrations_pkey PRIMARY KEY (name);


--
-- Name: removed_tokens removed_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.removed_tokens
    ADD CONSTRAINT removed_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: transfers transfers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_pkey PRIMARY KEY (id);


--
-- Name: upload_parts upload_parts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_parts
    ADD CONSTRAINT upload_parts_pkey PRIMARY KEY (upload_id, number);


--
-- Name: uploads uploads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.uploads
    ADD CONSTRAINT uploads_pkey PRIMARY KEY (id);


--
-- Name: users users_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_email_key UNIQUE (email);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: cloud_blob; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX cloud_blob ON public.cloud USING btree (blob_id);


--
-- Name: devices_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_user ON public.devices USING btree (user_id);


--
-- Name: events_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_device ON public.events USING btree (device_id, id);


--
-- Name: org_group_members_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_group_members_user ON public.org_group_members USING btree (user_id);


--
-- Name: outbox_device; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_device ON public.outbox USING btree (device_id, status);


--
-- Name: transfers_blob; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transfers_blob ON public.transfers USING btree (blob_id);


--
-- Name: transfers_sender; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transfers_sender ON public.transfers USING btree (sender_device);


--
-- Name: transfers_upload; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transfers_upload ON public.transfers USING btree (upload_id);


--
-- Name: admin_sessions admin_sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_sessions
    ADD CONSTRAINT admin_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: cloud cloud_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cloud
    ADD CONSTRAINT cloud_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: device_chains device_chains_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_chains
    ADD CONSTRAINT device_chains_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: device_groups device_groups_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_groups
    ADD CONSTRAINT device_groups_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: devices devices_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: enrolment_codes enrolment_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrolment_codes
    ADD CONSTRAINT enrolment_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: group_members group_members_device_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_members
    ADD CONSTRAINT group_members_device_id_fkey FOREIGN KEY (device_id) REFERENCES public.devices(id);


--
-- Name: group_members group_members_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_members
    ADD CONSTRAINT group_members_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.device_groups(id) ON DELETE CASCADE;


--
-- Name: items items_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.organisations(id);


--
-- Name: login_codes login_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.login_codes
    ADD CONSTRAINT login_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: org_group_members org_group_members_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_group_members
    ADD CONSTRAINT org_group_members_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.org_groups(id);


--
-- Name: org_group_members org_group_members_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_group_members
    ADD CONSTRAINT org_group_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: org_groups org_groups_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_groups
    ADD CONSTRAINT org_groups_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.organisations(id);


--
-- Name: outbox outbox_transfer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_transfer_id_fkey FOREIGN KEY (transfer_id) REFERENCES public.transfers(id);


--
-- Name: upload_parts upload_parts_upload_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_parts
    ADD CONSTRAINT upload_parts_upload_id_fkey FOREIGN KEY (upload_id) REFERENCES public.uploads(id) ON DELETE CASCADE;


--
-- Name: uploads uploads_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.uploads
    ADD CONSTRAINT uploads_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: users users_org_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_org_id_fkey FOREIGN KEY (org_id) REFERENCES public.organisations(id);


--
-- PostgreSQL database dump complete
--

\unrestrict Q9Nr86EnUhBQfmsplLxeRfvAdgiuylg56i5MJvujDxeRq0sd2YZXQE8B7MzaqfI

