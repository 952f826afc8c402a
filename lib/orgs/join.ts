import type { Db } from '@/db/connection';
import { addMembership, findOrgByJoinDomain, findOrgName } from '@/db/queries/orgs';
import type { UserRow } from '@/db/queries/users';

/**
 * Just-in-time membership for an account single sign-on just created: the organization whose
 * join domain is the email's domain takes the person as a member — only when the provider
 * vouched for the address (anyone can type any address into an IdP that does not check).
 * Returns the organization joined, or null.
 */
export async function joinByEmailDomain(
  db: Db,
  user: UserRow,
  identity: { email: string | null; emailVerified: boolean },
): Promise<string | null> {
  if (!identity.emailVerified || !identity.email) return null;
  const domain = identity.email.trim().toLowerCase().split('@').pop();
  if (!domain) return null;
  const org = await findOrgByJoinDomain(db, domain);
  if (!org) return null;
  await addMembership(db, org.id, user.id, 'member');
  return org.id;
}

/**
 * AUTH_OIDC_ORG: the organization the operator's OIDC provider maps to. Everyone whose account
 * that IdP creates joins it as a member (the IdP is the company's own: being able to sign in there
 * is the membership). False when the configured organization does not exist (the sign-in goes on).
 */
export async function joinIssuerOrg(db: Db, user: UserRow, orgId: string | undefined): Promise<boolean> {
  if (!orgId) return false;
  if ((await findOrgName(db, orgId)) === null) {
    console.error(`[auth] AUTH_OIDC_ORG names no organization (${orgId}): the new account joined none`);
    return false;
  }
  await addMembership(db, orgId, user.id, 'member');
  return true;
}
