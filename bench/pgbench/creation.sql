-- Parley's conversation creation (POST /api/conversations) on PostgreSQL, statement for statement
-- and round trip for round trip: BEGIN with the look at its limits; the look at its blocks, the
-- conversation, its first message, the overview counters and the limit charge together, in that
-- order (src/inbox/commands/create-conversation.ts); COMMIT with the change counter. The conversation's id holds the client's number and 48 random bits, so rows never
-- collide. bench/pgbench.ts sets :now, :source, :source_wide and :spread (as in follow-up.sql; the
-- global limit rows and the overview counters are shared by every creation either way). As Parley
-- does on PostgreSQL (src/limits/shards.ts, src/inbox/overview-counters.ts), the look reads every
-- one of a window's 16 shards, the charge takes one shard of each window (the same for all of
-- them, picked per transaction), each shard holding its 16th of the limit, and the counters are
-- bumped in a shard picked per transaction (shard 0 under the counter's own name). pgbench reads a
-- colon followed by a letter as a variable even inside quotes, so literals such as 'status:open'
-- are concatenations.
\set slot :client_id * :spread
\set cid random(1, 281474976710655)
\set shard random(0, 15)
\set counter_shard random(0, 15)
\startpipeline
begin;
select "bucket", "count" from "limit_counters" where "bucket" = any(array(select window_bucket || '#' || shard from unnest(array['CONVERSATION_SOURCE:3600:' || :source::text || :slot::text, 'CONVERSATION_SOURCE:86400:' || :source::text || :slot::text, 'CONVERSATION_GLOBAL:600:' || 'global', 'CONVERSATION_GLOBAL:86400:' || 'global']) window_bucket cross join generate_series(0, 15) shard)) and "expires_at" > cast(:now as bigint);
\endpipeline
\startpipeline
select exists (select 1 from blocks where blocks.subject_key in (:source::text, :source_wide::text) and (blocks.expires_at is null or blocks.expires_at > cast(:now as bigint))) as "blocked";
insert into "conversations" ("id", "token_hash", "fingerprint", "name", "invitation_id", "status", "review_label", "operator_note", "created_at", "updated_at", "last_message_at", "message_count", "unread_count", "revision", "last_message_preview", "last_message_role", "source", "source_wide", "verified_origin") values (('00000000-' || lpad(to_hex(cast(:client_id as int)), 4, '0') || '-4000-8001-' || lpad(to_hex(cast(:cid as bigint)), 12, '0'))::uuid, 'pgbench-' || :client_id::text || '-' || :cid::text, 'pgbench', 'Bench agent', null, 'open', 'unreviewed', '', cast(:now as bigint), cast(:now as bigint), cast(:now as bigint), 1, 1, 1, 'Benchmark first contact.', 'visitor', :source::text, :source_wide::text, null);
insert into "messages" ("id", "conversation_id", "role", "body", "client_message_id", "created_at", "verified_origin", "seen_at") values (gen_random_uuid(), ('00000000-' || lpad(to_hex(cast(:client_id as int)), 4, '0') || '-4000-8001-' || lpad(to_hex(cast(:cid as bigint)), 12, '0'))::uuid, 'visitor', 'Benchmark first contact.', null, cast(:now as bigint), null, null);
insert into "inbox_counters" ("name", "value") select counter || case when :counter_shard = 0 then '' else '#' || :counter_shard::text end, 1 from unnest(array['conversations', 'label:' || 'unreviewed', 'status:' || 'open', 'unread_threads']) counter on conflict ("name") do update set "value" = "inbox_counters"."value" + "excluded"."value";
insert into "limit_counters" ("bucket", "count", "expires_at") values ('CONVERSATION_SOURCE:3600:' || :source::text || :slot::text || '#' || :shard::text, 1, cast(:now as bigint) + 3600000), ('CONVERSATION_SOURCE:86400:' || :source::text || :slot::text || '#' || :shard::text, 1, cast(:now as bigint) + 86400000), ('CONVERSATION_GLOBAL:600:' || 'global' || '#' || :shard::text, 1, cast(:now as bigint) + 600000), ('CONVERSATION_GLOBAL:86400:' || 'global' || '#' || :shard::text, 1, cast(:now as bigint) + 86400000) on conflict ("bucket") do update set "count" = case when limit_counters.expires_at <= cast(:now as bigint) then 1 else limit_counters.count + 1 end, "expires_at" = case when limit_counters.expires_at <= cast(:now as bigint) then excluded.expires_at else limit_counters.expires_at end where limit_counters.expires_at <= cast(:now as bigint) or limit_counters.count < case limit_counters.bucket when 'CONVERSATION_SOURCE:3600:' || :source::text || :slot::text || '#' || :shard::text then cast(6250000 as bigint) when 'CONVERSATION_SOURCE:86400:' || :source::text || :slot::text || '#' || :shard::text then cast(6250000 as bigint) when 'CONVERSATION_GLOBAL:600:' || 'global' || '#' || :shard::text then cast(6250000 as bigint) when 'CONVERSATION_GLOBAL:86400:' || 'global' || '#' || :shard::text then cast(6250000 as bigint) end returning "limit_counters"."bucket";
\endpipeline
\startpipeline
commit;
select nextval('parley_changes');
\endpipeline
