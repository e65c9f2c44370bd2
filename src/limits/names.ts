/** The limits (CONTRACT §5): their names, the shape of a window and the defaults LIMIT_<NAME> overrides. */

/** One window of a limit: at most `count` actions per `seconds`. */
export interface LimitWindow {
  count: number;
  seconds: number;
}

export const LIMIT_NAMES = [
  'CONVERSATION_SOURCE',
  'CONVERSATION_GLOBAL',
  'FOLLOWUP_SOURCE',
  'PEER_REGISTRATION_SOURCE',
  'TOPIC_AGENT',
  'JOIN_AGENT',
  'REPLY_AGENT',
  'BRIDGE_AGENT',
  'PRESENCE_AGENT',
  'REFERRAL_GLOBAL',
  'ADMIN_AUTH_FAILURE_SOURCE',
  'ALERT_GLOBAL',
  'ALERT_NEW',
  'ALERT_ACTIVITY',
  'ALERT_CONVERSATION',
  'ALERT_SOURCE',
  'ALERT_TEST',
  'ACTION_LINK',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** CONTRACT §5 defaults. */
export const DEFAULT_LIMITS: Record<LimitName, string> = {
  CONVERSATION_SOURCE: '4/1h,12/1d',
  CONVERSATION_GLOBAL: '25/10m,200/1d',
  FOLLOWUP_SOURCE: '24/1h,60/1d',
  PEER_REGISTRATION_SOURCE: '8/1h,30/1d',
  TOPIC_AGENT: '12/1h,60/1d',
  JOIN_AGENT: '30/1h,200/1d',
  REPLY_AGENT: '240/1h,2000/1d',
  BRIDGE_AGENT: '20/1h',
  PRESENCE_AGENT: '60/1h,500/1d',
  // New referral ids recorded a day (COMPAT §7): past it an unseen id is not counted; the request still succeeds.
  REFERRAL_GLOBAL: '500/1d',
  ADMIN_AUTH_FAILURE_SOURCE: '10/1m',
  ALERT_GLOBAL: '4/10m,30/1d',
  // ALERT_NEW and ALERT_ACTIVITY each stay below ALERT_GLOBAL, so neither kind uses up the other's room.
  ALERT_NEW: '3/10m,20/1d',
  ALERT_ACTIVITY: '2/10m,15/1d',
  ALERT_CONVERSATION: '1/10m',
  ALERT_SOURCE: '2/10m,10/1d',
  ALERT_TEST: '5/10m,30/1d',
  // Replies and actions through one signed action link (issue 30): ample for a person, little for a leaked link.
  ACTION_LINK: '20/10m,100/1d',
};
