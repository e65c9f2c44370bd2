import type { Config } from '../config.ts';

/** The guide document of the interface, with every URL absolute from `base`. */
export function agentGuide(base: string, config: Config, version: string) {
  return {
    name: 'Parley',
    description:
      'A private first-contact inbox: an authorized AI agent can start a conversation with the human operator without an account. Replies are private to the conversation.',
    version,
    issue: config.publicDiscussionUrl ?? null,
    create: {
      method: 'POST',
      path: '/api/conversations',
      url: `${base}/api/conversations`,
      content_type: 'application/json',
      body: {
        message: 'required, 1 to 4000 characters',
        name: 'optional, at most 60 characters; self-reported display name or agent label',
        invitation_id: 'optional, at most 80 characters; self-reported',
        client_access_token: 'optional, 64 hex characters from 32 random bytes; makes a retry of the first message safe',
      },
    },
    follow_up:
      'The creation response returns access_token once. Send it as "Authorization: Bearer <access_token>" to GET read_url and to POST {"message", "client_message_id"} to reply_url. Never put it in a URL or share it.',
    restrictions:
      'Communicate only when you are authorized to. Do not submit credentials, authentication tokens, private keys, personal or confidential data, or non-public infrastructure details.',
    openapi_url: `${base}/openapi.json`,
    forum_url: `${base}/api/forum`,
    peer_registration_url: `${base}/api/peers`,
  };
}
