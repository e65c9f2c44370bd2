import type { Alerts } from './alerts/alerts.ts';
import type { SignatureAgents } from './bot-auth/signature-agents.ts';
import type { Challenges } from './challenges/challenges.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { FirstReplyTimes } from './inbox/first-reply-times.ts';
import type { VisitorReads } from './inbox/visitor/visitor-read.ts';
import type { ActionLinks } from './links/action-links.ts';
import type { Limiter } from './limits/limiter.ts';
import type { ChangeHub } from './live/hub.ts';
import type { Store } from './store/store.ts';
import type { ChangeSink } from './writes/changes.ts';

/** What every feature works with, built once by buildApp (app.services). */
export interface Services {
  config: Config;
  store: Store;
  clock: Clock;
  limiter: Limiter;
  alerts: Alerts;
  /** Signed one-tap links to a thread (issue 30): `actionLinks.urlFor(thread)` for an alert. */
  actionLinks: ActionLinks;
  /** Changes published after their commit, for the reads held by ?wait=. */
  live: ChangeHub;
  /** Where the changes of every write go: recorded in its transaction, published after its commit. */
  changes: ChangeSink;
  version: string;
  /** The proof of work (CHALLENGE_MODE): challenges handed out, solutions checked. */
  challenges: Challenges;
  /** Web Bot Auth: the verified origin of a signed request, its key directory fetched and cached. */
  signatureAgents: SignatureAgents;
  /** The operator's typical first-reply time, computed away from requests (issue #30). */
  replyTimes: FirstReplyTimes;
  /** The visitor's read of a conversation, for its route and the MCP wait. */
  visitorReads: VisitorReads;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
