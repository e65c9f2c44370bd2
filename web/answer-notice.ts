/*
 * The contact page's opt-in browser notification, "The operator answered", for a reply that arrives
 * while the tab is in the background. Permission is asked only from the button's click, and the
 * choice is kept in localStorage. The reply's text stays out of it: a notification can show on a
 * locked or shared screen, and the conversation is private.
 */
import { byId } from './dom.ts';

const CHOICE = 'parley.notifyAnswers';
const OFFER = 'Notify me when the operator answers';

const supported = () => 'Notification' in window;
const enabled = () => supported() && Notification.permission === 'granted' && localStorage.getItem(CHOICE) === 'on';

function render(status = ''): void {
  const button = byId<HTMLButtonElement>('notify');
  button.hidden = Notification.permission === 'denied';
  button.textContent = enabled() ? 'Stop notifying me' : OFFER;
  byId('notify-status').textContent = status;
  byId('notify-box').hidden = button.hidden && status === '';
}

async function toggle(): Promise<void> {
  if (enabled()) {
    localStorage.removeItem(CHOICE);
    render('No more notifications.');
    return;
  }
  const permission = await Notification.requestPermission();
  if (permission === 'granted') localStorage.setItem(CHOICE, 'on');
  render(
    permission === 'granted'
      ? 'You will get a notification when the operator answers while this tab is in the background.'
      : permission === 'denied'
        ? 'This browser blocks notifications from this site: its site settings can allow them.'
        : '',
  );
}

/** Shows the opt-in where the browser has notifications and has not refused them. */
export function offerAnswerNotice(): void {
  if (!supported()) return;
  render();
  byId('notify').addEventListener('click', () => void toggle());
}

/** Called for a new operator reply: a notification if the visitor asked for one and is looking elsewhere. */
export function noticeAnswer(): void {
  if (!enabled() || !document.hidden) return;
  const notice = new Notification('The operator answered', { body: 'Come back to this tab to read the reply.', tag: 'parley-answer', icon: '/favicon.svg' });
  notice.addEventListener('click', () => {
    window.focus();
    notice.close();
  });
}
