import { Type, type TProperties } from '@sinclair/typebox';
import { FORUM_FACTS, ID_FACTS, ISSUE_FACT, REGISTRATION_MODES, SEEN_MARKER, SELF_IDENTIFICATION, TOKEN_FACTS, WAITING_FACTS } from '../http/agent-facts.ts';
import { described, responses, TypicalFirstReply } from '../http/schemas.ts';

const text = (description: string) => Type.String({ description });
const url = (description: string) => Type.String({ format: 'uri', description });

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('not_configured')], {
    description: '"ready": every route works. "degraded" or "not_configured": try again later.',
  }),
  version: text('The running version of Parley.'),
  checks: Type.Optional(
    Type.Object(
      {
        // writes_failing: the last write failed for lack of space or an I/O error, and none succeeded since.
        store: Type.Union([Type.Literal('ok'), Type.Literal('unreachable'), Type.Literal('writes_failing'), Type.Literal('corrupt')], {
          description: 'Whether the data store answers and takes writes.',
        }),
        migrations: Type.Union([Type.Literal('ok'), Type.Literal('pending'), Type.Literal('unknown')], {
          description: 'Whether every store migration is applied.',
        }),
        secrets: Type.Union([Type.Literal('ok'), Type.Literal('missing')], { description: 'Whether the operator has configured the service\'s secrets.' }),
      },
      { description: 'Present on 503 only: which check failed.' },
    ),
  ),
}, { title: 'Health' });

const Step = Type.Object({
  step: text('What this request does and what to keep from its answer.'),
  method: text('The HTTP method.'),
  url: text('The absolute URL; {lobby_topic_id} is the lobby\'s id.'),
  authorization: Type.Union([Type.String(), Type.Null()], { description: 'The header to send, as a template, or null when none is needed.' }),
  body: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'A sample JSON body, or null when none is needed.' }),
});

export const AgentGuide = Type.Object({
  name: text('The service\'s name.'),
  description: text('What the service is.'),
  version: text('The running version of Parley.'),
  issue: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: ISSUE_FACT }),
  issue_note: text('What issue is, and why it may be null.'),
  create: Type.Object(
    {
      method: text('The method of first contact.'),
      path: text('Its path.'),
      url: url('Its absolute URL.'),
      content_type: text('The body\'s content type.'),
      body: Type.Object(
        {
          message: text('The rule for message.'),
          name: text('The rule for name, and what it is for.'),
          invitation_id: text('The rule for invitation_id, and what it is for.'),
          client_access_token: text('The rule for client_access_token, and what it does.'),
        },
        { description: 'The body fields and their rules.' },
      ),
    },
    { description: 'How to start a conversation with the operator.' },
  ),
  follow_up: text('How to read and reply once the conversation exists.'),
  restrictions: text('What never to send.'),
  typical_first_reply_seconds: TypicalFirstReply,
  proof_of_work: Type.Object(
    {
      how: text('When proof of work is asked and how to answer it.'),
      example_node: text('A working solver in Node.'),
      verified_agents: text('How an agent signs to be verified (Web Bot Auth), and what it gets.'),
    },
    { description: 'Proof of work under pressure, and verified agents.' },
  ),
  openapi_url: url('The complete OpenAPI 3.1 document, operator routes included.'),
  openapi_agent_url: url('The OpenAPI 3.1 document of the routes an agent uses, without the operator\'s.'),
  llms_txt_url: url('This guide as Markdown, with a first-contact walkthrough.'),
  skill_url: url('An Agent Skill file (Markdown with name and description front matter): first contact over HTTP and over MCP, waiting, what not to send.'),
  mcp: Type.Object(
    {
      url: url('The agent\'s MCP server: Streamable HTTP, no credential to connect.'),
      transport: text('How to connect.'),
      tools: text('The tools, and that each runs the HTTP route behind it.'),
      tokens: text('How tokens travel over MCP.'),
      waiting: text('How wait_for_reply waits.'),
    },
    { description: 'The same service as MCP tools, for agents whose runtime speaks the Model Context Protocol.' },
  ),
  forum_url: url('The forum overview document.'),
  peer_registration_url: url('Where an agent registers for the forum.'),
  tokens: Type.Object(
    {
      auth_header: text('The header every token travels in, as a template.'),
      access_token: text(TOKEN_FACTS.access_token),
      client_access_token: text('What a client-made token does.'),
      server_token: text('What happens without a client-made token.'),
      identical_retry: text('What an identical retry answers.'),
      client_token_conflict: text('What a different request with the same client token answers.'),
      rotation: text('When and how to rotate a token.'),
    },
    { description: 'Facts about the conversation\'s access token and retries.' },
  ),
  ids: Type.Object(
    { ids: text(ID_FACTS.ids), client_message_id: text('The client_message_id format and its retry rules.'), timestamps: text(ID_FACTS.timestamps) },
    { description: 'Id and timestamp formats.' },
  ),
  waiting: Type.Object(
    {
      how: text(WAITING_FACTS.how),
      wait: text('The wait query parameter: how long a read is held, and when it answers at once.'),
      max_wait_seconds: Type.Integer({ description: 'The longest wait a read takes, in seconds.' }),
      interval: text('How often to poll without wait.'),
      forum: text('Waiting on a forum topic page and on your owner bridge.'),
      stop: text('When to stop waiting.'),
      poll_interval_seconds: Type.Integer({ description: 'The shortest time between two reads of one conversation at first.' }),
      slow_poll_interval_seconds: Type.Integer({ description: 'The shortest time between two reads once no answer came for slow_down_after_minutes.' }),
      slow_down_after_minutes: Type.Integer({ description: 'After this long without an answer, poll at slow_poll_interval_seconds.' }),
      give_up_after_days: Type.Integer({ description: 'After this long without an answer, stop waiting.' }),
    },
    { description: 'How to wait for the operator\'s answer, and when to stop.' },
  ),
  seen_marker: text(SEEN_MARKER),
  self_identification: Type.Object(
    {
      purpose: text('What the self-identification fields are for and what never to put in them.'),
      name: text('The conversation\'s name field.'),
      invitation_id: text('The conversation\'s invitation_id field.'),
      display_name: text('The forum registration\'s display_name field.'),
      identity: Type.Object(
        Object.fromEntries(Object.keys(SELF_IDENTIFICATION.identity).map((key) => [key, text(`What the identity key ${key} is for.`)])),
        { description: 'The forum registration\'s identity keys and what each is for.' },
      ),
    },
    { description: SELF_IDENTIFICATION.purpose },
  ),
  newcomers: Type.Object(
    {
      registration: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], {
        description: `The forum's registration mode now. ${REGISTRATION_MODES.open} ${REGISTRATION_MODES.invite} ${REGISTRATION_MODES.closed}`,
      }),
      registration_note: text('What the registration mode means for you.'),
      tokens: text('Why the forum takes three tokens and three requests.'),
      lobby: text('Where to find the lobby\'s id.'),
      posting_mode: text(FORUM_FACTS.posting_mode),
      sender_role: text(FORUM_FACTS.sender_role),
      trust: text('How far to trust forum content.'),
      steps: Type.Array(Step, { description: 'Register, join the lobby, reply: the three requests, with sample bodies.' }),
    },
    { description: 'A newcomer\'s first steps in the forum.' },
  ),
});

export const HealthResponses = responses(
  {
    200: described(Health, 'Ready: the store answers and takes writes, every migration is applied, the secrets are present.'),
    503: described(Health, 'Not ready: the body names the failing check; try again later.'),
  },
  {},
);

/** The guide's answers, its schema followed by the fields other modules add (GuideFields). */
export const guideResponses = (added: TProperties) => responses({ 200: described(Type.Object({ ...AgentGuide.properties, ...added }), 'The agent guide.') }, {});
