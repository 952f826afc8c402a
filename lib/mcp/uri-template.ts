/**
 * RFC 6570 URI templates, as MCP resource templates use them (`notes://{name}`,
 * `files{/path*}{?rev}`): the variables a template asks for, and the URI once they are filled
 * in. Pure and small, so the composer's resource picker can use it in the browser; checked
 * against the SDK's own `UriTemplate` in its test.
 */

const EXPRESSION = /\{([+#./;?&]?)([^{}]+)\}/g;

interface Operator {
  first: string;
  separator: string;
  named: boolean;
  /** `+` and `#` keep reserved characters (`/`, `?`, …) as they are. */
  reserved: boolean;
  /** What a named variable with an empty value shows (`;x` vs `?x=`). */
  ifEmpty: string;
}

const OPERATORS: Record<string, Operator> = {
  '': { first: '', separator: ',', named: false, reserved: false, ifEmpty: '' },
  '+': { first: '', separator: ',', named: false, reserved: true, ifEmpty: '' },
  '#': { first: '#', separator: ',', named: false, reserved: true, ifEmpty: '' },
  '.': { first: '.', separator: '.', named: false, reserved: false, ifEmpty: '' },
  '/': { first: '/', separator: '/', named: false, reserved: false, ifEmpty: '' },
  ';': { first: ';', separator: ';', named: true, reserved: false, ifEmpty: '' },
  '?': { first: '?', separator: '&', named: true, reserved: false, ifEmpty: '=' },
  '&': { first: '&', separator: '&', named: true, reserved: false, ifEmpty: '=' },
};

function names(spec: string): string[] {
  return spec
    .split(',')
    .map((v) => v.replace(/\*$/, '').replace(/:\d+$/, '').trim())
    .filter(Boolean);
}

/** The template's variables, in order, each once. */
export function templateVariables(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(EXPRESSION)) for (const n of names(m[2]!)) if (!out.includes(n)) out.push(n);
  return out;
}

function encode(value: string, reserved: boolean): string {
  return reserved
    ? encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1')
    : encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The URI with each variable filled in (a variable left out is dropped, as RFC 6570 says). */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_, op: string, spec: string) => {
    const o = OPERATORS[op] ?? OPERATORS['']!;
    const parts = names(spec).flatMap((n) => {
      const value = values[n];
      if (value === undefined) return [];
      const encoded = encode(value, o.reserved);
      if (!o.named) return [encoded];
      return [value === '' ? `${n}${o.ifEmpty}` : `${n}=${encoded}`];
    });
    return parts.length ? o.first + parts.join(o.separator) : '';
  });
}
