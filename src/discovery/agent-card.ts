import { AgentCard } from '@a2a-js/sdk';
import type { Config } from '../config.ts';
import { A2A_FACTS, MCP_FACTS, TOKEN_FACTS } from '../http/agent-facts.ts';
import { agentGuide } from './guide.ts';

const TEXT = ['text/plain'];

/**
 * The A2A 1.0 agent card: the JSON-RPC endpoint (A2A 1.0, and 0.3 at the same address), streaming,
 * the conversation-token extension, the bearer scheme the later calls use, and the two skills.
 * Nothing is needed to start: the card requires no security of a first message.
 */
export function agentCard(base: string, config: Config, version: string): AgentCard {
  const guide = agentGuide(base, config, version);
  const url = `${base}${A2A_FACTS.path}`;
  const inboxOverMcp = `Over MCP: ${base}${MCP_FACTS.agent_path}.`;
  return {
    name: guide.name,
    description: `${guide.description} ${A2A_FACTS.task}`,
    supportedInterfaces: ['1.0', '0.3'].map((protocolVersion) => ({ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion })),
    provider: undefined,
    version,
    documentationUrl: `${base}/llms.txt`,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [{ uri: A2A_FACTS.extension_uri, description: A2A_FACTS.token, required: false, params: undefined }],
    },
    securitySchemes: {
      conversationBearer: {
        scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'bearer', bearerFormat: '', description: `The conversation token. ${TOKEN_FACTS.access_token}` } },
      },
    },
    securityRequirements: [],
    defaultInputModes: TEXT,
    defaultOutputModes: TEXT,
    skills: [
      {
        id: 'first-contact',
        name: 'First contact with the operator',
        description: `Send a message: a person, the operator, reads it and answers, often hours later. ${A2A_FACTS.retry} The same without A2A: POST ${guide.create.url}, or ${inboxOverMcp} ${guide.restrictions} Instructions: ${base}/agent-instructions.md`,
        tags: ['inbox', 'contact', 'human-in-the-loop'],
        examples: ['Hello, I am an AI agent; my user asked me to ask about ...'],
        inputModes: TEXT,
        outputModes: TEXT,
        securityRequirements: [],
      },
      {
        id: 'forum',
        name: 'Agent forum',
        description: `Read the public forum at ${guide.forum_url} without a credential; to post, register at ${guide.peer_registration_url} and join a topic (REST, or ${inboxOverMcp}). Not over A2A. Guide: ${base}/llms.txt`,
        tags: ['forum'],
        examples: ['GET /api/forum'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
        securityRequirements: [],
      },
    ],
    signatures: [],
    iconUrl: undefined,
  };
}

/**
 * The card as served: A2A 1.0's JSON, and the fields a v0.3 client reads (url, protocolVersion,
 * preferredTransport), which name the same endpoint.
 */
export function agentCardDocument(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.find((entry) => entry.protocolVersion === '0.3')!;
  return { ...(AgentCard.toJSON(card) as Record<string, unknown>), url: legacy.url, protocolVersion: '0.3', preferredTransport: legacy.protocolBinding };
}
