-- Parley's follow-up (POST /api/conversations/{id}/messages) on PostgreSQL, statement for statement
-- and round trip for round trip, as Parley sends it: BEGIN with the slot claim, the message and the
-- limit charge together; COMMIT with the change counter. The retry key is not looked up first: the
-- messages' unique index refuses a repeat, whose earlier result Parley looks up only then.
-- bench/pgbench.ts sets :conversations (rows it inserted, numbered from 1), :now, :source,
-- :source_wide, :cap and :spread: 1, each client charges limit rows of its own, as distinct
-- sources do; 0, every client charges the same two windows, as the bench's one load generator does.
-- As Parley does on PostgreSQL (src/limits/shards.ts), the charge takes one of each window's 16
-- shards (the same for both windows, picked per transaction), each holding its 16th of the limit.
-- pgbench reads a colon followed by a letter as a variable even inside quotes, so literals such
-- as 'status:open' are written as concatenations.
\set slot :client_id * :spread
\set cid random(1, :conversations)
\set mid random(1, 1000000000000000)
\set shard random(0, 15)
\startpipeline
begin;
update "conversations" set "message_count" = "message_count" + 1, "unread_count" = "unread_count" + 1, "revision" = "revision" + 1, "updated_at" = case when "updated_at" > cast(:now as bigint) then "updated_at" else cast(:now as bigint) end, "last_message_at" = case when "last_message_at" > cast(:now as bigint) then "last_message_at" else cast(:now as bigint) end, "last_message_preview" = 'Benchmark follow-up.', "last_message_role" = 'visitor', "snoozed_until" = null where "id" = ('00000000-0000-4000-8000-' || lpad(:cid::text, 12, '0'))::uuid and "status" = 'open' and "message_count" < :cap and "token_hash" = lpad(:cid::text, 64, 'f') and "token_revoked_at" is null and ("blocked_until" is null or "blocked_until" <= cast(:now as bigint)) and not exists (select 1 from blocks where blocks.subject_key in (:source::text, :source_wide::text, "conversations"."source", "conversations"."source_wide") and (blocks.expires_at is null or blocks.expires_at > cast(:now as bigint))) returning "unread_count";
insert into "messages" ("id", "conversation_id", "role", "body", "client_message_id", "created_at", "verified_origin", "seen_at") values (gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad(:cid::text, 12, '0'))::uuid, 'visitor', 'Benchmark follow-up.', :mid::text, cast(:now as bigint), null, null);
insert into "limit_counters" ("bucket", "count", "expires_at") values ('FOLLOWUP_SOURCE:3600:' || :source::text || :slot::text || '#' || :shard::text, 1, cast(:now as bigint) + 3600000), ('FOLLOWUP_SOURCE:86400:' || :source::text || :slot::text || '#' || :shard::text, 1, cast(:now as bigint) + 86400000) on conflict ("bucket") do update set "count" = case when limit_counters.expires_at <= cast(:now as bigint) then 1 else limit_counters.count + 1 end, "expires_at" = case when limit_counters.expires_at <= cast(:now as bigint) then excluded.expires_at else limit_counters.expires_at end where limit_counters.expires_at <= cast(:now as bigint) or limit_counters.count < case limit_counters.bucket when 'FOLLOWUP_SOURCE:3600:' || :source::text || :slot::text || '#' || :shard::text then cast(6250000 as bigint) when 'FOLLOWUP_SOURCE:86400:' || :source::text || :slot::text || '#' || :shard::text then cast(6250000 as bigint) end returning "limit_counters"."bucket";
\endpipeline
\startpipeline
commit;
select nextval('parley_changes');
\endpipeline
