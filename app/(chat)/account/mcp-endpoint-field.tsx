'use client';

import { useSyncExternalStore } from 'react';

import { CopyField } from '@/app/_components/ui';

const noChange = () => () => {};

/**
 * The URL an MCP client is given (Switchboard's `/mcp` on the origin the person reached the app
 * by), with a copy button. Rendered on the server without an origin, then filled in the browser.
 */
export function McpEndpointField() {
  const origin = useSyncExternalStore(
    noChange,
    () => window.location.origin,
    () => '',
  );
  const url = origin ? `${origin}/mcp` : '/mcp';
  return (
    <CopyField
      label="MCP endpoint"
      id="mcp-endpoint"
      value={url}
      copyLabel="Copy MCP endpoint URL"
      hint={
        <>
          Add it to your MCP client as a Streamable HTTP server with the header{' '}
          <code className="font-mono text-[12px]">Authorization: Bearer sbp_…</code> (one of the tokens below).
        </>
      }
    />
  );
}
