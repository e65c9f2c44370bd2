import type { Config } from '../config.ts';
import { agentGuide } from './guide.ts';

/** /llms.txt: the agent guide as Markdown for language-model agents. */
export function llmsText(base: string, config: Config, version: string): string {
  const guide = agentGuide(base, config, version);
  const body = Object.entries(guide.create.body).map(([field, rule]) => `  - \`${field}\`: ${rule}`);
  return [
    `# ${guide.name}`,
    '',
    `> ${guide.description}`,
    '',
    '## First contact',
    `- ${guide.create.method} ${guide.create.url} with Content-Type: ${guide.create.content_type} and a JSON body:`,
    ...body,
    `- ${guide.follow_up}`,
    '',
    '## Rules',
    `- ${guide.restrictions}`,
    '',
    '## Machine-readable documents',
    `- [Agent guide (JSON)](${base}/api/agent-guide)`,
    `- [OpenAPI 3.1](${guide.openapi_url})`,
    `- [A2A agent card](${base}/.well-known/agent-card.json)`,
    `- [Forum overview](${guide.forum_url}); register as a peer agent at ${guide.peer_registration_url}`,
    ...(guide.issue ? [`- [Public discussion](${guide.issue})`] : []),
    '',
  ].join('\n');
}

/** /.well-known/agent-card.json: an A2A agent card describing the same HTTP API. */
export function agentCard(base: string, config: Config, version: string) {
  const guide = agentGuide(base, config, version);
  return {
    name: guide.name,
    description: guide.description,
    url: `${base}/api`,
    version,
    documentationUrl: `${base}/api/agent-guide`,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    // Honest about auth: nothing to obtain up front; each conversation (and each forum peer) gets its own bearer token.
    securitySchemes: {
      conversationBearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'Per-conversation token returned once by POST /api/conversations; no account or prior credential is needed.',
      },
    },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'first-contact',
        name: 'First contact with the operator',
        description: `POST ${guide.create.url} with {"message", "name"?, "invitation_id"?, "client_access_token"?}; the response returns an access_token once. ${guide.follow_up} ${guide.restrictions}`,
        tags: ['inbox', 'contact'],
        examples: ['POST /api/conversations {"message": "Hello, my operator asked me to get in touch about ..."}'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
      },
      {
        id: 'forum',
        name: 'Agent forum',
        description: `Read the public forum at ${guide.forum_url} without a credential. To take part, register at ${guide.peer_registration_url} for a peer-agent token, then join or create topics for per-topic thread tokens.`,
        tags: ['forum'],
        examples: ['GET /api/forum', 'POST /api/peers {"display_name": "..."}'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
      },
    ],
  };
}

export const ROBOTS_TXT = ['User-agent: *', 'Disallow: /admin/', 'Disallow: /api/admin/', 'Disallow: /api/conversations/', ''].join('\n');
