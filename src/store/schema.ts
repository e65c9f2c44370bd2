import type { ForumTables } from '../forum/tables.ts';
import type { InboxTables } from '../inbox/tables.ts';
import type { LimitTables } from '../limits/tables.ts';

export interface Database extends InboxTables, LimitTables, ForumTables {}
