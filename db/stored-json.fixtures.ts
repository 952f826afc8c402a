/**
 * Samples of every stored JSON shape, per version, as rows hold them. Version 0 is what the
 * release before versioning wrote (taken from its rows); keep every version here for as long as
 * such rows may exist. db/stored-json.test.ts checks that each still parses into today's shape.
 */
export const STORED_SAMPLES = {
  verdict: {
    v0: [
      { decision: 'auto', reason: 'A trusted server marks this tool as read-only.', grantId: null, warnings: [], constraint: null },
      { decision: 'ask', reason: 'This tool may change something: it needs approval.', warnings: ['This tool reaches outside systems.'] },
      { decision: 'reject', reason: 'No tool by this name was offered.' },
    ],
    v1: [
      {
        v: 1,
        verdict: 'ask',
        reason: 'Tools of untrusted servers need approval.',
        warnings: [],
        grantId: 'g-1',
        constraint: { type: 'object' },
      },
    ],
  },
  decision: {
    v0: [
      { kind: 'auto', at: '2026-11-01T10:00:00.000Z' },
      { kind: 'allow_once', by: '8d6f8a7e-4a51-4bd4-9a39-54f1e1d1b0c1', at: '2026-11-01T10:00:00.000Z' },
      { kind: 'deny', by: '8d6f8a7e-4a51-4bd4-9a39-54f1e1d1b0c1', at: '2026-11-01T10:00:00.000Z', reason: 'not now' },
      {
        kind: 'allow_once',
        by: '8d6f8a7e-4a51-4bd4-9a39-54f1e1d1b0c1',
        at: '2026-11-01T10:00:00.000Z',
        edited: true,
        originalArgsHash: 'bc890f6c01c760078dbdc51226bd5d8be0df97025914ef32df73b9eb6857c9e2',
      },
    ],
    v1: [
      {
        v: 1,
        kind: 'allow_session',
        by: '8d6f8a7e-4a51-4bd4-9a39-54f1e1d1b0c1',
        at: '2026-11-30T10:00:00.000Z',
        editedFrom: 'bc890f6c01c760078dbdc51226bd5d8be0df97025914ef32df73b9eb6857c9e2',
      },
    ],
  },
  inputResponses: {
    v1: [{ v: 1, responses: { name: { action: 'accept', content: { name: 'Ada' } } }, by: 'u-1', at: '2026-11-30T10:00:00.000Z' }],
  },
  signIn: {
    v1: [
      { v: 1, serverId: 'srv-1', serverName: 'Docs', reason: 'first_use', at: '2026-12-01T10:00:00.000Z' },
      {
        v: 1,
        serverId: 'srv-1',
        serverName: 'Docs',
        scopes: ['files:write'],
        reason: 'insufficient_scope',
        at: '2026-12-01T10:00:00.000Z',
      },
    ],
  },
  taint: {
    v1: [
      { v: 1, at: '2026-12-01T10:00:00.000Z', source: 'result', serverId: 'srv-1', serverName: 'Docs', tool: 'search' },
      { v: 1, at: '2026-12-01T10:00:00.000Z', source: 'tool_description', serverId: 'srv-1', serverName: 'Docs', tool: 'search' },
      { v: 1, at: '2026-12-01T10:00:00.000Z', source: 'progress', serverId: 'srv-1', serverName: 'Docs' },
    ],
  },
  inputRequests: {
    v0: [
      {
        name: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
          },
        },
        login: {
          method: 'elicitation/create',
          params: { mode: 'url', message: 'Sign in', url: 'https://example.com/x', elicitationId: 'e1' },
        },
      },
    ],
  },
  runError: {
    v0: [{ code: 'model_overloaded', message: 'The model is overloaded. Try again in a minute.' }],
  },
  usage: { v0: [{ inputTokens: 120, outputTokens: 40 }] },
  nameMap: { v0: [{ notes__search: { serverId: 'builtin-notes', tool: 'search' } }] },
  annotations: {
    v0: [{}, { title: 'Search notes', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
  },
  result: {
    v0: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'text', text: '<tool_output server="Notes" tool="search">\n{"hits":[]}\n</tool_output>' }],
      },
      { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: [{ type: 'text', text: 'The person denied this call.' }] },
    ],
  },
  authServer: {
    v1: [
      {
        v: 1,
        metadata: {
          issuer: 'https://auth.example.com',
          authorization_endpoint: 'https://auth.example.com/authorize',
          token_endpoint: 'https://auth.example.com/token',
          response_types_supported: ['code'],
          revocation_endpoint: 'https://auth.example.com/revoke',
        },
      },
    ],
  },
  oauthDiscovery: {
    v1: [
      {
        v: 1,
        authorizationServerUrl: 'https://auth.example.com/',
        resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
        resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://auth.example.com'] },
        authorizationServerMetadata: {
          issuer: 'https://auth.example.com',
          authorization_endpoint: 'https://auth.example.com/authorize',
          token_endpoint: 'https://auth.example.com/token',
          response_types_supported: ['code'],
          revocation_endpoint: 'https://auth.example.com/revoke',
        },
      },
    ],
  },
  reviewedTools: {
    v1: [
      { v: 1, tools: {} },
      { v: 1, tools: { search: 'bc890f6c01c760078dbdc51226bd5d8be0df97025914ef32df73b9eb6857c9e2' } },
    ],
  },
  catalog: {
    // Written before versioning (no `v`), then with `v: 1` and the declared hints.
    v0: [
      {
        tools: [
          {
            serverId: 'builtin-notes',
            namespace: 'notes',
            serverName: 'Notes',
            trust: 'trusted',
            name: 'search',
            description: 'Search notes',
            inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
            annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
            fingerprint: 'bc890f6c01c760078dbdc51226bd5d8be0df97025914ef32df73b9eb6857c9e2',
          },
        ],
        skipped: [{ serverId: 'builtin-notes', name: 'broken', reason: 'its input schema is unusable: not an object' }],
        truncated: false,
      },
    ],
    v1: [{ v: 1, tools: [], skipped: [], truncated: true }],
  },
} as const;
