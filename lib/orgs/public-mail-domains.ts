/*
 * Email domains anyone can have an address at. A join domain brings every verified single sign-on
 * from its domain into an organization, so one of these would let the first person to claim it
 * (verified there like millions of others) take strangers in as members: their usage and tool
 * metadata shown to that organization's admins, its policy over their tools. Refused as join
 * domains (lib/orgs/orgs.ts). The list covers the providers most sign-ins come from; a company
 * domain is what a join domain is for.
 */
const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'mail.com',
  'zoho.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'qq.com',
  '163.com',
  '126.com',
  'fastmail.com',
  'hey.com',
  'tutanota.com',
  'users.noreply.github.com',
]);

/** Whether `domain` (lower case) is a public email provider's, or a regional variant of one (`yahoo.co.uk`, `hotmail.fr`). */
export function isPublicMailDomain(domain: string): boolean {
  if (PUBLIC_MAIL_DOMAINS.has(domain)) return true;
  const [name] = domain.split('.');
  return ['gmail', 'hotmail', 'outlook', 'live', 'yahoo', 'gmx', 'yandex'].includes(name ?? '') && domain.split('.').length <= 3;
}
