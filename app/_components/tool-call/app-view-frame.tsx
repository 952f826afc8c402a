'use client';

import { AppBridge, PostMessageTransport, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { ExternalLink, LayoutPanelTop, Minimize2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';

import { api } from '../api';
import { useComposerDraft } from '../composer/composer-draft';
import { useTheme } from '../theme/theme-provider';
import type { CardToolCall, ToolCallView } from '../types';
import { Button, CodeBlock } from '../ui/index';
import { ApprovalCard } from './approval-card';
import { SignInCard } from './sign-in-card';
import { toolResultOf, useViewCalls } from './use-view-calls';

/**
 * A tool call's interactive view (MCP Apps), inline in its card once the call has a result. The
 * view is untrusted HTML from the tool's server, so it runs in a frame sandboxed to scripts only
 * (an opaque origin: none of Switchboard's cookies, storage or DOM; no popups, forms or top
 * navigation), loaded from `/api/tool-calls/:id/view`, which adds its own CSP (no network unless
 * the server declared domains). Everything between the page and the view goes through the
 * official host bridge (`AppBridge` over `PostMessageTransport`), never a protocol of our own.
 *
 * What the view may ask in this release: its size (kept under MAX_HEIGHT), and tool calls of its
 * own server, each decided like the model's (an approval card under the view when it needs the
 * person, saying the view asked); a message, which goes into the composer and is sent only if the
 * person sends it; its context for the model, stored with the call and shown here. It may not open
 * a link without the person's click on the card's button.
 */

const MIN_HEIGHT = 60;
const MAX_HEIGHT = 640;

function resolvedTheme(preference: string): 'light' | 'dark' {
  if (preference === 'light' || preference === 'dark') return preference;
  return typeof matchMedia !== 'undefined' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The text blocks of a view's message, joined: what goes into the composer. */
function textOf(content: { type: string; text?: unknown }[] | undefined): string {
  return (content ?? [])
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n')
    .trim();
}

export function AppViewFrame({ call }: { call: CardToolCall }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const bridgeRef = useRef<AppBridge | null>(null);
  const { preference } = useTheme();
  const theme = resolvedTheme(preference);
  const [height, setHeight] = useState(160);
  // Inline in the card, or over the whole page at the view's request (the person can always come back).
  const [mode, setMode] = useState<'inline' | 'fullscreen'>('inline');
  const modeRef = useRef(mode);
  const [askedLink, setAskedLink] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [sharedContext, setSharedContext] = useState(call.viewContext);
  const draft = useComposerDraft();
  const latestDraft = useRef(draft);
  const viewCalls = useViewCalls(call.id);
  const latestCalls = useRef(viewCalls.callTool);
  // The latest call, for the bridge's handlers, without reconnecting when the card re-renders.
  const latest = useRef(call);
  const themeRef = useRef(theme);
  useEffect(() => {
    latest.current = call;
    themeRef.current = theme;
    latestCalls.current = viewCalls.callTool;
    latestDraft.current = draft;
    modeRef.current = mode;
  });

  useEffect(() => {
    const iframe = frame.current;
    const win = iframe?.contentWindow;
    const callId = call.id;
    if (!iframe || !win) return;
    const context = (): McpUiHostContext => ({
      theme: themeRef.current,
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      displayMode: modeRef.current,
      availableDisplayModes: ['inline', 'fullscreen'],
      platform: 'web',
      containerDimensions: { maxHeight: MAX_HEIGHT, width: iframe.clientWidth },
    });
    const capabilities = {
      openLinks: {},
      serverTools: {},
      message: { text: {} },
      updateModelContext: { text: {}, structuredContent: {} },
    };
    const bridge = new AppBridge(null, { name: 'Switchboard', version: '1.0.0' }, capabilities, { hostContext: context() });
    bridge.oninitialized = () => {
      const current = latest.current;
      void bridge.sendToolInput({ arguments: (current.input ?? {}) as Record<string, unknown> });
      if (current.result) void bridge.sendToolResult(toolResultOf(current));
    };
    bridge.onsizechange = ({ height: asked }) => {
      if (typeof asked === 'number' && Number.isFinite(asked)) setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(asked))));
    };
    // The view's tool calls go through the person's consent (./use-view-calls.ts).
    bridge.oncalltool = async ({ name, arguments: args }) => latestCalls.current(name, args ?? {});
    // A view never speaks for the person: its text goes into the composer, for them to send or not.
    bridge.onmessage = async ({ content }) => {
      const text = textOf(content);
      if (!text || !latestDraft.current) {
        setNotice('The view asked to send a message that has no text; nothing was put in your composer.');
        return { isError: true };
      }
      latestDraft.current.fill(text);
      setNotice('The view put a message in your composer. It is sent only if you send it.');
      return {};
    };
    // What the view says the model should know: stored with this call and shown on the card.
    bridge.onupdatemodelcontext = async ({ content, structuredContent }) => {
      const { toolCall } = await api<{ toolCall: ToolCallView }>(`/api/tool-calls/${encodeURIComponent(callId)}/view/context`, {
        method: 'PUT',
        body: { ...(content && { content }), ...(structuredContent && { structuredContent }) },
      });
      setSharedContext(toolCall.viewContext);
      return {};
    };
    // Fullscreen and back, as the view asks; picture-in-picture is not offered, so it stays inline.
    bridge.onrequestdisplaymode = async ({ mode: asked }) => {
      const next = asked === 'fullscreen' ? 'fullscreen' : 'inline';
      setMode(next);
      return { mode: next };
    };
    // A link opens only from the person's click on the card's button, never from the view alone.
    bridge.onopenlink = async ({ url }) => {
      // Web pages only: a javascript: or data: link would run in a window of its own.
      if (!/^https?:\/\//i.test(url)) {
        setNotice('The view asked to open a link that is not a web page; Switchboard does not open it.');
        return { isError: true };
      }
      setAskedLink(url);
      return { isError: true };
    };
    bridgeRef.current = bridge;
    let connected = false;
    // Listening before the frame loads: the view's first request (ui/initialize) comes at once.
    void bridge.connect(new PostMessageTransport(win, win)).then(() => {
      connected = true;
      iframe.src = `/api/tool-calls/${encodeURIComponent(call.id)}/view`;
    });
    return () => {
      bridgeRef.current = null;
      // Teardown: the view is told it goes away (it may save state), then the channel closes.
      const close = () => void bridge.close().catch(() => {});
      if (connected && bridge.getAppCapabilities()) {
        void bridge
          .teardownResource({}, { timeout: 500 })
          .catch(() => {})
          .finally(close);
      } else close();
    };
  }, [call.id]);

  // The view is told its new mode and room; Escape brings a fullscreen view back into its card.
  useEffect(() => {
    const bridge = bridgeRef.current;
    const iframe = frame.current;
    if (bridge?.getAppCapabilities() && iframe) {
      const room =
        mode === 'fullscreen'
          ? { width: iframe.clientWidth, height: iframe.clientHeight }
          : { maxHeight: MAX_HEIGHT, width: iframe.clientWidth };
      void bridge.sendHostContextChange({ displayMode: mode, containerDimensions: room });
    }
    if (mode !== 'fullscreen') return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMode('inline');
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [mode]);

  // The theme follows the page's while the view is open.
  useEffect(() => {
    const bridge = bridgeRef.current;
    if (bridge?.getAppCapabilities()) void bridge.sendHostContextChange({ theme });
  }, [theme]);

  return (
    <div className="border-t border-border" data-testid="app-view" data-display-mode={mode}>
      {/* The same element in both modes, only its classes change: moving the frame would reload the view. */}
      <div
        className={mode === 'fullscreen' ? 'fixed inset-0 z-50 flex flex-col bg-surface' : undefined}
        role={mode === 'fullscreen' ? 'dialog' : undefined}
        aria-modal={mode === 'fullscreen' ? true : undefined}
        aria-label={mode === 'fullscreen' ? `Interactive view from ${call.server ?? 'the server'}` : undefined}
      >
        <div
          className={
            mode === 'fullscreen'
              ? 'flex items-center gap-1.5 border-b border-border px-4 py-2 text-xs text-muted'
              : 'flex items-center gap-1.5 px-4 pt-2 text-xs text-muted'
          }
        >
          <LayoutPanelTop className="size-3.5 shrink-0" aria-hidden />
          <span className="min-w-0 flex-1">Interactive view from {call.server ?? 'the server'}</span>
          {mode === 'fullscreen' && (
            <Button size="sm" icon={Minimize2} onClick={() => setMode('inline')}>
              Back to the conversation
            </Button>
          )}
        </div>
        <iframe
          ref={frame}
          title={`Interactive view of ${call.server ?? ''} ${call.tool ?? ''}`.trim()}
          // Scripts only: no allow-same-origin (it would share our origin), no popups, forms or top navigation.
          sandbox="allow-scripts"
          referrerPolicy="no-referrer"
          className={mode === 'fullscreen' ? 'block w-full flex-1 border-0 bg-transparent' : 'block w-full border-0 bg-transparent'}
          style={mode === 'fullscreen' ? undefined : { height }}
          data-testid="app-view-frame"
        />
      </div>
      {sharedContext && (
        <div className="px-4 pb-2.5" data-testid="app-view-context">
          <p className="text-xs text-muted">
            The view shared this for the model’s context (it goes before the model with your next message):
          </p>
          <CodeBlock wrap maxHeight="sm">
            {[sharedContext.text, sharedContext.structured && JSON.stringify(sharedContext.structured, null, 2)].filter(Boolean).join('\n')}
          </CodeBlock>
        </div>
      )}
      {viewCalls.asks.length > 0 && (
        <div className="space-y-2 px-4 pb-2.5" data-testid="app-view-asks">
          {viewCalls.asks.map((ask) => (
            <ApprovalCard key={ask.id} call={ask} onDecide={viewCalls.decide} />
          ))}
        </div>
      )}
      {viewCalls.signIn && (
        <div className="px-4 pb-2.5" data-testid="app-view-sign-in">
          <SignInCard call={viewCalls.signIn} onStop={viewCalls.dismissSignIn} after="Once you are back, ask the view again." />
        </div>
      )}
      {viewCalls.outcome && (
        <p className="px-4 pb-2.5 text-xs text-muted" role="status" data-testid="app-view-call-outcome">
          {viewCalls.outcome}
        </p>
      )}
      {(notice || askedLink) && (
        <div className="space-y-1.5 px-4 pb-2.5 text-xs text-muted" role="status" data-testid="app-view-notice">
          {notice && <p>{notice}</p>}
          {askedLink && (
            <p className="flex flex-wrap items-center gap-2">
              <span className="break-all">The view asks to open {askedLink}.</span>
              <Button
                size="sm"
                icon={ExternalLink}
                onClick={() => {
                  window.open(askedLink, '_blank', 'noopener,noreferrer');
                  setAskedLink(null);
                }}
              >
                Open link
              </Button>
            </p>
          )}
        </div>
      )}
    </div>
  );
}
