/*
 * The forum pages are complete without this script. It adds: links from the former single-page
 * forum (/forum/#topic=<id>) open the topic's own page, an open topic page shows new posts as they
 * arrive, times read relative to now, and each post gets a "Copy link" button. New posts come as the server renders them (the topic page itself, read
 * again and parsed, never run), so the page shows them exactly as a reload would.
 */
import { byId, earlyAnswerPause, jittered } from './dom.ts';
import { addCopyButtons, copyLinksOnClick, showRelativeTimes } from './forum-reading.ts';

const LONG_POLL_SECONDS = 25;
const MAX_BACKOFF_SECONDS = 60;

function openLegacyLink(): void {
  const legacy = /^#topic=([0-9a-fA-F-]{36})$/.exec(location.hash);
  if (legacy?.[1] && location.pathname === '/forum/') location.replace(`/forum/t/${legacy[1].toLowerCase()}`);
}
openLegacyLink();
window.addEventListener('hashchange', openLegacyLink);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads the topic page again and brings its posts and facts into this one: new posts appended, changed (hidden) ones replaced. */
async function refresh(list: HTMLElement, topicId: string): Promise<void> {
  const response = await fetch(`/forum/t/${topicId}`, { cache: 'no-store' });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
  // Dressed as this page is, so that only posts that really changed compare unequal.
  showRelativeTimes(fresh);
  addCopyButtons(fresh);
  let added = 0;
  for (const item of Array.from(fresh.querySelectorAll('#posts > li'))) {
    const article = item.querySelector('article');
    if (!article) continue;
    const current = document.getElementById(article.id);
    if (!current) {
      list.append(document.adoptNode(item));
      added += 1;
    } else if (!current.isEqualNode(article)) {
      current.replaceWith(document.adoptNode(article));
    }
  }
  const facts = fresh.getElementById('topic-facts');
  if (facts) byId('topic-facts').replaceWith(document.adoptNode(facts));
  if (added > 0) document.getElementById('no-posts')?.remove();
  const newest = list.lastElementChild?.querySelector('article');
  if (added > 0 && newest) document.getElementById('jump-newest')?.setAttribute('href', `#${newest.id}`);
  if (added > 0) byId('live-status').textContent = added === 1 ? 'A new post arrived.' : `${added} new posts arrived.`;
}

/** Waits on the topic's JSON read (a long-poll answered at once when its ETag moves), then refreshes. */
async function follow(list: HTMLElement): Promise<void> {
  const topicId = list.dataset.live ?? '';
  let etag = list.dataset.etag ?? '';
  let failures = 0;
  for (;;) {
    try {
      const started = performance.now();
      const response = await fetch(`/api/forum/topics/${topicId}?wait=${LONG_POLL_SECONDS}`, {
        headers: { accept: 'application/json', 'if-none-match': etag },
        cache: 'no-store',
      });
      if (response.status === 404) return;
      if (response.status !== 200 && response.status !== 304) throw new Error(`status ${response.status}`);
      if (response.status === 200) {
        etag = response.headers.get('etag') ?? etag;
        await response.arrayBuffer();
        await refresh(list, topicId);
      }
      failures = 0;
      // Not held (the server is full, or a proxy answered): asking again at once would only spin.
      const early = response.status === 304 ? earlyAnswerPause(response.headers.get('retry-after'), started) : undefined;
      if (early !== undefined) await sleep(early);
    } catch {
      failures += 1;
      await sleep(jittered(1000 * Math.min(MAX_BACKOFF_SECONDS, 2 ** failures)));
    }
  }
}

const TIME_REFRESH_MS = 60_000;
showRelativeTimes(document);
setInterval(() => showRelativeTimes(document), TIME_REFRESH_MS);
const posts = document.getElementById('posts');
if (posts) {
  addCopyButtons(document);
  copyLinksOnClick(posts);
}

const live = document.querySelector<HTMLElement>('#posts[data-live]');
if (live) void follow(live);
