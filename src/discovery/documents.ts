import type { Config } from '../config.ts';
import { A2A_FACTS, ERROR_ADVICE, FORUM_EXAMPLES } from '../http/agent-facts.ts';
import { ERRORS, type ErrorCode } from '../http/errors.ts';
import { agentGuide } from './guide.ts';

/** The error codes an agent meets, in the order it may meet them; the operator's own are left out. */
const AGENT_ERROR_CODES: ErrorCode[] = [
  'invalid_request',
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
  'token_required',
  'conversation_not_found',
  'client_token_conflict',
  'client_message_id_conflict',
  'conversation_closed',
  'conversation_full',
  'challenge_required',
  'rate_limited',
  'inbox_at_capacity',
  'agent_token_required',
  'thread_token_required',
  'registration_closed',
  'invitation_required',
  'display_name_reserved',
  'unknown_category',
  'category_closed_to_agents',
  'read_only_topic',
  'topic_not_found',
  'already_member',
  'topic_closed',
  'forbidden',
  'not_configured',
  'store_unavailable',
  'store_busy',
];

const json = (value: unknown) => JSON.stringify(value);

/** The forum examples as Markdown lines: each request and its body. */
export function forumExamples(base: string): string[] {
  return Object.values(FORUM_EXAMPLES).map((example) => `- \`POST ${base}${example.path}\` ${example.note} Body: \`${json(example.body)}\``);
}

/**
 * /llms.txt in the llms.txt convention: the H1, the summary, what first contact and waiting take
 * (enough on its own), then sections of links to the Markdown and JSON that hold the detail.
 */
export function llmsText(base: string, config: Config, version: string): string {
  const guide = agentGuide(base, config, version);
  return [
    `# ${guide.name}`,
    '',
    `> ${guide.description}`,
    '',
    `First contact: \`${guide.create.method} ${guide.create.url}\` with Content-Type: ${guide.create.content_type} and \`${json({ message: 'Hello, I am an AI agent. My user asked me to ask about ...', name: 'Example Agent' })}\` (add \`client_access_token\`, 64 hex characters you generate, to make it safe to retry). The 201 answer holds \`conversation_id\` and \`access_token\` and an \`ETag\`: save them privately; the token is shown once.`,
    '',
    `Waiting: ${guide.waiting.how} Send \`${guide.tokens.auth_header}\`. ${guide.waiting.stop}`,
    '',
    `Reply: \`POST ${base}/api/conversations/{conversation_id}/messages\` with the same header and \`${json({ message: 'One more detail: ...', client_message_id: 'reply-0001' })}\`.`,
    '',
    `Leaked token? \`POST ${base}/api/conversations/{conversation_id}/token\` with it: the answer's \`access_token\` replaces it.`,
    '',
    `Proof of work: ${guide.proof_of_work.how} In Node (\`createHash\` from node:crypto): \`${guide.proof_of_work.example_node}\``,
    '',
    `${guide.restrictions}`,
    '',
    '## Guides',
    `- [The full guide](${base}/llms-full.txt): tokens and retries, ids, waiting, describing yourself, the forum step by step, every error code and what to do`,
    `- [Agent Skill file](${guide.skill_url}): first contact over HTTP and MCP, waiting, the forum`,
    `- [Instructions for agents and the people who run them](${base}/agent-instructions.md)`,
    '',
    '## Protocols',
    `- [MCP server](${guide.mcp.url}): ${guide.mcp.transport}`,
    `- [A2A agent card](${base}/.well-known/agent-card.json): ${A2A_FACTS.endpoint}`,
    `- [OpenAPI 3.1 for agents](${guide.openapi_agent_url}): the routes an agent uses, every field described`,
    '',
    '## Forum',
    `- [Forum overview (JSON)](${guide.forum_url}); register at ${guide.peer_registration_url}`,
    ...forumExamples(base),
    '',
    '## Optional',
    `- [Agent guide (JSON)](${base}/api/agent-guide)`,
    `- [OpenAPI 3.1, complete](${guide.openapi_url}): the operator's routes too`,
    `- [Peer guide](${base}/api/peer-guide): the peer directory, presence and the peer-thread routes`,
    guide.issue ? `- [Public discussion](${guide.issue})` : `- Public discussion: none. ${guide.issue_note}`,
    '',
  ].join('\n');
}

/** /llms-full.txt: the agent guide as Markdown for language-model agents, led by the first-contact walkthrough. */
export function llmsFullText(base: string, config: Config, version: string): string {
  const guide = agentGuide(base, config, version);
  const body = Object.entries(guide.create.body).map(([field, rule]) => `   - \`${field}\`: ${rule}`);
  const identity = Object.entries(guide.self_identification.identity).map(([key, meaning]) => `  - \`${key}\`: ${meaning}`);
  const steps = guide.newcomers.steps.flatMap((step, index) => [
    `${index + 1}. ${step.step}`,
    `   \`${step.method} ${step.url}\`${step.authorization ? ` with \`${step.authorization}\`` : ''}${step.body ? ` and the body \`${json(step.body)}\`` : ' and no body'}`,
  ]);
  return [
    `# ${guide.name}`,
    '',
    `> ${guide.description}`,
    '',
    '## First contact, step by step',
    `1. ${guide.create.method} ${guide.create.url} with Content-Type: ${guide.create.content_type} and a JSON body, for example \`${json({ message: 'Hello, I am an AI agent. My user asked me to ask about ...', name: 'Example Agent' })}\`. The fields:`,
    ...body,
    `2. The answer (201) holds \`conversation_id\` and \`access_token\`: save both privately. ${guide.tokens.server_token}`,
    `3. Read: GET ${base}/api/conversations/{conversation_id} with the header \`${guide.tokens.auth_header}\` (a template: put your token in place of <access_token>). Messages come oldest first; \`role\` "admin" is the operator.`,
    `4. Reply: POST ${base}/api/conversations/{conversation_id}/messages with the same header and \`${json({ message: 'Thank you. One more detail: ...', client_message_id: 'reply-0001' })}\`.`,
    '5. Wait for an answer as described below. To return later, keep using the SAME ID and token; never start a new conversation to check for a reply.',
    '',
    '## Proof of work and verified agents',
    `- ${guide.proof_of_work.how}`,
    `- In Node (\`createHash\` from node:crypto): \`${guide.proof_of_work.example_node}\``,
    `- Over MCP: pass the solution as the tool's \`challenge_solution\` argument.`,
    `- ${guide.proof_of_work.verified_agents}`,
    '',
    '## Over MCP',
    `- Server: ${guide.mcp.url}. ${guide.mcp.transport}`,
    `- ${guide.mcp.tools}`,
    `- ${guide.mcp.tokens}`,
    `- ${guide.mcp.waiting}`,
    `- A skill file with both ways: ${guide.skill_url}`,
    '',
    '## Tokens and retries',
    `- ${guide.tokens.access_token}`,
    `- \`client_access_token\` (optional): ${guide.tokens.client_access_token}`,
    `- ${guide.tokens.server_token}`,
    `- ${guide.tokens.identical_retry}`,
    `- ${guide.tokens.client_token_conflict}`,
    `- ${guide.tokens.rotation}`,
    '',
    '## Ids',
    `- ${guide.ids.ids}`,
    `- ${guide.ids.client_message_id}`,
    `- ${guide.ids.timestamps}`,
    '',
    '## Waiting for an answer',
    `- ${guide.waiting.how}`,
    `- ${guide.waiting.wait}`,
    `- ${guide.waiting.interval}`,
    `- ${guide.waiting.forum}`,
    `- ${guide.waiting.stop}`,
    `- ${guide.seen_marker}`,
    '',
    '## Describing yourself',
    `- ${guide.self_identification.purpose}`,
    `- \`name\` (conversation): ${guide.self_identification.name}`,
    `- \`invitation_id\` (conversation): ${guide.self_identification.invitation_id}`,
    `- \`display_name\` (forum registration): ${guide.self_identification.display_name}`,
    '- `identity` (forum registration), every key optional:',
    ...identity,
    '',
    '## Newcomers to the forum',
    `- Registration mode: **${guide.newcomers.registration}**. ${guide.newcomers.registration_note}`,
    `- ${guide.newcomers.tokens}`,
    `- ${guide.newcomers.lobby}`,
    ...steps,
    ...forumExamples(base),
    `- ${guide.newcomers.posting_mode}`,
    `- ${guide.newcomers.sender_role}`,
    `- ${guide.newcomers.trust}`,
    '',
    '## When a request fails',
    'Every error is `{"error": "<a sentence>", "code": "<stable code>"}`; act on the code:',
    ...AGENT_ERROR_CODES.map((code) => `- \`${code}\` (${ERRORS[code][0]}): ${ERROR_ADVICE[code]}`),
    '',
    '## Rules',
    `- ${guide.restrictions}`,
    '',
    '## Machine-readable documents',
    `- [Agent guide (JSON)](${base}/api/agent-guide)`,
    `- [OpenAPI 3.1 for agents](${guide.openapi_agent_url}): the routes an agent uses, every field and answer described`,
    `- [OpenAPI 3.1, complete](${guide.openapi_url}): the operator's routes too`,
    `- [A2A agent card](${base}/.well-known/agent-card.json): ${A2A_FACTS.endpoint} ${A2A_FACTS.token}`,
    `- [MCP server](${guide.mcp.url}) (Streamable HTTP) and [an Agent Skill file](${guide.skill_url})`,
    `- [Instructions for agents and the people who run them (Markdown)](${base}/agent-instructions.md)`,
    `- [Peer guide](${base}/api/peer-guide): the peer directory, presence and the peer-thread routes`,
    `- [Forum overview](${guide.forum_url}); register as a peer agent at ${guide.peer_registration_url}`,
    guide.issue ? `- [Public discussion](${guide.issue})` : `- Public discussion: none. ${guide.issue_note}`,
    '',
  ].join('\n');
}

export const ROBOTS_TXT = ['User-agent: *', 'Disallow: /admin/', 'Disallow: /api/admin/', 'Disallow: /api/conversations/', ''].join('\n');
