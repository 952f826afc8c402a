// The Content-Security-Policy of pages is set per request, with a nonce, in proxy.ts. API
// responses are JSON or SSE and never rendered as documents; they get the same frame and
// sniffing protections below.
/** @type {import('next').NextConfig} */
const nextConfig = {
  // NEXT_DIST_DIR: a build folder of its own (e.g. `.next-first-run`), so a test can start `next dev`
  // from a cold folder while other runs keep `.next`. The pattern `.next-*/` is git- and lint-ignored.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // SWITCHBOARD_TEST_BUILD=1 (npm test, scripts/test-all.mjs): the type check already ran as the suite's
  // first step, and a clean clone builds once, so writing Turbopack's build cache is time spent for nothing.
  typescript: { ignoreBuildErrors: process.env.SWITCHBOARD_TEST_BUILD === '1' },
  experimental: { turbopackFileSystemCacheForBuild: process.env.SWITCHBOARD_TEST_BUILD !== '1' },
  poweredByHeader: false,
  // The embedded database and its WASM stay outside the bundle. The Anthropic SDK too: bundled, each
  // route got its own copy of its classes, so an error thrown by the runtime's client (built by
  // whichever route came first) failed `instanceof Anthropic.APIError` in another route's engine —
  // no retry of a 429 / 529, and the provider's JSON shown as the failure (test/faults/bad-peers.test.ts).
  serverExternalPackages: ['@electric-sql/pglite', 'pg', '@anthropic-ai/sdk'],
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
        ],
      },
      // Shared conversations, the page and its JSON (lib/share/headers.ts says why): after the rule
      // above, so these win over its Referrer-Policy (the routes set the same, but this list is applied last).
      ...['/share/:token*', '/api/share/:token*'].map((source) => ({
        source,
        headers: [
          { key: 'Cache-Control', value: 'no-store' },
          { key: 'Referrer-Policy', value: 'no-referrer' },
          { key: 'X-Robots-Tag', value: 'noindex, nofollow' },
        ],
      })),
      // A tool call's interactive view is framed by our own pages (its CSP says frame-ancestors 'self').
      {
        source: '/api/tool-calls/:id/view',
        headers: [{ key: 'X-Frame-Options', value: 'SAMEORIGIN' }],
      },
    ];
  },
};

export default nextConfig;
