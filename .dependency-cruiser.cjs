// The layer table of docs/ARCHITECTURE.md as rules: `npm test` and `npm run lint` run
// `depcruise app lib db --config .dependency-cruiser.cjs`, which fails on any import the table
// does not allow. Change the table here and in ARCHITECTURE.md together, and say why there.
// Tests (*.test.ts) and type-checked examples may wire anything together and are not checked.

/**
 * Which other folders of lib/ each folder may import. Every folder may also import db/, the
 * files at the top of lib/ (data-dir, file-bytes, limits, log-safe, process-singleton) and lib/config (the
 * environment, read once); lib/server, the process wiring, may import everything.
 */
const EVERYONE_MAY_IMPORT = ['config'];

const LIB_MAY_IMPORT = {
  config: [],
  model: [],
  secrets: [],
  http: [],
  files: ['http'],
  mcp: ['secrets'],
  audit: ['secrets'],
  consent: ['mcp', 'audit', 'agent', 'http'],
  agent: ['mcp', 'consent', 'model', 'audit'],
  auth: ['http', 'audit', 'consent', 'orgs'],
  orgs: ['http'],
  account: ['auth', 'audit', 'consent', 'http', 'files'],
  servers: ['mcp', 'secrets', 'http', 'consent', 'orgs'],
  chat: ['agent', 'mcp', 'model', 'http', 'files'],
  share: ['agent', 'chat', 'http', 'files', 'consent'],
  ops: ['agent', 'audit', 'auth', 'secrets', 'share', 'files'],
  // `chat`: switchboard_ask starts a turn as the web chat does (lib/chat/client-turn.ts).
  gateway: ['agent', 'chat', 'mcp', 'consent', 'audit', 'auth', 'http'],
  // Switchboard's own authorization server: the token format and hashing of lib/auth, /mcp's
  // resource URL of lib/gateway, the URL guard of lib/mcp for client metadata documents.
  'oauth-server': ['auth', 'gateway', 'mcp', 'http'],
};

/** What lib/consent may use of the engine: the offer it shows in the Tools panel, exactly as the engine makes it. */
const CONSENT_MAY_USE_OF_AGENT = ['tool-host', 'step-offer', 'tool-budget'];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const TEST_FILES = '\\.test\\.tsx?$|\\.examples\\.ts$';

const libRules = Object.entries(LIB_MAY_IMPORT).map(([folder, allowed]) => ({
  name: `lib/${folder} imports only ${allowed.length ? allowed.map((a) => `lib/${a}`).join(', ') + ',' : ''} db and lib's top files`,
  severity: 'error',
  from: { path: `^lib/${escape(folder)}/`, pathNot: TEST_FILES },
  to: {
    path: '^lib/[^/]+/',
    pathNot: `^lib/(${[folder, ...allowed, ...(folder === 'config' ? [] : EVERYONE_MAY_IMPORT)].map(escape).join('|')})/`,
  },
}));

module.exports = {
  forbidden: [
    ...libRules,
    {
      name: 'lib/consent uses of the engine only what the Tools panel shows (the step offer)',
      severity: 'error',
      from: { path: '^lib/consent/', pathNot: TEST_FILES },
      to: { path: '^lib/agent/', pathNot: `^lib/agent/(${CONSENT_MAY_USE_OF_AGENT.join('|')})\\.ts$` },
    },
    {
      name: 'lib/agent, lib/mcp, lib/consent and lib/model run from plain Node: no Next.js or React',
      severity: 'error',
      from: { path: '^lib/(agent|mcp|consent|model)/', pathNot: TEST_FILES },
      to: { path: '(^|/)node_modules/(next|react|react-dom)/' },
    },
    {
      name: 'in lib/, only the runtime and the page sessions touch Next.js',
      severity: 'error',
      from: { path: '^lib/', pathNot: `^lib/server/(runtime|page-session)\\.ts$|${TEST_FILES}` },
      to: { path: '(^|/)node_modules/next/' },
    },
    {
      name: 'lib/ never imports app/',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^app/' },
    },
    {
      name: 'db/ is the bottom layer: it imports nothing of lib/ or app/',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(lib|app)/' },
    },
    {
      name: 'route handlers reach the database through lib/ only (db/vocabulary and db/stored-json are shared words and shapes)',
      severity: 'error',
      from: { path: '^app/api/', pathNot: TEST_FILES },
      to: { path: '^db/', pathNot: '^db/(vocabulary|stored-json)\\.ts$' },
    },
    {
      name: 'components read views and pure helpers: no database, no process wiring',
      severity: 'error',
      from: { path: '^app/_components/', pathNot: TEST_FILES },
      to: { path: '^(db/(connection|schema|tables/|queries/)|lib/server/)' },
    },
    {
      // A cycle of type-only imports costs nothing at run time; a cycle of values decides which
      // module is half-initialised when the other reads it.
      name: 'no circular imports of values between modules',
      severity: 'error',
      from: { pathNot: TEST_FILES },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: `${TEST_FILES}|^\\.next` },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    combinedDependencies: false,
  },
};
