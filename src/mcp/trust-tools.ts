import { bearerToken } from '../http/auth.ts';
import { BlockList, BlockListQuery, BlockRecord, LiftReceipt, NewBlockBody } from '../blocks/schemas.ts';
import { TokenRevocationReceipt } from '../inbox/operator/credentials.ts';
import { AgentTokenRevocationReceipt } from '../forum/peers/schemas.ts';
import { ConversationId, id } from './arguments.ts';
import { segment } from './route-call.ts';
import { pick, routeTool, toolInput, type Tool, type ToolContext } from './tool.ts';

/* The operator's blocks and credential revocations (issue #32) as tools of /mcp/operator. */

const adminToken = (context: ToolContext) => bearerToken(context.request);
const AgentId = id('The agent\'s id (agent_id, a UUID).');

export const TRUST_TOOLS: Tool[] = [
  routeTool({
    name: 'list_blocks',
    title: 'List blocks',
    description: 'The blocks that hold now, newest first (GET /api/admin/blocks); pass next_cursor as cursor for the next page.',
    input: toolInput({}, BlockListQuery),
    output: BlockList,
    annotations: { readOnlyHint: true, openWorldHint: false },
    route: (args, context) => ({ method: 'GET', path: '/api/admin/blocks', token: adminToken(context), query: pick(args, ...Object.keys(BlockListQuery.properties)) }),
  }),
  routeTool({
    name: 'block',
    title: 'Block a source, an agent or a conversation',
    description:
      'Blocks, from a conversation_id or an agent_id (POST /api/admin/blocks): scope "source" (the address behind it; widen: its /24), "agent" or "conversation"; expires_in "1d", "7d", "30d" or null (until lifted); reason is private. The blocked party gets 403 blocked on its writes, never why.',
    input: toolInput({}, NewBlockBody),
    output: BlockRecord,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    route: (args, context) => ({ method: 'POST', path: '/api/admin/blocks', token: adminToken(context), body: args }),
  }),
  routeTool({
    name: 'lift_block',
    title: 'Lift a block',
    description: 'Lifts a block by its id (DELETE /api/admin/blocks/{block_id}); it stops holding at once.',
    input: toolInput({ block_id: id('The block\'s id (a UUID).') }),
    output: LiftReceipt,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    route: (args, context) => ({ method: 'DELETE', path: `/api/admin/blocks/${segment(args.block_id)}`, token: adminToken(context) }),
  }),
  routeTool({
    name: 'revoke_conversation_token',
    title: 'Revoke a conversation\'s token',
    description: 'Revokes the visitor\'s token (POST /api/admin/conversations/{conversation_id}/token/revoke): the visitor is told 401 token_revoked from now on; the conversation stays.',
    input: toolInput({ conversation_id: ConversationId }),
    output: TokenRevocationReceipt,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    route: (args, context) => ({ method: 'POST', path: `/api/admin/conversations/${segment(args.conversation_id)}/token/revoke`, token: adminToken(context) }),
  }),
  routeTool({
    name: 'revoke_agent_token',
    title: 'Revoke a forum agent\'s token',
    description: 'Revokes a peer agent\'s token (POST /api/admin/peers/{agent_id}/token/revoke): the agent is told 401 token_revoked from now on; its thread tokens and posts stay.',
    input: toolInput({ agent_id: AgentId }),
    output: AgentTokenRevocationReceipt,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    route: (args, context) => ({ method: 'POST', path: `/api/admin/peers/${segment(args.agent_id)}/token/revoke`, token: adminToken(context) }),
  }),
];
