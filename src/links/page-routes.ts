import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createBlock } from '../blocks/commands/create-block.ts';
import { EXPIRIES } from '../blocks/schemas.ts';
import { appendBridgeMessage, operatorBridgeMessage } from '../forum/bridges/commands/append-bridge-message.ts';
import { findBridge } from '../forum/bridges/queries.ts';
import { operatorReply } from '../inbox/commands/append-message.ts';
import { setStatus } from '../inbox/commands/set-status.ts';
import type { ConversationStatus } from '../inbox/schemas.ts';
import { ApiError } from '../http/errors.ts';
import { MessageText } from '../http/schemas.ts';
import { baseUrl } from '../http/urls.ts';
import { safeEqual } from '../tokens.ts';
import { perform } from '../writes/perform.ts';
import { ACTION_PATH } from './action-links.ts';
import { throughLink } from './link-writes.ts';
import { BLOCK_EXPIRIES, BLOCK_SCOPES, linkPage, linkProblemPage } from './page-view.ts';
import { readThreadView } from './thread-view.ts';
import type { Thread } from './threads.ts';

const HTML = 'text/html; charset=utf-8';
/** A reply of 4000 characters, percent-encoded, with room for the other fields. */
const FORM_LIMIT_BYTES = 64 * 1024;
const MESSAGE_RULE = new RegExp(MessageText.pattern!, 'u');
const MESSAGE_MAX = MessageText.maxLength!;

const replyThroughLink = throughLink(operatorReply);
const bridgeReplyThroughLink = throughLink(appendBridgeMessage);
const statusThroughLink = throughLink(setStatus);
const blockThroughLink = throughLink(createBlock);

const STATUS_OF: Record<string, ConversationStatus> = { close: 'closed', spam: 'spam', open: 'open' };
const DONE: Record<string, string> = {
  reply: 'Reply sent.',
  close: 'Conversation closed.',
  spam: 'Marked as spam.',
  open: 'Conversation reopened.',
  block: 'Blocked. Lift the block in the console if you change your mind.',
};
/** The operator's note on a block made here, as the console lists it. */
const BLOCK_REASON = 'Made from an action link.';

type LinkRequest = FastifyRequest<{ Params: { link: string }; Querystring: { done?: string } }>;
type FormFields = Partial<Record<'action' | 'message' | 'nonce' | 'form_token' | 'scope' | 'expires_in', unknown>>;

const newNonce = () => `link-${randomBytes(16).toString('base64url')}`;

/**
 * A post from another site: refused when the browser says so (Sec-Fetch-Site) or its Origin is
 * another one. A browser that sends neither (or `Origin: null`, as no-referrer pages make it) is
 * left to the form token, which only a page made for the link carries.
 *
 * A client with no browser context sends neither header either: ntfy's app performing an alert's
 * Close action (alerts/webhook-channels.ts) posts the form token the alert carries. That is safe
 * because the token is derived from the link under the action key: only who holds the link (the
 * alert) can send it, which is the capability the page itself asks for. A browser always sends
 * Origin on a cross-origin POST, so a page elsewhere (ntfy's web app included) is refused here.
 */
function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin';
  const origin = request.headers.origin;
  return typeof origin === 'string' && origin !== 'null' && origin !== new URL(baseUrl(request)).origin;
}

/** The Block form's choices, or undefined for a post that did not come from it. */
function blockChoice(fields: FormFields): { scope: keyof typeof BLOCK_SCOPES; expiresIn: keyof typeof BLOCK_EXPIRIES } | undefined {
  const { scope, expires_in: expiresIn } = fields;
  if (typeof scope !== 'string' || !Object.hasOwn(BLOCK_SCOPES, scope) || typeof expiresIn !== 'string' || !Object.hasOwn(BLOCK_EXPIRIES, expiresIn)) return undefined;
  return { scope: scope as keyof typeof BLOCK_SCOPES, expiresIn: expiresIn as keyof typeof BLOCK_EXPIRIES };
}

function messageProblem(message: unknown): string | undefined {
  if (typeof message !== 'string' || message.length === 0) return 'Write a reply first.';
  if ([...message].length > MESSAGE_MAX) return `A reply holds at most ${MESSAGE_MAX} characters.`;
  if (!MESSAGE_RULE.test(message)) return 'The reply holds characters that cannot be stored (NUL or non-characters).';
  return undefined;
}

/**
 * The signed action link's page (issue 30): the thread, a reply box, Close, Spam and Block, as plain
 * forms without script, for the operator on a phone. The capability is the path segment: pages
 * answer with no-referrer, the log shows the route pattern only, and no metric names the path.
 */
export const registerLinkPages: FastifyPluginAsync<{ style: string }> = async (app, { style }) => {
  const { store, actionLinks, clock, config, limiter } = app.services;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Robots-Tag', 'noindex, nofollow');
    done();
  });

  const problem = (reply: FastifyReply, status: number, heading: string, text: string) => reply.code(status).type(HTML).send(linkProblemPage(style, heading, text));

  /** The thread of a working link, or the page that says why the link does not work. */
  const linkedThread = (request: LinkRequest, reply: FastifyReply): { thread: Thread; expiresAt: number } | undefined => {
    const checked = actionLinks.check(request.params.link);
    if (checked.ok) return checked;
    if (checked.reason === 'expired') void problem(reply, 410, 'This link has expired', 'Action links work for a limited time. Open the newest alert, or the console.');
    else void problem(reply, 404, 'This link does not work', 'It may have been altered or replaced by a newer key. Open the newest alert, or the console.');
    return undefined;
  };

  const sendPage = async (
    request: LinkRequest,
    reply: FastifyReply,
    linked: { thread: Thread; expiresAt: number },
    extra: { status?: number; notice?: { text: string; error: boolean }; draft?: string },
  ) => {
    const view = await readThreadView(store.db, linked.thread, clock.now());
    if (!view) return problem(reply, 404, 'This conversation is gone', 'It was deleted, or never existed.');
    const link = request.params.link;
    const page = linkPage({ ...view, style, formPath: `${ACTION_PATH}${link}`, formToken: actionLinks.formToken(link), nonce: newNonce(), expiresAt: linked.expiresAt, ...extra });
    return reply.code(extra.status ?? 200).type(HTML).send(page);
  };

  app.get<{ Params: { link: string }; Querystring: { done?: string } }>(`${ACTION_PATH}:link`, { schema: { hide: true } }, async (request, reply) => {
    const linked = linkedThread(request, reply);
    if (!linked) return reply;
    const done = request.query.done === undefined ? undefined : DONE[request.query.done];
    return sendPage(request, reply, linked, done ? { notice: { text: done, error: false } } : {});
  });

  app.post<{ Params: { link: string }; Querystring: { done?: string }; Body: FormFields | undefined }>(`${ACTION_PATH}:link`, { schema: { hide: true } }, async (request, reply) => {
    const linked = linkedThread(request, reply);
    if (!linked) return reply;
    const link = request.params.link;
    const fields: FormFields = request.body ?? {};
    const formToken = typeof fields.form_token === 'string' ? fields.form_token : '';
    if (crossSite(request) || !safeEqual(formToken, actionLinks.formToken(link))) {
      return problem(reply, 403, 'This form was not sent from its page', 'Open the link again and use the page it shows.');
    }
    const action = typeof fields.action === 'string' ? fields.action : '';
    const draft = typeof fields.message === 'string' ? fields.message : undefined;
    const nonce = typeof fields.nonce === 'string' && /^[A-Za-z0-9_-]{8,80}$/.test(fields.nonce) ? fields.nonce : null;
    const refuse = (status: number, text: string) => sendPage(request, reply, linked, { status, notice: { text, error: true }, draft });
    const linkKey = actionLinks.limitKey(link);
    const { thread } = linked;
    try {
      if (action === 'reply') {
        const unfit = messageProblem(draft);
        if (unfit) return await refuse(400, unfit);
        const body = { message: draft!, ...(nonce ? { client_message_id: nonce } : {}) };
        if (thread.kind === 'conversation') {
          const input = { conversationId: thread.conversationId, sender: { role: 'admin' as const }, body: draft!, clientMessageId: nonce, cap: config.conversationMaxMessages, now: clock.now() };
          await perform(app.services, replyThroughLink, { ...input, limiter, linkKey });
        } else {
          const key = { topicId: thread.topicId, agentId: thread.agentId };
          if (!(await findBridge(store.db, key))) return await problem(reply, 404, 'This conversation is gone', 'It was deleted, or never existed.');
          await perform(app.services, bridgeReplyThroughLink, { ...operatorBridgeMessage(app.services, key, body), limiter, linkKey });
        }
      } else if (thread.kind === 'conversation' && action === 'block') {
        const choice = blockChoice(fields);
        if (!choice) return await refuse(400, 'Choose what to block and for how long.');
        const now = clock.now();
        const expiresAt = choice.expiresIn === 'never' ? null : now + EXPIRIES[choice.expiresIn];
        const block = { scope: choice.scope, conversationId: thread.conversationId, agentId: undefined, widen: false, expiresAt, reason: BLOCK_REASON, now };
        await perform(app.services, blockThroughLink, { ...block, ...(nonce ? { requestKey: nonce } : {}), limiter, linkKey });
      } else if (thread.kind === 'conversation' && STATUS_OF[action] !== undefined) {
        await perform(app.services, statusThroughLink, { conversationId: thread.conversationId, status: STATUS_OF[action]!, now: clock.now(), limiter, linkKey });
      } else {
        return await refuse(400, 'That action is not offered here.');
      }
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (error.options.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.options.retryAfterSeconds));
      return refuse(error.status, error.message);
    }
    // Post/redirect/get: a reload shows the thread instead of sending the form again.
    return reply.redirect(`${ACTION_PATH}${link}?done=${action}`, 303);
  });
};
