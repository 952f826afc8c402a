'use client';

import { ArgumentsForm } from './arguments-form';
import { templateAttachment, type ComposerAttachment, type ResourceItem } from './composer-offers';
import type { OfferOption } from './offer-list';

/**
 * The `@` picker's parts: how a resource or a template reads in the list, and the form a
 * template opens to ask for its variables (the URI is built as RFC 6570 says, in the browser).
 */

export function resourceOption(item: ResourceItem): OfferOption {
  if (item.kind === 'template') {
    return {
      key: item.key,
      title: item.template.title ?? item.template.name,
      detail: item.template.uriTemplate,
      server: item.serverName,
      note: 'template',
    };
  }
  const r = item.resource;
  return { key: item.key, title: r.title ?? r.name, detail: r.uri, server: item.serverName, note: r.mimeType };
}

export function TemplateForm({
  item,
  onAttach,
  onCancel,
}: {
  item: Extract<ResourceItem, { kind: 'template' }>;
  onAttach: (attachment: ComposerAttachment) => void;
  onCancel: () => void;
}) {
  const t = item.template;
  return (
    <ArgumentsForm
      title={t.title ?? t.name}
      server={item.serverName}
      description={t.description ? `${t.description} (${t.uriTemplate})` : t.uriTemplate}
      fields={t.variables.map((name) => ({ name, required: true }))}
      submitLabel="Attach"
      problemsOf={(values) => Object.fromEntries(t.variables.filter((v) => !values[v]?.trim()).map((v) => [v, 'Required.']))}
      onCancel={onCancel}
      onSubmit={(values) => {
        const attachment = templateAttachment(item, values);
        if (attachment) onAttach(attachment);
      }}
    />
  );
}
