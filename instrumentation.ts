// Runs once when the server starts. Node-only work lives in its own module, imported only on
// the Node.js runtime (the Edge build of this file must not see it).
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startServer } = await import('./lib/server/startup');
    await startServer();
  }
}
