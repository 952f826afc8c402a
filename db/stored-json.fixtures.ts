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
      // Since grants: whether untrusted text was in the run when the verdict was given.
      {
        v: 1,
        verdict: 'auto',
        reason: 'A trusted server marks this tool as read-only.',
        warnings: [],
        grantId: null,
        constraint: null,
        tainted: true,
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
  task: {
    v1: [
      { v: 1, taskId: 't-1', serverId: 'srv-1', status: 'working', at: '2026-12-06T10:00:00.000Z' },
      {
        v: 1,
        taskId: 't-1',
        serverId: 'srv-1',
        status: 'completed',
        statusMessage: '100% done',
        pollIntervalMs: 500,
        at: '2026-12-06T10:00:00.000Z',
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
  thinking: {
    v2: [
      { v: 2, enabled: true, budgetTokens: 4000, effort: 'low' },
      { v: 2, enabled: false, budgetTokens: 8000, effort: 'high' },
    ],
    v1: [
      { v: 1, enabled: true, budgetTokens: 4000 },
      { v: 1, enabled: false, budgetTokens: 4000 },
    ],
  },
  messageOrigin: {
    v1: [
      { v: 1, kind: 'prompt', serverId: 'srv-1', serverName: 'Docs', name: 'summarize' },
      { v: 1, kind: 'resources', resources: [{ serverId: 'srv-1', serverName: 'Docs', uri: 'file:///notes/a.md' }] },
    ],
  },
  forkOrigin: {
    v1: [{ v: 1, title: 'Groceries', snapshotAt: '2026-12-01T10:00:00.000Z', toolDetailsHidden: true }],
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
  usage: {
    v0: [
      { inputTokens: 120, outputTokens: 40 },
      { inputTokens: 120, outputTokens: 40, cacheCreationInputTokens: 900, cacheReadInputTokens: 4000 },
    ],
  },
  nameMap: { v0: [{ notes__search: { serverId: 'builtin-notes', tool: 'search' } }] },
  foundTools: {
    v1: [
      { v: 1, tools: [{ serverId: 'builtin-notes', tool: 'create' }] },
      { v: 1, tools: [] },
    ],
  },
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
  // Sealed JSON, as the SDK hands it to the provider (it has no version of its own: the SDK's shapes).
  oauthTokens: {
    v0: [
      {
        access_token: 'at-1',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: 'rt-1',
        scope: 'mcp:read',
        issuer: 'https://auth.example.com',
      },
      { access_token: 'at-2', token_type: 'bearer' },
    ],
  },
  oauthClient: {
    v0: [
      // dynamically registered: the registration's metadata comes back with the client
      {
        client_id: 'dcr-1',
        client_secret: 'cs-1',
        client_id_issued_at: 1_700_000_000,
        redirect_uris: ['https://switchboard.example.com/api/oauth/callback'],
        token_endpoint_auth_method: 'client_secret_post',
        issuer: 'https://auth.example.com',
      },
      // a client ID metadata document, or a pre-registered public client
      {
        client_id: 'https://switchboard.example.com/oauth/client-metadata.json',
        token_endpoint_auth_method: 'none',
        issuer: 'https://auth.example.com',
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
    // Fingerprints that cover the title; approvals of version 1 not yet pinned under `beforeTitles`.
    v2: [
      { v: 2, tools: {} },
      {
        v: 2,
        tools: { search: '1599ad24e1112fafabacb713bca0d2ffd93248246bf950c9406c7cc0fe58aaa3' },
        beforeTitles: { read: 'bc890f6c01c760078dbdc51226bd5d8be0df97025914ef32df73b9eb6857c9e2' },
      },
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
  grantCoverage: {
    v1: [
      {
        v: 1,
        tools: {
          create: {
            fingerprint: 'bc890f6c01c760078dbdc51226bd5d8be0df97025914ef32df73b9eb6857c9e2',
            title: 'Create a note',
            description: 'Creates a note.',
            inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
            outputSchema: null,
            annotations: {
              title: 'Create a note',
              readOnlyHint: false,
              destructiveHint: false,
              idempotentHint: false,
              openWorldHint: false,
            },
            serverUrl: 'builtin://notes',
          },
        },
      },
    ],
  },
  constraint: {
    v1: [{ type: 'object', properties: { path: { type: 'string', pattern: '^/tmp/', not: { pattern: '\\.\\.' } } } }],
  },
  auditContent: {
    v1: [
      {
        v: 1,
        kind: 'tool_call',
        toolCallId: '7d1c2a4e-5b3f-4c6d-8e9f-0a1b2c3d4e5f',
        runId: '0f1e2d3c-4b5a-4968-8776-655443322110',
        conversation: { id: '11111111-2222-4333-8444-555555555555', title: 'Notes for Friday' },
        server: { id: 'builtin-notes', name: 'Notes' },
        tool: 'search',
        modelName: 'notes__search',
        trust: 'trusted',
        arguments: { proposed: { query: 'friday' }, proposedHash: 'a1', executed: { query: 'friday' }, executedHash: 'a1', edited: false },
        verdict: {
          kind: 'default',
          rule: 'A trusted server marks this tool as read-only.',
          by: null,
          decision: null,
          reason: null,
          warnings: [],
        },
        grant: { id: null, constraint: null },
        outcome: 'succeeded',
        timing: {
          proposedAt: '2026-12-01T05:00:00.000Z',
          startedAt: '2026-12-01T05:00:00.010Z',
          endedAt: '2026-12-01T05:00:00.030Z',
          durationMs: 20,
        },
        attempts: 1,
        result: {
          isError: false,
          bytes: 180,
          sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          totalChars: null,
          truncated: false,
        },
      },
      {
        v: 1,
        kind: 'grant',
        change: 'created',
        scope: 'tool:8a6e0804-2bd0-4672-b79d-d97027f9071a/create_issue',
        grantId: '3c2b1a09-8f7e-4d6c-9b5a-493827161504',
        conversation: { id: '11111111-2222-4333-8444-555555555555', title: 'Notes for Friday' },
        server: { id: '8a6e0804-2bd0-4672-b79d-d97027f9071a', name: 'GitHub' },
        tool: 'create_issue',
        by: '99999999-8888-4777-8666-555555555555',
        settings: {
          autoApprove: true,
          constraint: { properties: { repo: { const: 'acme/web' } } },
          expiresAt: '2026-12-01T17:00:00.000Z',
          expiresIn: '12h',
        },
        sessionId: 'sess-1',
      },
      // A call an MCP client made through /mcp (lib/gateway).
      {
        v: 1,
        kind: 'client_call',
        callId: '7d1f0c2e-3b4a-4c5d-8e6f-708192a3b4c5',
        client: { kind: 'access_token', id: '0f1e2d3c-4b5a-4968-8776-655443322110', name: 'Claude Code' },
        server: { id: 'builtin-notes', name: 'Notes' },
        tool: 'search',
        name: 'notes__search',
        trust: 'trusted',
        arguments: { value: { query: 'friday', limit: 10 }, hash: 'a'.repeat(64) },
        verdict: { kind: 'auto', rule: 'A trusted server marks this tool as read-only.', warnings: [] },
        outcome: 'succeeded',
        timing: { startedAt: '2026-12-01T10:00:00.000Z', endedAt: '2026-12-01T10:00:00.120Z', durationMs: 120 },
        result: { isError: false, bytes: 321, sha256: 'b'.repeat(64) },
      },
    ],
  },
  tokenProfile: {
    v1: [
      { v: 1, tools: [] },
      { v: 1, tools: [{ serverId: 'builtin-notes', tool: 'search', name: 'notes__search' }] },
    ],
  },
} as const;
