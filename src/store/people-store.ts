/**
 * Invitations and failed sign-ins (docs/semantics.md, "Invitations", "Sign-in limits"): what
 * people need of the store beyond users and memberships (AccountStore). Kept in the store, not in
 * a process, so every process on one database sees the same invitations and counts the same failures.
 */
export interface PeopleStore {
  /**
   * Records an invitation of a member. Earlier unused invitations of the same person to the same
   * organization are withdrawn in the same transaction: only the newest link works.
   */
  createInvitation(invitation: NewInvitation): Promise<void>;
  /** The invitation of that token hash with its person and organization, used or expired too. */
  getInvitation(tokenHash: string): Promise<InvitationDetails | undefined>;
  /**
   * Uses an invitation, in one transaction: marks it used (once: a second use is 400, even when two
   * race), sets the person's password hash (and display name when given), and ends the person's
   * sessions everywhere (a reset password signs out the browsers that knew the old one). Throws
   * NOT_FOUND for an unknown token, INVALID_INPUT when used, expired, no longer allowed to set the
   * password (domain/people.ts linkMaySetPassword), or the person is no longer a member of the organization.
   */
  acceptInvitation(tokenHash: string, passwordHash: string, name: string | null, now: number): Promise<InvitationDetails>;
  /** One failed sign-in under each key; failures before `pruneBefore` (of any key) are deleted on the way. */
  recordSignInFailure(keys: readonly string[], now: number, pruneBefore: number): Promise<void>;
  /** The times of the key's failures since `since`, newest first, at most `limit`. */
  listSignInFailures(key: string, since: number, limit: number): Promise<number[]>;
  /** Whether any person has a password (the UI's API-key sign-in is then off). */
  anyPasswordSet(): Promise<boolean>;
  /** Forgets the key's failures (a successful sign-in of the account). */
  clearSignInFailures(key: string): Promise<void>;
}

export interface NewInvitation {
  /** SHA-256 of the link's token (domain/people.ts); the token itself is never stored. */
  tokenHash: string;
  orgId: string;
  userId: string;
  /** The admin who invited; null from the CLI. */
  createdBy: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface Invitation extends NewInvitation {
  usedAt: number | null;
}

export interface InvitationDetails extends Invitation {
  orgSlug: string;
  email: string | null;
  name: string;
  /** Whether the person has a password already. */
  hasPassword: boolean;
  /** How many organizations besides this one the person belongs to (domain/people.ts linkMaySetPassword). */
  otherOrganizations: number;
}
